/** Pure text helpers for the LibraryEdition: what a person reads next to the play button. */
import {
  type AudioCapabilities,
  type Capabilities,
  dolbyVisionKey,
  type VideoCapabilities,
} from '../media/capabilities.ts';
import { formatDuration } from '../format-duration.ts';
import type { PlaybackDecision } from './decision-types.ts';
import type { DeviceProfile } from './device-profile-types.ts';
import { audioCodecName, channelsLabel, containerName, hdrName, videoCodecName } from './display-names.ts';

/** Bands of effective height (height, or width × 9/16 for cropped widescreen), highest first. */
const RESOLUTION_BANDS: readonly { min: number; label: string }[] = [
  { min: 3600, label: '8K' },
  { min: 1800, label: '4K' },
  { min: 1300, label: '1440p' },
  { min: 900, label: '1080p' },
  { min: 650, label: '720p' },
  { min: 560, label: '576p' },
  { min: 460, label: '480p' },
];

/**
 * The resolution class of a picture; a scope film cropped to 1920×800 is still 1080p.
 * @example resolutionLabel(3840, 1608) // '4K'
 */
export function resolutionLabel(width: number | null, height: number | null): string | null {
  if (width === null || height === null || width <= 0 || height <= 0) return null;
  const effective = Math.max(height, Math.round((width * 9) / 16));
  return RESOLUTION_BANDS.find((band) => effective >= band.min)?.label ?? `${Math.round(effective)}p`;
}

/** 'HDR10', 'HDR10+', 'HLG', 'Dolby Vision P8.1'; null for SDR. */
export function hdrDisplayLabel(video: VideoCapabilities | null): string | null {
  if (video === null || video.hdr === 'sdr') return null;
  if (video.hdr !== 'dolby_vision') return hdrName(video.hdr);
  const key = video.dolby_vision === null ? null : dolbyVisionKey(video.dolby_vision);
  return key === null ? 'Dolby Vision' : `Dolby Vision P${key}`;
}

const NAMED_VARIANTS = new Set([
  'TrueHD Atmos',
  'E-AC3 Atmos',
  'DTS:X',
  'DTS-HD MA',
  'DTS-HD HRA',
  'DTS-ES',
  'DTS 96/24',
  'DTS Express',
  'HE-AAC',
  'HE-AACv2',
]);

/** 'TrueHD Atmos', 'DTS-HD MA', 'AAC'. */
export function audioTrackName(track: Pick<AudioCapabilities, 'codec' | 'profile'>): string {
  if (track.profile !== null && NAMED_VARIANTS.has(track.profile)) return track.profile;
  return audioCodecName(track.codec);
}

/** 'TrueHD Atmos 7.1', 'DTS-HD MA 5.1', 'AAC 2.0'; null without a track. */
export function audioDisplayLabel(track: AudioCapabilities | null | undefined): string | null {
  if (track === null || track === undefined) return null;
  const channels = channelsLabel(track.channels, track.channel_layout);
  return channels === null ? audioTrackName(track) : `${audioTrackName(track)} ${channels}`;
}

function defaultTrack(
  caps: Capabilities,
  audioTrack: number | null | undefined,
): AudioCapabilities | undefined {
  return (
    caps.audio.find((track) => track.track === audioTrack) ??
    caps.audio.find((track) => track.default) ??
    caps.audio[0]
  );
}

/**
 * '4K · HDR10 · TrueHD Atmos 7.1'. Dolby Vision is named without its profile here (the HDR label
 * carries it). Falls back to the container name when nothing else is known.
 */
export function displayLabel(caps: Capabilities | null, audioTrack?: number | null): string {
  if (caps === null) return 'Not analyzed';
  const video = caps.video;
  const hdr = video?.hdr === 'dolby_vision' ? 'Dolby Vision' : hdrDisplayLabel(video);
  const parts = [
    resolutionLabel(video?.width ?? null, video?.height ?? null),
    hdr,
    audioDisplayLabel(defaultTrack(caps, audioTrack)),
  ].filter((part): part is string => part !== null);
  return parts.length > 0 ? parts.join(' · ') : containerName(caps.container);
}

/**
 * The file's own length in words ("2 h 16 min", "8 s"); null when the duration is unknown. The one
 * duration formatter is used, so the API label and the pages never disagree.
 */
export function runtimeText(seconds: number | null | undefined): string | null {
  return formatDuration(seconds);
}

export interface StatusTexts {
  primary: string;
  secondary: string | null;
}

const UNKNOWN_TEXTS: Record<string, string> = {
  not_analyzed: 'Not analyzed yet',
  probe_failed: 'Analysis failed',
  file_missing: 'File missing',
};

function audioConversionText(decision: PlaybackDecision, caps: Capabilities | null): string {
  const plan = decision.plan;
  const source = caps?.audio.find((track) => track.track === decision.selectedAudioTrack);
  if (plan === null || typeof plan.audio === 'string' || source === undefined) return 'Converts audio';
  const target = `${audioCodecName(plan.audio.codec)} ${channelsLabel(plan.audio.channels) ?? ''}`.trim();
  return `Converts audio: ${audioDisplayLabel(source)} → ${target}`;
}

function videoConversionText(decision: PlaybackDecision, caps: Capabilities | null): string {
  const plan = decision.plan;
  const source = caps?.video;
  if (plan === null || plan.video === 'copy' || source === undefined || source === null)
    return 'Converts video';
  const from = videoCodecName(source.codec);
  const to = videoCodecName(plan.video.codec);
  return from === to ? `Re-encodes ${from} video` : `Converts video: ${from} → ${to}`;
}

function primaryText(decision: PlaybackDecision, caps: Capabilities | null, profile: DeviceProfile): string {
  switch (decision.statusCode) {
    case 'direct_play':
      return 'Plays directly';
    case 'direct_play_remux':
      return `Plays after a quick remux to ${containerName(decision.plan?.container ?? 'mp4')}`;
    case 'adaptive':
      return audioConversionText(decision, caps);
    case 'transcode':
      return videoConversionText(decision, caps);
    case 'incompatible':
      return `Can't play on ${profile.name}`;
    case 'unknown':
      return UNKNOWN_TEXTS[decision.incompatibility?.code ?? ''] ?? 'Playback unknown';
  }
}

/**
 * The two status lines of an edition: what happens on play, and why (the primary incompatibility's
 * detail, or the first note for a direct play).
 * @example statusTexts(decision, caps, getDeviceProfile('tv')) // { primary: 'Converts audio: DTS 5.1 → E-AC3 5.1', secondary: 'DTS audio cannot be decoded by Apple TV.' }
 */
export function statusTexts(
  decision: PlaybackDecision,
  capabilities: Capabilities | null,
  profile: DeviceProfile,
): StatusTexts {
  const secondary = decision.incompatibility?.detail ?? decision.notes[0]?.detail ?? null;
  return { primary: primaryText(decision, capabilities, profile), secondary };
}
