import type { LibraryRootView } from '@reelshelf/contract';
import type { Clock } from '../adapters/clock.ts';
import { DataStore } from '../adapters/data-store.ts';
import { FfmpegAdapter } from '../adapters/ffmpeg.ts';
import { FfprobeAdapter } from '../adapters/ffprobe.ts';
import { FileSystemAdapter } from '../adapters/file-system.ts';
import { ImageDownloader } from '../adapters/image-downloader.ts';
import { walkDirectory } from '../adapters/directory-walker.ts';
import { fileFingerprint } from '../adapters/fingerprint.ts';
import type { MediaToolsInfo } from '../adapters/media-tools.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import { JobRunner } from '../jobs/job-runner.ts';
import { JobRepository } from '../repositories/job.repository.ts';
import { createProviders } from '../providers/index.ts';
import { ArtifactRepository } from '../repositories/artifact.repository.ts';
import { ArtworkRepository } from '../repositories/artwork.repository.ts';
import { LibraryRepository } from '../repositories/library.repository.ts';
import { LibraryRootRepository } from '../repositories/library-root.repository.ts';
import { MovieRepository } from '../repositories/movie.repository.ts';
import { MovieMetadataRepository } from '../repositories/movie-metadata.repository.ts';
import { MediaFileRepository } from '../repositories/media-file.repository.ts';
import { ProviderCacheRepository } from '../repositories/provider-cache.repository.ts';
import { ScanRepository } from '../repositories/scan.repository.ts';
import { SubtitleSidecarRepository } from '../repositories/subtitle-sidecar.repository.ts';
import { KeyframeIndexRepository } from '../repositories/keyframe-index.repository.ts';
import { kyselyUnitOfWork } from '../repositories/unit-of-work.ts';
import { UserRepository } from '../repositories/user.repository.ts';
import { PlayHistoryRepository } from '../repositories/play-history.repository.ts';
import { WatchStateRepository } from '../repositories/watch-state.repository.ts';
import { AnalysisService } from './scan/analysis.service.ts';
import { ArtifactService } from './playback/artifact.service.ts';
import { ConversionSlots } from './playback/conversion-slots.ts';
import { buildPlaybackCache } from '../wiring/playback-cache.ts';
import { ReadyArtifactIndex } from './playback/artifact-index.ts';
import { ArtworkService } from './metadata/artwork.service.ts';
import { BarcodeService } from './metadata/barcode.service.ts';
import { EnrichmentService } from './metadata/enrichment.service.ts';
import { NewMovieMetadata } from './metadata/new-movie-metadata.ts';
import type { ImportExportService } from './import/import-export.service.ts';
import { buildImportExport } from '../wiring/import-export.ts';
import { buildCollector, type CollectorServices } from '../wiring/collector.ts';
import { JobService } from './system/job.service.ts';
import { NodeStatusService } from './system/node-status.service.ts';
import { omdbPort, tmdbPort, upcPort } from './metadata/provider-adapters.ts';
import { DeviceProfileService } from './playback/device-profile.service.ts';
import { PlaybackEditionPresenter } from './playback/edition-presenter.ts';
import { type ChangeFeed, changeFeedOf } from '../db/change-feed.ts';
import { LibraryGeneration } from './library/library-generation.ts';
import { LibraryListingService } from './library/library-listing.service.ts';
import { LibraryService } from './library/library.service.ts';
import type { LibraryRootService } from './library/library-root.service.ts';
import { MediaPathService } from './library/media-path.service.ts';
import { MovieService } from './library/movie.service.ts';
import { PlaybackTokenService } from './playback/playback-token.service.ts';
import { PlaybackService } from './playback/playback.service.ts';
import { WatchedLibraryRoots } from './scan/root-watch.service.ts';
import type { RootWatchLeader } from './scan/root-watch-leader.ts';
import { buildNodeState, buildRootWatch, type NodeState, sharedPlays } from '../wiring/node-state.ts';
import { fencedArtifactWrites, fencedTrickplayWrites } from '../wiring/fenced-writes.ts';
import { type ScanDeps, ScanService } from './scan/scan.service.ts';
import { StreamService } from './playback/stream.service.ts';
import { NowPlayingService } from './playback/now-playing.service.ts';
import { SystemStatusService } from './system/system-status.service.ts';
import { WatchStateService } from './library/watch-state.service.ts';
import { buildPeople } from './people/people-services.ts';
import type { UserService } from './people/user.service.ts';
import { KeptFileLookup } from './playback/kept-file-lookup.ts';
import { Argon2PasswordHasher, type PasswordHasher } from '../adapters/password-hasher.ts';
import { ApiKeyRepository } from '../repositories/api-key.repository.ts';
import { SessionRepository } from '../repositories/session.repository.ts';
import { type ApiKeyService } from './people/api-key.service.ts';
import { type SessionService } from './people/session.service.ts';
import type { AuthenticationService } from './people/authentication.service.ts';
import { VisibilityService } from './people/visibility.service.ts';
import { VisibilityRepository } from '../repositories/visibility.repository.ts';
import { CONTRACT_VERSION } from '@reelshelf/contract';
import type { HlsService } from './playback/hls.service.ts';
import type { SubtitleTrackService } from './playback/subtitle-track.service.ts';
import type { SubtitleVttService } from './playback/subtitle-vtt.service.ts';
import { buildConversions } from './playback/conversion-wiring.ts';
import { hlsCluster, reportNodeLoad } from '../wiring/hls-cluster.ts';
import { buildTrickplay, withTrickplaySweep } from './trickplay/trickplay-wiring.ts';
import type { TrickplayReader } from './trickplay/trickplay-ports.ts';
import type { TrickplayServingService } from './trickplay/trickplay-serving.service.ts';
import type { TrickplayService } from './trickplay/trickplay.service.ts';
import { TrickplayRepository as TrickplayRows } from '../repositories/trickplay.repository.ts';
import { buildDlna, type DlnaServices, type DlnaViewerSource } from './dlna/dlna-wiring.ts';
import { buildJellyfin } from './jellyfin/jellyfin-services.ts';
import { JellyfinFactsRepository } from '../repositories/jellyfin-facts.repository.ts';
import { FavouriteRepository } from '../repositories/favourite.repository.ts';
import type { JellyfinLibraryService } from './jellyfin/jellyfin-library.service.ts';
import type { JellyfinPlaybackService } from './jellyfin/jellyfin-playback.service.ts';
import type { JellyfinPlaystateService } from './jellyfin/jellyfin-playstate.service.ts';
import type { JellyfinImagesService } from './jellyfin/jellyfin-images.service.ts';
import type { JellyfinTrickplayService } from './jellyfin/jellyfin-trickplay.service.ts';

