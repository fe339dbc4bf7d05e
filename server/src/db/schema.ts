import type { ColumnType, Generated } from 'kysely';

/**
 * Kysely table types. Conventions that keep the SQL dialect-neutral (SQLite now, PostgreSQL later):
 * ids are integer identities, booleans are integers 0/1, timestamps are ISO-8601 UTC text,
 * structured values are JSON text.
 */
type Id = Generated<number>;
type Timestamp = string;
type Flag = number;

export interface CollectionsTable {
  id: Id;
  name: string;
  created_at: Timestamp;
}

export interface LibraryRootsTable {
  id: Id;
  path: string;
  name: string;
  collection_id: number | null;
  created_at: Timestamp;
  last_scan_at: Timestamp | null;
}

export interface BindersTable {
  id: Id;
  name: string;
  capacity: number;
  /** Slots on one page when the binder is drawn (0017); capacity is still its size. */
  slots_per_page: Generated<number>;
  created_at: Timestamp;
}

/** A film the household wants and does not own (migration 0020; docs/collector.md "Wish list"). */
export interface WishesTable {
  id: Id;
  tmdb_id: number | null;
  title: string;
  year: number | null;
  /** normalizeTitle(title): with the year, the wish's other identity. */
  normalized_title: string;
  note: string | null;
  created_at: Timestamp;
}

