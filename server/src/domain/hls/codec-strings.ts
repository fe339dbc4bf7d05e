/**
 * RFC 6381 `CODECS` values for the HLS master playlist, from the stored capability records
 * (domain/media/capabilities.ts: ffprobe's profile names, real level numbers) or from what our own
 * encoder writes. A value we cannot be sure of is null: the playlist then leaves CODECS out, which
 * every player accepts, whereas a wrong value makes a player refuse a stream it could play.
 */

/** The video fields a codec string needs; a VideoCapabilities record fits as it is. */
export interface VideoCodecInput {
  codec: string;
  /** ffprobe's profile name: 'High', 'Main 10', 'Constrained Baseline', 'Profile 0'… */
  profile: string | null;
  /** Real level: H.264 4.1, HEVC 5.1, AV1 5.1 (seq_level_idx 13). */
  level: number | null;
  bit_depth: number | null;
  codec_tag: string | null;
  hdr?: string;
  dolby_vision?: unknown;
  /** Used where the stream names no level (VP9, whose level ffprobe does not report). */
  width?: number | null;
  height?: number | null;
  frame_rate?: number | null;
}

export interface VideoCodecOptions {
  /**
   * The sample entry the fMP4 segments carry. Copied HEVC is written as `hvc1` (artifact-command),
   * so that is the default; pass `hev1` to keep it, or `dvh1` when Dolby Vision is kept as such.
   */
  sampleEntry?: string;
}

/** A stream or target whose frame rate is not known is taken as 30 fps (the common worst case). */
const ASSUMED_FRAME_RATE = 30;

function hex2(value: number): string {
  return value.toString(16).toUpperCase().padStart(2, '0');
}