/** Every service, built once per process (the composition root's output). */
export interface Services extends CollectorServices {
  status: SystemStatusService;
  movies: MovieService;
  library: LibraryService;
  /** GET /library: the listing per device, built once per change and kept compressed. */
  listing: LibraryListingService;
  devices: DeviceProfileService;
  tokens: PlaybackTokenService;
  analysis: AnalysisService;
  editions: PlaybackEditionPresenter;
  /** Every write to the database, any node's: requests catch up on it before reading caches. */
  changes: ChangeFeed | undefined;
  /** The runner itself, for the composition root (recovery at start, close at shutdown). */
  jobs: JobRunner;
  /** What the jobs routes read. */
  jobViews: JobService;
  /** The nodes sharing the database (health, the people page). */
  nodes: NodeStatusService;
  roots: LibraryRootService;
  scans: ScanService;
  /** The roots' watching, on one node at a time (docs/cluster.md "Shared node state"). */
  rootWatch: RootWatchLeader;
  /** Stops, plays and sign-in failures every node shares: started after the job runner. */
  nodeState: NodeState;
  watch: WatchStateService;
  /** Bearer credentials (the admin token, keys) → the person behind them. */
  authentication: AuthenticationService;
  /** The household's people (issue 22). */
  users: UserService;
  /** Browser sessions in the database: sign-in, sign-out (everywhere), quick switching. */
  sessions: SessionService;
  /** Keys for devices and scripts. */
  keys: ApiKeyService;
  /** Which films a person may see: the one rule every surface applies (issue 22 §3). */
  visibility: VisibilityService;
  artifacts: ArtifactService;
  streams: StreamService;
  /** GET /api/media-file/{id}/playback: which URL (progressive or HLS) a player opens. */
  playback: PlaybackService;
  /** HLS presentations of conversions: playlists, segments made on request, restarts on seek. */
  hls: HlsService;
  /** Each person's plays: the history, what plays now (GET /api/sessions/active), stopping one. */
  plays: NowPlayingService;
  artwork: ArtworkService;
  enrichment: EnrichmentService;
  barcodes: BarcodeService;
  importExport: ImportExportService;
  /** A media file's subtitle tracks: embedded streams, then the sidecar files the scan found. */
  subtitleTracks: SubtitleTrackService;
  /** A text subtitle track as WebVTT (GET /stream/media_file/{id}/subtitles/{index}.vtt), converted once and cached. */
  subtitles: SubtitleVttService;
  /** The Jellyfin facade's browsing (docs/jellyfin.md): views and items over /library's listing. */
  jellyfin: JellyfinLibraryService;
  /** The Jellyfin facade's PlaybackInfo, streams and subtitles over the one decision engine. */
  jellyfinPlayback: JellyfinPlaybackService;
  /** The Jellyfin facade's progress and played: the person's watch state, history, now playing. */
  jellyfinPlaystate: JellyfinPlaystateService;
  /** The Jellyfin facade's images by tag (docs/jellyfin.md "Images"), through the artwork service. */
  jellyfinImages: JellyfinImagesService;
  /** The Jellyfin facade's seek thumbnails (/Videos/{id}/Trickplay/…; docs/jellyfin.md). */
  jellyfinTrickplay: JellyfinTrickplayService;
  /** The DLNA MediaServer (docs/dlna.md): identity, control, events, recent TVs. */
  dlna: DlnaServices;
  /** Seek thumbnails (docs/trickplay.md) as every surface reads them. */
  trickplay: TrickplayReader;
  /** Making and keeping them: the job, POST /api/media-file/{id}/trickplay, the start-up sweep. */
  trickplayJobs: TrickplayService;
  /** Seek thumbnails as reelshelf's own clients get them: the API answer, sheets, image playlist, BIF. */
  trickplayServing: TrickplayServingService;
}

