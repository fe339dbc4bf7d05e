// @reelshelf/client: a typed client for the reelshelf API, built on the shared contract. It sends the
// contract hash with every request and refuses any response whose hash differs (spec §9).
import {
  type ApiError,
  type ArtworkJob,
  type BarcodeCreated,
  type BarcodeCreateInput,
  type BarcodeLookup,
  type BinderList,
  type BinderPatch,
  type BinderSummary,
  type BinderView,
  type RipQueueResponse,
  type UpgradesResponse,
  type CopyPlace,
  type StatsOverview,
  type StatsYear,
  type CollectionView,
  CONTRACT_HASH,
  CONTRACT_VERSION,
  type ContractBundle,
  type CreateMovieInput,
  type ExportFormat,
  type HealthResponse,
  type ImportResult,
  type JobKindName,
  type JobStatusName,
  type JobView,
  type LibraryEdition,
  type LibraryResponse,
  type LibraryRootView,
  type LoanInput,
  type LoanList,
  type LoanView,
  type MovieDetail,
  type MovieList,
  type PatchMovieInput,
  type PrewarmResponse,
  type ScanReport,
  type TrickplayInfo,
  type ActivePlay,
  type ContinueItem,
  type HistoryItem,
  type WatchState,
  type WatchStateInput,
  type Wish,
  type WishInput,
  type WishList,
} from '@reelshelf/contract';

/** The server speaks another contract than this client was built with. */
export class ContractMismatchError extends Error {
  override name = 'ContractMismatchError';
  constructor(
    readonly clientVersion: string,
    readonly clientHash: string,
    readonly serverVersion: string,
    readonly serverHash: string,
  ) {
    super(
      `contract mismatch: client ${clientVersion} (${clientHash.slice(0, 12)}…) vs server ${serverVersion} (${serverHash.slice(0, 12)}…)`,
    );
  }
}

/** A non-2xx answer from the API, carrying its ApiError body. */
export class ReelshelfApiError extends Error {
  override name = 'ReelshelfApiError';
  constructor(
    readonly status: number,
    readonly body: ApiError,
  ) {
    super(`${status} ${body.error}: ${body.message ?? ''}`.trim());
  }

  get code(): string {
    return this.body.error;
  }
}

export interface ClientOptions {
  /** Server base URL, e.g. http://127.0.0.1:8787 */
  baseUrl: string;
  /** Admin bearer token. */
  token?: string;
  /** Override fetch (tests, other runtimes). */
  fetch?: typeof fetch;
  /** The hash this client claims; defaults to the contract it was built with. */
  contractHash?: string;
}

type Query = Record<string, string | number | boolean | undefined>;

/**
 * A subtitle track a player can offer: text tracks carry their WebVTT `url` (server-relative, same
 * token; resolve it with `client.resolve`), image tracks none (burned in on request with
 * `&burn_subtitle={index}` on the HLS URL). `default` marks the one track shown by default.
 */
export interface PlaybackSubtitle {
  index: number;
  language: string | null;
  label: string;
  forced: boolean;
  default: boolean;
  sdh: boolean;
  format: string;
  kind: 'text' | 'image';
  url: string | null;
}

/** GET /api/media-file/{id}/playback: which URL a player opens for a file on a device. */
export interface PlaybackInfo {
  prediction: LibraryEdition['playback_prediction'];
  is_playable: boolean;
  /** The progressive URL (the edition's `stream_url` in GET /library), server-relative. */
  stream_url: string;
  /**
   * The HLS master playlist (same token), server-relative: set for every conversion and for devices
   * that prefer HLS (tv, androidtv, roku, safari); null when `stream_url` is the one to open.
   */
  hls_url: string | null;
  duration_seconds: number | null;
  /** Things to know before pressing play (e.g. a transcode that runs below real time here). */
  warnings: string[];
  subtitles: PlaybackSubtitle[];
}

export type { ActivePlay, ContinueItem, HistoryItem } from '@reelshelf/contract';

