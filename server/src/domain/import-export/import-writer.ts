/**
 * @module import-export/import-writer
 * The port an import plan writes through (declared by the plan, implemented by
 * repositories/import-write.repository.ts on one transaction, and in memory by the test fakes).
 */
import type { ExportLoan } from './json-format.ts';
import type { MovieRow } from './library-rows.ts';

/** The columns an import may change on a stored movie. */
export type MoviePatch = Partial<Omit<MovieRow, 'id'>>;
/** A movie the import creates (never enriched yet). */
export type NewMovieRow = Omit<MovieRow, 'id' | 'enriched_at'>;
/** A row an INSERT created, by the name it was given. */
export interface NamedRow {
  id: number;
  name: string;
}
export interface NewEditionRow {
  movie_id: number;
  label: string | null;
  format: string | null;
  barcode: string | null;
  region: string | null;
  created_at: string;
}
export interface NewCopyRow {
  movie_id: number;
  edition_id: number | null;
  binder_id: number | null;
  slot: string | null;
  notes: string | null;
  created_at: string;
}
export interface NewMediaFileRow {
  movie_id: number;
  edition_id: number | null;
  library_root_id: number;
  relative_path: string;
  size_bytes: number;
  fingerprint: string | null;
  edition_label: string | null;
  now: string;
}
export interface ArtworkStateValues {
  poster_state: string;
  poster_source: string | null;
  poster_path: string | null;
  backdrop_state: string;
  backdrop_source: string | null;
  backdrop_path: string | null;
}
export interface WatchValues {
  /** Whose state: the importing person; null: the first admin (the CLI, which has no person). */
  user_id: number | null;
  position_seconds: number;
  watched: number;
  updated_at: string;
}

/**
 * Every write an import makes, one method each. The plan (import-plan.ts) only calls this port;
 * repositories/import-write.repository.ts runs it on a Kysely transaction, tests may record it.
 */
export interface ImportWriter {
  insertCollection(name: string, now: string): Promise<number>;
  insertRoot(row: {
    path: string;
    name: string;
    collection_id: number | null;
    created_at: string;
  }): Promise<number>;
  updateRoot(id: number, values: { name: string; collection_id: number | null }): Promise<void>;
  /** Many binders in one INSERT (names are unique); RETURNING gives the rows in no promised order. */
  insertBinders(
    rows: { name: string; capacity: number; slots_per_page: number; created_at: string }[],
  ): Promise<NamedRow[]>;
  setBinderCapacity(id: number, capacity: number): Promise<void>;
  /** Slots per drawn page (issue 27; a new binder has 8). */
  setBinderSlotsPerPage(id: number, slotsPerPage: number): Promise<void>;
  /** Many people in one INSERT, one row a name; RETURNING gives the rows in no promised order. */
  insertPersons(names: string[]): Promise<NamedRow[]>;
  /** Many studios in one INSERT, one row a name; RETURNING gives the rows in no promised order. */
  insertStudios(names: string[]): Promise<NamedRow[]>;
  /** Many movies in one INSERT; RETURNING gives the rows in no promised order. */
  insertMovies(
    rows: NewMovieRow[],
  ): Promise<
    { id: number; title: string; year: number | null; tmdb_id: number | null; imdb_id: string | null }[]
  >;
  updateMovie(id: number, patch: MoviePatch): Promise<void>;
  /** Many editions in one INSERT; RETURNING gives the rows in no promised order. */
  insertEditions(rows: NewEditionRow[]): Promise<(Omit<NewEditionRow, 'created_at'> & { id: number })[]>;
  updateEdition(
    id: number,
    patch: { label?: string; format?: string; region?: string; barcode?: string },
  ): Promise<void>;
  insertCopies(rows: NewCopyRow[]): Promise<void>;
  /** One copy and its loans (issue 27; at most one of them without returned_at). */
  insertLentCopy(row: NewCopyRow, loans: readonly ExportLoan[]): Promise<void>;
  /**
   * Adds the loans a stored copy does not have (same borrower and start); an open loan is skipped
   * when the copy is out already (one open loan per copy).
   */
  mergeLoans(copyId: number, loans: readonly ExportLoan[], now: string): Promise<void>;
  setCopyNotes(id: number, notes: string): Promise<void>;
  upsertRating(movieId: number, source: string, value: string, now: string): Promise<void>;
  /** Replaces a movie's cast (or directors) with these people, in billing order. */
  replaceCredits(movieId: number, kind: 'cast' | 'director', personIds: number[]): Promise<void>;
  replaceStudios(movieId: number, studioIds: number[]): Promise<void>;
  upsertArtwork(movieId: number, values: ArtworkStateValues, fetchedAt: string | null): Promise<void>;
  insertMediaFile(row: NewMediaFileRow): Promise<number>;
  moveMediaFile(
    id: number,
    values: { movie_id: number; edition_id?: number; updated_at: string },
  ): Promise<void>;
  upsertWatch(mediaFileId: number, movieId: number, values: WatchValues): Promise<void>;
}