export interface ServiceDeps {
  config: Config;
  db: Db;
  clock: Clock;
  tools: MediaToolsInfo;
  /** HMAC key of playback tokens (kept in the data dir). */
  playbackKey: string;
  /** The data dir's admin token: signs in as the first admin (bearer, or as its password). */
  adminToken: string;
  /** The data dir's secret behind the Jellyfin facade's ids and image tags (stable across restarts). */
  jellyfinKey: string;
  /** The DLNA MediaServer's `uuid:…`, kept in the data dir. */
  dlnaUdn: string;
  /** Test seam: the DLNA person without REELSHELF_DLNA (see ServerOverrides.dlnaViewer). */
  dlnaViewer?: DlnaViewerSource;
  /** Test seam: a cheaper password hasher (production: Argon2id at OWASP's cost). */
  passwordHasher?: PasswordHasher;
  /** Test seam: a pause point in scans (see ScanDeps.afterStagingWrite); production passes none. */
  afterStagingWrite?: ScanDeps['afterStagingWrite'];
  /** Test seam: see ServerOverrides.hlsSlowWarningMs. */
  hlsSlowWarningMs?: number;
  /** Test seam: see ServerOverrides.trickplayReader. */
  trickplayReader?: TrickplayReader;
  /** Test seam: see ServerOverrides.watchTimings. */
  watchTimings?: { quietMs?: number; checkMs?: number };
}

