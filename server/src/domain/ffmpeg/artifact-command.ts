/**
 * The ffmpeg argv that turns a source file into a playback artifact (an MP4 servable while it is
 * written, and served as written once finished), and the progress reader. Pure: no I/O, no spawn.
 *
 * Output layout: `ftyp`, `moov` (empty: no samples, duration 0), then per keyframe or per 2 s of
 * media at most a `sidx` index and a `moof`+`mdat` fragment, then `mfra` (a seek index) at the end. `-flush_packets 1` puts each fragment on disk as soon as it is cut, so at any moment the
 * file is a playable MP4 up to its last complete fragment (a reader may see the next one half
 * written). The moov is written only when the first fragment is cut (`delay_moov`: ffmpeg 5.1
 * cannot write an AC-3/E-AC-3 sample entry before it has seen a packet), so the file stays empty
 * (0 bytes) until ~2 s of media are done.
 */
import type { AudioCapabilities, Capabilities, SubtitleCapabilities } from '../media/capabilities.ts';
import type { AudioEncodePlan, PlaybackPlan, VideoEncodePlan } from '../playback/decision-types.ts';
import { AUDIO_ENCODERS } from '../playback/encoders.ts';
import { ffmpegPath, filterWithOptions } from './filter-escape.ts';

export { parseProgress, initialProgress, ProgressParser } from './progress.ts';
export type { FfmpegProgress, ProgressState } from './progress.ts';

export interface ArtifactInput {
  /** Source media file (absolute path preferred). */
  source: string;
  /** Where the growing artifact is written (the caller renames it after finalising). */
  output: string;
  plan: PlaybackPlan;
  /** The source's capability record: stream kinds, codecs, languages, HDR class. */
  capabilities: Capabilities;
}

/** The plan cannot be carried out on this source (a bug in the caller, not a user error). */
export class ArtifactPlanError extends Error {
  readonly code = 'artifact_plan_invalid';
  constructor(message: string) {
    super(message);
    this.name = 'ArtifactPlanError';
  }
}

/** Fragment cadence: at each keyframe, and at most this long (µs) for long-GOP copied video. */
export const FRAGMENT_MICROSECONDS = 2_000_000;
/** Keyframe interval of encoded video (s): fragments, and so the growing file, advance this often. */
export const KEYFRAME_SECONDS = 2;
/**
 * `dash` writes a `sidx` index before every fragment as it goes: the finished artifact is seekable
 * through its indexes without the rewrite a front-loaded `moov` would need, so the bytes a player got
 * while the file grew stay the bytes of the finished file (same ETag-worthy content, no switch-over).
 */
export const GROWING_MOVFLAGS = '+frag_keyframe+empty_moov+delay_moov+default_base_moof+dash';
/** A file nobody reads while it is written: one sample table, in front of the media. */
export const FINISHED_MOVFLAGS = '+faststart';

export const COMMON_ARGS = [
  '-hide_banner',
  '-nostdin',
  '-loglevel',
  'error',
  '-nostats',
  '-progress',
  'pipe:1',
];
/** Streams whose parameters appear late (PGS in M2TS, DTS in TS) need a longer look. */
export const INPUT_ARGS = ['-analyzeduration', '100M', '-probesize', '100M'];
const MP4_CONTAINERS = new Set(['mp4', 'm4v', 'mov']);

export type Strictness = 'normal' | 'unofficial' | 'experimental';

/** What one part of the command contributes. */
export interface Part {
  maps: string[];
  codec: string[];
  strict: Strictness;
}

const EMPTY: Part = { maps: [], codec: [], strict: 'normal' };

export function stricter(a: Strictness, b: Strictness): Strictness {
  if (a === 'experimental' || b === 'experimental') return 'experimental';
  if (a === 'unofficial' || b === 'unofficial') return 'unofficial';
  return 'normal';
}

// ---------------------------------------------------------------- video

