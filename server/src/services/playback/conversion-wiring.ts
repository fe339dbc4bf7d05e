/**
 * The conversions' part of the composition root (services/index.ts): the keyframe index that cuts
 * copied video, the subtitle tracks and their WebVTT, and the HLS service over them.
 */
import type { DataStore } from '../../adapters/data-store.ts';
import { FfmpegAdapter } from '../../adapters/ffmpeg.ts';
import type { FfprobeAdapter } from '../../adapters/ffprobe.ts';
import { KeyframeReader } from '../../adapters/keyframe-reader.ts';
import type { Clock } from '../../adapters/clock.ts';
import type { MediaToolsInfo } from '../../adapters/media-tools.ts';
import type { Config } from '../../config.ts';
import type { KeyframeIndexRepository } from '../../repositories/keyframe-index.repository.ts';
import type { MediaFileRepository } from '../../repositories/media-file.repository.ts';
import type { SubtitleSidecarRepository } from '../../repositories/subtitle-sidecar.repository.ts';
import type { MediaPathService } from '../library/media-path.service.ts';
import type { ArtifactService } from './artifact.service.ts';
import type { ConversionSlots } from './conversion-slots.ts';
import type { PlaybackEditionPresenter } from './edition-presenter.ts';
import { type HlsClusterDeps, type HlsImageStreamSource, HlsService } from './hls.service.ts';
import { KeyframeIndexService } from './keyframe-index.service.ts';
import type { PlaybackCache } from './playback-cache.ts';
import { SubtitleTrackService } from './subtitle-track.service.ts';
import { SubtitleVttService } from './subtitle-vtt.service.ts';

export interface ConversionWiring {
  deps: {
    config: Config;
    clock: Clock;
    tools: MediaToolsInfo;
    /** Test seam: see ServerOverrides.hlsSlowWarningMs. */
    hlsSlowWarningMs?: number;
  };
  mediaFiles: MediaFileRepository;
  keyframeRows: KeyframeIndexRepository;
  sidecars: SubtitleSidecarRepository;
  ffprobe: FfprobeAdapter;
  paths: MediaPathService;
  store: DataStore;
  slots: ConversionSlots;
  /** Who converts which presentation among the nodes (wiring/hls-cluster.ts). */
  cluster: HlsClusterDeps;
  playbackCache: PlaybackCache;
  artifacts: ArtifactService;
  editions: PlaybackEditionPresenter;
  /** The made seek thumbnails: a master playlist announces their image playlist. */
  trickplay?: HlsImageStreamSource;
}

export function buildConversions(wiring: ConversionWiring): {
  keyframeSource: KeyframeIndexService;
  subtitleTracks: SubtitleTrackService;
  subtitles: SubtitleVttService;
  hls: HlsService;
} {
  const { deps, mediaFiles, paths, store, slots, playbackCache, artifacts, editions } = wiring;
  // Copied video is cut at its keyframes, read once from the container's index and kept.
  const keyframeSource = new KeyframeIndexService(
    mediaFiles,
    wiring.keyframeRows,
    new KeyframeReader(wiring.ffprobe),
    paths,
    deps.clock,
  );
  const subtitleTracks = new SubtitleTrackService(mediaFiles, wiring.sidecars);
  const subtitles = new SubtitleVttService({
    files: mediaFiles,
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
    slots,
    cluster: wiring.cluster,
    cache: playbackCache,
    threads: deps.config.conversionThreads,
    idleMs: deps.config.hlsIdleSeconds * 1000,
    ...(deps.hlsSlowWarningMs === undefined ? {} : { slowWarningMs: deps.hlsSlowWarningMs }),
    ...(wiring.trickplay === undefined ? {} : { trickplay: wiring.trickplay }),
    // Text subtitles become the master playlist's WebVTT rendition group.
    subtitles: {
      tracks: (fileId) => subtitleTracks.tracks(fileId),
      vtt: (fileId, index) => subtitles.vtt(fileId, index),
    },
  });
  artifacts.useHls(hls);
  return { keyframeSource, subtitleTracks, subtitles, hls };
}
