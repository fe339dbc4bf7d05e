import {
  groupImportRows,
  type ImportRow,
  type LibraryExport,
} from '../../../src/domain/import-export/index.ts';
import { normalizeTitle, sortTitle } from '../../../src/domain/titles.ts';
import type {
  BinderRow,
  CopyRow,
  EditionRow,
  MovieRow,
} from '../../../src/domain/import-export/library-rows.ts';
import type { ImportWriter } from '../../../src/domain/import-export/import-writer.ts';
import {
  type InMovie,
  itemsFromDocument,
  itemsFromGroups,
  type Snapshot,
  type SnapshotExtras,
} from '../../../src/domain/import-export/import-items.ts';
import { importRow } from './rows.ts';

export const NOW = '2026-01-02T03:04:05.000Z';

/** A stored movie row with every optional column empty. */
export function movieRow(fields: Partial<MovieRow> & Pick<MovieRow, 'id' | 'title'>): MovieRow {
  return {
    sort_title: sortTitle(fields.title),
    normalized_title: normalizeTitle(fields.title),
    original_title: null,
    year: null,
    overview: null,
    tagline: null,
    runtime_minutes: null,
    tmdb_id: null,
    imdb_id: null,
    genres_json: null,
    tmdb_collection_id: null,
    tmdb_collection_name: null,
    binder_id: null,
    has_digital_store_a: 0,
    has_digital_store_b: 0,
    watched: 0,
    enriched_at: null,
    created_at: NOW,
    updated_at: NOW,
    ...fields,
  };
}

export function editionRow(fields: Partial<EditionRow> & Pick<EditionRow, 'id' | 'movie_id'>): EditionRow {
  return { label: null, format: null, barcode: null, region: null, created_at: NOW, ...fields };
}

export function copyRow(fields: Partial<CopyRow> & Pick<CopyRow, 'id' | 'movie_id'>): CopyRow {
  return { edition_id: null, binder: null, slot: null, notes: null, ...fields };
}

export function snapshot(parts: Partial<Snapshot> = {}): Snapshot {
  return { movies: [], editions: [], copies: [], binders: [], extras: null, ...parts };
}

export function extras(parts: Partial<SnapshotExtras> = {}): SnapshotExtras {
  return {
    collections: [],
    roots: [],
    mediaFiles: [],
    watch: [],
    ratings: [],
    credits: [],
    movieStudios: [],
    persons: [],
    studios: [],
    artwork: [],
    loans: [],
    ...parts,
  };
}

export function binderRow(id: number, name: string, capacity = 100): BinderRow {
  return { id, name, capacity, slots_per_page: 8, created_at: NOW };
}

/** CSV lines as the import reads them (grouped into movies), line numbers from 2. */
export function csvItems(rows: (Partial<ImportRow> & Pick<ImportRow, 'title'>)[]): InMovie[] {
  return itemsFromGroups(groupImportRows(rows.map((r, i) => importRow({ line: i + 2, ...r }))));
}

/** A JSON document's items (the document is taken as already validated). */
export function jsonItems(doc: LibraryExport): InMovie[] {
  return itemsFromDocument(doc);
}

export function exportMovie(
  fields: Partial<LibraryExport['movies'][number]> & { title: string },
): LibraryExport['movies'][number] {
  return {
    original_title: null,
    year: null,
    overview: null,
    tagline: null,
    runtime_minutes: null,
    tmdb_id: null,
    imdb_id: null,
    genres: [],
    tmdb_collection: null,
    binder: null,
    has_digital_store_a: false,
    has_digital_store_b: false,
    watched: false,
    ratings: [],
    directors: [],
    cast: [],
    studios: [],
    artwork: null,
    editions: [],
    copies: [],
    media_files: [],
    ...fields,
  };
}

export interface RecordedWrite {
  method: keyof ImportWriter;
  args: unknown[];
}

/**
 * An ImportWriter that records each call and hands out ids from 1000 up, so a test can read what a
 * plan would write, in order, and that every id a write uses was handed out by an earlier one.
 */
export function recordingWriter(): { writer: ImportWriter; writes: RecordedWrite[] } {
  const writes: RecordedWrite[] = [];
  let next = 1000;
  const record = (method: keyof ImportWriter, args: unknown[]) => writes.push({ method, args });
  const id = async (method: keyof ImportWriter, args: unknown[]) => {
    record(method, args);
    return next++;
  };
  const done = async (method: keyof ImportWriter, args: unknown[]) => {
    record(method, args);
  };
  const writer: ImportWriter = {
    insertCollection: (...a) => id('insertCollection', a),
    insertRoot: (...a) => id('insertRoot', a),
    updateRoot: (...a) => done('updateRoot', a),
    // RETURNING promises no order: the named rows come back reversed too.
    insertBinders: async (rows) => {
      record('insertBinders', [rows]);
      return rows.map((r) => ({ id: next++, name: r.name })).reverse();
    },
    setBinderCapacity: (...a) => done('setBinderCapacity', a),
    setBinderSlotsPerPage: (...a) => done('setBinderSlotsPerPage', a),
    insertPersons: async (names) => {
      record('insertPersons', [names]);
      return names.map((name) => ({ id: next++, name })).reverse();
    },
    insertStudios: async (names) => {
      record('insertStudios', [names]);
      return names.map((name) => ({ id: next++, name })).reverse();
    },
    insertMovies: async (rows) => {
      record('insertMovies', [rows]);
      // RETURNING promises no order: give the rows back reversed.
      return rows
        .map((r) => ({ id: next++, title: r.title, year: r.year, tmdb_id: r.tmdb_id, imdb_id: r.imdb_id }))
        .reverse();
    },
    updateMovie: (...a) => done('updateMovie', a),
    insertEditions: async (rows) => {
      record('insertEditions', [rows]);
      return rows
        .map((r) => ({
          id: next++,
          movie_id: r.movie_id,
          label: r.label,
          format: r.format,
          barcode: r.barcode,
          region: r.region,
        }))
        .reverse();
    },
    updateEdition: (...a) => done('updateEdition', a),
    insertCopies: (...a) => done('insertCopies', a),
    setCopyNotes: (...a) => done('setCopyNotes', a),
    insertLentCopy: (...a) => done('insertLentCopy', a),
    mergeLoans: (...a) => done('mergeLoans', a),
    upsertRating: (...a) => done('upsertRating', a),
    replaceCredits: (...a) => done('replaceCredits', a),
    replaceStudios: (...a) => done('replaceStudios', a),
    upsertArtwork: (...a) => done('upsertArtwork', a),
    insertMediaFile: (...a) => id('insertMediaFile', a),
    moveMediaFile: (...a) => done('moveMediaFile', a),
    upsertWatch: (...a) => done('upsertWatch', a),
  };
  return { writer, writes };
}
