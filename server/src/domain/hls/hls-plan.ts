/**
 * What an HLS presentation of one file on one device carries: the video (copied, or encoded as the
 * playback decision says) and every audio track of the file as its own rendition, each copied when
 * the device plays it and converted only where it does not (spec §2.4: audio tracks are for
 * in-player switching). Pure.
 */
import type { AudioCapabilities, Capabilities } from '../media/capabilities.ts';
import { trackReasons } from '../playback/assess-audio.ts';
import { audioPlanName, chooseAudioTarget, type Encoders } from '../playback/conversion-targets.ts';
import type { AudioEncodePlan, PlaybackDecision, VideoEncodePlan } from '../playback/decision-types.ts';
import type { DeviceProfile } from '../playback/device-profile-types.ts';
import { findAudioRule, ruleAllowsContainer } from '../playback/device-profiles.ts';
import { audioTrackName } from '../playback/labels.ts';
import { DEFAULT_SEGMENT_SECONDS } from './segment-plan.ts';

/** Codecs the mp4 muxer puts into fMP4 segments that HLS players read (Apple's list plus Opus/FLAC). */
const HLS_COPYABLE_AUDIO = new Set(['aac', 'ac3', 'eac3', 'mp3', 'flac', 'opus', 'alac']);

export interface HlsAudioRendition {
  /** 0-based audio order in the source. */
  track: number;
  audio: 'copy' | AudioEncodePlan;
  /** The codec in the segments (the source's when copied). */
  codec: string;
  /** The source's profile when copied (for the CODECS string: HE-AAC), null when encoded. */
  profile: string | null;
  channels: number | null;
  language: string | null;
  name: string;
  isDefault: boolean;
  /** Peak bits per second of the rendition (for BANDWIDTH). */
  bitrate: number;
}

/**
 * The segments' container. MPEG-TS wherever it carries every rendition: FFmpeg's HLS demuxer up to
 * 7.0 — and so mpv, Kodi, Jellyfin Media Player and other libavformat players — cannot seek in fMP4
 * HLS (on a seek it resets the stream position under its MP4 demuxer, whose fragment index then
 * points into the wrong bytes; docs/hls.md), while its MPEG-TS demuxer handles the seek. fMP4 for
 * the rest (HEVC, AV1, Dolby Vision, Opus, FLAC, ALAC), which HLS carries only in fMP4.
 */
export type HlsContainer = 'mpegts' | 'fmp4';

/** What HLS carries in MPEG-TS (RFC 8216 §3.2; Apple's authoring spec) and hls.js reads from it. */
const TS_VIDEO = new Set(['h264']);
const TS_AUDIO = new Set(['aac', 'ac3', 'eac3', 'mp3']);

export interface HlsPlan {
  container: HlsContainer;
  video: 'copy' | VideoEncodePlan | null;
  /** Sample-entry tag of copied video (`hvc1`…), null = ffmpeg's default. */
  videoTag: string | null;
  videoStrip: 'dolby_vision_el' | 'dolby_vision' | null;
  audio: HlsAudioRendition[];
  segmentSeconds: number;
}

function audioContext(profile: DeviceProfile, caps: Capabilities, encoders: Encoders | undefined) {
  return {
    device: profile.name,
    container: caps.container,
    artifactContainer: 'mp4',
    targetName: (track: AudioCapabilities) => {
      const target = chooseAudioTarget(track, profile, encoders);
      return target === null ? 'a format this device plays' : audioPlanName(target);
    },
  };
}

