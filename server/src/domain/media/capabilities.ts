/**
 * The capability record of one media file: what ffprobe found, normalised into plain JSON with
 * snake_case keys. It is stored on the media file and exposed as the free-form `capabilities`
 * object of a LibraryEdition, so it must stay JSON (no classes, no undefined-only members).
 */

export type HdrFormat = 'sdr' | 'hdr10' | 'hdr10plus' | 'hlg' | 'dolby_vision';

/** What a Dolby Vision stream falls back to on a player without Dolby Vision (playback.md §5). */
export type DolbyVisionFallback = 'none' | 'hdr10' | 'sdr' | 'hlg' | 'invalid';

export interface DolbyVisionInfo {
  /** dv_profile (5, 7, 8, 10…); null when only the codec tag says Dolby Vision. */
  profile: number | null;
  level: number | null;
  /** dv_bl_signal_compatibility_id: 0 none (P5), 1 HDR10, 2 SDR, 4 HLG, 6 Blu-ray HDR10 (P7). */
  compat_id: number | null;
  bl_present: boolean;
  el_present: boolean;
  rpu_present: boolean;
  fallback: DolbyVisionFallback;
}

export interface VideoCapabilities {
  index: number;
  codec: string;
  profile: string | null;
  /** Real level number: H.264 `41` → 4.1, HEVC `153` → 5.1 (÷30), AV1 seq_level_idx 13 → 5.1. */
  level: number | null;
  width: number | null;
  height: number | null;
  bit_depth: number | null;
  pix_fmt: string | null;
  frame_rate: number | null;
  interlaced: boolean;
  /** Lower-case sample-entry tag (`avc1`, `hvc1`, `hev1`, `dvh1`…); null in MKV/TS (`[0][0][0][0]`). */
  codec_tag: string | null;
  hdr: HdrFormat;
  dolby_vision: DolbyVisionInfo | null;
  sar: string | null;
  anamorphic: boolean;
  rotation: number;
  bitrate_bps: number | null;
}

export interface AudioCapabilities {
  /** ffprobe stream index. */
  index: number;
  /** 0-based position among the audio streams. */
  track: number;
  codec: string;
  /** Normalised variant: 'DTS-HD MA', 'DTS:X', 'TrueHD Atmos', 'E-AC3 Atmos', 'HE-AAC'…; null for plain. */
  profile: string | null;
  channels: number | null;
  channel_layout: string | null;
  sample_rate: number | null;
  bitrate_bps: number | null;
  language: string | null;
  title: string | null;
  default: boolean;
  forced: boolean;
}

export interface SubtitleCapabilities {
  index: number;
  /** 0-based position among the subtitle streams. */
  track: number;
  /** Normalised: srt, ass, ssa, webvtt, mov_text, ttml, eia_608, pgs, vobsub, dvbsub, xsub, teletext… */
  codec: string;
  kind: 'text' | 'image';
  language: string | null;
  title: string | null;
  forced: boolean;
  default: boolean;
  /** A sidecar file beside the video (merged in from the scan's records; never set by the analysis). */
  external?: boolean;
}

export interface Capabilities {
  /** Normalised container: mp4, mkv, webm, mov, avi, ts, m2ts, mpeg, asf, ogg, flv… */
  container: string;
  format_name: string;
  duration_seconds: number | null;
  size_bytes: number;
  bitrate_bps: number | null;
  stream_count: number;
  video: VideoCapabilities | null;
  audio: AudioCapabilities[];
  subtitles: SubtitleCapabilities[];
  stream_errors?: string[];
}

/** ffprobe output that cannot describe a playable file (not JSON object, no format, no A/V stream). */
export class ProbeParseError extends Error {
  readonly code = 'probe_failed';
  constructor(message: string) {
    super(message);
    this.name = 'ProbeParseError';
  }
}

type JsonObject = Record<string, unknown>;