function isApiError(value: unknown): value is ApiError {
  return (
    typeof value === 'object' && value !== null && typeof (value as { error?: unknown }).error === 'string'
  );
}

/** Typed access to every reelshelf route. */
export class ReelshelfClient {
  readonly baseUrl: string;
  private readonly token: string | undefined;
  private readonly fetchImpl: typeof fetch;
  private readonly contractHash: string;

  constructor(options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.token = options.token;
    this.fetchImpl = options.fetch ?? fetch;
    this.contractHash = options.contractHash ?? CONTRACT_HASH;
  }

  /** Absolute URL for a path or a server-relative URL such as an edition's `stream_url`. */
  resolve(pathOrUrl: string): string {
    return new URL(pathOrUrl, `${this.baseUrl}/`).toString();
  }

  /**
   * Sends a request and returns the raw response after the contract check (no status check).
   * `body` is sent as JSON; `content` sends bytes or text as they are, with their content type.
   */
  async raw(
    method: string,
    path: string,
    init: {
      query?: Query;
      body?: unknown;
      content?: { type: string; data: string | Uint8Array };
      headers?: Record<string, string>;
    } = {},
  ): Promise<Response> {
    const url = new URL(this.resolve(path));
    for (const [k, v] of Object.entries(init.query ?? {}))
      if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { 'x-contract-hash': this.contractHash, ...init.headers };
    if (this.token !== undefined) headers.authorization = `Bearer ${this.token}`;
    let body: string | Uint8Array<ArrayBuffer> | undefined;
    if (init.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(init.body);
    } else if (init.content !== undefined) {
      headers['content-type'] = init.content.type;
      const data = init.content.data;
      body = typeof data === 'string' ? data : new Uint8Array(data);
    }
    const res = await this.fetchImpl(url, { method, headers, ...(body === undefined ? {} : { body }) });
    this.checkContract(res);
    return res;
  }

  private checkContract(res: Response): void {
    const serverHash = res.headers.get('x-contract-hash');
    const serverVersion = res.headers.get('x-contract-version') ?? 'unknown';
    if (serverHash !== null && serverHash !== this.contractHash) {
      throw new ContractMismatchError(CONTRACT_VERSION, this.contractHash, serverVersion, serverHash);
    }
  }

  private async request<T>(
    method: string,
    path: string,
    init: {
      query?: Query;
      body?: unknown;
      content?: { type: string; data: string | Uint8Array };
      /** `text`: a successful body is returned as it is (a byte-order mark kept), not parsed. */
      as?: 'json' | 'text';
    } = {},
  ): Promise<T> {
    const res = await this.raw(method, path, init);
    if (res.status === 204) return undefined as T;
    const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(await res.arrayBuffer());
    if (res.ok && init.as === 'text') return text as T;
    const parsed: unknown = text === '' ? null : JSON.parse(text);
    if (!res.ok) {
      if (res.status === 409 && isApiError(parsed) && parsed.error === 'contract_mismatch') {
        throw new ContractMismatchError(
          CONTRACT_VERSION,
          this.contractHash,
          'unknown',
          String(parsed.required ?? ''),
        );
      }
      throw new ReelshelfApiError(
        res.status,
        isApiError(parsed) ? parsed : { error: 'http_error', message: text.slice(0, 200) },
      );
    }
    return parsed as T;
  }

  health(): Promise<HealthResponse> {
    return this.request('GET', '/api/health');
  }

  contract(): Promise<ContractBundle> {
    return this.request('GET', '/api/contract');
  }

  library(device?: string): Promise<LibraryResponse> {
    return this.request('GET', '/library', { query: { device } });
  }

  /** Movies by sort title (or a search with `q`); `on_loan`: only those with a disc lent out. */
  listMovies(
    params: { q?: string; limit?: number; offset?: number; on_loan?: boolean } = {},
  ): Promise<MovieList> {
    return this.request('GET', '/api/movies', { query: params });
  }

  createMovie(input: CreateMovieInput): Promise<MovieDetail> {
    return this.request('POST', '/api/movies', { body: input });
  }

