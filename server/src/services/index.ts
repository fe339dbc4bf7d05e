import type { LibraryRootView } from '@reelshelf/contract';
import type { Clock } from '../adapters/clock.ts';
import { DataStore } from '../adapters/data-store.ts';
import { FfmpegAdapter } from '../adapters/ffmpeg.ts';
import { FfprobeAdapter } from '../adapters/ffprobe.ts';
import { FileSystemAdapter } from '../adapters/file-system.ts';
import { ImageDownloader } from '../adapters/image-downloader.ts';
import { KeyframeReader } from '../adapters/keyframe-reader.ts';
import { fileFingerprint } from '../adapters/fingerprint.ts';
import { folderIdentity, watchFolderTree } from '../adapters/folder-watcher.ts';
import type { MediaToolsInfo } from '../adapters/media-tools.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import { JobRunner } from '../jobs/job-runner.ts';
import { createProviders } from '../providers/index.ts';
import { ProviderCacheRepository } from '../repositories/provider-cache.repository.ts';
import { AnalysisService } from './scan/analysis.service.ts';
import { ArtifactService } from './playback/artifact.service.ts';
import { ReadyArtifactIndex } from './playback/artifact-index.ts';
import { ArtworkService } from './metadata/artwork.service.ts';
import { BarcodeService } from './metadata/barcode.service.ts';
import { EnrichmentService } from './metadata/enrichment.service.ts';
import { HlsService } from './playback/hls.service.ts';
import { KeyframeIndexService } from './playback/keyframe-index.service.ts';
import { ImportExportService } from './import/import-export.service.ts';
import { JobService } from './system/job.service.ts';
import { omdbPort, tmdbPort, upcPort } from './metadata/provider-adapters.ts';
import { DeviceProfileService } from './playback/device-profile.service.ts';
import { PlaybackEditionPresenter } from './playback/edition-presenter.ts';
import { ListingWriteObserver } from '../db/listing-writes.ts';
import { LibraryGeneration } from './library/library-generation.ts';
import { LibraryListingService } from './library/library-listing.service.ts';
import { LibraryService } from './library/library.service.ts';
import type { LibraryRootService } from './library/library-root.service.ts';
import { MediaPathService } from './library/media-path.service.ts';
import { MovieService } from './library/movie.service.ts';
import { PlaybackTokenService } from './playback/playback-token.service.ts';
import { PlaybackService } from './playback/playback.service.ts';
import { RootWatchService, WatchedLibraryRoots } from './scan/root-watch.service.ts';
import { type ScanDeps, ScanService } from './scan/scan.service.ts';
import { StreamService } from './playback/stream.service.ts';
import { SubtitleTrackService } from './playback/subtitle-track.service.ts';
import { SubtitleVttService } from './playback/subtitle-vtt.service.ts';
import { SystemStatusService } from './system/system-status.service.ts';
import { WatchStateService } from './library/watch-state.service.ts';

/** Every service, built once per process (the composition root's output). */
export interface Services {
  status: SystemStatusService;
  movies: MovieService;
  library: LibraryService;
  /** GET /library: the listing per device, built once per change and kept compressed. */
  listing: LibraryListingService;
  devices: DeviceProfileService;
  tokens: PlaybackTokenService;
  analysis: AnalysisService;
  editions: PlaybackEditionPresenter;
  /** The runner itself, for the composition root (recovery at start, close at shutdown). */
  jobs: JobRunner;
  /** What the jobs routes read. */
  jobViews: JobService;
  roots: LibraryRootService;
  scans: ScanService;
  /** Watches the roots and rescans them periodically (started by the server's listen, stopped by its close). */
  rootWatch: RootWatchService;
  watch: WatchStateService;
  artifacts: ArtifactService;
  streams: StreamService;
  /** GET /api/media-file/{id}/playback: which URL (progressive or HLS) a player opens. */
  playback: PlaybackService;
  /** HLS presentations of conversions: playlists, segments made on request, restarts on seek. */
  hls: HlsService;
  artwork: ArtworkService;
  enrichment: EnrichmentService;
  barcodes: BarcodeService;
  importExport: ImportExportService;
  /** A media file's subtitle tracks: embedded streams, then the sidecar files the scan found. */
  subtitleTracks: SubtitleTrackService;
  /** A text subtitle track as WebVTT (GET /stream/media_file/{id}/subtitles/{index}.vtt), converted once and cached. */
  subtitles: SubtitleVttService;
}

export interface ServiceDeps {
  config: Config;
  db: Db;
  clock: Clock;
  tools: MediaToolsInfo;
  /** HMAC key of playback tokens (kept in the data dir). */
  playbackKey: string;
  /** Test seam: a pause point in scans (see ScanDeps.afterStagingWrite); production passes none. */
  afterStagingWrite?: ScanDeps['afterStagingWrite'];
  /** Test seam: see ServerOverrides.hlsSlowWarningMs. */
  hlsSlowWarningMs?: number;
  /** Test seam: see ServerOverrides.watchTimings. */
  watchTimings?: { quietMs?: number; checkMs?: number };
}