function isRecord(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readString(obj: JsonObject, key: string): string | null {
  const value = obj[key];
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}

/** ffprobe writes many numbers as strings ("48000", "2.016000"); "N/A" and junk become null. */
function readNumber(obj: JsonObject, key: string): number | null {
  return toNumber(obj[key]);
}

function toNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'string' || value.trim() === '') return null;
  const parsed = Number(value);
  return Number.isFinite(parsed) ? parsed : null;
}

function readRecord(obj: JsonObject, key: string): JsonObject {
  const value = obj[key];
  return isRecord(value) ? value : {};
}

/** A tag value, looking also at MKV's language-suffixed keys (`BPS-eng`, `DURATION-eng`). */
function readTag(tags: JsonObject, name: string): string | null {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(tags)) {
    const base = key.toLowerCase().split('-')[0];
    if (base === wanted && typeof value === 'string' && value.trim() !== '') return value.trim();
  }
  return null;
}

function isFlagSet(disposition: JsonObject, key: string): boolean {
  return disposition[key] === 1 || disposition[key] === true;
}

/** "24000/1001" → 23.976; "0/0" → null. */
export function parseRate(value: string | null): number | null {
  if (value === null) return null;
  const [numText, denText] = value.split('/');
  const num = Number(numText);
  const den = denText === undefined ? 1 : Number(denText);
  if (!Number.isFinite(num) || !Number.isFinite(den) || num <= 0 || den <= 0) return null;
  return Math.round((num / den) * 1000) / 1000;
}

/** MKV `tags.DURATION` "00:00:02.005000000" → 2.005. */
export function parseClockDuration(value: string | null): number | null {
  if (value === null) return null;
  const match = /^(\d+):(\d{1,2}):(\d{1,2}(?:\.\d+)?)$/.exec(value.trim());
  if (match === null) return null;
  const [, hours, minutes, seconds] = match;
  return Number(hours) * 3600 + Number(minutes) * 60 + Number(seconds);
}

function streamDuration(stream: JsonObject): number | null {
  const direct = readNumber(stream, 'duration');
  if (direct !== null && direct > 0) return direct;
  return parseClockDuration(readTag(readRecord(stream, 'tags'), 'DURATION'));
}

function streamBitrate(stream: JsonObject): number | null {
  const direct = readNumber(stream, 'bit_rate');
  if (direct !== null && direct > 0) return direct;
  // mkvmerge writes the track bitrate as a statistics tag instead.
  const bps = toNumber(readTag(readRecord(stream, 'tags'), 'BPS'));
  return bps !== null && bps > 0 ? bps : null;
}

function languageOf(tags: JsonObject): string | null {
  const language = readTag(tags, 'language')?.toLowerCase() ?? null;
  return language === null || language === 'und' ? null : language;
}

const LEVEL_DIVISORS: Record<string, number> = { h264: 10, hevc: 30 };

/** ffprobe integer level → real level number; AV1 uses seq_level_idx (2 + idx/4 . idx%4). */
export function normaliseLevel(codec: string, level: number | null): number | null {
  if (level === null || level <= 0) return null;
  if (codec === 'av1') return 2 + Math.floor(level / 4) + (level % 4) / 10;
  const divisor = LEVEL_DIVISORS[codec];
  if (divisor === undefined) return null;
  return Math.round((level / divisor) * 10) / 10;
}

function bitDepthOf(stream: JsonObject, pixFmt: string | null, profile: string | null): number | null {
  const raw = readNumber(stream, 'bits_per_raw_sample');
  if (raw !== null && raw > 0) return raw;
  if (pixFmt !== null) {
    const match = /p(9|10|12|14|16)(le|be)?$/.exec(pixFmt);
    if (match?.[1] !== undefined) return Number(match[1]);
    if (/^(yuv|yuvj|nv|gray|gbr|rgb|bgr)/.test(pixFmt)) return 8;
  }
  if (profile !== null && /\b10\b/.test(profile)) return 10;
  return null;
}

