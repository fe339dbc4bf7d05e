// Shapes of the routes INTERFACE.md adds beside the spec's schemas (movies, health). They are not
// part of the hashed bundle (which holds exactly the spec's ten schemas); server and client both
// import them from here so the two cannot drift.

/** A disc to record with a movie: binder name and slot, and optionally what edition it is. */
export interface CopyInput {
  binder: string;
  slot?: string;
  format?: string;
  edition?: string;
  barcode?: string;
}

/** Editable movie fields (POST /api/movies, PATCH /api/movies/{id}). */
export interface MovieFields {
  title: string;
  year?: number | null;
  original_title?: string | null;
  overview?: string | null;
  runtime_minutes?: number | null;
  tmdb_id?: number | null;
  imdb_id?: string | null;
  has_digital_store_a?: boolean;
  has_digital_store_b?: boolean;
  watched?: boolean;
}

/** Body of POST /api/movies. */
export interface CreateMovieInput extends MovieFields {
  physical_copies?: CopyInput[];
}

/**
 * Body of PATCH /api/movies/{id}. `certification` is one of REELSHELF_CERTIFICATION_COUNTRY's system
 * (`PG-13`); null clears it (the film is then unrated, hidden from a child without allow_unrated).
 */
export type PatchMovieInput = Partial<MovieFields> & { certification?: string | null };

/** One row of GET /api/movies. */
export interface MovieSummary {
  id: number;
  title: string;
  year: number | null;
  tmdb_id: number | null;
  imdb_id: string | null;
  has_digital_store_a: boolean;
  has_digital_store_b: boolean;
  watched: boolean;
  created_at: string;
  updated_at: string;
}

/** GET /api/movies/{id}: the movie with its editions, physical copies and media files. */
export interface MovieDetail extends MovieSummary {
  original_title: string | null;
  overview: string | null;
  runtime_minutes: number | null;
  /** In REELSHELF_CERTIFICATION_COUNTRY's system (`PG-13`), from TMDb or set by hand; null: unrated. */
  certification: string | null;
  editions: { id: number; label: string | null; format: string | null; barcode: string | null }[];
  physical_copies: {
    id: number;
    edition_id: number | null;
    binder: string | null;
    slot: string | null;
    format: string | null;
    notes: string | null;
  }[];
  media_files: {
    id: number;
    library_root_id: number;
    relative_path: string;
    size_bytes: number;
    status: string;
    analysis_status: string;
    edition_label: string | null;
  }[];
  tagline: string | null;
  genres: string[];
  collection: string | null;
  /** Ratings per source (Internet Movie Database, Rotten Tomatoes, Metacritic) with when they were fetched. */
  ratings: { source: string; value: string; fetched_at: string }[];
  cast: { name: string; character: string | null }[];
  directors: string[];
  studios: string[];
  enriched_at: string | null;
}

/** GET /api/movies. */
export interface MovieList {
  items: MovieSummary[];
  total: number;
}

/** GET /api/health. */
export interface HealthResponse {
  status: 'ok';
  contract_version: string;
  contract_hash: string;
  ffmpeg: { available: boolean; version: string | null };
  ffprobe: { available: boolean; version: string | null };
  transcode_available: boolean;
  warnings: string[];
  /** The live nodes of this library's database, oldest first (docs/cluster.md "Nodes"). */
  nodes: NodeView[];
}

/** One server process sharing the library's database, as GET /api/health and the people page list it. */
export interface NodeView {
  id: string;
  /** `all` serves and runs jobs, `api` only enqueues, `worker` runs jobs (REELSHELF_NODE_ROLE). */
  role: 'all' | 'api' | 'worker';
  /** Its machine and process id: said only to an admin (null otherwise). */
  host: string | null;
  pid: number | null;
  version: string;
  started_at: string;
  /** Its last heartbeat, and how long before this answer that was (a node silent for 5 s is dropped). */
  heartbeat_at: string;
  heartbeat_age_ms: number;
  /** Jobs it runs now, by kind, and its conversion slots (REELSHELF_MAX_CONVERSIONS). */
  load: { jobs: Record<string, number>; conversions: { in_use: number; limit: number } };
  /** True for the node that answered. */
  self: boolean;
}

/** A folder the scanner walks (GET/POST /api/library-roots). */
export interface LibraryRootView {
  id: number;
  path: string;
  name: string;
  collection: string | null;
  file_count: number;
  created_at: string;
  last_scan_at: string | null;
}

/** Counts of one scan (INTERFACE.md "Scan"). */
export interface ScanCounts {
  found: number;
  new: number;
  changed: number;
  moved: number;
  unchanged: number;
  missing: number;
  errors: number;
}