function digits2(value: number): string {
  return String(value).padStart(2, '0');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function numberField(record: Record<string, unknown>, key: string): number | null {
  const value = record[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

// ---------------------------------------------------------------------------------------------
// H.264 (ISO/IEC 14496-15 §5.4.2: avc1.PPCCLL = profile_idc, constraint flags, level_idc, in hex)

/** ffprobe profile name → profile_idc and the constraint-flag byte players expect with it. */
const AVC_PROFILES: Record<string, [number, number]> = {
  Baseline: [0x42, 0x00],
  'Constrained Baseline': [0x42, 0xe0],
  Main: [0x4d, 0x40],
  Extended: [0x58, 0x00],
  High: [0x64, 0x00],
  'High 10': [0x6e, 0x00],
  'High 10 Intra': [0x6e, 0x10],
  'High 4:2:2': [0x7a, 0x00],
  'High 4:2:2 Intra': [0x7a, 0x10],
  'High 4:4:4 Predictive': [0xf4, 0x00],
  'High 4:4:4 Intra': [0xf4, 0x10],
  'CAVLC 4:4:4': [0x2c, 0x00],
  'Multiview High': [0x76, 0x00],
  'Stereo High': [0x80, 0x00],
};

function avcString(profile: string | null, level: number | null, sampleEntry: string): string | null {
  const known = profile === null ? undefined : AVC_PROFILES[profile];
  if (known === undefined || level === null || level <= 0) return null;
  const [profileIdc, constraints] = known;
  return `${sampleEntry}.${hex2(profileIdc)}${hex2(constraints)}${hex2(Math.round(level * 10))}`;
}

// ---------------------------------------------------------------------------------------------
// HEVC (ISO/IEC 14496-15 Annex E: hvc1.<profile>.<compatibility, bit-reversed hex>.<tier><level×30>.<constraints>)

const HEVC_PROFILES: Record<string, string> = {
  Main: '1.6',
  'Main 10': '2.4',
};

function hevcString(
  profile: string | null,
  level: number | null,
  sampleEntry: string,
  tier: 'L' | 'H' = 'L',
): string | null {
  const known = profile === null ? undefined : HEVC_PROFILES[profile];
  if (known === undefined || level === null || level <= 0) return null;
  // B0: progressive source, non-packed, frame-only: what x265 and every camera/Blu-ray encoder set.
  return `${sampleEntry}.${known}.${tier}${Math.round(level * 30)}.B0`;
}

// ---------------------------------------------------------------------------------------------
// Dolby Vision (Dolby's "Dolby Vision Streams within the HTTP Live Streaming format": dvh1.PP.LL)

interface DolbyVisionFields {
  profile: number | null;
  level: number | null;
  fallback: string | null;
}

function dolbyVisionOf(value: unknown): DolbyVisionFields | null {
  if (!isRecord(value)) return null;
  const fallback = value.fallback;
  return {
    profile: numberField(value, 'profile'),
    level: numberField(value, 'level'),
    fallback: typeof fallback === 'string' ? fallback : null,
  };
}

function dolbyVisionString(entry: string, dv: DolbyVisionFields): string | null {
  if (dv.profile === null || dv.level === null) return null;
  return `${entry}.${digits2(dv.profile)}.${digits2(dv.level)}`;
}

// ---------------------------------------------------------------------------------------------
// AV1 (AV1 Codec ISO Media File Format Binding §5: av01.P.LLT.DD)

const AV1_PROFILES: Record<string, number> = { Main: 0, High: 1, Professional: 2 };

/** Real level (5.1) → seq_level_idx (13): the inverse of normaliseLevel. */
function av1LevelIndex(level: number): number {
  const major = Math.floor(level + 1e-9);
  const minor = Math.round((level - major) * 10);
  return (major - 2) * 4 + minor;
}

function av1String(profile: number, levelIndex: number, bitDepth: number | null): string | null {
  if (bitDepth === null || ![8, 10, 12].includes(bitDepth)) return null;
  if (levelIndex < 0 || levelIndex > 31) return null;
  return `av01.${profile}.${digits2(levelIndex)}M.${digits2(bitDepth)}`;
}

// ---------------------------------------------------------------------------------------------
// VP9 (VP Codec ISO Media File Format Binding: vp09.PP.LL.DD)

/** VP9 levels (Annex A): [level×10, max luma picture size, max luma sample rate]. */
const VP9_LEVELS: [number, number, number][] = [
  [10, 36_864, 829_440],
  [11, 73_728, 2_764_800],
  [20, 122_880, 4_608_000],
  [21, 245_760, 9_216_000],
  [30, 552_960, 20_736_000],
  [31, 983_040, 36_864_000],
  [40, 2_228_224, 83_558_400],
  [41, 2_228_224, 160_432_128],
  [50, 8_912_896, 311_951_360],
  [51, 8_912_896, 588_251_136],
  [52, 8_912_896, 1_176_502_272],
  [60, 35_651_584, 1_176_502_272],
  [61, 35_651_584, 2_353_004_544],
  [62, 35_651_584, 4_706_009_088],
];

function vp9String(video: VideoCodecInput): string | null {
  const profile = /^Profile ([0-3])$/.exec(video.profile ?? '')?.[1];
  const { width, height } = video;
  if (profile === undefined || video.bit_depth === null || !width || !height) return null;
  const samples = width * height;
  const rate = samples * (video.frame_rate ?? ASSUMED_FRAME_RATE);
  const level = VP9_LEVELS.find(([, maxSize, maxRate]) => samples <= maxSize && rate <= maxRate)?.[0];
  if (level === undefined) return null;
  return `vp09.${digits2(Number(profile))}.${digits2(level)}.${digits2(video.bit_depth)}`;
}

// ---------------------------------------------------------------------------------------------

/**
 * The CODECS value of a video stream as the HLS segments will carry it (copied), or null when the
 * stream does not say enough to write a right one.
 */
export function videoCodecString(video: VideoCodecInput, options: VideoCodecOptions = {}): string | null {
  switch (video.codec) {
    case 'h264':
      return avcString(video.profile, video.level, options.sampleEntry ?? 'avc1');
    case 'hevc': {
      const entry = options.sampleEntry ?? 'hvc1';
      const dv = dolbyVisionOf(video.dolby_vision);
      // Profile 5 has no base layer any HEVC decoder can show; a dvh1/dvhe sample entry is read as DV.
      if (dv !== null && (dv.fallback === 'none' || entry === 'dvh1' || entry === 'dvhe')) {
        return dolbyVisionString(entry === 'dvhe' ? 'dvhe' : 'dvh1', dv);
      }
      return hevcString(video.profile, video.level, entry);
    }
    case 'av1': {
      const dv = dolbyVisionOf(video.dolby_vision);
      if (dv !== null && dv.fallback === 'none') return dolbyVisionString('dav1', dv);
      const profile = video.profile === null ? undefined : AV1_PROFILES[video.profile];
      if (profile === undefined || video.level === null) return null;
      return av1String(profile, av1LevelIndex(video.level), video.bit_depth);
    }
    case 'vp9':
      return vp9String(video);
    case 'mpeg4':
      // MPEG-4 Visual in MP4 (object type 0x20); the profile-and-level byte is not stored.
      return 'mp4v.20.9';
    default:
      return null;
  }
}

/** ISO/IEC 14496-3 audio object types of the AAC profiles ffprobe names (LC is stored as null). */
const AAC_OBJECT_TYPES: Record<string, number> = {
  LC: 2,
  Main: 1,
  SSR: 3,
  LTP: 4,
  'HE-AAC': 5,
  'HE-AACv2': 29,
  LD: 23,
  ELD: 39,
};

const AUDIO_CODEC_STRINGS: Record<string, string> = {
  mp3: 'mp4a.40.34',
  ac3: 'ac-3',
  eac3: 'ec-3',
  opus: 'Opus',
  flac: 'fLaC',
  alac: 'alac',
};

/** The CODECS value of an audio stream as the HLS segments carry it; null when unknown. */
export function audioCodecString(audio: { codec: string; profile: string | null }): string | null {
  if (audio.codec === 'aac') {
    const objectType = AAC_OBJECT_TYPES[audio.profile ?? 'LC'];
    return objectType === undefined ? null : `mp4a.40.${objectType}`;
  }
  return AUDIO_CODEC_STRINGS[audio.codec] ?? null;
}

// ---------------------------------------------------------------------------------------------
// What our encoder writes (artifact-command.ts: libx264 veryfast High, libx265 Main/Main 10,
// libsvtav1 Main): each encoder picks the smallest level whose limits hold the picture size, the
// sample rate and, with VBV, the bitrate. The tables are the standards'; the rules are the
// encoders' own (x264 encoder/set.c, x265 encoder/level.cpp), checked against real encodes.

export interface EncodeTarget {
  codec: 'h264' | 'hevc' | 'av1';
  width: number;
  height: number;
  /** null: the rate is not known; ASSUMED_FRAME_RATE is used. */
  frameRate: number | null;
  bitDepth: 8 | 10;
  /** `-maxrate` when the plan caps the bitrate (then `-bufsize` is twice it, as artifact-command writes). */
  maxBitrateBps?: number;
}

/** H.264 Table A-1: [level×10, MaxMBPS, MaxFS, MaxDpbMbs, MaxBR (kbit/s), MaxCPB (kbit)]. */
const AVC_LEVELS: [number, number, number, number, number, number][] = [
  [10, 1_485, 99, 396, 64, 175],
  [11, 3_000, 396, 900, 192, 500],
  [12, 6_000, 396, 2_376, 384, 1_000],
  [13, 11_880, 396, 2_376, 768, 2_000],
  [20, 11_880, 396, 2_376, 2_000, 2_000],
  [21, 19_800, 792, 4_752, 4_000, 4_000],
  [22, 20_250, 1_620, 8_100, 4_000, 4_000],
  [30, 40_500, 1_620, 8_100, 10_000, 10_000],
  [31, 108_000, 3_600, 18_000, 14_000, 14_000],
  [32, 216_000, 5_120, 20_480, 20_000, 20_000],
  [40, 245_760, 8_192, 32_768, 20_000, 25_000],
  [41, 245_760, 8_192, 32_768, 50_000, 62_500],
  [42, 522_240, 8_704, 34_816, 50_000, 62_500],
  [50, 589_824, 22_080, 110_400, 135_000, 135_000],
  [51, 983_040, 36_864, 184_320, 240_000, 240_000],
  [52, 2_073_600, 36_864, 184_320, 240_000, 240_000],
  [60, 4_177_920, 139_264, 696_320, 240_000, 240_000],
  [61, 8_355_840, 139_264, 696_320, 480_000, 480_000],
  [62, 16_711_680, 139_264, 696_320, 800_000, 800_000],
];

/** x264 veryfast keeps 4 frames for decoding (b-pyramid): the DPB check uses 4 × the frame. */
const X264_DPB_FRAMES = 4;

function x264Level(target: EncodeTarget): number | null {
  const mbWidth = Math.ceil(target.width / 16);
  const mbHeight = Math.ceil(target.height / 16);
  const frameMbs = mbWidth * mbHeight;
  const mbRate = frameMbs * (target.frameRate ?? ASSUMED_FRAME_RATE);
  // x264: the VBV limits scale with the profile (High ×5/4, High 10 ×3).
  const factor = target.bitDepth === 10 ? 12 : 5;
  const kbps = target.maxBitrateBps === undefined ? 0 : target.maxBitrateBps / 1000;
  const level = AVC_LEVELS.find(
    ([, maxMbps, maxFs, maxDpb, maxBr, maxCpb]) =>
      frameMbs <= maxFs &&
      mbWidth * mbWidth <= maxFs * 8 &&
      mbHeight * mbHeight <= maxFs * 8 &&
      frameMbs * X264_DPB_FRAMES <= maxDpb &&
      mbRate <= maxMbps &&
      kbps <= (maxBr * factor) / 4 &&
      kbps * 2 <= (maxCpb * factor) / 4,
  );
  return level === undefined ? null : level[0] / 10;
}

/** HEVC Table A.8 (x265's table): [level×10, MaxLumaPs, MaxLumaSr, MaxBR Main tier, High tier (kbit/s)]. */
const HEVC_LEVELS: [number, number, number, number, number | null][] = [
  [10, 36_864, 552_960, 128, null],
  [20, 122_880, 3_686_400, 1_500, null],
  [21, 245_760, 7_372_800, 3_000, null],
  [30, 552_960, 16_588_800, 6_000, null],
  [31, 983_040, 33_177_600, 10_000, null],
  [40, 2_228_224, 66_846_720, 12_000, 30_000],
  [41, 2_228_224, 133_693_440, 20_000, 50_000],
  [50, 8_912_896, 267_386_880, 25_000, 100_000],
  [51, 8_912_896, 534_773_760, 40_000, 160_000],
  [52, 8_912_896, 1_069_547_520, 60_000, 240_000],
  [60, 35_651_584, 1_069_547_520, 60_000, 240_000],
  [61, 35_651_584, 2_139_095_040, 120_000, 480_000],
  [62, 35_651_584, 4_278_190_080, 240_000, 800_000],
];

function x265Level(target: EncodeTarget): { level: number; tier: 'L' | 'H' } | null {
  const samples = target.width * target.height;
  const rate = samples * (target.frameRate ?? ASSUMED_FRAME_RATE);
  const kbps = target.maxBitrateBps === undefined ? 0 : target.maxBitrateBps / 1000;
  const found = HEVC_LEVELS.find(
    ([, maxPs, maxSr, maxMain, maxHigh]) =>
      samples <= maxPs &&
      rate <= maxSr &&
      kbps <= (maxHigh ?? maxMain) &&
      Math.max(target.width, target.height) <= Math.sqrt(maxPs * 8),
  );
  if (found === undefined) return null;
  const [levelTimes10, , , maxMain] = found;
  return { level: levelTimes10 / 10, tier: kbps > maxMain ? 'H' : 'L' };
}

/** AV1 Annex A.3: [seq_level_idx, MaxPicSize, MaxHSize, MaxVSize, MaxDisplayRate, MainMbps]. */
const AV1_LEVELS: [number, number, number, number, number, number][] = [
  [0, 147_456, 2_048, 1_152, 4_423_680, 1.5],
  [1, 278_784, 2_816, 1_584, 8_363_520, 3],
  [4, 665_856, 4_352, 2_448, 19_975_680, 6],
  [5, 1_065_024, 5_504, 3_096, 31_950_720, 10],
  [8, 2_359_296, 6_144, 3_456, 70_778_880, 12],
  [9, 2_359_296, 6_144, 3_456, 141_557_760, 20],
  [12, 8_912_896, 8_192, 4_352, 267_386_880, 30],
  [13, 8_912_896, 8_192, 4_352, 534_773_760, 40],
  [14, 8_912_896, 8_192, 4_352, 1_069_547_520, 60],
  [16, 35_651_584, 16_384, 8_704, 1_069_547_520, 60],
  [17, 35_651_584, 16_384, 8_704, 2_139_095_040, 100],
  [18, 35_651_584, 16_384, 8_704, 4_278_190_080, 160],
];

function svtAv1LevelIndex(target: EncodeTarget): number | null {
  const samples = target.width * target.height;
  const rate = samples * (target.frameRate ?? ASSUMED_FRAME_RATE);
  const mbps = target.maxBitrateBps === undefined ? 0 : target.maxBitrateBps / 1_000_000;
  const found = AV1_LEVELS.find(
    ([, maxPic, maxH, maxV, maxRate, maxMbps]) =>
      samples <= maxPic &&
      target.width <= maxH &&
      target.height <= maxV &&
      rate <= maxRate &&
      mbps <= maxMbps,
  );
  return found === undefined ? null : found[0];
}

/**
 * The CODECS value of the video our encoder writes for this target: H.264 High (High 10 at 10
 * bits), HEVC Main/Main 10 in `hvc1`, AV1 Main; the level is the one the encoder itself picks.
 * null when the picture is beyond every level (or its size is not a positive number).
 */
export function encodedVideoCodecString(target: EncodeTarget): string | null {
  if (!(target.width > 0 && target.height > 0)) return null;
  switch (target.codec) {
    case 'h264': {
      const level = x264Level(target);
      return avcString(target.bitDepth === 10 ? 'High 10' : 'High', level, 'avc1');
    }
    case 'hevc': {
      const found = x265Level(target);
      if (found === null) return null;
      return hevcString(target.bitDepth === 10 ? 'Main 10' : 'Main', found.level, 'hvc1', found.tier);
    }
    case 'av1': {
      const index = svtAv1LevelIndex(target);
      return index === null ? null : av1String(0, index, target.bitDepth);
    }
    default:
      return null;
  }
}