const INTERLACED_FIELD_ORDERS = new Set(['tt', 'bb', 'tb', 'bt']);

function codecTagOf(stream: JsonObject): string | null {
  const tag = readString(stream, 'codec_tag_string');
  // MKV/TS report no sample entry as "[0][0][0][0]" or "[27][0][0][0]".
  if (tag === null || tag.startsWith('[') || tag === '0x0000') return null;
  return tag.trim().toLowerCase();
}

function sideDataOf(stream: JsonObject): JsonObject[] {
  const list = stream.side_data_list;
  return Array.isArray(list) ? list.filter(isRecord) : [];
}

function findSideData(sideData: JsonObject[], pattern: RegExp): JsonObject | undefined {
  return sideData.find((entry) => pattern.test(readString(entry, 'side_data_type') ?? ''));
}

const DOLBY_VISION_TAGS = new Set(['dvh1', 'dvhe', 'dav1', 'dva1', 'dvav', 'dvai']);

function fallbackFromCompatId(compatId: number | null, transfer: string | null): DolbyVisionFallback {
  switch (compatId) {
    case 0:
      return 'none';
    case 1:
    case 6:
      return 'hdr10';
    case 2:
      return 'sdr';
    case 4:
      return 'hlg';
    case null:
      return fallbackFromTransfer(transfer);
    default:
      return 'invalid';
  }
}

/** Without a configuration record the base layer's own transfer is the best evidence. */
function fallbackFromTransfer(transfer: string | null): DolbyVisionFallback {
  if (transfer === 'smpte2084') return 'hdr10';
  if (transfer === 'arib-std-b67') return 'hlg';
  if (transfer === 'bt709') return 'sdr';
  return 'none';
}

function dolbyVisionOf(
  sideData: JsonObject[],
  codecTag: string | null,
  transfer: string | null,
): DolbyVisionInfo | null {
  const record = findSideData(sideData, /dovi configuration/i);
  if (record !== undefined) {
    const compatId = readNumber(record, 'dv_bl_signal_compatibility_id');
    return {
      profile: readNumber(record, 'dv_profile'),
      level: readNumber(record, 'dv_level'),
      compat_id: compatId,
      bl_present: readNumber(record, 'bl_present_flag') === 1,
      el_present: readNumber(record, 'el_present_flag') === 1,
      rpu_present: readNumber(record, 'rpu_present_flag') === 1,
      fallback: fallbackFromCompatId(compatId, transfer),
    };
  }
  if (codecTag === null || !DOLBY_VISION_TAGS.has(codecTag)) return null;
  return {
    profile: null,
    level: null,
    compat_id: null,
    bl_present: true,
    el_present: false,
    rpu_present: true,
    fallback: fallbackFromTransfer(transfer),
  };
}

function hdrOf(
  sideData: JsonObject[],
  transfer: string | null,
  dolbyVision: DolbyVisionInfo | null,
): HdrFormat {
  if (dolbyVision !== null) return 'dolby_vision';
  if (findSideData(sideData, /hdr10\+|2094-40/i) !== undefined) return 'hdr10plus';
  if (transfer === 'smpte2084') return 'hdr10';
  if (transfer === 'arib-std-b67') return 'hlg';
  return 'sdr';
}

function rotationOf(stream: JsonObject, sideData: JsonObject[]): number {
  const matrix = findSideData(sideData, /display matrix/i);
  const rotation = matrix === undefined ? null : readNumber(matrix, 'rotation');
  const legacy = toNumber(readTag(readRecord(stream, 'tags'), 'rotate'));
  const degrees = rotation ?? legacy ?? 0;
  return ((Math.round(degrees) % 360) + 360) % 360;
}

function sarOf(stream: JsonObject): string | null {
  const sar = readString(stream, 'sample_aspect_ratio');
  if (sar === null || sar === '0:1' || sar === 'N/A') return null;
  return sar;
}

