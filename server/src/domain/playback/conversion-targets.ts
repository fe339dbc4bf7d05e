/** What a conversion produces for a device: audio/video targets in the profile's order of preference. */
import type { AudioCapabilities, VideoCapabilities } from '../media/capabilities.ts';
import type { AudioEncodePlan, VideoEncodePlan } from './decision-types.ts';
import type { DeviceProfile, VideoTarget } from './device-profile-types.ts';
import { findVideoRule } from './device-profiles.ts';
import { audioCodecName, channelsLabel, videoCodecName } from './display-names.ts';

export interface Encoders {
  audio: string[];
  video?: string[];
}

/** Lossy target bitrates by channel count (Jellyfin's ladder, with 256 k for stereo AAC as Immich). */
export function audioTargetBitrate(channels: number): number {
  if (channels <= 1) return 128_000;
  if (channels <= 2) return 256_000;
  if (channels <= 5) return 384_000;
  return 640_000;
}

/**
 * The first audio target fitting the source's channel count that ffmpeg can encode; channels are
 * kept up to the target's maximum (TrueHD 7.1 → E-AC3 5.1 on Apple TV, DTS 5.1 → AAC 2.0 on web).
 */
export function chooseAudioTarget(
  track: AudioCapabilities,
  profile: DeviceProfile,
  encoders: Encoders | undefined,
): AudioEncodePlan | null {
  const sourceChannels = track.channels ?? 2;
  for (const target of profile.conversion.audio) {
    if (sourceChannels < target.min_source_channels) continue;
    if (encoders !== undefined && !encoders.audio.includes(target.codec)) continue;
    const channels = Math.min(sourceChannels, target.max_channels);
    return { codec: target.codec, channels, bitrate: audioTargetBitrate(channels) };
  }
  return null;
}

/** 'E-AC3 5.1' */
export function audioPlanName(plan: AudioEncodePlan): string {
  return `${audioCodecName(plan.codec)} ${channelsLabel(plan.channels) ?? ''}`.trim();
}

type HdrClass = 'sdr' | 'hdr10' | 'hlg' | 'tone_map';

/** The dynamic range a transcode starts from; 'tone_map' for Dolby Vision without a usable base. */
export function sourceHdrClass(video: VideoCapabilities): HdrClass {
  switch (video.hdr) {
    case 'sdr':
      return 'sdr';
    case 'hdr10':
    case 'hdr10plus':
      return 'hdr10';
    case 'hlg':
      return 'hlg';
    case 'dolby_vision': {
      const fallback = video.dolby_vision?.fallback;
      return fallback === 'hdr10' || fallback === 'hlg' || fallback === 'sdr' ? fallback : 'tone_map';
    }
  }
}

function keptHdr(video: VideoCapabilities, profile: DeviceProfile): 'hdr10' | 'hlg' | null {
  const source = sourceHdrClass(video);
  if (source === 'hdr10' || source === 'hlg') return profile.video.hdr.includes(source) ? source : null;
  return null;
}

export function chooseVideoTarget(
  video: VideoCapabilities,
  profile: DeviceProfile,
  encoders: Encoders | undefined,
): VideoTarget | null {
  const canKeepHdr = keptHdr(video, profile) !== null;
  for (const target of profile.conversion.video) {
    if (target.hdr_sources_only === true && !canKeepHdr) continue;
    if (encoders?.video !== undefined && !encoders.video.includes(target.codec)) continue;
    return target;
  }
  return null;
}

export function videoTargetName(target: VideoTarget | null): string {
  return target === null ? 'a format this device plays' : videoCodecName(target.codec);
}

export function videoEncodePlan(
  video: VideoCapabilities,
  target: VideoTarget,
  profile: DeviceProfile,
  extra: { burnSubtitle: number | null; maxBitrateBps?: number },
): VideoEncodePlan {
  const hdr = target.hdr_sources_only === true ? (keptHdr(video, profile) ?? 'sdr') : 'sdr';
  const rule = findVideoRule(profile, target.codec);
  const plan: VideoEncodePlan = {
    codec: target.codec,
    bitDepth: hdr === 'sdr' ? 8 : 10,
    hdr,
    toneMap: hdr === 'sdr' && sourceHdrClass(video) !== 'sdr',
    deinterlace: video.interlaced,
    burnSubtitle: extra.burnSubtitle,
  };
  if (target.tag !== undefined) plan.tag = target.tag;
  const maxWidth = target.max_width ?? rule?.max_width;
  const maxHeight = target.max_height ?? rule?.max_height;
  if (maxWidth !== undefined) plan.maxWidth = maxWidth;
  if (maxHeight !== undefined) plan.maxHeight = maxHeight;
  if (extra.maxBitrateBps !== undefined) plan.maxBitrateBps = extra.maxBitrateBps;
  return plan;
}