/** What copying the video stream needs from a plan. */
export type CopiedVideoPlan = Pick<PlaybackPlan, 'videoTag' | 'videoStrip'>;

/** Tag of a copied video stream: HEVC is always `hvc1` (Apple needs it) unless the plan keeps `dvh1`. */
function copiedTag(plan: CopiedVideoPlan, codec: string): string | null {
  if (codec === 'hevc') return plan.videoTag === 'dvh1' ? 'dvh1' : 'hvc1';
  return plan.videoTag;
}

/** HEVC NAL unit types 62 (Dolby Vision RPU) and 63 (enhancement layer), removed by `filter_units`. */
function stripFilter(plan: CopiedVideoPlan, codec: string): string | null {
  if (codec !== 'hevc' || plan.videoStrip === null) return null;
  return plan.videoStrip === 'dolby_vision'
    ? 'filter_units=remove_types=62|63'
    : 'filter_units=remove_types=63';
}

export function copyVideo(plan: CopiedVideoPlan, caps: Capabilities): Part {
  const codec = caps.video?.codec ?? '';
  const args = ['-c:v', 'copy'];
  const tag = copiedTag(plan, codec);
  if (tag !== null) args.push('-tag:v', tag);
  const strip = stripFilter(plan, codec);
  if (strip !== null) args.push('-bsf:v', strip);
  // The mp4 muxer writes the Dolby Vision configuration box (dvcC/dvvC) only under -strict unofficial.
  const keepsDolbyVision = tag === 'dvh1' || tag === 'dav1';
  return { maps: ['-map', '0:V:0'], codec: args, strict: keepsDolbyVision ? 'unofficial' : 'normal' };
}

/** The source transfer for zscale's tone-mapping input, from the capability record's HDR class. */
function sourceTransfer(caps: Pick<Capabilities, 'video'>): string {
  const video = caps.video;
  if (video?.hdr === 'hlg' || video?.dolby_vision?.fallback === 'hlg') return 'arib-std-b67';
  return 'smpte2084';
}

/**
 * HDR → SDR with zscale (zimg) + tonemap, present in Debian's ffmpeg 5.1: linearise with the
 * source's transfer, convert BT.2020 → BT.709 primaries in float, Hable curve, back to BT.709 TV range.
 * Shared by conversions and trickplay sheets (domain/trickplay/sheet-command.ts).
 */
export function toneMapChain(caps: Pick<Capabilities, 'video'>): string[] {
  return [
    `zscale=tin=${sourceTransfer(caps)}:pin=bt2020:min=bt2020nc:t=linear:npl=100`,
    'format=gbrpf32le',
    'zscale=p=bt709',
    'tonemap=tonemap=hable:desat=0',
    'zscale=t=bt709:m=bt709:r=tv',
  ];
}

/** Downscale only, keeping the aspect ratio and even dimensions. */
function scaleFilter(video: VideoEncodePlan): string | null {
  const { maxWidth, maxHeight } = video;
  if (maxWidth === undefined && maxHeight === undefined) return null;
  if (maxHeight === undefined) return `scale=w=min(iw\\,${maxWidth}):h=-2`;
  if (maxWidth === undefined) return `scale=w=-2:h=min(ih\\,${maxHeight})`;
  // One factor for both sides (fit inside the box, never enlarge), rounded down to even sizes. Written
  // as plain arithmetic rather than force_divisible_by, which the bundled FFmpeg 4.1 lacks (added in 4.2).
  const factor = `min(1\\,min(${maxWidth}/iw\\,${maxHeight}/ih))`;
  return `scale=w=trunc(iw*${factor}/2)*2:h=trunc(ih*${factor}/2)*2`;
}

export function pixelFormat(video: VideoEncodePlan): string {
  return video.bitDepth === 10 ? 'yuv420p10le' : 'yuv420p';
}