/** GET /api/scans/{id}, and POST …/scan?wait=true. */
export interface ScanReport {
  id: number;
  root_id: number;
  status: 'running' | 'committed' | 'failed' | 'cancelled';
  progress: { done: number; total: number };
  counts: ScanCounts;
  errors: { path: string; error: string }[];
  /** Why the scan failed, when it did. */
  message?: string;
}

/** PUT /api/media-file/{id}/progress. */
export interface WatchStateInput {
  position_seconds: number;
  watched?: boolean;
}

export interface WatchState {
  media_file_id: number;
  position_seconds: number;
  watched: boolean;
  updated_at: string;
}

/** GET /api/collections. */
export interface CollectionView {
  id: number;
  name: string;
  root_ids: number[];
}

/** A TMDb candidate for a scanned disc. */
export interface MovieCandidateView {
  tmdb_id: number;
  title: string;
  original_title: string | null;
  year: number | null;
  poster_path: string | null;
  overview: string | null;
}

/** GET /api/barcode/{code}: what the disc is, without writing anything. */
export interface BarcodeLookup {
  barcode: string;
  kind: string;
  product_title: string;
  cleaned_title: string;
  year: number | null;
  format: string | null;
  is_3d: boolean;
  edition: string | null;
  has_digital_copy: boolean;
  candidates: MovieCandidateView[];
  owned: boolean;
  owned_movie_id: number | null;
  warnings: string[];
}

/** Body of POST /api/barcode/{code}. */
export interface BarcodeCreateInput {
  binder?: string;
  slot?: string;
  tmdb_id?: number;
  another_copy?: boolean;
}

/** POST /api/barcode/{code} → 201. */
export interface BarcodeCreated {
  movie: MovieDetail;
  edition_id: number;
  physical_copy: { id: number; binder: string; slot: string };
  created_movie: boolean;
  /** True when the film was on the wish list: the wish was removed with the copy's creation. */
  from_wish?: boolean;
  warnings: string[];
}

/** GET /api/binders: every binder, with how many discs the caller may see in it. */
export interface BinderList {
  items: BinderSummary[];
}

export interface BinderSummary {
  name: string;
  copies: number;
  slots_per_page: number;
}

/** A disc in a binder slot (null in a slot that is empty, or whose film the caller may not see). */
export interface BinderSlotCopy {
  id: number;
  movie_id: number;
  title: string;
  format: string | null;
  edition: string | null;
  /** True while the disc is lent out (GET /api/loans says to whom). */
  on_loan: boolean;
}

/** GET /api/binders/{name}: the binder as pages of slots (docs/collector.md "Binder pages"). */
export interface BinderView {
  name: string;
  slots_per_page: number;
  pages: { number: number; slots: { slot: string; copy: BinderSlotCopy | null }[] }[];
}

/** Body of PATCH /api/binders/{name} (admins): a new name and/or slots per page (1..100). */
export interface BinderPatch {
  name?: string;
  slots_per_page?: number;
}

/** Body of POST /api/physical-copies/{id}/loan (admins): to whom, and the day it is due back if any. */
export interface LoanInput {
  to: string;
  /** `YYYY-MM-DD`; absent or null: no due date. */
  due?: string | null;
}

/**
 * A loan of a disc (docs/collector.md "Loans"): POST/DELETE /api/physical-copies/{id}/loan answer
 * one, GET /api/loans lists them. `overdue`: still out and the due day has passed (UTC days).
 */
export interface LoanView {
  id: number;
  copy_id: number;
  movie_id: number;
  title: string;
  format: string | null;
  binder: string | null;
  slot: string | null;
  to: string;
  lent_at: string;
  due: string | null;
  returned_at: string | null;
  overdue: boolean;
}

/** GET /api/loans: open loans (oldest first); `?history=true` adds the returned ones; `?overdue=true` only the late. */
export interface LoanList {
  items: LoanView[];
}

/** One film of GET /api/rip-queue: the disc to rip (its best format) and where it stands. */
export interface RipQueueItem {
  copy_id: number;
  movie_id: number;
  title: string;
  year: number | null;
  format: string | null;
  edition: string | null;
  /** null for a disc in no binder (those come last). */
  binder: string | null;
  slot: string | null;
  /** TMDb's runtime: the estimate of the work; null when not known. */
  runtime_minutes: number | null;
  /** The disc is lent out (an open loan): it cannot be ripped until it is back. */
  on_loan: boolean;
}

/**
 * GET /api/rip-queue?format=&limit=&offset=: films on disc with no present file, in binder/slot
 * order. `total` and `total_runtime_minutes` cover the whole queue (under the format filter), not
 * only the page; without limit and offset, `items` is all of it.
 */
