/** Video axis: codec conditions, dynamic range (HDR / Dolby Vision, playback.md §5) and sample-entry tag. */
import { type DolbyVisionInfo, dolbyVisionKey, type VideoCapabilities } from '../media/capabilities.ts';
import { type Reason, reasonFor } from './codes.ts';
import type { DeviceProfile, VideoCodecRule } from './device-profile-types.ts';
import { findVideoRule, listAllows } from './device-profiles.ts';
import { containerName, hdrName, videoCodecName } from './display-names.ts';

export interface VideoAssessment {
  reasons: Reason[];
  /** The player shows the Dolby Vision layer itself (so a copy keeps the `dvh1` tag). */
  keepsDolbyVision: boolean;
  strip: 'dolby_vision_el' | 'dolby_vision' | null;
}

interface VideoContext {
  device: string;
  container: string;
  /** Whole-file bitrate, used when the stream reports none. */
  fileBitrateBps: number | null;
  /** What a transcode would produce, for hints ('H.264'). */
  targetName: string;
}

const LEVEL_EPSILON = 1e-6;
const FRAME_RATE_TOLERANCE = 0.05;

function formatMbps(bps: number): string {
  return `${(bps / 1_000_000).toFixed(1)} Mbit/s`;
}

/** Codec conditions in the order whose first failure names the problem best (bit depth before profile). */
function conditionReasons(video: VideoCapabilities, rule: VideoCodecRule, ctx: VideoContext): Reason[] {
  const codec = videoCodecName(video.codec);
  const base = { codec, device: ctx.device };
  const reasons: Reason[] = [];
  if (rule.max_bit_depth !== undefined && video.bit_depth !== null && video.bit_depth > rule.max_bit_depth) {
    reasons.push(reasonFor('video_bit_depth_unsupported', { ...base, depth: video.bit_depth }));
  }
  if (rule.profiles !== undefined && video.profile !== null && !listAllows(rule.profiles, video.profile)) {
    reasons.push(reasonFor('video_profile_unsupported', { ...base, profile: video.profile }));
  }
  if (rule.max_level !== undefined && video.level !== null && video.level > rule.max_level + LEVEL_EPSILON) {
    reasons.push(reasonFor('video_level_exceeded', { ...base, level: video.level, max: rule.max_level }));
  }
  const tooWide = rule.max_width !== undefined && video.width !== null && video.width > rule.max_width;
  const tooHigh = rule.max_height !== undefined && video.height !== null && video.height > rule.max_height;
  if (tooWide || tooHigh) {
    reasons.push(
      reasonFor('video_resolution_exceeded', {
        ...base,
        width: video.width ?? '?',
        height: video.height ?? '?',
        max_width: rule.max_width ?? '∞',
        max_height: rule.max_height ?? '∞',
      }),
    );
  }
  const fps = video.frame_rate;
  if (rule.max_frame_rate !== undefined && fps !== null && fps > rule.max_frame_rate + FRAME_RATE_TOLERANCE) {
    reasons.push(reasonFor('video_framerate_exceeded', { ...base, fps, max: rule.max_frame_rate }));
  }
  const bitrate = video.bitrate_bps ?? ctx.fileBitrateBps;
  if (rule.max_bitrate_bps !== undefined && bitrate !== null && bitrate > rule.max_bitrate_bps) {
    const params = { ...base, bitrate: formatMbps(bitrate), max: formatMbps(rule.max_bitrate_bps) };
    reasons.push(reasonFor('video_bitrate_exceeded', params));
  }
  if (rule.allow_interlaced === false && video.interlaced) {
    reasons.push(reasonFor('video_interlaced_unsupported', base));
  }
  if (rule.allow_anamorphic === false && video.anamorphic) {
    reasons.push(reasonFor('video_anamorphic_unsupported', { ...base, sar: video.sar ?? '?' }));
  }
  return reasons;
}

const KEY_BY_FALLBACK: Partial<Record<DolbyVisionInfo['fallback'], string>> = {
  none: '5',
  hdr10: '8.1',
  sdr: '8.2',
  hlg: '8.4',
};

/** Without a configuration record (only a dvh1/dvhe tag) the base layer tells the likely profile. */
function assumedDolbyVisionKey(dv: DolbyVisionInfo): string | null {
  return dolbyVisionKey(dv) ?? KEY_BY_FALLBACK[dv.fallback] ?? null;
}

function passes(reasons: Reason[] = []): VideoAssessment {
  return { reasons, keepsDolbyVision: false, strip: null };
}

function hdrReason(hdr: string, ctx: VideoContext): Reason {
  return reasonFor('video_hdr_unsupported', { hdr: hdrName(hdr), device: ctx.device });
}

