import type { Capabilities } from '../media/capabilities.ts';
import type { IncompatibilityCode, IncompatibilityType, Note, Reason } from './codes.ts';
import type { DeviceProfile } from './device-profile-types.ts';

/** spec §2.7, cheapest first: the ladder. */
export type PlaybackPrediction = 'direct' | 'remux' | 'adaptive' | 'transcode' | 'strict_incompatible';
/** spec §2.8 */
export type PlaybackStatusCode =
  'direct_play' | 'direct_play_remux' | 'adaptive' | 'transcode' | 'incompatible' | 'unknown';
export type PlaybackPolicy = 'adaptive' | 'strict';
export type AnalysisState = 'analyzed' | 'not_analyzed' | 'failed' | 'missing';

export interface PlaybackInput {
  capabilities: Capabilities | null;
  analysis: AnalysisState;
  /** ffprobe's message when analysis failed. */
  analysisError?: string;
  profile: DeviceProfile;
  policy: PlaybackPolicy;
  /** REELSHELF_TRANSCODE=on and ffmpeg present. */
  transcodeAvailable: boolean;
  /** Whether any ffmpeg runs at all (a remux needs one too); absent = yes. */
  ffmpegAvailable?: boolean;
  /**
   * Codec ids the ffmpeg in use can encode (`aac`, `eac3`, `h264`…, not encoder names; see
   * encoders.ts `encodableCodecs`); absent = all. A target outside this list is skipped for the next.
   */
  encoders?: { audio: string[]; video?: string[] };
  /** A prewarmed artifact for this file and device is complete: it plays under any policy. */
  artifactReady?: boolean;
  /** Audio track (0-based audio order) pinned by the user: never re-selected. */
  preferredAudioTrack?: number;
  /** ISO 639-2 language the user prefers when no track is pinned. */
  preferredAudioLanguage?: string;
  /** Subtitle track (0-based subtitle order) chosen by the user; null = off; absent = automatic. */
  subtitleTrack?: number | null;
  /** Session bitrate cap (remote sessions), bits per second. */
  maxBitrateBps?: number;
}

export interface Incompatibility {
  type: IncompatibilityType;
  code: IncompatibilityCode;
  detail: string;
  hint?: string;
}

export interface VideoEncodePlan {
  codec: string;
  tag?: string;
  bitDepth: 8 | 10;
  /** HDR class kept in the output ('sdr' when tone-mapped). */
  hdr: 'sdr' | 'hdr10' | 'hlg';
  toneMap: boolean;
  deinterlace: boolean;
  maxWidth?: number;
  maxHeight?: number;
  maxBitrateBps?: number;
  /** Subtitle track (0-based subtitle order) drawn into the picture. */
  burnSubtitle: number | null;
}

export interface AudioEncodePlan {
  codec: string;
  channels: number;
  bitrate: number;
}

export type SubtitlePlan =
  | { mode: 'none' }
  | { mode: 'copy'; track: number }
  | { mode: 'convert'; track: number; codec: string }
  | { mode: 'burn_in'; track: number };

/** What an ffmpeg artifact must do: the argv builder reads only this. */
export interface PlaybackPlan {
  container: string;
  video: 'copy' | VideoEncodePlan;
  /** Tag written for a copied video stream (`hvc1`, `dvh1`), null = ffmpeg's default. */
  videoTag: string | null;
  /** Bitstream metadata removed from a copied stream. */
  videoStrip: 'dolby_vision_el' | 'dolby_vision' | null;
  audio: 'copy' | 'none' | AudioEncodePlan;
  /** 0-based audio order of the one audio track kept, null when the file has no audio. */
  audioTrack: number | null;
  subtitles: SubtitlePlan;
}

export type SubtitleDelivery = 'embedded' | 'sidecar' | 'convert' | 'burn_in';

export interface SubtitleSelection {
  track: number;
  /** How it reaches the screen: inside the stream, as a separate WebVTT track, converted in a remux, burned in. */
  delivery: SubtitleDelivery;
  /** Chosen by the user (true) or automatically because it is forced (false). */
  explicit: boolean;
}

export interface PlaybackDecision {
  prediction: PlaybackPrediction;
  statusCode: PlaybackStatusCode;
  /** Every failing axis, each tagged with its fix class. */
  reasons: Reason[];
  /** Non-blocking facts (Atmos lost, styling lost…). */
  notes: Note[];
  /** The reason behind the costliest step; null only for direct. */
  incompatibility: Incompatibility | null;
  /** The artifact to build; null for direct and when nothing plays. */
  plan: PlaybackPlan | null;
  /** The plan of `wouldBe` regardless of policy (what "create compatible audio" would build). */
  fallbackPlan: PlaybackPlan | null;
  /** The state before policy and availability gates. */
  wouldBe: PlaybackPrediction;
  hasAdaptiveFallback: boolean;
  needsAdaptiveAudio: boolean;
  isPlayable: boolean;
  compatibilityPlayable: boolean;
  selectedAudioTrack: number | null;
  selectedSubtitle: SubtitleSelection | null;
}
