/**
 * The `protocolInfo` of a DIDL `res` and the `contentFeatures.dlna.org` header (its 4th field): which DLNA
 * media profile a stream is, and how a TV may seek in it. Facts from players.md §2.2.
 *
 * A DLNA.ORG_PN names a profile with exact constraints (codec, profile, frame size, rate, audio); a TV that
 * trusts a wrong one refuses or misplays the stream, while an absent one only makes it probe. So a profile
 * is named only when the stream truly fits; otherwise the field is left out.
 */

/** DLNA.ORG_FLAGS bits (DLNA guidelines 7.4.1.3.24; names as players.md §2.2). */
export const DlnaFlag = {
  /** "lop-bytes": limited byte range only; not set for whole files, which seek anywhere. */
  ByteBasedSeek: 1 << 29,
  Streaming: 1 << 24,
  Interactive: 1 << 23,
  Background: 1 << 22,
  ConnectionStall: 1 << 21,
  DlnaV15: 1 << 20,
} as const;

/** The shape of a stream, as probed (a file) or as the conversion will write it. */
export interface StreamShape {
  /** 'mp4', 'mpegts' (188-byte packets), 'm2ts' (192-byte, timestamped), 'matroska', … */
  container: string;
  /** ffprobe codec names: 'h264', 'hevc', 'mpeg2video', … */
  videoCodec: string | null;
  /** ffprobe's profile: 'Constrained Baseline', 'Baseline', 'Main', 'High', … */
  videoProfile: string | null;
  width: number | null;
  height: number | null;
  framesPerSecond: number | null;
  /** 'aac', 'ac3', 'mp3', 'mp2', … */
  audioCodec: string | null;
  audioChannels: number | null;
}

/** How the TV may move in the stream: whole files by bytes, conversions by time. */
export type SeekMode = 'byte' | 'time' | 'none';

export interface ProtocolInfoInput {
  mime: string;
  /** from `dlnaProfileOf`, or null for none */
  profile: string | null;
  seek: SeekMode;
  /** true for a conversion (DLNA.ORG_CI=1) */
  converted: boolean;
}

const VIDEO_FLAGS = DlnaFlag.Streaming | DlnaFlag.Background | DlnaFlag.ConnectionStall | DlnaFlag.DlnaV15;
const IMAGE_FLAGS = DlnaFlag.Interactive | DlnaFlag.Background | DlnaFlag.DlnaV15;

/** 8 hex digits of flags followed by 24 reserved zeros: 32 hex digits in all. */
export function formatFlags(flags: number): string {
  return (flags >>> 0).toString(16).toUpperCase().padStart(8, '0') + '0'.repeat(24);
}

const OP: Record<SeekMode, string> = { byte: '01', time: '10', none: '00' };

/** The 4th field: `DLNA.ORG_PN=…;DLNA.ORG_OP=..;DLNA.ORG_CI=.;DLNA.ORG_FLAGS=…` (PN only when known). */
export function contentFeatures(input: Omit<ProtocolInfoInput, 'mime'>): string {
  const parts = input.profile === null ? [] : [`DLNA.ORG_PN=${input.profile}`];
  parts.push(`DLNA.ORG_OP=${OP[input.seek]}`, `DLNA.ORG_CI=${input.converted ? 1 : 0}`);
  parts.push(`DLNA.ORG_FLAGS=${formatFlags(VIDEO_FLAGS)}`);
  return parts.join(';');
}

/** The whole `protocolInfo` attribute: `http-get:*:<mime>:<4th field>`. */
export function protocolInfo(input: ProtocolInfoInput): string {
  return `http-get:*:${input.mime}:${contentFeatures(input)}`;
}

/** An album-art or thumbnail image (`JPEG_TN` ≤ 160×160, `JPEG_SM` ≤ 640×480). */
export function imageProtocolInfo(profile: 'JPEG_TN' | 'JPEG_SM'): string {
  return `http-get:*:image/jpeg:DLNA.ORG_PN=${profile};DLNA.ORG_OP=01;DLNA.ORG_CI=1;DLNA.ORG_FLAGS=${formatFlags(IMAGE_FLAGS)}`;
}

/** A sidecar subtitle: no DLNA profile exists for SRT. */
export const SRT_PROTOCOL_INFO = 'http-get:*:text/srt:*';

const MAIN_COMPATIBLE = new Set(['constrained baseline', 'baseline', 'main']);

type Definition = 'SD' | 'HD' | null;

