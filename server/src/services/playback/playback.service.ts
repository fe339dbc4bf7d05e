import type { Capabilities } from '../../domain/media/capabilities.ts';
import type { PlaybackDecision, PlaybackPrediction } from '../../domain/playback/decision-types.ts';
import type { DeviceProfile } from '../../domain/playback/device-profiles.ts';
import { defaultSubtitleIndex, subtitleLabel } from '../../domain/subtitles/subtitle-list.ts';
import type { SubtitleTrackSource } from '../../domain/subtitles/subtitle-track.ts';
import type { LibraryFileRow } from '../../repositories/library.repository.ts';
import type { PlaybackTokenService } from './playback-token.service.ts';
import type { TokenHolder } from '../../domain/playback-token.ts';

/**
 * A subtitle track a player can offer: text tracks with their WebVTT URL (same token), image tracks
 * with none (they are burned in on request). `default` marks the one track shown by default (a forced
 * track in the audio's language, else the default-flagged one): the edition's `subtitle_url`.
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

/** GET /api/media-file/{id}/playback: which URL a player opens, and what to expect from it. */
export interface PlaybackInfo {
  prediction: PlaybackPrediction;
  is_playable: boolean;
  /** The progressive URL, exactly as the edition's `stream_url` in GET /library. */
  stream_url: string;
  /** The HLS master playlist (same token), or null when the player should open `stream_url`. */
  hls_url: string | null;
  duration_seconds: number | null;
  warnings: string[];
  subtitles: PlaybackSubtitle[];
}

/**
 * Things a player should know before pressing play that only the conversion engine can tell
 * (e.g. "this transcode runs below real time on this machine"). The HLS engine provides it.
 */
export interface PlaybackWarningSource {
  warnings(fileId: number, device: string): string[];
}

export const NO_PLAYBACK_WARNINGS: PlaybackWarningSource = { warnings: () => [] };

/** The playback decision of a file on a device: the same one GET /library and /stream use. */
export interface PlaybackDecisionSource {
  needs(
    fileId: number,
    device: string,
  ): Promise<{ file: LibraryFileRow; profile: DeviceProfile; decision: PlaybackDecision }>;
}

/** Reads a file's stored capabilities (null when not analysed). */
export interface CapabilitiesReader {
  capabilitiesOf(file: LibraryFileRow): Capabilities | null;
}

const CONVERSIONS: ReadonlySet<PlaybackPrediction> = new Set(['remux', 'adaptive', 'transcode']);

/**
 * Whether a player gets an HLS URL. Every conversion is served as HLS, because a progressive file
 * that is still being written can neither tell its duration nor be seeked into; a direct file is
 * served as HLS only to players whose profile prefers it (TV players seek by segment and list the
 * audio renditions in their own menu). Nothing that does not play gets one: its stream URL answers
 * 400 with the reason.
 * @example usesHls({ prediction: 'direct', isPlayable: true, prefersHls: false }) // false
 */
export function usesHls(input: {
  prediction: PlaybackPrediction;
  isPlayable: boolean;
  prefersHls: boolean;
}): boolean {
  if (!input.isPlayable) return false;
  return CONVERSIONS.has(input.prediction) || input.prefersHls;
}

/** Answers "how do I play this file on this device?" for one media file. */
export class PlaybackService {
  constructor(
    private readonly decisions: PlaybackDecisionSource,
    private readonly capabilities: CapabilitiesReader,
    private readonly tokens: Pick<PlaybackTokenService, 'playbackUrls'>,
    private readonly warnings: PlaybackWarningSource = NO_PLAYBACK_WARNINGS,
    private readonly subtitles: SubtitleTrackSource | null = null,
  ) {}

  /**
   * @param device a device id (`web` when absent); unknown → 400 unknown_device
   * @param holder whom the URLs' tokens are for (the person and the credential they signed in with)
   * @throws AppError 404 not_found for an unknown file
   */
  async info(fileId: number, device: string | undefined, holder: TokenHolder): Promise<PlaybackInfo> {
    const { file, profile, decision } = await this.decisions.needs(fileId, device ?? 'web');
    const urls = this.tokens.playbackUrls(file.id, profile.id, holder);
    const hls = usesHls({
      prediction: decision.prediction,
      isPlayable: decision.isPlayable,
      prefersHls: profile.prefers_hls,
    });
    const caps = this.capabilities.capabilitiesOf(file);
    const duration = caps?.duration_seconds ?? null;
    const tracks = this.subtitles === null ? [] : await this.subtitles.tracks(file.id);
    const audioLanguage = caps?.audio.find((a) => a.track === decision.selectedAudioTrack)?.language ?? null;
    const shown = defaultSubtitleIndex(tracks, audioLanguage);
    return {
      prediction: decision.prediction,
      is_playable: decision.isPlayable,
      stream_url: urls.streamUrl,
      hls_url: hls ? urls.hlsUrl : null,
      duration_seconds: duration !== null && Number.isFinite(duration) && duration > 0 ? duration : null,
      warnings: decision.isPlayable ? this.warnings.warnings(file.id, profile.id) : [],
      subtitles: tracks.map((track) => ({
        index: track.index,
        language: track.language,
        label: subtitleLabel(track),
        forced: track.forced,
        default: track.index === shown,
        sdh: track.sdh,
        format: track.format,
        kind: track.kind,
        url: track.kind === 'text' ? urls.subtitleUrl(track.index) : null,
      })),
    };
  }
}
