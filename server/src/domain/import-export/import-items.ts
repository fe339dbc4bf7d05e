/**
 * @module import-export/import-items
 * What an import plan is made from, as data: the file's movies as {@link InMovie} items (from CSV
 * groups or a validated JSON document) and the {@link Snapshot} of the library the plan is made
 * against. Reading them is services/import/import-input.ts's work; everything here is pure.
 */
import { checkBarcode } from './barcode-check.ts';
import type {
  ArtworkRow,
  BinderRow,
  CopyLoanRow,
  CopyRow,
  CreditRow,
  EditionRow,
  MediaFileRow,
  MovieRow,
  RootRow,
  WatchRow,
} from './library-rows.ts';
import type {
  ExportArtwork,
  ExportLoan,
  ExportMediaFile,
  ExportRating,
  ImportMovieGroup,
  LibraryExport,
} from './json-format.ts';

/** Where a problem with an item is reported: CSV line + column, or JSON item + path. */
export interface At {
  row: number;
  field: string;
}

export interface InCopy {
  binder: string | null;
  slot: string | null;
  notes: string | null;
  /** From a JSON document: the copy's loans (none from CSV). */
  loans?: ExportLoan[];
  at: At;
}

export interface InEdition {
  label: string | null;
  format: string | null;
  barcode: string | null;
  region: string | null;
  copies: InCopy[];
}

export interface InFile extends ExportMediaFile {
  at: string;
}

/** One movie of the file, whatever its format. `null` means the file does not say. */
export interface InMovie {
  at: At;
  title: string;
  /** JSON restores every field; a CSV only names the movie, its ids, flags and discs. */
  full: boolean;
  original_title: string | null;
  year: number | null;
  overview: string | null;
  tagline: string | null;
  runtime_minutes: number | null;
  tmdb_id: number | null;
  imdb_id: string | null;
  genres: string[];
  tmdb_collection: { id: number; name: string | null } | null;
  binder: string | null;
  watched: boolean | null;
  has_digital_store_a: boolean | null;
  has_digital_store_b: boolean | null;
  ratings: ExportRating[];
  directors: string[];
  cast: string[];
  studios: string[];
  artwork: ExportArtwork | null;
  editions: InEdition[];
  copies: InCopy[];
  media_files: InFile[];
}

/** CSV groups as plan items: rows are reported by their line, the slot column for copies. */
export function itemsFromGroups(groups: readonly ImportMovieGroup[]): InMovie[] {
  return groups.map((g) => ({
    at: { row: g.lines[0] ?? 0, field: 'title' },
    title: g.title,
    full: false,
    original_title: null,
    year: g.year,
    overview: null,
    tagline: null,
    runtime_minutes: null,
    tmdb_id: g.tmdbId,
    imdb_id: g.imdbId,
    genres: [],
    tmdb_collection: null,
    binder: null,
    watched: g.watched,
    has_digital_store_a: g.hasDigitalStoreA,
    has_digital_store_b: g.hasDigitalStoreB,
    ratings: [],
    directors: [],
    cast: [],
    studios: [],
    artwork: null,
    editions: g.editions.map((e) => ({
      label: e.label,
      format: e.format,
      barcode: e.barcode,
      region: null,
      copies: e.copies.map((c) => ({
        binder: c.binder,
        slot: c.slot,
        notes: null,
        at: { row: c.line, field: 'slot' },
      })),
    })),
    copies: g.copies.map((c) => ({
      binder: c.binder,
      slot: c.slot,
      notes: null,
      at: { row: c.line, field: 'slot' },
    })),
    media_files: [],
  }));
}

/** A validated JSON document's movies as plan items: rows are 1-based items, fields JSON paths. */
export function itemsFromDocument(doc: LibraryExport): InMovie[] {
  return doc.movies.map((m, i) => {
    const row = i + 1;
    const copies = (list: LibraryExport['movies'][number]['copies'], prefix: string): InCopy[] =>
      list.map((c, k) => ({ ...c, at: { row, field: `${prefix}copies/${k}/slot` } }));
    return {
      ...m,
      at: { row, field: 'title' },
      full: true,
      editions: m.editions.map((e, k) => ({ ...e, copies: copies(e.copies, `editions/${k}/`) })),
      copies: copies(m.copies, ''),
      media_files: m.media_files.map((f, k) => ({ ...f, at: `media_files/${k}` })),
    };
  });
}

/** The library as the plan sees it. `extras` is read only for JSON imports (CSV cannot touch them). */
export interface Snapshot {
  movies: MovieRow[];
  editions: EditionRow[];
  copies: CopyRow[];
  binders: BinderRow[];
  extras: SnapshotExtras | null;
}

export interface SnapshotExtras {
  collections: { id: number; name: string }[];
  roots: RootRow[];
  mediaFiles: MediaFileRow[];
  watch: WatchRow[];
  ratings: { movie_id: number; source: string; value: string }[];
  credits: CreditRow[];
  movieStudios: { movie_id: number; name: string }[];
  persons: { id: number; name: string }[];
  studios: { id: number; name: string }[];
  artwork: ArtworkRow[];
  loans: CopyLoanRow[];
}

/** Stored barcodes are GTINs; older rows may hold a plain UPC-A, which is matched by its GTIN. */
export function barcodeKey(barcode: string): string {
  const checked = checkBarcode(barcode);
  return checked.ok ? checked.barcode : barcode;
}
