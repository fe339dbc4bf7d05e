import type { AudioTrackInfo, LibraryEdition, PhysicalCopyInfo } from '@reelshelf/contract';
import type { Capabilities } from '../../domain/media/capabilities.ts';
import { integrityProblems } from '../../domain/media/integrity.ts';
import { defaultSubtitle } from '../../domain/playback/assess-subtitles.ts';
import { decidePlayback } from '../../domain/playback/decide-playback.ts';
import { asCapability, type SidecarFacts, subtitleTracksOf } from '../../domain/subtitles/subtitle-list.ts';
import type { SubtitleTrack } from '../../domain/subtitles/subtitle-track.ts';
import type {
  AnalysisState,
  PlaybackDecision,
  PlaybackPolicy,
  PlaybackPrediction,
} from '../../domain/playback/decision-types.ts';
import type { DeviceProfile } from '../../domain/playback/device-profiles.ts';
import {
  audioDisplayLabel,
  displayLabel,
  hdrDisplayLabel,
  resolutionLabel,
  runtimeText,
  statusTexts,
} from '../../domain/playback/labels.ts';
import type { LibraryFileRow } from '../../repositories/library.repository.ts';
import type { DeviceProfileService } from './device-profile.service.ts';
import type { EditionPresenter, PresentedEdition } from '../library/library.service.ts';
import type { PlaybackTokenService } from './playback-token.service.ts';
import type { TokenHolder } from '../../domain/playback-token.ts';

/** What the presenter needs to know about the server beyond the file: policy and tools. */
export interface PlaybackSettings {
  policy: PlaybackPolicy;
  transcodeAvailable: boolean;
  /** Codec ids ffmpeg can encode (aac, eac3, h264, …). */
  audioEncoders: string[];
  videoEncoders: string[];
  /** False when no ffmpeg runs: then even a remux cannot be made. */
  ffmpegAvailable: boolean;
}

/**
 * Whether a finished playback artifact exists for a file and device (prewarm). The presenter owns
 * this port and is handed an implementation (services/artifact-index.ts), so it depends on nothing
 * of the artifact side.
 */
export interface ArtifactIndex {
  /** Ready for this file's current content: an artifact built from older content does not count. */
  isReady(file: ArtifactSourceFile, device: string): boolean;
}

/** What identifies a media file's content for its artifacts. */
export interface ArtifactSourceFile {
  id: number;
  fingerprint: string | null;
  size_bytes: number;
}

export const NO_ARTIFACTS: ArtifactIndex = { isReady: () => false };

const LADDER: Record<PlaybackPrediction, number> = {
  direct: 0,
  remux: 1,
  adaptive: 2,
  transcode: 3,
  strict_incompatible: 4,
};

/** Reads a stored capabilities record; a record that does not parse counts as not analysed. */
/** The listing's sidecars_json ('[]' without sidecars); a damaged value reads as none. */
function readSidecars(json: string | null | undefined): SidecarFacts[] {
  if (json === null || json === undefined || json === '' || json === '[]') return [];
  try {
    const parsed: unknown = JSON.parse(json);
    return Array.isArray(parsed)
      ? parsed.filter(
          (row): row is SidecarFacts =>
            typeof row === 'object' &&
            row !== null &&
            typeof (row as SidecarFacts).relative_path === 'string',
        )
      : [];
  } catch {
    return [];
  }
}

export function readCapabilities(json: string | null): Capabilities | null {
  if (json === null) return null;
  try {
    const parsed: unknown = JSON.parse(json);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Capabilities) : null;
  } catch {
    return null;
  }
}

function analysisState(file: LibraryFileRow, caps: Capabilities | null): AnalysisState {
  if (file.status === 'missing') return 'missing';
  if (file.analysis_status === 'failed') return 'failed';
  if (file.analysis_status === 'analyzed' && caps !== null) return 'analyzed';
  return 'not_analyzed';
}

/** The edition label a person sees: the version name from the file name, else its resolution. */
function editionLabel(file: LibraryFileRow, caps: Capabilities | null): string {
  if (file.edition_label !== null && file.edition_label.trim() !== '') return file.edition_label;
  return resolutionLabel(caps?.video?.width ?? null, caps?.video?.height ?? null) ?? 'Default';
}

function audioTracks(caps: Capabilities | null): AudioTrackInfo[] {
  return (caps?.audio ?? []).map((a) => ({
    index: a.track,
    codec: a.codec,
    channels: a.channels ?? 0,
    language: a.language,
    title: a.title,
  }));
}

/**
 * The LibraryEdition of one media file for one device: the playback decision, its texts, labels
 * from the probe, integrity, watch state and a signed stream URL.
 */
export class PlaybackEditionPresenter implements EditionPresenter {
  constructor(
    private readonly devices: DeviceProfileService,
    private readonly settings: PlaybackSettings,
    private readonly tokens: PlaybackTokenService,
    private readonly artifacts: ArtifactIndex = NO_ARTIFACTS,
  ) {}

  get policy(): PlaybackPolicy {
    return this.settings.policy;
  }

  /** The codecs the ffmpeg in use encodes (HLS renditions are converted with the same choice). */
  get encoders(): { audio: string[]; video?: string[] } {
    return { audio: this.settings.audioEncoders, video: this.settings.videoEncoders };
  }