function dolbyVisionOnDvDevice(
  dv: DolbyVisionInfo,
  profile: DeviceProfile,
  ctx: VideoContext,
): VideoAssessment {
  const support = profile.video.dolby_vision;
  const reasons: Reason[] = [];
  let strip: VideoAssessment['strip'] = null;
  const key = dolbyVisionKey(dv) ?? '?';
  if (dv.el_present && support?.enhancement_layer !== true) {
    reasons.push(reasonFor('video_dolby_vision_el_unsupported', { profile: key, device: ctx.device }));
    strip = 'dolby_vision_el';
  }
  if (support !== null && !listAllows(support.containers, ctx.container)) {
    const containers = support.containers.map(containerName).join(' or ');
    const params = { device: ctx.device, containers, container: containerName(ctx.container) };
    reasons.push(reasonFor('video_dolby_vision_container_unsupported', params));
  }
  return { reasons, keepsDolbyVision: true, strip };
}

/** A Dolby Vision stream on a player that does not show this profile: judged by its base layer. */
function dolbyVisionFallback(
  dv: DolbyVisionInfo,
  profile: DeviceProfile,
  ctx: VideoContext,
): VideoAssessment {
  const hdr = profile.video.hdr;
  const key = dolbyVisionKey(dv) ?? 'unknown';
  switch (dv.fallback) {
    case 'none':
      return passes([reasonFor('video_dolby_vision_unsupported', { profile: key, device: ctx.device })]);
    case 'hdr10':
      if (!hdr.includes('hdr10')) return passes([hdrReason('hdr10', ctx)]);
      if (!dv.el_present) return passes();
      return {
        reasons: [reasonFor('video_dolby_vision_el_unsupported', { profile: key, device: ctx.device })],
        keepsDolbyVision: false,
        strip: 'dolby_vision_el',
      };
    case 'hlg':
      return hdr.includes('hlg') ? passes() : passes([hdrReason('hlg', ctx)]);
    case 'sdr':
      return passes();
    case 'invalid':
      if (!hdr.includes('hdr10')) return passes([hdrReason('hdr10', ctx)]);
      return {
        reasons: [reasonFor('video_dolby_vision_invalid')],
        keepsDolbyVision: false,
        strip: 'dolby_vision',
      };
  }
}

function assessDynamicRange(
  video: VideoCapabilities,
  profile: DeviceProfile,
  ctx: VideoContext,
): VideoAssessment {
  const hdr = profile.video.hdr;
  switch (video.hdr) {
    case 'sdr':
      return passes();
    case 'hdr10':
    case 'hlg':
      return hdr.includes(video.hdr) ? passes() : passes([hdrReason(video.hdr, ctx)]);
    case 'hdr10plus':
      // HDR10+ is HDR10 plus dynamic metadata a plain HDR10 player ignores.
      if (hdr.includes('hdr10plus') || hdr.includes('hdr10')) return passes();
      return passes([hdrReason('hdr10plus', ctx)]);
    case 'dolby_vision': {
      const dv = video.dolby_vision;
      if (dv === null) return passes();
      const key = assumedDolbyVisionKey(dv);
      const support = profile.video.dolby_vision;
      const shown = support !== null && key !== null && listAllows(support.profiles, key);
      return shown ? dolbyVisionOnDvDevice(dv, profile, ctx) : dolbyVisionFallback(dv, profile, ctx);
    }
  }
}

function tagReason(video: VideoCapabilities, rule: VideoCodecRule, ctx: VideoContext): Reason[] {
  const required = rule.required_tags?.[ctx.container];
  if (required === undefined || (video.codec_tag !== null && listAllows(required, video.codec_tag)))
    return [];
  const params = {
    codec: videoCodecName(video.codec),
    tag: video.codec_tag ?? 'untagged',
    required: required.join(' or '),
    device: ctx.device,
  };
  return [reasonFor('video_codec_tag_unsupported', params)];
}

/**
 * Every reason the video stream cannot be shown as it is. An unsupported codec is the only reason
 * reported then: the other conditions belong to a codec the player does not have.
 */
export function assessVideo(
  video: VideoCapabilities,
  profile: DeviceProfile,
  ctx: VideoContext,
): VideoAssessment {
  const rule = findVideoRule(profile, video.codec);
  if (rule === undefined) {
    const params = { codec: videoCodecName(video.codec), device: ctx.device, target: ctx.targetName };
    return { reasons: [reasonFor('video_codec_unsupported', params)], keepsDolbyVision: false, strip: null };
  }
  const range = assessDynamicRange(video, profile, ctx);
  return {
    reasons: [...conditionReasons(video, rule, ctx), ...range.reasons, ...tagReason(video, rule, ctx)],
    keepsDolbyVision: range.keepsDolbyVision,
    strip: range.strip,
  };
}

/** The sample-entry tag a copied stream gets in the MP4 artifact (playback.md §5 remux tag rule). */
export function copiedVideoTag(video: VideoCapabilities, keepsDolbyVision: boolean): string | null {
  if (video.codec === 'hevc') {
    if (!keepsDolbyVision) return 'hvc1';
    // dvh1 on a profile 8.4 stream breaks Safari; it keeps hvc1.
    return video.dolby_vision?.fallback === 'hlg' ? 'hvc1' : 'dvh1';
  }
  if (video.codec === 'av1' && keepsDolbyVision) return 'dav1';
  return null;
}
