/**
 * Built-in device profiles as data (playback.md §4). Where the real client would ask the platform
 * (probe-dependent), the static profile takes the conservative value and says so in a comment;
 * a user profile from the data dir can declare more.
 */
import type { AudioCodecRule, DeviceProfile, VideoCodecRule } from './device-profile-types.ts';

export type * from './device-profile-types.ts';
export { validateDeviceProfile } from './device-profile-validator.ts';
export type { DeviceProfileValidation } from './device-profile-validator.ts';

export const DEVICE_IDS = ['web', 'safari', 'tv', 'androidtv', 'roku', 'full'] as const;
export type DeviceId = (typeof DEVICE_IDS)[number];

const H264_8BIT_PROFILES = ['constrained baseline', 'baseline', 'main', 'high'];
const HEVC_PROFILES = ['main', 'main 10'];
const APPLE_HEVC_TAGS = { mp4: ['hvc1', 'dvh1'], mov: ['hvc1', 'dvh1'] };
const STEREO_AAC = { codec: 'aac', min_source_channels: 1, max_channels: 2 };
// FFmpeg's (e)ac3 encoders stop at 5.1, so 7.1 sources become E-AC3 5.1.
const SURROUND_EAC3 = { codec: 'eac3', min_source_channels: 3, max_channels: 6 };
const HDR_KEEPING_HEVC = { codec: 'hevc', tag: 'hvc1', hdr_sources_only: true };

function audio(
  codec: string,
  maxChannels: number,
  extra: Omit<AudioCodecRule, 'codec'> = {},
): AudioCodecRule {
  return { codec, max_channels: maxChannels, ...extra };
}

/**
 * Desktop Chromium as shipped by Debian (our real test browser, stack.md §4): H.264/AAC MP4,
 * VP9/Opus WebM, AV1 and Matroska with H.264 or FLAC play; HEVC, AC-3 and E-AC-3 do not, and DTS
 * "plays" as silence, so it is unsupported here.
 */
const WEB: DeviceProfile = {
  id: 'web',
  name: 'Chrome/Firefox',
  description: 'Chromium/Firefox class desktop browser (HTML5 video).',
  containers: ['mp4', 'mov', 'webm', 'mkv'],
  video: {
    codecs: [
      // canPlayType answers "probably" up to avc1.640033 (level 5.1) in Debian Chromium; 5.2 is the
      // same decoder. High 10 is probe-dependent and left out. Browsers do not deinterlace.
      {
        codec: 'h264',
        containers: ['mp4', 'mov', 'mkv'],
        profiles: H264_8BIT_PROFILES,
        max_level: 5.2,
        max_bit_depth: 8,
        allow_interlaced: false,
      },
      { codec: 'vp8', containers: ['webm', 'mkv'] },
      { codec: 'vp9', containers: ['webm', 'mp4', 'mkv'], profiles: ['profile 0', 'profile 2'] },
      { codec: 'av1', containers: ['mp4', 'webm', 'mkv'], profiles: ['main'], max_bit_depth: 10 },
    ],
    // Desktop Chromium shows HDR10/HLG and tone-maps them on SDR screens; no Dolby Vision anywhere.
    hdr: ['hdr10', 'hlg'],
    dolby_vision: null,
  },
  audio: {
    codecs: [
      // HE-AAC is probe-dependent (mp4a.40.5); multichannel is downmixed by the browser up to 5.1.
      audio('aac', 6, { containers: ['mp4', 'mov', 'mkv'], excluded_profiles: ['HE-AAC', 'HE-AACv2'] }),
      audio('mp3', 2, { containers: ['mp4', 'mov', 'mkv'] }),
      audio('opus', 6, { containers: ['webm', 'mp4', 'mkv'] }),
      audio('vorbis', 6, { containers: ['webm', 'mkv'] }),
      audio('flac', 6, { containers: ['mp4', 'mkv', 'webm'] }),
    ],
    passthrough: [],
    track_switching: false,
  },
  subtitles: { embedded: [], sidecar: ['webvtt'], styled_text: 'convert', artifact_text_format: null },
  max_streams: null,
  // A direct file plays and seeks by byte ranges in a <video>; HLS (through hls.js) only for conversions.
  prefers_hls: false,
  conversion: { container: 'mp4', video: [{ codec: 'h264' }], audio: [STEREO_AAC] },
};

