/**
 * @module import-export/library-rows
 * The library as an import plan reads it and as an export renders it: plain rows, declared here so
 * the pure plan (import-plan.ts, import-match.ts) needs nothing outside domain/. The repository
 * (repositories/import-export.repository.ts) returns these types; SQLite's 0/1 flags stay numbers.
 */

export interface MovieRow {
  id: number;
  title: string;
  sort_title: string;
  normalized_title: string;
  original_title: string | null;
  year: number | null;
  overview: string | null;
  tagline: string | null;
  runtime_minutes: number | null;
  tmdb_id: number | null;
  imdb_id: string | null;
  genres_json: string | null;
  tmdb_collection_id: number | null;
  tmdb_collection_name: string | null;
  binder_id: number | null;
  has_digital_store_a: number;
  has_digital_store_b: number;
  watched: number;
  enriched_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface EditionRow {
  id: number;
  movie_id: number;
  label: string | null;
  format: string | null;
  barcode: string | null;
  region: string | null;
  created_at: string;
}

export interface BinderRow {
  id: number;
  name: string;
  capacity: number;
  /** Slots per drawn page (migration 0017; 8 unless set). */
  slots_per_page: number;
  created_at: string;
}

export interface ArtworkRow {
  movie_id: number;
  poster_state: string;
  poster_source: string | null;
  poster_path: string | null;
  backdrop_state: string;
  backdrop_source: string | null;
  backdrop_path: string | null;
  fetched_at: string | null;
  error: string | null;
}

export interface WatchRow {
  media_file_id: number;
  movie_id: number | null;
  position_seconds: number;
  watched: number;
  updated_at: string;
}

export interface CopyRow {
  id: number;
  movie_id: number;
  edition_id: number | null;
  binder: string | null;
  slot: string | null;
  notes: string | null;
}

/** A loan of a copy (issue 27), as the export writes it. */
export interface CopyLoanRow {
  physical_copy_id: number;
  to: string;
  lent_at: string;
  due: string | null;
  returned_at: string | null;
}

export interface RootRow {
  id: number;
  path: string;
  name: string;
  collection: string | null;
}

export interface MediaFileRow {
  id: number;
  movie_id: number | null;
  edition_id: number | null;
  root_path: string;
  relative_path: string;
  fingerprint: string | null;
  size_bytes: number;
  edition_label: string | null;
}

export interface CreditRow {
  movie_id: number;
  name: string;
  /** `cast`, or `director` (a crew row whose job is Director). */
  kind: 'cast' | 'director';
}

/** Every whole-library read of import and export, each list in a stable order (ids, or billing order). */
export interface LibraryReads {
  movies(): Promise<MovieRow[]>;
  editions(): Promise<EditionRow[]>;
  copies(): Promise<CopyRow[]>;
  binders(): Promise<BinderRow[]>;
  collections(): Promise<{ id: number; name: string }[]>;
  roots(): Promise<RootRow[]>;
  mediaFiles(): Promise<MediaFileRow[]>;
  /** One person's watch state (null: the first admin's). */
  watchStates(userId: number | null): Promise<WatchRow[]>;
  ratings(): Promise<{ movie_id: number; source: string; value: string }[]>;
  credits(): Promise<CreditRow[]>;
  movieStudios(): Promise<{ movie_id: number; name: string }[]>;
  persons(): Promise<{ id: number; name: string }[]>;
  studios(): Promise<{ id: number; name: string }[]>;
  artwork(): Promise<ArtworkRow[]>;
  /** Every loan, in id order (the export's history). */
  loans(): Promise<CopyLoanRow[]>;
}