export interface MoviesTable {
  id: Id;
  title: string;
  sort_title: string;
  /** Lower-cased, accent- and punctuation-free title used for matching and search. */
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
  has_digital_store_a: ColumnType<Flag, Flag | undefined, Flag>;
  has_digital_store_b: ColumnType<Flag, Flag | undefined, Flag>;
  watched: ColumnType<Flag, Flag | undefined, Flag>;
  /** In REELSHELF_CERTIFICATION_COUNTRY's system (`PG-13`); from TMDb release_dates or set by hand. */
  certification: ColumnType<string | null, string | null | undefined, string | null>;
  enriched_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface DiscEditionsTable {
  id: Id;
  movie_id: number;
  label: string | null;
  format: string | null;
  barcode: string | null;
  region: string | null;
  created_at: Timestamp;
}

export interface PhysicalCopiesTable {
  id: Id;
  movie_id: number;
  edition_id: number | null;
  binder_id: number | null;
  slot: string | null;
  notes: string | null;
  created_at: Timestamp;
}

/** A disc lent out (migration 0019); `returned_at` null while it is out. */
export interface LoansTable {
  id: Id;
  physical_copy_id: number;
  borrower: string;
  lent_at: Timestamp;
  /** `YYYY-MM-DD`, or null: no due date. */
  due: string | null;
  returned_at: Timestamp | null;
  created_at: Timestamp;
}

export interface MediaFilesTable {
  id: Id;
  movie_id: number | null;
  edition_id: number | null;
  library_root_id: number;
  relative_path: string;
  size_bytes: number;
  mtime_ms: number;
  fingerprint: string | null;
  edition_label: string | null;
  /** present | missing */
  status: ColumnType<string, string | undefined, string>;
  /** not_analyzed | analyzed | failed */
  analysis_status: ColumnType<string, string | undefined, string>;
  capabilities_json: string | null;
  analysis_error: string | null;
  analyzed_size_bytes: number | null;
  analyzed_fingerprint: string | null;
  analyzed_at: Timestamp | null;
  missing_since: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface StagingMediaFilesTable {
  id: Id;
  scan_id: number;
  library_root_id: number;
  relative_path: string;
  size_bytes: number;
  mtime_ms: number;
  fingerprint: string | null;
  parsed_title: string | null;
  parsed_year: number | null;
  tmdb_id: number | null;
  imdb_id: string | null;
  edition_label: string | null;
  analysis_status: string;
  capabilities_json: string | null;
  analysis_error: string | null;
  /** new | changed | moved | unchanged */
  action: string;
  media_file_id: number | null;
  match_movie_id: number | null;
  created_at: Timestamp;
}

export interface PersonsTable {
  id: Id;
  tmdb_id: number | null;
  name: string;
  profile_path: string | null;
}

export interface PersonMovieTable {
  id: Id;
  person_id: number;
  movie_id: number;
  /** cast | crew */
  role: string;
  character: string | null;
  job: string | null;
  department: string | null;
  sort_order: number;
}

export interface StudiosTable {
  id: Id;
  tmdb_id: number | null;
  name: string;
}

export interface MovieStudioTable {
  movie_id: number;
  studio_id: number;
}

export interface MovieArtworkStateTable {
  movie_id: number;
  poster_state: string;
  poster_source: string | null;
  poster_path: string | null;
  backdrop_state: string;
  backdrop_source: string | null;
  backdrop_path: string | null;
  fetched_at: Timestamp | null;
  error: string | null;
}

export interface MovieRatingsTable {
  movie_id: number;
  source: string;
  value: string;
  fetched_at: Timestamp;
}

export interface WatchStateTable {
  user_id: number;
  media_file_id: number;
  movie_id: number | null;
  position_seconds: number;
  watched: Flag;
  updated_at: Timestamp;
}

export interface JobsTable {
  id: Id;
  kind: string;
  dedupe_key: string | null;
  /** queued | running | succeeded | failed | cancelled */
  status: string;
  payload_json: string;
  progress_done: number;
  progress_total: number;
  result_json: string | null;
  error: string | null;
  created_at: Timestamp;
  started_at: Timestamp | null;
  finished_at: Timestamp | null;
  /** The node holding the job's lease (docs/cluster.md), null when queued or finished. */
  owner_node: string | null;
  /** Epoch ms the owner's lease runs until; renewed by its heartbeat. */
  lease_until: number | null;
  /** Fencing number: up at every claim or take-over; the job's writes check it. */
  epoch: ColumnType<number, number | undefined, number>;
  cancel_requested: ColumnType<Flag, Flag | undefined, Flag>;
  /** How many times a node claimed the job. */
  attempts: ColumnType<number, number | undefined, number>;
}

/** A running server process (docs/cluster.md "Nodes"). */
export interface NodesTable {
  id: string;
  /** all | api | worker */
  role: string;
  host: string;
  pid: number;
  started_at: Timestamp;
  /** Epoch ms of its last heartbeat. */
  heartbeat_at: number;
  load_json: string;
  version: string;
}

export interface SettingsTable {
  key: string;
  value: string;
}

/** Secrets every node shares (migration 0010): the playback signing key, the Jellyfin id key. */
export interface ServerSecretsTable {
  name: string;
  value: string;
  created_at: string;
}

/** An admin's stop of a play (migration 0016): tokens of the key expiring at or before `until_s` are refused. */
export interface PlaybackStopsTable {
  stop_key: string;
  until_s: number;
}

/** A play a node streams now (migration 0016), refreshed by that node. */
export interface ActivePlaysTable {
  id: Id;
  play_key: string;
  node_id: string;
  user_id: number;
  media_file_id: number;
  view_json: string;
  last_seen_ms: number;
  stop_requested: ColumnType<number, number | undefined, number>;
}

/** Failed sign-ins of an address or an account in their window (migration 0016). */
export interface AuthFailuresTable {
  key: string;
  window_start_ms: number;
  count: number;
  addresses_json: string;
  last_address: string | null;
}

/** A named lease one node holds at a time (migration 0016). */
export interface NodeLeasesTable {
  name: string;
  node_id: string;
  until_ms: number;
}

export interface ProviderCacheTable {
  provider: string;
  cache_key: string;
  body_json: string;
  fetched_at: Timestamp;
  expires_at: Timestamp | null;
}

export interface ArtifactsTable {
  id: Id;
  artifact_key: string;
  media_file_id: number;
  device: string;
  source_fingerprint: string;
  plan_json: string;
  path: string;
  /** building | ready | failed | cancelled */
  status: string;
  size_bytes: ColumnType<number, number | undefined, number>;
  error: string | null;
  job_id: number | null;
  created_at: Timestamp;
  completed_at: Timestamp | null;
  last_used_at: Timestamp;
}

/** Keyframe times of a file's video, kept with the analysis (HLS cut points). */
export interface KeyframeIndexesTable {
  media_file_id: number;
  /** The content they were read from: fingerprint, else `size-<bytes>`. */
  source_key: string;
  source: string;
  /** Delta-encoded microseconds, JSON. */
  times_json: string;
  created_at: Timestamp;
}

/** Seek thumbnails of a media file (db/migrations/0008-trickplay.ts). */
export interface TrickplayTable {
  media_file_id: number;
  /** queued | running | ready | failed */
  state: string;
  job_id: number | null;
  generation: number | null;
  /** keyframes | accurate */
  mode: string;
  interval_ms: number | null;
  thumbnail_width: number | null;
  thumbnail_height: number | null;
  tile_width: number | null;
  tile_height: number | null;
  thumbnail_count: number | null;
  sheet_bytes_json: string | null;
  roku_tile_width: number | null;
  roku_tile_height: number | null;
  roku_sheet_bytes_json: string | null;
  bif_bytes: number | null;
  reason: string | null;
  source_size_bytes: number;
  source_mtime_ms: number;
  source_fingerprint: string | null;
  made_at: Timestamp | null;
  failed_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** Subtitle files beside a media file, found by the scan (docs/naming.md, "Subtitles"). */
export interface SubtitleSidecarsTable {
  id: Id;
  media_file_id: number;
  /** Relative to the library root; VobSub: the `.idx`. */
  relative_path: string;
  /** VobSub: the `.idx` and its `.sub` together, with the later mtime. */
  size_bytes: number;
  mtime_ms: number;
  /** srt | ass | ssa | webvtt | microdvd | vobsub | pgs */
  format: string;
  /** text | image */
  kind: string;
  /** ISO 639-2/B */
  language: string | null;
  title: string | null;
  forced: ColumnType<Flag, Flag | undefined, Flag>;
  default: ColumnType<Flag, Flag | undefined, Flag>;
  sdh: ColumnType<Flag, Flag | undefined, Flag>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/**
 * Full-text index of movies (migration 0005). SQLite: an FTS5 table, rowid = movies.id, contentless
 * (the columns read back as null), queried with `movie_search MATCH …` and `bm25(movie_search, …)`.
 * PostgreSQL: `(movie_id, document tsvector)`. Both are read through repositories/search-dialect.ts
 * only, after applying the pending changes (MovieRepository.syncSearchIndex); this type is SQLite's.
 */
export interface MovieSearchTable {
  rowid: number;
  title: string | null;
  original_title: string | null;
  cast_names: string | null;
  director_names: string | null;
}

/** Movies whose movie_search row is out of date, marked by triggers on every write (migration 0005; both engines). */
export interface MovieSearchPendingTable {
  movie_id: number;
}

/** SQLite: a view whose INSERT trigger rebuilds the rows of the pending movies and clears the marks (PostgreSQL: reelshelf_sync_search()). */
export interface MovieSearchSyncView {
  run: number;
}

export interface UsersTable {
  id: Id;
  name: string;
  name_key: string;
  password_hash: string | null;
  /** admin | member | child */
  role: string;
  max_certification: string | null;
  allow_unrated: Flag;
  pin_hash: string | null;
  pin_failures: ColumnType<number, number | undefined, number>;
  pin_locked_until: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface SessionsTable {
  id: Id;
  user_id: number;
  secret_hash: string;
  /** browser | device */
  kind: string;
  created_at: Timestamp;
  last_seen_at: Timestamp;
  expires_at: Timestamp | null;
  revoked_at: Timestamp | null;
  address: string | null;
  user_agent: string | null;
  app_name: string | null;
  device_name: string | null;
}

export interface ApiKeysTable {
  id: Id;
  user_id: number;
  name: string;
  /** read | playback | admin */
  scope: string;
  key_hash: string;
  created_at: Timestamp;
  last_used_at: Timestamp | null;
  last_used_address: string | null;
  revoked_at: Timestamp | null;
}

export interface PlayHistoryTable {
  id: Id;
  user_id: number;
  media_file_id: number | null;
  movie_id: number | null;
  title: string;
  device: string;
  /** direct | converted */
  mode: string;
  started_at: Timestamp;
  updated_at: Timestamp;
  position_seconds: number;
  duration_seconds: number | null;
}

/** A person's favourite film (migration 0007): their own state, like watch_state. */
export interface FavouritesTable {
  user_id: number;
  movie_id: number;
  created_at: Timestamp;
}

/** One HLS presentation's conversion across the nodes (migration 0011, docs/cluster.md "HLS across nodes"). */
export interface HlsRunsTable {
  presentation_key: string;
  file_id: number;
  device: string;
  burn: number | null;
  /** 1: the presentation a prewarm plans (the strict policy's fallback). */
  for_prewarm: Generated<number>;
  owner_node: string | null;
  epoch: Generated<number>;
  /** Epoch ms. */
  lease_until: number | null;
  start_index: Generated<number>;
  next_index: Generated<number>;
  wanted_index: Generated<number>;
  wanted_seq: Generated<number>;
  asked: Generated<number>;
  pinned: Generated<number>;
  last_request_at: number;
  error: string | null;
  updated_at: number;
}

/** A finished HLS segment (init section: idx -1) as its run announced it (migration 0011). */
export interface HlsSegmentsTable {
  presentation_key: string;
  rendition: string;
  idx: number;
  epoch: number;
  bytes: number;
  file_name: string;
}

export interface Database {
  collections: CollectionsTable;
  library_roots: LibraryRootsTable;
  binders: BindersTable;
  wishes: WishesTable;
  movies: MoviesTable;
  disc_editions: DiscEditionsTable;
  physical_copies: PhysicalCopiesTable;
  loans: LoansTable;
  media_files: MediaFilesTable;
  staging_media_files: StagingMediaFilesTable;
  persons: PersonsTable;
  person_movie: PersonMovieTable;
  studios: StudiosTable;
  movie_studio: MovieStudioTable;
  movie_artwork_state: MovieArtworkStateTable;
  movie_ratings: MovieRatingsTable;
  watch_state: WatchStateTable;
  users: UsersTable;
  sessions: SessionsTable;
  api_keys: ApiKeysTable;
  play_history: PlayHistoryTable;
  favourites: FavouritesTable;
  jobs: JobsTable;
  nodes: NodesTable;
  hls_runs: HlsRunsTable;
  hls_segments: HlsSegmentsTable;
  settings: SettingsTable;
  server_secrets: ServerSecretsTable;
  playback_stops: PlaybackStopsTable;
  active_plays: ActivePlaysTable;
  auth_failures: AuthFailuresTable;
  node_leases: NodeLeasesTable;
  provider_cache: ProviderCacheTable;
  artifacts: ArtifactsTable;
  keyframe_indexes: KeyframeIndexesTable;
  trickplay: TrickplayTable;
  subtitle_sidecars: SubtitleSidecarsTable;
  movie_search: MovieSearchTable;
  movie_search_pending: MovieSearchPendingTable;
  movie_search_sync: MovieSearchSyncView;
}