function findSubtitle(caps: Capabilities, track: number): SubtitleCapabilities {
  const sub = caps.subtitles.find((candidate) => candidate.track === track);
  if (sub === undefined) throw new ArtifactPlanError(`The source has no subtitle track ${track}.`);
  return sub;
}

/** The `-filter_complex` graph of an encode, ending in `[vout]`. */
export function videoGraph(
  source: string,
  video: VideoEncodePlan,
  caps: Capabilities,
  burn: number | null,
): string {
  const chain: string[] = [];
  if (video.deinterlace) chain.push('yadif');
  const scale = scaleFilter(video);
  if (scale !== null) chain.push(scale);
  if (video.toneMap) chain.push(...toneMapChain(caps));
  const format = `format=${pixelFormat(video)}`;
  const sub = burn === null ? null : findSubtitle(caps, burn);
  if (sub === null) return `[0:V:0]${[...chain, format].join(',')}[vout]`;
  if (sub.kind === 'text') {
    // libass renders the track from the source file itself (fonts attached to an MKV included).
    const subtitles = filterWithOptions('subtitles', [
      ['filename', source],
      ['si', sub.track],
    ]);
    return `[0:V:0]${[...chain, subtitles, format].join(',')}[vout]`;
  }
  // Image subtitles (PGS, VobSub, DVB) decoded by ffmpeg (sub2video), fitted to the picture, overlaid.
  const base = chain.length === 0 ? '[0:V:0]null[base]' : `[0:V:0]${chain.join(',')}[base]`;
  return (
    `${base};[0:s:${sub.track}][base]scale2ref[sub][ref];` +
    `[ref][sub]overlay=eof_action=pass:repeatlast=0,${format}[vout]`
  );
}

const HDR_COLOUR: Record<'hdr10' | 'hlg', { trc: string }> = {
  hdr10: { trc: 'smpte2084' },
  hlg: { trc: 'arib-std-b67' },
};

function colourArgs(video: VideoEncodePlan): { args: string[]; x265: string[] } {
  if (video.hdr === 'hdr10' || video.hdr === 'hlg') {
    const { trc } = HDR_COLOUR[video.hdr];
    return {
      args: ['-color_primaries', 'bt2020', '-color_trc', trc, '-colorspace', 'bt2020nc'],
      x265: ['colorprim=bt2020', `transfer=${trc}`, 'colormatrix=bt2020nc'],
    };
  }
  if (video.toneMap) {
    return {
      args: ['-color_primaries', 'bt709', '-color_trc', 'bt709', '-colorspace', 'bt709'],
      x265: ['colorprim=bt709', 'transfer=bt709', 'colormatrix=bt709'],
    };
  }
  return { args: [], x265: [] };
}