function parseVideo(stream: JsonObject, position: number, errors: string[]): VideoCapabilities {
  const index = readNumber(stream, 'index') ?? position;
  const codec = readString(stream, 'codec_name')?.toLowerCase() ?? 'unknown';
  if (codec === 'unknown') errors.push(`stream ${index}: video codec not identified`);
  const profile = readString(stream, 'profile');
  const pixFmt = readString(stream, 'pix_fmt');
  const transfer = readString(stream, 'color_transfer');
  const codecTag = codecTagOf(stream);
  const sideData = sideDataOf(stream);
  const dolbyVision = dolbyVisionOf(sideData, codecTag, transfer);
  const sar = sarOf(stream);
  return {
    index,
    codec,
    profile,
    level: normaliseLevel(codec, readNumber(stream, 'level')),
    width: readNumber(stream, 'width'),
    height: readNumber(stream, 'height'),
    bit_depth: bitDepthOf(stream, pixFmt, profile),
    pix_fmt: pixFmt,
    frame_rate:
      parseRate(readString(stream, 'avg_frame_rate')) ?? parseRate(readString(stream, 'r_frame_rate')),
    interlaced: INTERLACED_FIELD_ORDERS.has(readString(stream, 'field_order') ?? ''),
    codec_tag: codecTag,
    hdr: hdrOf(sideData, transfer, dolbyVision),
    dolby_vision: dolbyVision,
    sar,
    anamorphic: sar !== null && sar !== '1:1',
    rotation: rotationOf(stream, sideData),
    bitrate_bps: streamBitrate(stream),
  };
}

function mentionsAtmos(...texts: (string | null)[]): boolean {
  return texts.some((text) => text !== null && /atmos/i.test(text));
}

const DTS_PROFILES = ['DTS-HD MA', 'DTS-HD HRA', 'DTS-ES', 'DTS 96/24', 'DTS Express'];

/** ffprobe's audio profile → the variant a person recognises; null for the plain codec. */
export function normaliseAudioProfile(
  codec: string,
  raw: string | null,
  title: string | null,
): string | null {
  switch (codec) {
    case 'dts':
      if (raw !== null && /DTS:X/i.test(raw)) return 'DTS:X';
      return DTS_PROFILES.find((name) => raw === name) ?? null;
    case 'truehd':
      return mentionsAtmos(raw, title) ? 'TrueHD Atmos' : null;
    case 'eac3':
      return mentionsAtmos(raw, title) ? 'E-AC3 Atmos' : null;
    case 'aac':
      return raw === null || raw === 'LC' ? null : raw;
    default:
      return raw;
  }
}

function parseAudio(
  stream: JsonObject,
  position: number,
  track: number,
  errors: string[],
): AudioCapabilities {
  const index = readNumber(stream, 'index') ?? position;
  const codec = readString(stream, 'codec_name')?.toLowerCase() ?? 'unknown';
  if (codec === 'unknown') errors.push(`stream ${index}: audio codec not identified`);
  const tags = readRecord(stream, 'tags');
  const disposition = readRecord(stream, 'disposition');
  const title = readTag(tags, 'title');
  return {
    index,
    track,
    codec,
    profile: normaliseAudioProfile(codec, readString(stream, 'profile'), title),
    channels: readNumber(stream, 'channels'),
    channel_layout: readString(stream, 'channel_layout'),
    sample_rate: readNumber(stream, 'sample_rate'),
    bitrate_bps: streamBitrate(stream),
    language: languageOf(tags),
    title,
    default: isFlagSet(disposition, 'default'),
    forced: isFlagSet(disposition, 'forced'),
  };
}

const SUBTITLE_CODECS: Record<string, string> = {
  subrip: 'srt',
  srt: 'srt',
  hdmv_pgs_subtitle: 'pgs',
  dvd_subtitle: 'vobsub',
  dvb_subtitle: 'dvbsub',
  dvb_teletext: 'teletext',
};

