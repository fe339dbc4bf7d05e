/** Small builders for Capabilities fixtures and profile variants used by the playback tests. */
import type {
  AudioCapabilities,
  Capabilities,
  DolbyVisionInfo,
  SubtitleCapabilities,
  VideoCapabilities,
} from '../../../src/domain/media/capabilities.ts';
import {
  decidePlayback,
  type PlaybackDecision,
  type PlaybackInput,
  type VideoEncodePlan,
} from '../../../src/domain/playback/decide-playback.ts';
import {
  type DeviceProfile,
  getDeviceProfile,
  validateDeviceProfile,
} from '../../../src/domain/playback/device-profiles.ts';

export function profileOf(id: string): DeviceProfile {
  const profile = getDeviceProfile(id);
  if (profile === null) throw new Error(`no profile ${id}`);
  return profile;
}

/** A mutable deep copy of a built-in profile, changed by `change`. */
export function variant(id: string, newId: string, change: (profile: DeviceProfile) => void): DeviceProfile {
  const copy = structuredClone(profileOf(id));
  copy.id = newId;
  change(copy);
  return copy;
}

export function video(codec: string, over: Partial<VideoCapabilities> = {}): VideoCapabilities {
  return {
    index: 0,
    codec,
    profile: null,
    level: null,
    width: 1920,
    height: 1080,
    bit_depth: 8,
    pix_fmt: 'yuv420p',
    frame_rate: 23.976,
    interlaced: false,
    codec_tag: null,
    hdr: 'sdr',
    dolby_vision: null,
    sar: null,
    anamorphic: false,
    rotation: 0,
    bitrate_bps: null,
    ...over,
  };
}

export const h264 = (over: Partial<VideoCapabilities> = {}) =>
  video('h264', { profile: 'High', level: 4.1, ...over });

export const hi10p = (over: Partial<VideoCapabilities> = {}) =>
  h264({ profile: 'High 10', bit_depth: 10, pix_fmt: 'yuv420p10le', ...over });

export const hevc10 = (over: Partial<VideoCapabilities> = {}) =>
  video('hevc', {
    profile: 'Main 10',
    level: 5.1,
    bit_depth: 10,
    pix_fmt: 'yuv420p10le',
    width: 3840,
    height: 2160,
    ...over,
  });

export function dvInfo(
  profileNumber: number,
  compatId: number,
  over: Partial<DolbyVisionInfo> = {},
): DolbyVisionInfo {
  const fallbacks: Record<number, DolbyVisionInfo['fallback']> = {
    0: 'none',
    1: 'hdr10',
    2: 'sdr',
    4: 'hlg',
    6: 'hdr10',
  };
  return {
    profile: profileNumber,
    level: 6,
    compat_id: compatId,
    bl_present: true,
    el_present: false,
    rpu_present: true,
    fallback: fallbacks[compatId] ?? 'invalid',
    ...over,
  };
}

/** HEVC Dolby Vision stream; P5 has no HDR10 transfer, profiles 7/8.1 have a PQ base layer. */
export function dolbyVision(
  profileNumber: number,
  compatId: number,
  over: Partial<VideoCapabilities> = {},
  dv: Partial<DolbyVisionInfo> = {},
): VideoCapabilities {
  return hevc10({ hdr: 'dolby_vision', dolby_vision: dvInfo(profileNumber, compatId, dv), ...over });
}

export function audio(
  codec: string,
  channels: number,
  over: Partial<AudioCapabilities> = {},
): AudioCapabilities {
  return {
    index: 0,
    track: 0,
    codec,
    profile: null,
    channels,
    channel_layout: null,
    sample_rate: 48000,
    bitrate_bps: null,
    language: 'eng',
    title: null,
    default: false,
    forced: false,
    ...over,
  };
}

export function subtitle(codec: string, over: Partial<SubtitleCapabilities> = {}): SubtitleCapabilities {
  const image = ['pgs', 'vobsub', 'dvbsub', 'xsub'].includes(codec);
  return {
    index: 0,
    track: 0,
    codec,
    kind: image ? 'image' : 'text',
    language: 'eng',
    title: null,
    forced: false,
    default: false,
    ...over,
  };
}

/** A file: stream indexes and per-kind track numbers are assigned in order. */
export function file(
  container: string,
  videoStream: VideoCapabilities | null,
  audioTracks: AudioCapabilities[] = [],
  subtitleTracks: SubtitleCapabilities[] = [],
  over: Partial<Capabilities> = {},
): Capabilities {
  let index = videoStream === null ? 0 : 1;
  const audioList = audioTracks.map((track, i) => ({ ...track, index: index++, track: i }));
  const subtitleList = subtitleTracks.map((sub, i) => ({ ...sub, index: index++, track: i }));
  return {
    container,
    format_name: container,
    duration_seconds: 7200,
    size_bytes: 7200 * 1_000_000,
    bitrate_bps: 8_000_000,
    stream_count: index,
    video: videoStream,
    audio: audioList,
    subtitles: subtitleList,
    ...over,
  };
}