const SAFARI: DeviceProfile = {
  id: 'safari',
  name: 'Safari',
  description: 'Safari on macOS and iOS (AVFoundation): MP4/MOV, HEVC only tagged hvc1/dvh1.',
  containers: ['mp4', 'mov'],
  video: {
    codecs: [
      {
        codec: 'h264',
        profiles: H264_8BIT_PROFILES,
        max_level: 5.2,
        max_bit_depth: 8,
        allow_interlaced: false,
      },
      {
        codec: 'hevc',
        profiles: HEVC_PROFILES,
        required_tags: APPLE_HEVC_TAGS,
        max_frame_rate: 60,
        allow_interlaced: false,
      },
      // VP9 and AV1 are probe-dependent (macOS only / A17 Pro, M3 and newer): left out.
    ],
    hdr: ['hdr10', 'hlg'],
    // Dolby Vision only where the Mac/iPhone reports it (probe-dependent): off by default.
    dolby_vision: null,
  },
  audio: {
    codecs: [
      audio('aac', 8),
      audio('mp3', 2),
      audio('ac3', 6),
      audio('eac3', 8),
      audio('alac', 8),
      audio('flac', 8),
      // Opus needs Safari 17 and is stereo only: left out.
    ],
    passthrough: [],
    track_switching: true,
  },
  subtitles: { embedded: [], sidecar: ['webvtt'], styled_text: 'convert', artifact_text_format: null },
  max_streams: null,
  prefers_hls: true,
  conversion: {
    container: 'mp4',
    video: [HDR_KEEPING_HEVC, { codec: 'h264' }],
    audio: [SURROUND_EAC3, STEREO_AAC],
  },
};

/**
 * Apple TV 4K with AVPlayer, the prewarm target. All Apple TV 4K models decode HEVC Main 10, HDR10,
 * HLG and Dolby Vision 5/8 in hardware and tone-map for SDR screens, so they are declared here.
 */
const TV: DeviceProfile = {
  id: 'tv',
  name: 'Apple TV',
  description: 'Apple TV (tvOS AVPlayer): MP4/MOV only, no DTS or TrueHD; the prewarm-tv target.',
  // AVPlayer's progressive MPEG-TS support is unconfirmed: TS is remuxed to MP4.
  containers: ['mp4', 'mov'],
  video: {
    codecs: [
      // Swiftfin declares IsAnamorphic != true and IsInterlaced != true for the native player.
      { codec: 'h264', profiles: H264_8BIT_PROFILES, allow_interlaced: false, allow_anamorphic: false },
      {
        codec: 'hevc',
        profiles: HEVC_PROFILES,
        required_tags: APPLE_HEVC_TAGS,
        max_frame_rate: 60,
        allow_interlaced: false,
        allow_anamorphic: false,
      },
      // Apple decoders take MPEG-4 Part 2 Simple Profile only; XviD/DivX ASP is transcoded.
      { codec: 'mpeg4', profiles: ['simple profile'], allow_interlaced: false, allow_anamorphic: false },
      // AV1 needs A17 Pro/M3 hardware, which no Apple TV has; no VP9 hardware decoder.
    ],
    hdr: ['hdr10', 'hdr10plus', 'hlg'],
    dolby_vision: { profiles: ['5', '8.1', '8.4'], containers: ['mp4', 'mov'], enhancement_layer: false },
  },
  audio: {
    codecs: [
      audio('aac', 8),
      audio('ac3', 6),
      audio('eac3', 8),
      audio('alac', 8),
      audio('flac', 8, { containers: ['mp4'] }),
      // Swiftfin lists MP3 for MOV/TS (its HLS segments); AVFoundation also reads MP3 in MP4.
      audio('mp3', 2, { containers: ['mp4', 'mov'] }),
      audio('pcm', 8, { containers: ['mov'] }),
    ],
    passthrough: [],
    track_switching: true,
  },
  subtitles: {
    embedded: ['mov_text', 'eia_608'],
    sidecar: [],
    styled_text: 'convert',
    artifact_text_format: 'mov_text',
  },
  max_streams: null,
  prefers_hls: true,
  conversion: {
    container: 'mp4',
    video: [HDR_KEEPING_HEVC, { codec: 'h264' }],
    audio: [SURROUND_EAC3, STEREO_AAC],
  },
};