  getMovie(id: number): Promise<MovieDetail> {
    return this.request('GET', `/api/movies/${id}`);
  }

  updateMovie(id: number, patch: PatchMovieInput): Promise<MovieDetail> {
    return this.request('PATCH', `/api/movies/${id}`, { body: patch });
  }

  deleteMovie(id: number): Promise<void> {
    return this.request('DELETE', `/api/movies/${id}`);
  }

  devices(): Promise<{ items: { id: string; name: string }[]; problems: string[] }> {
    return this.request('GET', '/api/devices');
  }

  listLibraryRoots(): Promise<{ items: LibraryRootView[] }> {
    return this.request('GET', '/api/library-roots');
  }

  createLibraryRoot(input: { path: string; name?: string; collection?: string }): Promise<LibraryRootView> {
    return this.request('POST', '/api/library-roots', { body: input });
  }

  getLibraryRoot(id: number): Promise<LibraryRootView> {
    return this.request('GET', `/api/library-roots/${id}`);
  }

  deleteLibraryRoot(id: number): Promise<void> {
    return this.request('DELETE', `/api/library-roots/${id}`);
  }

  collections(): Promise<{ items: CollectionView[] }> {
    return this.request('GET', '/api/collections');
  }

  /** Starts a scan (or joins the running one); `wait` returns the final report. */
  startScan(rootId: number): Promise<{ scan_id: number }> {
    return this.request('POST', `/api/library-roots/${rootId}/scan`);
  }

  scanAndWait(rootId: number): Promise<ScanReport> {
    return this.request('POST', `/api/library-roots/${rootId}/scan`, { query: { wait: true } });
  }

  getScan(id: number): Promise<ScanReport> {
    return this.request('GET', `/api/scans/${id}`);
  }

  cancelScan(id: number): Promise<ScanReport> {
    return this.request('DELETE', `/api/scans/${id}`);
  }

  saveProgress(mediaFileId: number, input: WatchStateInput): Promise<WatchState> {
    return this.request('PUT', `/api/media-file/${mediaFileId}/progress`, { body: input });
  }

  /** The signed-in person's plays, newest first. */
  history(
    options: { limit?: number; offset?: number } = {},
  ): Promise<{ items: HistoryItem[]; total: number }> {
    return this.request('GET', '/api/me/history', {
      query: { limit: options.limit, offset: options.offset },
    });
  }

  /** The signed-in person's films to continue (a resume position, not watched), newest first. */
  continueWatching(limit?: number): Promise<{ items: ContinueItem[] }> {
    return this.request('GET', '/api/me/continue', { query: { limit } });
  }

  /** Every play going on now (admins). */
  activePlays(): Promise<{ items: ActivePlay[] }> {
    return this.request('GET', '/api/sessions/active');
  }

  /** Stops a play (admins): its HLS conversion ends and its playback tokens are refused. */
  stopPlay(playId: number): Promise<{ stopped: ActivePlay }> {
    return this.request('DELETE', `/api/sessions/active/${playId}`);
  }

  prewarm(mediaFileId: number): Promise<PrewarmResponse> {
    return this.request('POST', `/api/media-file/${mediaFileId}/prewarm-tv`);
  }

  prewarmStatus(mediaFileId: number): Promise<PrewarmResponse> {
    return this.request('GET', `/api/media-file/${mediaFileId}/prewarm-tv`);
  }

  cancelPrewarm(mediaFileId: number): Promise<PrewarmResponse> {
    return this.request('DELETE', `/api/media-file/${mediaFileId}/prewarm-tv`);
  }

  /**
   * Imports a collection CSV (all or nothing). A refused file throws ReelshelfApiError 400
   * `import_invalid` whose body lists every bad row (`rows: [{row, field, message}]`).
   */
  importCsv(
    csv: string | Uint8Array,
    options: { dryRun?: boolean; into?: 'library' | 'wishes' } = {},
  ): Promise<ImportResult> {
    return this.request('POST', '/api/import', {
      query: { dry_run: options.dryRun === true ? true : undefined, into: options.into },
      content: { type: 'text/csv; charset=utf-8', data: csv },
    });
  }