/** Copied as it is when the device decodes it from MP4 and HLS carries it; else converted; else left out. */
function renditionOf(
  track: AudioCapabilities,
  profile: DeviceProfile,
  caps: Capabilities,
  encoders: Encoders | undefined,
): Omit<HlsAudioRendition, 'name' | 'isDefault'> | null {
  const rule = findAudioRule(profile, track.codec);
  const copyable =
    HLS_COPYABLE_AUDIO.has(track.codec) &&
    rule !== undefined &&
    ruleAllowsContainer(profile, rule, 'mp4') &&
    trackReasons(track, profile, audioContext(profile, caps, encoders)).length === 0;
  const base = { track: track.track, language: track.language };
  if (copyable) {
    return {
      ...base,
      audio: 'copy',
      codec: track.codec,
      profile: track.profile,
      channels: track.channels,
      bitrate: track.bitrate_bps ?? 640_000,
    };
  }
  const target = chooseAudioTarget(track, profile, encoders);
  if (target === null) return null;
  return {
    ...base,
    audio: target,
    codec: target.codec,
    profile: null,
    channels: target.channels,
    bitrate: target.bitrate,
  };
}

function renditionName(
  track: AudioCapabilities,
  rendition: Omit<HlsAudioRendition, 'name' | 'isDefault'>,
): string {
  if (track.title !== null && track.title.trim() !== '') return track.title.trim();
  const codec = rendition.audio === 'copy' ? audioTrackName(track) : audioPlanName(rendition.audio);
  return `${(track.language ?? 'und').toUpperCase()} ${codec}`.trim();
}

/**
 * The HLS plan of a playable decision. Video follows the decision (its plan's video, or copied
 * when the file plays directly); audio lists every track the device can get in some form, the
 * default being the track the decision selected.
 */
export function planHls(input: {
  capabilities: Capabilities;
  decision: PlaybackDecision;
  profile: DeviceProfile;
  encoders?: Encoders;
  segmentSeconds?: number;
}): HlsPlan {
  const { capabilities: caps, decision, profile, encoders } = input;
  const plan = decision.plan;
  const video = caps.video === null ? null : (plan?.video ?? 'copy');
  const videoTag = plan?.videoTag ?? (caps.video?.codec === 'hevc' ? 'hvc1' : null);
  const audio: HlsAudioRendition[] = [];
  const selected = decision.selectedAudioTrack ?? plan?.audioTrack ?? null;
  for (const track of caps.audio) {
    const rendition = renditionOf(track, profile, caps, encoders);
    if (rendition === null) continue;
    audio.push({ ...rendition, name: renditionName(track, rendition), isDefault: track.track === selected });
  }
  const first = audio[0];
  if (first !== undefined && !audio.some((r) => r.isDefault)) first.isDefault = true;
  const videoCodec = video === null ? null : video === 'copy' ? (caps.video?.codec ?? null) : video.codec;
  const inTs =
    (videoCodec === null ? video === null : TS_VIDEO.has(videoCodec)) &&
    (plan?.videoStrip ?? null) === null &&
    audio.every((rendition) => TS_AUDIO.has(rendition.codec));
  return {
    container: inTs ? 'mpegts' : 'fmp4',
    video,
    videoTag,
    videoStrip: plan?.videoStrip ?? null,
    audio,
    segmentSeconds: input.segmentSeconds ?? DEFAULT_SEGMENT_SECONDS,
  };
}

/** Rendition ids used in URLs and file names: `v`, `a0`, `a1`… (audio by source track). */
export function renditionIds(plan: HlsPlan): string[] {
  return [...(plan.video === null ? [] : ['v']), ...plan.audio.map((a) => `a${a.track}`)];
}

/**
 * The names of a rendition's files in URLs (`<index><segment>`): the extension says the container to
 * players that go by it. MPEG-TS segments carry their own PAT and PMT, so the playlist names no
 * initialization section (an EXT-X-MAP of them would restart the tables' continuity counters in
 * front of every segment a player reads after a seek). On disk they are `init.mp4` and
 * `<index>.m4s` whatever the container (players read the bytes, which say it).
 */
export function hlsFileNames(container: HlsContainer): { init: string | null; segment: string } {
  return container === 'mpegts' ? { init: null, segment: '.ts' } : { init: 'init.mp4', segment: '.m4s' };
}