const ANDROID_TV: DeviceProfile = {
  id: 'androidtv',
  name: 'Android TV',
  description: 'Android TV / Nvidia Shield with ExoPlayer (Media3) and its FFmpeg audio decoders.',
  containers: ['mkv', 'mp4', 'mov', 'webm', 'ts', 'm2ts', 'mpeg', 'asf', 'ogg'],
  video: {
    codecs: [
      // High 10, AV1 and VC-1 depend on the MediaCodec decoders of the box: left out.
      { codec: 'h264', profiles: H264_8BIT_PROFILES, max_level: 5.2, max_bit_depth: 8 },
      { codec: 'hevc', profiles: HEVC_PROFILES, max_level: 5.1 },
      { codec: 'vp8' },
      { codec: 'vp9', profiles: ['profile 0', 'profile 2'] },
      { codec: 'mpeg2video', max_width: 1920, max_height: 1080 },
      { codec: 'mpeg1video', max_width: 1920, max_height: 1080 },
    ],
    // HDR10+ streams play as HDR10; Dolby Vision is per decoder, so the conservative default is
    // none: profile 8 plays its HDR10 base layer, profile 7 has its enhancement layer stripped.
    hdr: ['hdr10', 'hlg'],
    dolby_vision: null,
  },
  audio: {
    codecs: [
      audio('aac', 8),
      audio('ac3', 8),
      audio('eac3', 8),
      audio('dts', 8),
      audio('truehd', 8),
      audio('flac', 8),
      audio('alac', 8),
      audio('opus', 8),
      audio('vorbis', 8),
      audio('mp2', 8),
      audio('mp3', 8),
      audio('pcm', 8),
    ],
    passthrough: [],
    track_switching: true,
  },
  subtitles: {
    // PGS and ASS/SSA need user opt-ins in the app: burned in by default.
    embedded: ['srt', 'webvtt', 'ttml', 'mov_text', 'dvbsub', 'vobsub'],
    sidecar: ['srt', 'webvtt', 'ttml'],
    styled_text: 'burn_in',
    artifact_text_format: 'mov_text',
  },
  max_streams: null,
  prefers_hls: true,
  conversion: {
    container: 'mp4',
    video: [HDR_KEEPING_HEVC, { codec: 'h264' }],
    audio: [SURROUND_EAC3, STEREO_AAC],
  },
};