  /** Imports a reelshelf JSON export: the document, or its text as `export('json')` returns it. */
  importJson(value: unknown, options: { dryRun?: boolean } = {}): Promise<ImportResult> {
    return this.request('POST', '/api/import', {
      query: { dry_run: options.dryRun === true ? true : undefined },
      ...(typeof value === 'string'
        ? { content: { type: 'application/json', data: value } }
        : { body: value }),
    });
  }

  /**
   * The whole library as the export file's text: the JSON document, the CSV (with its BOM), or
   * (`letterboxd`, admins) the caller's watched films for Letterboxd; `letterboxd()` is anyone's own.
   */
  export(format: ExportFormat = 'json'): Promise<string> {
    return this.request('GET', '/api/export', { query: { format }, as: 'text' });
  }

  /**
   * Which URL to open for a file on a device (`web` when not given): `hls_url` when set, else
   * `stream_url`. Both are server-relative; pass them through `resolve()`.
   */
  playback(fileId: number, device?: string): Promise<PlaybackInfo> {
    return this.request('GET', `/api/media-file/${fileId}/playback`, { query: { device } });
  }

  /**
   * A file's seek thumbnails: the layout and the sheet URLs (server-relative, signed for `device`,
   * `web` when not given; pass them through `resolve()`). Not made yet, being made, failed or off:
   * a ReelshelfApiError whose code says which (`trickplay_not_made`, `trickplay_pending`,
   * `trickplay_failed`, `trickplay_off`).
   */
  trickplay(fileId: number, device?: string): Promise<TrickplayInfo> {
    return this.request('GET', `/api/media-file/${fileId}/trickplay`, { query: { device } });
  }

  /** The absolute, token-carrying URL a player opens for an edition. */
  streamUrl(edition: Pick<LibraryEdition, 'stream_url'>): string {
    return this.resolve(edition.stream_url);
  }

  lookupBarcode(code: string): Promise<BarcodeLookup> {
    return this.request('GET', `/api/barcode/${encodeURIComponent(code)}`);
  }

  addBarcode(code: string, input: BarcodeCreateInput = {}): Promise<BarcodeCreated> {
    return this.request('POST', `/api/barcode/${encodeURIComponent(code)}`, { body: input });
  }

  /** Every binder with its disc count (what the caller may see) and slots per page. */
  binders(): Promise<BinderList> {
    return this.request('GET', '/api/binders');
  }

  /** One binder as pages of slots; a slot the caller may not see is empty. */
  binder(name: string): Promise<BinderView> {
    return this.request('GET', `/api/binders/${encodeURIComponent(name)}`);
  }

  /** Renames a binder and/or sets its slots per page (admins; 409 `binder_exists`). */
  updateBinder(name: string, patch: BinderPatch): Promise<BinderSummary> {
    return this.request('PATCH', `/api/binders/${encodeURIComponent(name)}`, { body: patch });
  }

  /** Moves a disc to a binder's slot (the binder is made if new; 409 `slot_taken` names the holder). */
  moveCopy(copyId: number, binder: string, slot: string): Promise<CopyPlace> {
    return this.request('PATCH', `/api/physical-copies/${copyId}`, { body: { binder, slot } });
  }

  /** Swaps the places of two discs, atomically. */
  swapCopies(a: number, b: number): Promise<{ items: CopyPlace[] }> {
    return this.request('POST', '/api/physical-copies/swap', { body: { a, b } });
  }

  /** The figures of /stats (discs, files, playback per device, space, the rip queue by month). */
  stats(): Promise<StatsOverview> {
    return this.request('GET', '/api/stats');
  }

  /** A person's year of plays (default: the caller, this year; another person: admins only). */
  statsYear(options: { person?: number; year?: number } = {}): Promise<StatsYear> {
    return this.request('GET', '/api/stats/year', { query: options });
  }

  /** The caller's watched films as Letterboxd's import CSV (`Title,Year,tmdbID,WatchedDate,Rating`). */
  letterboxd(): Promise<string> {
    return this.request('GET', '/api/export/letterboxd', { as: 'text' });
  }