export function buildServices(deps: ServiceDeps): Services {
  const status = new SystemStatusService(deps.config, deps.tools);
  const store = new DataStore(deps.config.dataDir);
  const devices = new DeviceProfileService(store.readTextFilesSync('devices', '.json', 1024 * 1024));
  const tokens = new PlaybackTokenService(deps.playbackKey, deps.clock);
  // Database writes reach the generation through the observer openDatabase installed.
  const generation = new LibraryGeneration(ListingWriteObserver.of(deps.db), () => tokens.currentExpiry());
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
  const analysis = new AnalysisService(deps.db, ffprobe, paths, deps.clock, deps.tools.ffprobe.available);
  const jobs = new JobRunner(deps.db, deps.clock);
  const providers = createProviders(deps.config, {
    cache: new ProviderCacheRepository(deps.db),
    clock: deps.clock,
  });
  const artwork = new ArtworkService(
    deps.db,
    jobs,
    new ImageDownloader(),
    deps.clock,
    { store, fs, paths },
    deps.config.tmdbImageBaseUrl,
  );
  const enrichment = new EnrichmentService(
    deps.db,
    jobs,
    deps.clock,
    providers.tmdb === null ? null : tmdbPort(providers.tmdb),
    providers.omdb === null ? null : omdbPort(providers.omdb),
  );
  /** New movies (from scans and imports) are enriched, then their artwork is fetched, in the background. */
  const enrichInBackground = (movieIds: number[]) => {
    void (async () => {
      const jobId = await enrichment.queue(movieIds);
      if (jobId !== null) await jobs.wait(jobId);
      await artwork.start(movieIds);
    })().catch(() => undefined);
  };
  const scans = new ScanService({
    db: deps.db,
    jobs,
    fs,
    paths,
    analysis,
    clock: deps.clock,
    fingerprint: fileFingerprint,
    text: fs,
    onMoviesCreated: enrichInBackground,
    afterStagingWrite: deps.afterStagingWrite,
  });
  const rootWatch = new RootWatchService({
    roots: { list: (): Promise<LibraryRootView[]> => roots.list() },
    scans,
    jobs,
    fs,
    folders: { identity: folderIdentity, watch: watchFolderTree },
    watch: deps.config.watch,
    rescanIntervalMs: deps.config.rescanIntervalMs,
    ...deps.watchTimings,
  });
  const roots = new WatchedLibraryRoots(rootWatch, deps.db, fs, deps.clock);
  const movies = new MovieService(deps.db, deps.clock);
  const barcodes = new BarcodeService(
    deps.db,
    deps.clock,
    movies,
    upcPort(providers.upc),
    providers.tmdb === null ? null : tmdbPort(providers.tmdb),
    async (movieId) => {
      // The scanned disc's movie is enriched at once (the person is looking at it), artwork after.
      const batch = { ratingsStopped: false, warnings: [] as string[] };
      if (enrichment.enabled) await enrichment.enrich(movieId, batch);
      await artwork.start([movieId]);
      return batch.warnings;
    },
  );
  const importExport = new ImportExportService(
    deps.db,
    deps.clock,
    fs,
    async (movieIds) => {
      // Imported movies are enriched in the background when a provider is configured, then get artwork.
      const jobId = await enrichment.queue(movieIds);
      if (jobId !== null) {
        // (Artwork is not started once the server is closing: that refusal is no error of the import.)
        void jobs
          .wait(jobId)
          .then(() => artwork.start(movieIds))
          .catch(() => undefined);
      }
      return jobId;
    },
    jobs,
  );
  const artifacts = new ArtifactService({
    db: deps.db,
    jobs,
    ffmpeg: new FfmpegAdapter(deps.tools.ffmpeg.path),
    ffmpegAvailable: deps.tools.ffmpeg.available,
    transcodeAvailable: status.transcodeAvailable,
    editions,
    devices,
    paths,
    index: readyArtifacts,
    clock: deps.clock,
    store,
    cacheBytes: deps.config.artifactCacheMb * 1024 * 1024,
  });
  // Copied video is cut at its keyframes, read once from the container's index and kept.
  const keyframeSource = new KeyframeIndexService(deps.db, new KeyframeReader(ffprobe), paths, deps.clock);
  const subtitleTracks = new SubtitleTrackService(deps.db);
  const subtitles = new SubtitleVttService({
    db: deps.db,
    tracks: subtitleTracks,
    paths,
    store,
    ffmpeg: new FfmpegAdapter(deps.tools.ffmpeg.path),
    ffmpegAvailable: deps.tools.ffmpeg.available,
  });
  const hls = new HlsService({
    ffmpeg: new FfmpegAdapter(deps.tools.ffmpeg.path),
    ffmpegAvailable: deps.tools.ffmpeg.available,
    artifacts,
    editions,
    paths,
    keyframes: keyframeSource,
    store,
    cacheBytes: deps.config.artifactCacheMb * 1024 * 1024,
    maxJobs: deps.config.maxConversions,
    threads: deps.config.conversionThreads,
    idleMs: deps.config.hlsIdleSeconds * 1000,
    ...(deps.hlsSlowWarningMs === undefined ? {} : { slowWarningMs: deps.hlsSlowWarningMs }),
    // Text subtitles become the master playlist's WebVTT rendition group.
    subtitles: {
      tracks: (fileId) => subtitleTracks.tracks(fileId),
      vtt: (fileId, index) => subtitles.vtt(fileId, index),
    },
  });
  artifacts.useHls(hls);
  const library = new LibraryService(deps.db, editions, status);
  // A conversion measured slower than real time is said to the player before it stalls.
  const playbackWarnings = hls;
  return {
    status,
    movies,
    library,
    listing: new LibraryListingService(library, generation),
    devices,
    tokens,
    analysis,
    editions,
    jobs,
    jobViews: new JobService(jobs),
    roots,
    scans,
    rootWatch,
    watch: new WatchStateService(deps.db, deps.clock),
    artifacts,
    streams: new StreamService(tokens, devices, editions, artifacts, paths, store),
    playback: new PlaybackService(artifacts, editions, tokens, playbackWarnings, subtitleTracks),
    hls,
    artwork,
    enrichment,
    barcodes,
    importExport,
    subtitleTracks,
    subtitles,
  };
}