export function decide(
  capabilities: Capabilities | null,
  device: DeviceProfile | string,
  options: Partial<PlaybackInput> = {},
): PlaybackDecision {
  return decidePlayback({
    capabilities,
    analysis: 'analyzed',
    profile: typeof device === 'string' ? profileOf(device) : device,
    policy: 'adaptive',
    transcodeAvailable: true,
    ...options,
  });
}

/** Chromium with HEVC decoding (hardware, or a build that has it) as in Jellyfin's Chrome test profile. */
export const webWithHevc = variant('web', 'web-hevc', (p) => {
  p.video.codecs.push({ codec: 'hevc', containers: ['mp4', 'mkv'], profiles: ['main', 'main 10'] });
});

/** Chrome on an Android phone: HEVC but no HDR. */
export const webWithHevcNoHdr = variant('web', 'web-hevc-sdr', (p) => {
  p.video.codecs.push({ codec: 'hevc', containers: ['mp4', 'mkv'], profiles: ['main', 'main 10'] });
  p.video.hdr = [];
});

/** A browser that does not declare Matroska (Jellyfin's Chrome profile before Chrome 145, Firefox). */
export const webWithoutMkv = variant('web', 'web-no-mkv', (p) => {
  p.containers = p.containers.filter((c) => c !== 'mkv');
  for (const rule of [...p.video.codecs, ...p.audio.codecs]) {
    if (rule.containers !== undefined) rule.containers = rule.containers.filter((c) => c !== 'mkv');
  }
});

/** A Mac whose Safari reports Dolby Vision. */
export const safariWithDolbyVision = variant('safari', 'safari-dv', (p) => {
  p.video.dolby_vision = {
    profiles: ['5', '8.1', '8.4'],
    containers: ['mp4', 'mov'],
    enhancement_layer: false,
  };
});

function validated(json: unknown): DeviceProfile {
  const result = validateDeviceProfile(json);
  if (!result.ok) throw new Error(`invalid test profile: ${result.errors.join('; ')}`);
  return result.profile;
}

/** Samsung Tizen 4 (2018) with the Jellyfin web app, written as a user profile JSON file would be. */
export const tizen4Json = {
  id: 'tizen4',
  name: 'Samsung TV',
  description: 'Tizen 4 web app',
  containers: ['mp4', 'mov', 'mkv', 'webm', 'ts', 'm2ts', 'avi', 'asf', 'mpeg'],
  video: {
    codecs: [
      { codec: 'h264', profiles: ['constrained baseline', 'baseline', 'main', 'high'], max_level: 5.1 },
      { codec: 'hevc', profiles: ['main', 'main 10'] },
      { codec: 'vp9' },
      { codec: 'mpeg2video' },
      { codec: 'vc1' },
    ],
    hdr: ['hdr10', 'hdr10plus', 'hlg'],
    dolby_vision: null,
  },
  audio: {
    codecs: [
      { codec: 'aac', max_channels: 6 },
      { codec: 'mp3', max_channels: 2 },
      { codec: 'mp2', max_channels: 2 },
      { codec: 'ac3', max_channels: 6 },
      { codec: 'eac3', max_channels: 8 },
      { codec: 'pcm', max_channels: 8 },
    ],
    passthrough: [],
    track_switching: true,
  },
  subtitles: { embedded: [], sidecar: ['webvtt'], styled_text: 'convert', artifact_text_format: null },
  max_streams: 32,
  conversion: {
    container: 'mp4',
    video: [{ codec: 'hevc', hdr_sources_only: true }, { codec: 'h264' }],
    audio: [
      { codec: 'eac3', min_source_channels: 3, max_channels: 6 },
      { codec: 'aac', min_source_channels: 1, max_channels: 2 },
    ],
  },
};

export const tizen4 = validated(tizen4Json);

/** LG webOS 23 with Dolby Vision, which it accepts only from MP4/TS. */
export const webos23 = validated({
  ...tizen4Json,
  id: 'webos23',
  name: 'LG TV',
  max_streams: null,
  video: {
    ...tizen4Json.video,
    dolby_vision: { profiles: ['5', '8.1', '8.4'], containers: ['mp4', 'ts'], enhancement_layer: false },
  },
});

/** The video encode plan of a transcode decision (throws when the video is copied or nothing plays). */
export function encodePlanOf(decision: PlaybackDecision): VideoEncodePlan {
  const video = decision.plan?.video;
  if (video === undefined || video === 'copy') throw new Error(`no video encode in ${decision.prediction}`);
  return video;
}