  /**
   * What the analysis found, with the file's sidecar subtitles appended to its subtitle tracks
   * (numbered as URLs number them), so the decision weighs every track a player can be given.
   */
  capabilitiesOf(file: LibraryFileRow): Capabilities | null {
    const caps = readCapabilities(file.capabilities_json);
    if (caps === null) return null;
    return {
      ...caps,
      subtitles: subtitleTracksOf(caps.subtitles, readSidecars(file.sidecars_json)).map(asCapability),
    };
  }

  /** The file's subtitle tracks, embedded then sidecars, as one numbered list. */
  subtitleTracksOf(file: LibraryFileRow): SubtitleTrack[] {
    const caps = readCapabilities(file.capabilities_json);
    return subtitleTracksOf(caps?.subtitles ?? [], readSidecars(file.sidecars_json));
  }

  /** The decision alone (streaming and prewarm use it too: one rule for listing and playing). */
  decide(
    file: LibraryFileRow,
    profile: DeviceProfile,
    /** A subtitle track the person picked (burned in when the device cannot show it); else automatic. */
    subtitleTrack?: number,
  ): { decision: PlaybackDecision; caps: Capabilities | null } {
    const caps = this.capabilitiesOf(file);
    const decision = decidePlayback({
      capabilities: caps,
      analysis: analysisState(file, caps),
      ...(file.analysis_error === null ? {} : { analysisError: file.analysis_error }),
      profile,
      policy: this.settings.policy,
      transcodeAvailable: this.settings.transcodeAvailable,
      ffmpegAvailable: this.settings.ffmpegAvailable,
      encoders: { audio: this.settings.audioEncoders, video: this.settings.videoEncoders },
      artifactReady: subtitleTrack === undefined && this.artifacts.isReady(file, profile.id),
      ...(subtitleTrack === undefined ? {} : { subtitleTrack }),
    });
    return { decision, caps };
  }

  /** One edition as `device` sees it, its URLs signed for `holder`. */
  present(
    file: LibraryFileRow,
    copy: PhysicalCopyInfo | null,
    device: string,
    holder: TokenHolder,
  ): PresentedEdition {
    const profile = this.devices.resolve(device);
    const { decision, caps: withSidecars } = this.decide(file, profile);
    // The edition shows what the analysis found; sidecars are listed by the playback endpoint.
    const caps = readCapabilities(file.capabilities_json);
    const problems =
      file.status === 'missing'
        ? []
        : integrityProblems({
            sizeBytes: Number(file.size_bytes),
            fingerprint: file.fingerprint,
            analyzedSizeBytes: file.analyzed_size_bytes === null ? null : Number(file.analyzed_size_bytes),
            analyzedFingerprint: file.analyzed_fingerprint,
            capabilities: caps,
          });
    const flagged = problems.length > 0;
    const texts = statusTexts(decision, caps, profile);
    const video = caps?.video ?? null;
    const selectedAudio =
      caps?.audio.find((a) => a.track === decision.selectedAudioTrack) ?? caps?.audio[0] ?? null;
    const duration = caps?.duration_seconds ?? null;
    const urls = this.tokens.playbackUrls(file.id, profile.id, holder);
    // The track shown by default, as WebVTT; an image track cannot be (it is burned in instead).
    const shown = defaultSubtitle(withSidecars?.subtitles ?? [], selectedAudio?.language ?? null);
    const edition: LibraryEdition = {
      media_file_id: file.id,
      label: editionLabel(file, caps),
      stream_url: urls.streamUrl,
      integrity_flagged: flagged,
      capabilities: caps === null ? {} : { ...caps },
      compatibility: {
        playable: decision.compatibilityPlayable,
        reason: decision.incompatibility?.detail ?? null,
        ...(decision.incompatibility === null ? {} : { incompatibility: { ...decision.incompatibility } }),
      },
      playback_prediction: decision.prediction,
      is_playable: decision.isPlayable,
      needs_adaptive_audio: decision.needsAdaptiveAudio,
      has_adaptive_fallback: decision.hasAdaptiveFallback,
      playback_status_code: decision.statusCode,
      playback_status_primary_text: texts.primary,
      playback_status_secondary_text: flagged ? (problems[0] ?? null) : texts.secondary,
      display_label:
        caps === null ? editionLabel(file, caps) : displayLabel(caps, decision.selectedAudioTrack),
      audio_channels: selectedAudio?.channels ?? null,
      audio_display_label: audioDisplayLabel(selectedAudio),
      audio_tracks: audioTracks(caps),
      hdr_format: video === null || video.hdr === 'sdr' ? null : video.hdr,
      hdr_display_label: hdrDisplayLabel(video),
      resolution: video?.width != null && video.height != null ? `${video.width}x${video.height}` : null,
      resolution_label: resolutionLabel(video?.width ?? null, video?.height ?? null),
      runtime_text: runtimeText(duration),
      physical_copy: copy,
      resume_position_seconds: file.position_seconds ?? 0,
      watched: file.watched === 1,
      subtitle_url: shown !== undefined && shown.kind === 'text' ? urls.subtitleUrl(shown.track) : null,
    };
    if (duration !== null) edition.duration_seconds = Math.round(duration);
    const analysis = analysisState(file, caps);
    const pixels = (video?.width ?? 0) * (video?.height ?? 0);
    return {
      edition,
      facts: {
        fileStatus: file.status === 'missing' ? 'missing' : 'present',
        analysis: analysis === 'missing' ? 'not_analyzed' : analysis,
      },
      // The best playable edition first: ladder step, then trust, then picture and sound.
      rank: LADDER[decision.prediction] * 1e9 + (flagged ? 5e8 : 0) - pixels - (selectedAudio?.channels ?? 0),
    };
  }
}