/** SD is ≤ 720×576; HD is one of the broadcast sizes DLNA's AVC HD profiles allow. */
function definitionOf(width: number | null, height: number | null): Definition {
  if (width === null || height === null || width <= 0 || height <= 0) return null;
  if (width <= 720 && height <= 576) return 'SD';
  const size = `${width}x${height}`;
  return ['1920x1080', '1440x1080', '1280x720'].includes(size) ? 'HD' : null;
}

function near(value: number | null, targets: number[]): boolean {
  return value !== null && targets.some((target) => Math.abs(value - target) < 0.02);
}

/** MPEG-TS with 188-byte packets is `_ISO`; 192-byte timestamped packets (m2ts) are `_T`. */
function tsSuffix(container: string): string | null {
  if (container === 'mpegts') return '_ISO';
  if (container === 'm2ts') return '_T';
  return null;
}

/** AAC up to 5.1 (`_MULT5`), AC-3, MP3: the audio parts of the AVC profiles. */
function avcAudio(shape: StreamShape): string | null {
  const channels = shape.audioChannels ?? 0;
  if (channels <= 0) return null;
  if (shape.audioCodec === 'aac' && channels <= 6) return 'AAC_MULT5';
  if (shape.audioCodec === 'ac3' && channels <= 6) return 'AC3';
  if (shape.audioCodec === 'mp3' && channels <= 2) return 'MPEG1_L3';
  return null;
}

function avcProfile(shape: StreamShape): string | null {
  const definition = definitionOf(shape.width, shape.height);
  const codecProfile = (shape.videoProfile ?? '').toLowerCase();
  const audio = avcAudio(shape);
  if (definition === null || audio === null) return null;
  if (shape.container === 'mp4') {
    if (MAIN_COMPATIBLE.has(codecProfile)) {
      if (definition === 'SD') return audio === 'MPEG1_L3' ? null : `AVC_MP4_MP_SD_${audio}`;
      if (audio !== 'AAC_MULT5') return null;
      if (shape.width === 1280 && shape.height === 720) return 'AVC_MP4_MP_HD_720p_AAC';
      if (shape.height === 1080) return 'AVC_MP4_MP_HD_1080i_AAC';
      return null;
    }
    return codecProfile === 'high' && definition === 'HD' && audio === 'AAC_MULT5'
      ? 'AVC_MP4_HP_HD_AAC'
      : null;
  }
  const suffix = tsSuffix(shape.container);
  if (suffix === null) return null;
  if (MAIN_COMPATIBLE.has(codecProfile)) return `AVC_TS_MP_${definition}_${audio}${suffix}`;
  // High profile fits only the HD broadcast profiles, which carry AC-3 at 24, 25/50 or 30/60 frames.
  if (codecProfile !== 'high' || definition !== 'HD' || audio !== 'AC3') return null;
  if (near(shape.framesPerSecond, [23.976, 24])) return `AVC_TS_HD_24_AC3${suffix}`;
  if (near(shape.framesPerSecond, [25, 50])) return `AVC_TS_HD_50_AC3${suffix}`;
  if (near(shape.framesPerSecond, [29.97, 30, 59.94, 60])) return `AVC_TS_HD_60_AC3${suffix}`;
  return null;
}

/** MPEG-2 video in MPEG-TS with AC-3 or MPEG audio: North American (30/60) or European (25) SD, NA HD. */
function mpeg2Profile(shape: StreamShape): string | null {
  const suffix = tsSuffix(shape.container);
  if (suffix === null || !['ac3', 'mp2'].includes(shape.audioCodec ?? '')) return null;
  const { width, height, framesPerSecond: fps } = shape;
  if (width === null || height === null) return null;
  if (width <= 720 && height <= 480 && near(fps, [29.97, 30])) return `MPEG_TS_SD_NA${suffix}`;
  if (width <= 720 && height <= 576 && near(fps, [25])) return `MPEG_TS_SD_EU${suffix}`;
  const hd = (width === 1920 && height === 1080) || (width === 1280 && height === 720);
  if (hd && shape.audioCodec === 'ac3' && near(fps, [29.97, 30, 59.94, 60])) return `MPEG_TS_HD_NA${suffix}`;
  return null;
}

/** The DLNA media profile the stream fits, or null when none truly does (Matroska, HEVC, DTS, odd sizes…). */
export function dlnaProfileOf(shape: StreamShape): string | null {
  if (shape.videoCodec === 'h264') return avcProfile(shape);
  if (shape.videoCodec === 'mpeg2video') return mpeg2Profile(shape);
  return null;
}