export interface RipQueueResponse {
  items: RipQueueItem[];
  total: number;
  total_runtime_minutes: number;
}

/** Why a film is on the upgrades list (docs/collector.md "Upgrades"). */
export type UpgradeReasonCode =
  'uhd_disc_hd_file' | 'bluray_disc_dvd_file' | 'hdr_disc_sdr_file' | 'file_short' | 'duplicate_edition';

export interface UpgradeItem {
  movie_id: number;
  title: string;
  /** The disc the first reason is about. */
  copy_id?: number;
  /** The file the first file reason is about. */
  file_id?: number;
  reasons: { code: UpgradeReasonCode; message: string }[];
}

/** GET /api/upgrades: owned discs better than the best file, short rips, doubles; by title. */
export interface UpgradesResponse {
  items: UpgradeItem[];
}

/** A copy's place after PATCH /api/physical-copies/{id} or POST /api/physical-copies/swap. */
export interface CopyPlace {
  id: number;
  binder: string;
  slot: string;
}

/** Present files on one device profile by how they play (the library's own decision per file). */
export interface StatsDeviceShare {
  device: string;
  name: string;
  counts: { direct: number; converted: number; not_playable: number; unknown: number };
}

/** GET /api/stats: the figures of /stats, through the caller's visibility (docs/collector.md "Stats"). */
export interface StatsOverview {
  /** Physical copies by edition format, most first ("Unknown": no format recorded). */
  discs_by_format: { label: string; discs: number }[];
  /** Physical copies by their film's decade ("1990s"), oldest first; "Unknown" (no year) last. */
  discs_by_decade: { label: string; discs: number }[];
  /** Films with a present file, on disc only (the rip queue), with neither. */
  films_by_files: { with_file: number; disc_only: number; neither: number };
  playback_share: StatsDeviceShare[];
  /** Present files' count and bytes per library root. */
  space_by_root: { id: number; name: string; files: number; bytes: number }[];
  /** Discs on the rip queue at the end of each month (`YYYY-MM`); the last point is now. */
  rip_queue: { month: string; discs: number }[];
}

/** A film of a person's year: the first or last one played. */
export interface StatsYearFilm {
  movie_id: number | null;
  title: string;
  /** The play's start (ISO-8601 UTC). */
  at: string;
}

/** GET /api/stats/year?person=&year=: a person's year of plays ("your year"). */
export interface StatsYear {
  person: { id: number; name: string };
  year: number;
  /** Distinct films with a play that started in the year. */
  films: number;
  plays: number;
  /** The sum of each play's furthest position, in hours (one decimal). */
  hours: number;
  /** The top five genres by films played. */
  genres: { name: string; films: number }[];
  first: StatsYearFilm | null;
  last: StatsYearFilm | null;
  /** Plays per month (`01`…`12`), January first. */
  months: { month: string; plays: number }[];
  /** Plays per device profile, most first. */
  devices: { device: string; plays: number }[];
  /** The household's people (for an admin's picker); empty for anyone else. */
  people: { id: number; name: string }[];
}

/** A film on the household's wish list (docs/collector.md "Wish list"). */
export interface Wish {
  id: number;
  title: string;
  year: number | null;
  tmdb_id: number | null;
  note: string | null;
  created_at: string;
}

/** GET /api/wishes: every wish, by title then year. */
export interface WishList {
  items: Wish[];
}

/** Body of POST /api/wishes: a TMDb id, or a title (and year), or both. */
export interface WishInput {
  tmdb_id?: number;
  title?: string;
  year?: number;
  note?: string;
}

/**
 * How far a long-running job is: `done` of `total` units (files for a scan, movies for artwork,
 * writes for an import, tenths of a percent for a TV build). `done` never exceeds `total`; a job that
 * finished its work ends with `done === total`. `total` is 0 while it is not known yet.
 */
export interface JobProgress {
  done: number;
  total: number;
}

/**
 * The runner's job kinds: `artifact` is a "Prepare for TV" build (prewarm), `enrich` a metadata fetch,
 * `import` the writes of a POST /api/import (or CLI import) while its request runs, `trickplay` the
 * seek thumbnails of one media file.
 */
export type JobKindName = 'scan' | 'artwork' | 'enrich' | 'artifact' | 'import' | 'trickplay';

export type JobStatusName = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';