const IMAGE_SUBTITLES = new Set(['pgs', 'vobsub', 'dvbsub', 'xsub', 'teletext']);

function parseSubtitle(stream: JsonObject, position: number, track: number): SubtitleCapabilities {
  const raw = readString(stream, 'codec_name')?.toLowerCase() ?? 'unknown';
  const codec = SUBTITLE_CODECS[raw] ?? raw;
  const tags = readRecord(stream, 'tags');
  const disposition = readRecord(stream, 'disposition');
  const title = readTag(tags, 'title');
  return {
    index: readNumber(stream, 'index') ?? position,
    track,
    codec,
    kind: IMAGE_SUBTITLES.has(codec) ? 'image' : 'text',
    language: languageOf(tags),
    title,
    // Many rips mark forced subtitles only in the title.
    forced: isFlagSet(disposition, 'forced') || (title !== null && /\bforced\b/i.test(title)),
    default: isFlagSet(disposition, 'default'),
  };
}

const WEBM_VIDEO = new Set(['vp8', 'vp9', 'av1']);
const WEBM_AUDIO = new Set(['opus', 'vorbis']);

function looksLikeWebm(
  video: VideoCapabilities | null,
  audio: AudioCapabilities[],
  subs: SubtitleCapabilities[],
) {
  return (
    (video === null || WEBM_VIDEO.has(video.codec)) &&
    audio.every((track) => WEBM_AUDIO.has(track.codec)) &&
    subs.every((sub) => sub.codec === 'webvtt')
  );
}

const EXTENSION_CONTAINERS: Record<string, string> = {
  mkv: 'mkv',
  webm: 'webm',
  m2ts: 'm2ts',
  mts: 'm2ts',
  mov: 'mov',
  m4v: 'mp4',
  mp4: 'mp4',
};

/** ffprobe's format_name list → one container id; the file extension only breaks ties ffprobe can't. */
export function normaliseContainer(
  formatName: string,
  majorBrand: string | null,
  looksWebm: boolean,
  extension: string | null,
): string {
  const names = formatName.toLowerCase().split(',');
  const fromExtension = extension === null ? undefined : EXTENSION_CONTAINERS[extension];
  if (names.includes('matroska') || names.includes('webm')) {
    if (fromExtension === 'mkv' || fromExtension === 'webm') return fromExtension;
    return looksWebm ? 'webm' : 'mkv';
  }
  if (names.includes('mov') || names.includes('mp4')) {
    if (fromExtension === 'mov' || fromExtension === 'mp4') return fromExtension;
    return majorBrand?.trim().toLowerCase() === 'qt' ? 'mov' : 'mp4';
  }
  if (names.includes('mpegts')) return fromExtension === 'm2ts' ? 'm2ts' : 'ts';
  if (names.includes('mpeg') || names.includes('mpegvideo')) return 'mpeg';
  return names[0] ?? 'unknown';
}

function extensionOf(fileName: string | undefined): string | null {
  if (fileName === undefined) return null;
  const dot = fileName.lastIndexOf('.');
  return dot < 0 ? null : fileName.slice(dot + 1).toLowerCase();
}

interface SortedStreams {
  video: VideoCapabilities | null;
  audio: AudioCapabilities[];
  subtitles: SubtitleCapabilities[];
  durations: number[];
}

function sortStreams(streams: JsonObject[], errors: string[]): SortedStreams {
  const sorted: SortedStreams = { video: null, audio: [], subtitles: [], durations: [] };
  streams.forEach((stream, position) => {
    const type = readString(stream, 'codec_type');
    const duration = streamDuration(stream);
    // Cover art in MP4/MKV is a video stream flagged attached_pic: never the movie's picture.
    if (type === 'video' && !isFlagSet(readRecord(stream, 'disposition'), 'attached_pic')) {
      if (sorted.video === null) sorted.video = parseVideo(stream, position, errors);
      if (duration !== null) sorted.durations.push(duration);
    } else if (type === 'audio') {
      sorted.audio.push(parseAudio(stream, position, sorted.audio.length, errors));
      if (duration !== null) sorted.durations.push(duration);
    } else if (type === 'subtitle') {
      sorted.subtitles.push(parseSubtitle(stream, position, sorted.subtitles.length));
    }
  });
  return sorted;
}