export function buildServices(deps: ServiceDeps): Services {
  const status = new SystemStatusService(deps.config, deps.tools);
  const store = new DataStore(deps.config.dataDir);
  const devices = new DeviceProfileService(store.readTextFilesSync('devices', '.json', 1024 * 1024));
  const tokens = new PlaybackTokenService(deps.playbackKey, deps.clock);
  // Database writes reach the generation through the observer openDatabase installed.
  const fileWrites = changeFeedOf(deps.db);
  const generation = new LibraryGeneration(fileWrites, () => tokens.currentExpiry());
  const readyArtifacts = new ReadyArtifactIndex(generation);
  const editions = new PlaybackEditionPresenter(
    devices,
    {
      policy: deps.config.playbackPolicy,
      transcodeAvailable: status.transcodeAvailable,
      audioEncoders: status.encodableCodecs('audio'),
      videoEncoders: status.encodableCodecs('video'),
      ffmpegAvailable: status.ffmpegAvailable,
    },
    tokens,
    readyArtifacts,
  );
  const ffprobe = new FfprobeAdapter({ path: deps.tools.ffprobe.path });
  const fs = new FileSystemAdapter();
  // One symlink rule for walks, fingerprints, ffprobe, streams, subtitles and artwork.
  const paths = new MediaPathService(fs, {
    followSymlinks: deps.config.followSymlinks,
    dataDir: deps.config.dataDir,
  });
  const analysis = new AnalysisService(
    new MediaFileRepository(deps.db),
    ffprobe,
    paths,
    deps.clock,
    deps.tools.ffprobe.available,
  );
  const jobs = JobRunner.onDatabase(deps.db, deps.clock, fileWrites);
  const providers = createProviders(deps.config, {
    cache: new ProviderCacheRepository(deps.db),
    clock: deps.clock,
  });
  const artwork = new ArtworkService(
    new ArtworkRepository(deps.db),
    new LibraryRootRepository(deps.db),
    jobs,
    new ImageDownloader(),
    deps.clock,
    { store, fs, paths },
    deps.config.tmdbImageBaseUrl,
  );
  const enrichment = new EnrichmentService(
    new MovieRepository(deps.db),
    kyselyUnitOfWork(deps.db, (trx) => ({
      metadata: new MovieMetadataRepository(trx),
      artwork: new ArtworkRepository(trx),
    })),
    jobs,
    deps.clock,
    providers.tmdb === null ? null : tmdbPort(providers.tmdb),
    providers.omdb === null ? null : omdbPort(providers.omdb),
    deps.config.certificationCountry,
  );
  // A new movie, whether a scan, an import or a scanned disc made it: enriched, then its artwork.
  const newMovies = new NewMovieMetadata({ enrichment, artwork, jobs });
  const scans = new ScanService({
    roots: new LibraryRootRepository(deps.db),
    staging: new ScanRepository(deps.db),
    commits: kyselyUnitOfWork(deps.db, (trx) => ({
      scans: new ScanRepository(trx),
      mediaFiles: new MediaFileRepository(trx),
      roots: new LibraryRootRepository(trx),
      sidecars: new SubtitleSidecarRepository(trx),
      jobs: new JobRepository(trx),
    })),
    jobs,
    fs,
    paths,
    walk: walkDirectory,
    analysis,
    clock: deps.clock,
    fingerprint: fileFingerprint,
    text: fs,
    newMovies,
    afterStagingWrite: deps.afterStagingWrite,
    afterScan: () => trickplay.jobs.afterScan(),
  });
  const rootWatch = buildRootWatch(deps, jobs, {
    roots: { list: (): Promise<LibraryRootView[]> => roots.list() },
    scans,
    fs,
    ...deps.watchTimings,
  });
  const roots = new WatchedLibraryRoots(
    withTrickplaySweep(rootWatch, () => trickplay.jobs),
    new LibraryRootRepository(deps.db),
    kyselyUnitOfWork(deps.db, (trx) => new LibraryRootRepository(trx)),
    fs,
    deps.clock,
  );
  const movieReads = new MovieRepository(deps.db);
  const movieWrites = kyselyUnitOfWork(deps.db, (trx) => new MovieRepository(trx));
  const country = deps.config.certificationCountry;
  const movies = new MovieService(movieReads, movieWrites, deps.clock, country, generation);
  const barcodes = new BarcodeService(
    movieReads,
    movieWrites,
    deps.clock,
    movies,
    upcPort(providers.upc),
    providers.tmdb === null ? null : tmdbPort(providers.tmdb),
    newMovies,
  );
  const importExport = buildImportExport(deps.db, { clock: deps.clock, fs, newMovies, jobs });
  // Playback: one conversion limit (HLS, prewarms, builds), one bound over artifacts and segments on disk.
  const slots = new ConversionSlots(deps.config.maxConversions);
  const playbackCache = buildPlaybackCache(deps.db, deps.clock, store, deps.config.artifactCacheMb);
  const mediaFiles = new MediaFileRepository(deps.db);
  const artifacts = new ArtifactService({
    records: new ArtifactRepository(deps.db),
    fenced: fencedArtifactWrites(deps.db),
    files: new KeptFileLookup(new LibraryRepository(deps.db), fileWrites),
    jobs,
    ffmpeg: new FfmpegAdapter(deps.tools.ffmpeg.path),
    ffmpegAvailable: deps.tools.ffmpeg.available,
    transcodeAvailable: status.transcodeAvailable,
    editions,
    devices,
    paths,
    index: readyArtifacts,
    ...(fileWrites === undefined ? {} : { subscribeState: (l) => fileWrites.subscribeState(l) }),
    clock: deps.clock,
    store,
    slots,
    cache: playbackCache,
  });
  // The conversions (HLS with its subtitles, cut at keyframes; its master names the seek thumbnails).
  const { keyframeSource, subtitleTracks, subtitles, hls } = buildConversions({
    deps,
    mediaFiles,
    keyframeRows: new KeyframeIndexRepository(deps.db),
    sidecars: new SubtitleSidecarRepository(deps.db),
    ffprobe,
    paths,
    store,
    slots,
    cluster: hlsCluster(deps.db, jobs, fileWrites, deps.config.nodeRole),
    playbackCache,
    artifacts,
    editions,
    trickplay: { made: (fileId) => trickplay.reader.made(fileId) },
  });
  // The nodes' load in /api/health, and this node's conversions with their speed for the api nodes.
  reportNodeLoad(jobs, slots, hls);
  const trickplay = buildTrickplay({
    deps,
    rows: new TrickplayRows(deps.db),
    fenced: fencedTrickplayWrites(deps.db),
    files: mediaFiles,
    keyframes: keyframeSource,
    paths,
    store,
    jobs,
    slots,
    tokens,
    devices,
  });
  // People: their keys, sessions and sign-ins (guarded per address and account).
  const users = new UserRepository(deps.db);
  const { keys, sessions, authentication, people, guard } = buildPeople({
    users,
    keys: new ApiKeyRepository(deps.db),
    sessions: new SessionRepository(deps.db),
    userStore: kyselyUnitOfWork(deps.db, (trx) => ({
      users: new UserRepository(trx),
      sessions: new SessionRepository(trx),
    })),
    hasher: deps.passwordHasher ?? new Argon2PasswordHasher(),
    clock: deps.clock,
    adminToken: deps.adminToken,
    country: deps.config.certificationCountry,
    policy: {
      idleMs: deps.config.sessionIdleHours * 3_600_000,
      maxMs: deps.config.sessionMaxDays * 86_400_000,
    },
    externalVersion: () => fileWrites?.externalVersion() ?? 0,
    onPeopleWrite: (listener) => fileWrites?.subscribePeople(listener),
  });
  const visibility = new VisibilityService(
    new VisibilityRepository(deps.db),
    deps.config.certificationCountry,
    authentication,
  );
  const library = new LibraryService(new LibraryRepository(deps.db), editions, status, visibility);
  const plays = new NowPlayingService({
    history: new PlayHistoryRepository(deps.db),
    modeOf: async (fileId, device) =>
      (await artifacts.needs(fileId, device)).decision.prediction === 'direct' ? 'direct' : 'converted',
    conversions: hls,
    tokens,
    listing: generation,
    clock: deps.clock,
    shared: sharedPlays(deps.db, jobs, fileWrites),
  });
  // A saved position moves the person's play (history, now playing) on.
  const watch = new WatchStateService(mediaFiles, new WatchStateRepository(deps.db), deps.clock, plays);
  return {
    changes: fileWrites,
    // The DLNA MediaServer (docs/dlna.md): its person's view, through the one decision engine.
    dlna: buildDlna({
      config: deps.config,
      udn: deps.dlnaUdn,
      version: CONTRACT_VERSION,
      people: authentication,
      clock: deps.clock,
      playbackKey: deps.playbackKey,
      ffmpegPath: deps.tools.ffmpeg.path,
      repositories: { artwork: new ArtworkRepository(deps.db), facts: new JellyfinFactsRepository(deps.db) },
      services: {
        devices,
        artifacts,
        editions,
        visibility,
        paths,
        subtitles,
        artwork,
        hls,
        library,
        watch,
        generation,
        plays,
      },
      viewer: deps.dlnaViewer,
    }),
    // The Jellyfin facade (docs/jellyfin.md) over the library, its people and the one decision engine.
    ...buildJellyfin({
      repositories: {
        facts: new JellyfinFactsRepository(deps.db),
        favourites: new FavouriteRepository(deps.db),
        artworkRows: new ArtworkRepository(deps.db),
      },
      clock: deps.clock,
      key: deps.jellyfinKey,
      devices,
      library,
      generation,
      visibility,
      movies,
      watch,
      artifacts,
      editions,
      subtitles,
      artwork,
      users,
      plays,
      trickplay: trickplay.reader,
    }),
    status,
    movies,
    library,
    listing: new LibraryListingService(library, generation, visibility),
    devices,
    tokens,
    analysis,
    editions,
    jobs,
    jobViews: new JobService(jobs),
    nodes: new NodeStatusService(jobs, deps.clock),
    roots,
    scans,
    rootWatch,
    nodeState: buildNodeState(deps, { feed: fileWrites, tokens, guard, listing: generation, plays }),
    watch,
    authentication,
    users: people,
    sessions,
    keys,
    visibility,
    artifacts,
    streams: new StreamService(
      tokens,
      devices,
      editions,
      artifacts,
      paths,
      store,
      authentication,
      visibility,
    ),
    // A conversion measured slower than real time is said to the player (hls) before it stalls.
    playback: new PlaybackService(artifacts, editions, tokens, hls, subtitleTracks),
    hls,
    plays,
    artwork,
    enrichment,
    barcodes,
    importExport,
    ...buildCollector(deps.db, deps.clock),
    subtitleTracks,
    subtitles,
    trickplay: trickplay.reader,
    trickplayJobs: trickplay.jobs,
    trickplayServing: trickplay.serving,
  };
}