/** GET /api/jobs/{id} and each item of GET /api/jobs?kind=&status=: every job in one shape. */
export interface JobView {
  id: number;
  kind: JobKindName;
  status: JobStatusName;
  progress: JobProgress;
  /** Why it failed, or null. */
  error: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

/** POST /api/artwork/fetch?wait=true. */
export interface ArtworkJob {
  id: number;
  status: string;
  progress: JobProgress;
  report: {
    movies: number;
    local: number;
    downloaded: number;
    failed: number;
    unchanged: number;
    errors: { movie_id: number; kind: 'poster' | 'backdrop'; error: string }[];
  } | null;
  error: string | null;
}

/** One problem in an import file (400 `import_invalid` lists every one; INTERFACE.md "Import"). */
export interface ImportRowError {
  /** CSV: the 1-based line of the file (the header is line 1); JSON: the 1-based item of `movies`; 0: the whole file. */
  row: number;
  /** CSV: the column (`title`, `year`, `slot`…, `file`, `csv`); JSON: a path such as `editions/0/copies/1/slot`. */
  field: string;
  message: string;
}

/** POST /api/import (and `reelshelf import`): what was (or, with dry_run, would be) written. */
export interface ImportResult {
  dry_run: boolean;
  created: { movies: number; editions: number; copies: number };
  /** Movies that existed and gained a value, an edition, a copy or a file. */
  updated: { movies: number };
  /** Movies that existed and that the file changes in no way. */
  unchanged: { movies: number };
  /**
   * Wish rows (CLZ `Wish List` rows, `?into=wishes`, a JSON document's wishes) and the wishes the
   * import fulfils (their films now owned); present only when the import touches the wish list.
   */
  wishes?: { created: number; unchanged: number; owned: number; fulfilled: number };
  warnings: string[];
}

/** The 400 body of a refused import: nothing was written. */
export interface ImportInvalidError {
  error: 'import_invalid';
  message: string;
  rows: ImportRowError[];
  warnings: string[];
}

/** GET /api/export?format= */
export type ExportFormat = 'json' | 'csv' | 'letterboxd';

// Issue 22: each person's plays (types shared by the server and the client; not in the hashed bundle).

/** One of the signed-in person's plays (GET /api/me/history). */
export interface HistoryItem {
  id: number;
  media_file_id: number | null;
  movie_id: number | null;
  title: string;
  device: string;
  /** `direct`, `converted`, or `unknown` (only progress was reported, no stream seen). */
  mode: string;
  started_at: string;
  updated_at: string;
  position_seconds: number;
  duration_seconds: number | null;
}

/** A film the signed-in person stopped in the middle (GET /api/me/continue). */
export interface ContinueItem {
  media_file_id: number;
  movie_id: number | null;
  title: string;
  position_seconds: number;
  updated_at: string;
}

/** A play going on now (GET /api/sessions/active, admins). */
export interface ActivePlay {
  id: number;
  user_id: number;
  user_name: string;
  credential: { kind: 'admin-token' | 'session' | 'key'; id: number | null };
  media_file_id: number;
  movie_id: number | null;
  title: string;
  device: string;
  mode: 'direct' | 'converted';
  /** Of the HLS conversion serving it (1 = real time), when one runs. */
  conversion_speed: number | null;
  position_seconds: number;
  duration_seconds: number | null;
  started_at: string;
  last_seen_at: string;
}

/** A TV that used the DLNA MediaServer lately (GET /api/dlna; kept in memory, at most 32). */
export interface DlnaRecentTv {
  address: string;
  user_agent: string;
  /** Sony's X-AV-Client-Info, when sent. */
  av_client_info: string | null;
  first_seen: string;
  last_seen: string;
  /** The last control action (`ContentDirectory#Browse`), or `<service>: malformed request`. */
  last_action: string;
}

/** GET /api/dlna (admins): the DLNA MediaServer's state. */
export interface DlnaStatusView {
  enabled: boolean;
  /** REELSHELF_DLNA's person, null when off. */
  person: string | null;
  /** Whether that person exists now; when false, TVs see an empty server. */
  person_found: boolean;
  /** What to do when the person is missing; null otherwise. */
  hint: string | null;
  friendly_name: string;
  udn: string;
  recent_tvs: DlnaRecentTv[];
}

/**
 * GET /api/media-file/{id}/trickplay: the file's made seek thumbnails (docs/trickplay.md "Serving").
 * Thumbnail n (0-based) shows the film at n × interval_ms; it lies on sheet floor(n / (tile_width ×
 * tile_height)), row-major, each thumbnail width × height px. `sheets` are URLs (relative to the
 * server) carrying a playback token for the caller; a remake gives new URLs.
 */
export interface TrickplayInfo {
  status: 'ready';
  /** `keyframes`: each thumbnail within half a GOP of its time; `accurate`: the frame at it. */
  mode: 'keyframes' | 'accurate';
  interval_ms: number;
  width: number;
  height: number;
  tile_width: number;
  tile_height: number;
  /** The real count (the last sheet may be padded black after it). */
  thumbnail_count: number;
  sheets: string[];
}