/**
 * Maps `ffprobe -show_format -show_streams -of json` output to a Capabilities record. Pure and
 * defensive: every field is checked, unknown facts become null, nothing is guessed as compatible.
 * @param json the parsed ffprobe JSON
 * @param sizeBytes the file size from the filesystem (ffprobe's own `size` is only a fallback)
 * @param hints optional file name, used only to tell MKV from WebM and TS from M2TS
 * @returns the capabilities record
 * @throws ProbeParseError when the output has no format section or no audio/video stream
 * @example parseFfprobe(JSON.parse(stdout), stat.size, { fileName: 'Movie (1999).mkv' })
 */
export function parseFfprobe(
  json: unknown,
  sizeBytes: number,
  hints: { fileName?: string } = {},
): Capabilities {
  if (!isRecord(json)) throw new ProbeParseError('ffprobe output is not a JSON object');
  const format = json.format;
  if (!isRecord(format)) throw new ProbeParseError('ffprobe output has no format section');
  const formatName = readString(format, 'format_name');
  if (formatName === null) throw new ProbeParseError('ffprobe output names no container format');
  const streams = Array.isArray(json.streams) ? json.streams.filter(isRecord) : [];
  const errors: string[] = [];
  const sorted = sortStreams(streams, errors);
  if (sorted.video === null && sorted.audio.length === 0) {
    throw new ProbeParseError('ffprobe found no audio or video stream');
  }
  const size = sizeBytes > 0 ? sizeBytes : (readNumber(format, 'size') ?? 0);
  const formatDuration = readNumber(format, 'duration');
  const duration =
    formatDuration !== null && formatDuration > 0
      ? formatDuration
      : sorted.durations.length > 0
        ? Math.max(...sorted.durations)
        : null;
  const formatBitrate = readNumber(format, 'bit_rate');
  const bitrate =
    formatBitrate !== null && formatBitrate > 0
      ? formatBitrate
      : duration !== null && size > 0
        ? Math.round((size * 8) / duration)
        : null;
  const capabilities: Capabilities = {
    container: normaliseContainer(
      formatName,
      readString(readRecord(format, 'tags'), 'major_brand'),
      looksLikeWebm(sorted.video, sorted.audio, sorted.subtitles),
      extensionOf(hints.fileName),
    ),
    format_name: formatName,
    duration_seconds: duration,
    size_bytes: size,
    bitrate_bps: bitrate,
    stream_count: streams.length,
    video: sorted.video,
    audio: sorted.audio,
    subtitles: sorted.subtitles,
  };
  if (errors.length > 0) capabilities.stream_errors = errors;
  return capabilities;
}

/** True for object-based audio whose objects a conversion cannot keep (FFmpeg encodes no Atmos/DTS:X). */
export function isImmersiveAudio(track: Pick<AudioCapabilities, 'profile'>): boolean {
  return track.profile === 'TrueHD Atmos' || track.profile === 'E-AC3 Atmos' || track.profile === 'DTS:X';
}

/** '5', '7', '8.1', '8.4', '10'… (profile 8 and 10 carry the base-layer compatibility id); null when unknown. */
export function dolbyVisionKey(dv: DolbyVisionInfo): string | null {
  if (dv.profile === null) return null;
  if (dv.profile === 8 || (dv.profile === 10 && dv.compat_id !== null && dv.compat_id !== 0)) {
    return `${dv.profile}.${dv.compat_id ?? '?'}`;
  }
  return String(dv.profile);
}