  /** The household's wish list, by title then year. */
  wishes(): Promise<WishList> {
    return this.request('GET', '/api/wishes');
  }

  /**
   * Wishes for a film by TMDb id or title (+ year): 409 `already_wished`, or `already_owned` when the
   * library owns it (members and admins).
   */
  addWish(input: WishInput): Promise<Wish> {
    return this.request('POST', '/api/wishes', { body: input });
  }

  /** Takes a wish off the list (members and admins). */
  removeWish(id: number): Promise<void> {
    return this.request('DELETE', `/api/wishes/${id}`);
  }

  /** Lends a disc (admins; 409 `already_on_loan` names who has it). `due`: `YYYY-MM-DD`. */
  lendCopy(copyId: number, loan: LoanInput): Promise<LoanView> {
    return this.request('POST', `/api/physical-copies/${copyId}/loan`, { body: loan });
  }

  /** Records a disc as back (admins; 409 `not_on_loan`); the closed loan stays in the history. */
  returnCopy(copyId: number): Promise<LoanView> {
    return this.request('DELETE', `/api/physical-copies/${copyId}/loan`);
  }

  /** Discs out now (oldest first); `history` adds returned loans, `overdue` keeps only the late. */
  loans(options: { history?: boolean; overdue?: boolean } = {}): Promise<LoanList> {
    return this.request('GET', '/api/loans', {
      query: {
        history: options.history === true ? 'true' : undefined,
        overdue: options.overdue === true ? 'true' : undefined,
      },
    });
  }

  /**
   * Films on disc with no present file, in binder/slot order, with the runtime total; `formats`
   * (e.g. `['4K UHD']`, written as imports accept them) keeps the films whose disc to rip is one of them;
   * `page` slices it (`total` and `total_runtime_minutes` stay the whole queue's).
   */
  ripQueue(
    formats: readonly string[] = [],
    page: { limit?: number; offset?: number } = {},
  ): Promise<RipQueueResponse> {
    return this.request('GET', '/api/rip-queue', {
      query: {
        format: formats.length === 0 ? undefined : formats.join(','),
        limit: page.limit,
        offset: page.offset,
      },
    });
  }

  /** Discs better than their best file, short rips and editions owned twice, each with its reasons. */
  upgrades(): Promise<UpgradesResponse> {
    return this.request('GET', '/api/upgrades');
  }

  /** Fetches artwork for some movies (all when none are named) and waits for the report. */
  fetchArtwork(movieIds?: number[]): Promise<ArtworkJob> {
    return this.request('POST', '/api/artwork/fetch', {
      query: { wait: true },
      body: movieIds === undefined ? {} : { movie_ids: movieIds },
    });
  }

  /** Starts an artwork fetch without waiting; follow it with `job(job_id)`. */
  startArtworkFetch(movieIds?: number[]): Promise<{ job_id: number }> {
    return this.request('POST', '/api/artwork/fetch', {
      body: movieIds === undefined ? {} : { movie_ids: movieIds },
    });
  }

  /** Any long-running job (scan, artwork, enrich, artifact = TV build) with its `progress: {done, total}`. */
  job(id: number): Promise<JobView> {
    return this.request('GET', `/api/jobs/${id}`);
  }

  /** The newest jobs first, optionally of one kind and/or in one status. */
  jobs(filter: { kind?: JobKindName; status?: JobStatusName; limit?: number } = {}): Promise<{
    items: JobView[];
  }> {
    return this.request('GET', '/api/jobs', { query: filter });
  }

  /** The image bytes of a movie's poster or backdrop (resized when `width` is given). */
  async artwork(movieId: number, kind: 'poster' | 'backdrop', width?: number): Promise<Uint8Array> {
    const res = await this.raw('GET', `/artwork/${movieId}/${kind}`, { query: { w: width } });
    if (!res.ok) throw new ReelshelfApiError(res.status, (await res.json()) as ApiError);
    return new Uint8Array(await res.arrayBuffer());
  }
}