/** An HD Roku player: HEVC, VP9, AV1 and HDR exist only on some models (probe-dependent). */
const ROKU: DeviceProfile = {
  id: 'roku',
  name: 'Roku',
  description: 'Roku player: 8-bit H.264; AC3/E-AC3/DTS only by passthrough; no TrueHD.',
  containers: ['mp4', 'mov', 'mkv', 'webm', 'ts'],
  video: {
    codecs: [
      {
        codec: 'h264',
        profiles: H264_8BIT_PROFILES,
        max_level: 4.1,
        max_bit_depth: 8,
        max_width: 1920,
        max_height: 1080,
      },
    ],
    hdr: [],
    dolby_vision: null,
  },
  audio: {
    codecs: [
      audio('aac', 6, { excluded_profiles: ['Main'] }),
      audio('mp3', 2),
      audio('mp2', 2),
      audio('pcm', 2),
      audio('flac', 6),
      audio('alac', 2),
      audio('opus', 2, { containers: ['mkv', 'webm'] }),
      audio('vorbis', 2, { containers: ['mkv', 'webm'] }),
      // Decoded only on Roku TVs and the Ultra; elsewhere bit-streamed to a receiver.
      audio('ac3', 6, { passthrough_only: true }),
      audio('eac3', 8, { passthrough_only: true }),
      audio('dts', 8, { passthrough_only: true }),
    ],
    passthrough: [],
    track_switching: true,
  },
  subtitles: {
    embedded: ['eia_608'],
    sidecar: ['srt', 'webvtt', 'ttml'],
    styled_text: 'burn_in',
    artifact_text_format: null,
  },
  max_streams: null,
  prefers_hls: true,
  conversion: {
    container: 'mp4',
    video: [{ codec: 'h264', max_width: 1920, max_height: 1080 }],
    audio: [STEREO_AAC],
  },
};

const FULL: DeviceProfile = {
  id: 'full',
  name: 'Kodi/VLC',
  description: 'Kodi / VLC / mpv class player: plays any container, codec and subtitle it is given.',
  containers: ['*'],
  video: {
    codecs: [{ codec: '*' }],
    hdr: ['hdr10', 'hdr10plus', 'hlg'],
    dolby_vision: { profiles: ['*'], containers: ['*'], enhancement_layer: true },
  },
  audio: { codecs: [{ codec: '*' }], passthrough: [], track_switching: true },
  subtitles: { embedded: ['*'], sidecar: ['*'], styled_text: 'render', artifact_text_format: 'mov_text' },
  max_streams: null,
  // Kodi/VLC/mpv open any file directly and seek in it; HLS only when a conversion is needed.
  prefers_hls: false,
  conversion: {
    container: 'mp4',
    video: [{ codec: 'h264' }],
    audio: [{ codec: 'aac', min_source_channels: 1, max_channels: 8 }],
  },
};

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}

const PROFILES: ReadonlyMap<string, DeviceProfile> = new Map(
  [WEB, SAFARI, TV, ANDROID_TV, ROKU, FULL].map((profile) => [profile.id, deepFreeze(profile)]),
);

export function isDeviceId(id: string): id is DeviceId {
  return (DEVICE_IDS as readonly string[]).includes(id);
}

/** The built-in profile for a device id, or null for an unknown id (→ 400 unknown_device). */
export function getDeviceProfile(id: string): DeviceProfile | null {
  return PROFILES.get(id) ?? null;
}

/** Every built-in profile in DEVICE_IDS order. */
export function listDeviceProfiles(): DeviceProfile[] {
  return DEVICE_IDS.flatMap((id) => PROFILES.get(id) ?? []);
}

/** True when `list` contains `value` (case-insensitive) or the wildcard `'*'`. */
export function listAllows(list: readonly string[], value: string): boolean {
  const wanted = value.toLowerCase();
  return list.some((entry) => entry === '*' || entry.toLowerCase() === wanted);
}

function codecMatches(ruleCodec: string, codec: string): boolean {
  if (ruleCodec === '*' || ruleCodec === codec) return true;
  return ruleCodec === 'pcm' && codec.startsWith('pcm_');
}

export function findVideoRule(profile: DeviceProfile, codec: string): VideoCodecRule | undefined {
  return profile.video.codecs.find((rule) => codecMatches(rule.codec, codec));
}

export function findAudioRule(profile: DeviceProfile, codec: string): AudioCodecRule | undefined {
  return profile.audio.codecs.find((rule) => codecMatches(rule.codec, codec));
}

/** Whether a codec rule (or the profile, when the rule names no containers) allows `container`. */
export function ruleAllowsContainer(
  profile: DeviceProfile,
  rule: { containers?: string[] },
  container: string,
): boolean {
  return listAllows(rule.containers ?? profile.containers, container);
}