export function encoderArgs(video: VideoEncodePlan): string[] {
  const colour = colourArgs(video);
  switch (video.codec) {
    case 'h264':
      return ['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '21', ...colour.args];
    case 'hevc':
      return [
        '-c:v',
        'libx265',
        '-preset',
        'fast',
        '-crf',
        '23',
        '-tag:v',
        video.tag ?? 'hvc1',
        '-x265-params',
        ['log-level=error', ...colour.x265].join(':'),
        ...colour.args,
      ];
    case 'av1':
      return ['-c:v', 'libsvtav1', '-preset', '10', '-crf', '32', ...colour.args];
    default:
      throw new ArtifactPlanError(`No encoder is configured for video codec "${video.codec}".`);
  }
}

function encodeVideo(source: string, video: VideoEncodePlan, caps: Capabilities, burn: number | null): Part {
  const args = [
    ...encoderArgs(video),
    '-pix_fmt',
    pixelFormat(video),
    '-force_key_frames',
    `expr:gte(t,n_forced*${KEYFRAME_SECONDS})`,
  ];
  if (video.maxBitrateBps !== undefined) {
    args.push('-maxrate', String(video.maxBitrateBps), '-bufsize', String(video.maxBitrateBps * 2));
  }
  return {
    maps: ['-filter_complex', videoGraph(source, video, caps, burn), '-map', '[vout]'],
    codec: args,
    strict: 'normal',
  };
}

function burnTrack(plan: PlaybackPlan): number | null {
  if (plan.subtitles.mode === 'burn_in') return plan.subtitles.track;
  return plan.video === 'copy' ? null : plan.video.burnSubtitle;
}

function videoPart(input: ArtifactInput): Part {
  const { plan, capabilities } = input;
  if (capabilities.video === null) return EMPTY;
  const burn = burnTrack(plan);
  if (plan.video === 'copy') {
    if (burn !== null) throw new ArtifactPlanError('A subtitle cannot be burned into a copied video stream.');
    return copyVideo(plan, capabilities);
  }
  return encodeVideo(input.source, plan.video, capabilities, burn);
}

// ---------------------------------------------------------------- audio

/** Codecs the ffmpeg 5.1 mp4 muxer (or encoder) accepts only under `-strict experimental`. */
export const EXPERIMENTAL_IN_MP4 = new Set(['flac', 'opus', 'truehd', 'mlp', 'dts', 'dca']);

const LOSSLESS = new Set(['flac', 'alac']);
/** AC-3 and E-AC-3 take only these rates. */
const DOLBY_RATES = new Set([32_000, 44_100, 48_000]);

export function findAudio(caps: Capabilities, track: number): AudioCapabilities {
  const audio = caps.audio.find((candidate) => candidate.track === track);
  if (audio === undefined) throw new ArtifactPlanError(`The source has no audio track ${track}.`);
  return audio;
}

export function encodeAudio(target: AudioEncodePlan, source: AudioCapabilities): string[] {
  const args = ['-c:a', AUDIO_ENCODERS[target.codec] ?? target.codec, '-ac', String(target.channels)];
  if (!LOSSLESS.has(target.codec)) args.push('-b:a', String(target.bitrate));
  const rate = source.sample_rate;
  const dolby = target.codec === 'ac3' || target.codec === 'eac3';
  if (rate === null || rate > 48_000 || (dolby && !DOLBY_RATES.has(rate))) args.push('-ar', '48000');
  return args;
}

function audioPart(plan: PlaybackPlan, caps: Capabilities): Part {
  if (plan.audio === 'none' || plan.audioTrack === null) return EMPTY;
  const source = findAudio(caps, plan.audioTrack);
  const codec = plan.audio === 'copy' ? ['-c:a', 'copy'] : encodeAudio(plan.audio, source);
  const outputCodec = plan.audio === 'copy' ? source.codec : plan.audio.codec;
  codec.push('-metadata:s:a:0', `language=${source.language ?? 'und'}`, '-disposition:a:0', 'default');
  return {
    maps: ['-map', `0:a:${plan.audioTrack}`],
    codec,
    strict: EXPERIMENTAL_IN_MP4.has(outputCodec) ? 'experimental' : 'normal',
  };
}

// ---------------------------------------------------------------- subtitles

function subtitlePart(plan: PlaybackPlan, caps: Capabilities): Part {
  const subs = plan.subtitles;
  if (subs.mode === 'none' || subs.mode === 'burn_in') return EMPTY;
  const source = findSubtitle(caps, subs.track);
  if (subs.mode === 'convert' && source.kind === 'image') {
    throw new ArtifactPlanError(`Image subtitle track ${subs.track} cannot be converted to text.`);
  }
  const codec = subs.mode === 'copy' ? 'copy' : subs.codec;
  return {
    maps: ['-map', `0:s:${subs.track}`],
    codec: [
      '-c:s',
      codec,
      '-metadata:s:s:0',
      `language=${source.language ?? 'und'}`,
      '-disposition:s:0',
      source.forced ? 'default+forced' : 'default',
    ],
    strict: 'normal',
  };
}

// ---------------------------------------------------------------- commands

/**
 * The ffmpeg argv (without the binary) that writes the playback artifact for `plan`: a fragmented
 * MP4 (`-movflags +frag_keyframe+empty_moov+delay_moov+default_base_moof`) that can be served
 * while it grows, with progress on stdout (`-progress pipe:1`) and only errors on stderr.
 *
 * Streams: the picture (`0:V:0`, never cover art), the plan's audio track (`0:a:N`) unless audio is
 * 'none' or absent, the plan's subtitle (copied/converted, or burned into an encoded picture).
 * Global metadata and chapters are dropped; the kept tracks get their language back.
 * @throws ArtifactPlanError when the plan does not fit the source (missing track, burn-in on copy…)
 * @example spawn('ffmpeg', buildArtifactArgs({ source, output: `${final}.part`, plan, capabilities }))
 */
export function buildArtifactArgs(input: ArtifactInput): string[] {
  const { plan, capabilities } = input;
  if (!MP4_CONTAINERS.has(plan.container)) {
    throw new ArtifactPlanError(`Artifacts are MP4 files; the plan asks for "${plan.container}".`);
  }
  const parts = [videoPart(input), audioPart(plan, capabilities), subtitlePart(plan, capabilities)];
  if (parts.every((part) => part.maps.length === 0)) {
    throw new ArtifactPlanError('The plan keeps no stream of the source.');
  }
  const strict = parts.reduce<Strictness>((level, part) => stricter(level, part.strict), 'normal');
  return [
    ...COMMON_ARGS,
    '-y',
    ...INPUT_ARGS,
    '-i',
    ffmpegPath(input.source),
    ...parts.flatMap((part) => part.maps),
    '-map_metadata',
    '-1',
    '-map_chapters',
    '-1',
    ...parts.flatMap((part) => part.codec),
    ...(strict === 'normal' ? [] : ['-strict', strict]),
    '-max_muxing_queue_size',
    '1024',
    // Without it the fragments wait in ffmpeg's I/O buffer and the file stays empty for a long time.
    '-flush_packets',
    '1',
    '-movflags',
    GROWING_MOVFLAGS,
    '-frag_duration',
    String(FRAGMENT_MICROSECONDS),
    '-f',
    'mp4',
    ffmpegPath(input.output),
  ];
}

/**
 * The progressive artifact remuxed from a prewarm's HLS segments (local media playlists of the
 * video and the default audio rendition), made by copying, so a film is encoded once for both.
 * Timestamps start at 0 as in a direct build. Unlike a direct build it is never read while it is
 * written (it is written beside the artifact and renamed when whole), so it is a plain MP4 with its
 * index in front (`+faststart`), not fragments: VLC 3.0's MP4 demuxer cannot seek in a fragmented
 * MP4 (`INPUT_CONTROL_SET_TIME failed`, it plays from the start, with or without sidx/mfra).
 */
export function buildRemuxFromHlsArgs(input: {
  video: string | null;
  audio: string | null;
  /** The audio rendition's codec: AAC from MPEG-TS segments is ADTS, which MP4 stores without its headers. */
  audioCodec?: string | null;
  output: string;
}): string[] {
  const args = [...COMMON_ARGS];
  const maps: string[] = [];
  let index = 0;
  for (const [playlist, kind] of [
    [input.video, 'v'],
    [input.audio, 'a'],
  ] as const) {
    if (playlist === null) continue;
    args.push('-i', ffmpegPath(playlist));
    maps.push('-map', `${index}:${kind}:0`);
    index++;
  }
  return [
    ...args,
    ...maps,
    '-c',
    'copy',
    // A no-op on AAC that has no ADTS headers (fMP4 segments).
    ...(input.audio !== null && input.audioCodec === 'aac' ? ['-bsf:a', 'aac_adtstoasc'] : []),
    '-map_metadata',
    '-1',
    '-movflags',
    FINISHED_MOVFLAGS,
    '-f',
    'mp4',
    ffmpegPath(input.output),
  ];
}
