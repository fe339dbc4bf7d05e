/**
 * The ffmpeg argv of ONE pass from a film straight to its trickplay sheets (JPEG files `0.jpg`,
 * `1.jpg`, … of `tile_width × tile_height` thumbnails each), with no temporary JPEG per thumbnail and
 * no image library (players.md §3.4). Pure: the layout (interval and sizes) comes from the caller.
 *
 * Which picture a thumbnail shows. ffmpeg's `fps=1/I` alone (rounding `near`) gives output slot k the
 * LAST frame whose time rounds to ≤ k, i.e. the last frame before k·I + I/2 (measured with Debian's
 * ffmpeg 5.1: with a full decode slot 0 shows 4.96 s and slot 1 14.96 s of a 25 fps film; with
 * `-skip_frame nokey` on a 4-s GOP, slot 2 shows the keyframe at 24 s, not the one at 20 s). So
 * here the timestamps are first shifted and `fps` rounds down: slot k gets the last frame before
 * k·I + c, with c half the longest gap between the frames decoded (half the longest GOP with
 * `-skip_frame nokey`, half a frame with a full decode). That is the frame nearest the mark k·I:
 * within half a GOP in keyframe mode, within one frame (the frame at the mark, when there is one)
 * in accurate mode.
 *
 * HDR (HDR10, HLG, Dolby Vision with such a base layer) is tone-mapped with the very chain
 * conversions use ({@link toneMapChain}), after the scale so only thumbnail-sized pictures go through
 * it; every source ends in full-range 8-bit 4:2:0 for the MJPEG encoder.
 */
import { ffmpegPath } from '../ffmpeg/filter-escape.ts';
import { toneMapChain } from '../ffmpeg/artifact-command.ts';
import type { Capabilities } from '../media/capabilities.ts';
import { sourceHdrClass } from '../playback/conversion-targets.ts';

/** The sheet layout decided elsewhere (domain trickplay geometry); only what the command needs. */
export interface SheetLayout {
  interval_ms: number;
  /** One thumbnail's size, even numbers. */
  width: number;
  height: number;
  /** Thumbnails per sheet row / column. */
  tile_width: number;
  tile_height: number;
}

/** `keyframes`: decode keyframes only (`-skip_frame nokey`); `accurate`: decode every frame. */
export type SheetMode = 'keyframes' | 'accurate';

export interface SheetCommandInput {
  source: string;
  /** Folder the sheets are written to (`<dir>/0.jpg`, …); it must exist. */
  outputDir: string;
  layout: SheetLayout;
  mode: SheetMode;
  /** Thumbnails wanted (ceil(duration / interval)): the pass writes no more than these. */
  thumbnailCount: number;
  /**
   * Keyframe mode: the longest gap between two keyframes of the film (s), from its keyframe index;
   * a thumbnail shows the keyframe nearest its mark when keyframes are evenly spaced, and one within
   * half this gap of it in any case.
   */
  maxKeyframeGapSeconds: number;
  /** The source's capability record: frame rate (accurate mode) and HDR class (tone-mapping). */
  capabilities: Pick<Capabilities, 'video'>;
  /** Decoder threads. */
  threads: number;
  /**
   * The same thumbnails also written, in the same pass, as Roku's sheets (`<rokuDir>/0.jpg`, … of
   * `tile_width × tile_height` each) and one JPEG per thumbnail (`<thumbnailDir>/0.jpg`, …, the BIF's
   * pictures): an MJPEG encode of thumbnail-sized pictures costs next to nothing beside the decode,
   * where cutting them out of the sheets afterwards decoded and re-encoded every sheet.
   */
  extras?: { rokuDir: string; roku: { tile_width: number; tile_height: number }; thumbnailDir: string };
}

/** A frame rate to assume when the record has none (half a frame of it is the accurate window). */
const FALLBACK_FRAME_RATE = 24;
/** Quality of the MJPEG sheets (2 best … 31 worst): Jellyfin's default. */
export const SHEET_QSCALE = 4;

/** Seconds as ffmpeg reads them: up to microseconds, no trailing zeros. */
function seconds(value: number): string {
  return value.toFixed(6).replace(/\.?0+$/, '') || '0';
}

/** Half the largest gap between the frames the decoder hands over (s): the window c above. */
export function pickWindowSeconds(
  input: Pick<SheetCommandInput, 'mode' | 'maxKeyframeGapSeconds' | 'capabilities'>,
): number {
  if (input.mode === 'keyframes') return input.maxKeyframeGapSeconds / 2;
  const rate = input.capabilities.video?.frame_rate ?? null;
  return 1 / (2 * (rate !== null && rate > 0 ? rate : FALLBACK_FRAME_RATE));
}

/**
 * The filters that pick thumbnail k (the frame nearest k·I, see the file comment) and stop after
 * `thumbnailCount`. With pts' = t + s and `fps` rounding down, slot j holds the last frame with
 * t + s < (j + 1)·I; s = (m + 1)·I − c (m = ⌊c/I⌋, so 0 < s ≤ I and no frame falls before 0) makes
 * slot k + m the last frame before k·I + c, and `trim` drops the m slots in front.
 */
export function selectionFilters(intervalSeconds: number, window: number, thumbnailCount: number): string[] {
  const lead = Math.floor(window / intervalSeconds);
  const shift = (lead + 1) * intervalSeconds - window;
  const trim =
    lead === 0
      ? `trim=end_frame=${thumbnailCount}`
      : `trim=start_frame=${lead}:end_frame=${lead + thumbnailCount}`;
  return [
    `setpts=PTS+${seconds(shift)}/TB`,
    // start_time=0: a film whose first picture comes late still has a thumbnail 0 (its first picture).
    `fps=fps=1/${seconds(intervalSeconds)}:round=down:start_time=0:eof_action=pass`,
    trim,
  ];
}

/** Whether the source needs tone-mapping to look right as an SDR JPEG. */
export function needsToneMap(capabilities: Pick<Capabilities, 'video'>): boolean {
  const video = capabilities.video;
  return video !== null && sourceHdrClass(video) !== 'sdr';
}

/** The `-filter_complex` graph: `[sheets]` to the JPEG files, `[thumbs]` to the owner's pipe (life, progress). */
export function sheetFilterGraph(input: SheetCommandInput): string {
  const { layout } = input;
  const chain = [
    ...selectionFilters(layout.interval_ms / 1000, pickWindowSeconds(input), input.thumbnailCount),
    `scale=${layout.width}:${layout.height}`,
  ];
  if (needsToneMap(input.capabilities)) {
    chain.push(...toneMapChain(input.capabilities));
  }
  // MJPEG takes full-range 8-bit 4:2:0; 10-bit and limited-range pictures are converted here.
  const extras = input.extras;
  chain.push(
    'format=yuvj420p',
    extras === undefined ? 'split=2[thumbs][cells]' : 'split=4[thumbs][cells][rokucells][singles]',
  );
  const sheets = `[cells]tile=${layout.tile_width}x${layout.tile_height}[sheets]`;
  const roku =
    extras === undefined ? '' : `;[rokucells]tile=${extras.roku.tile_width}x${extras.roku.tile_height}[roku]`;
  return `[0:V:0]${chain.join(',')};${sheets}${roku}`;
}

/** The options of one JPEG-files output of the pass: `<dir>/0.jpg`, `<dir>/1.jpg`, …. */
function jpegFiles(label: string, dir: string, threads: string): string[] {
  return [
    '-map',
    label,
    '-an',
    '-sn',
    '-dn',
    // One file per picture as it comes: never duplicated or dropped to fit a frame rate.
    '-vsync',
    'passthrough',
    '-c:v',
    'mjpeg',
    '-qscale:v',
    String(SHEET_QSCALE),
    '-threads',
    threads,
    '-f',
    'image2',
    '-start_number',
    '0',
    // image2 reads `%` as a pattern: a literal one in the folder name is doubled.
    ffmpegPath(`${dir.replace(/\/+$/, '').replace(/%/g, '%%')}/%d.jpg`),
  ];
}

/**
 * The argv (without the binary) of the one pass: sheets `<outputDir>/0.jpg`, … (the last one padded
 * black after its real thumbnails), a line per thumbnail on fd 3 (`framecrc`), progress on stdout
 * (`-progress pipe:1`: `out_time` is the mark of the last thumbnail picked, which fd 3 carries; tile
 * stamps a sheet only once per sheet), only errors on stderr.
 * @example spawn('ffmpeg', buildSheetArgs({ … }), { stdio: ['ignore', 'pipe', 'pipe', 'pipe'] })
 */
export function buildSheetArgs(input: SheetCommandInput): string[] {
  const threads = String(Math.max(1, Math.floor(input.threads)));
  return [
    '-hide_banner',
    '-nostdin',
    '-loglevel',
    'error',
    '-nostats',
    '-progress',
    'pipe:1',
    '-threads',
    threads,
    ...(input.mode === 'keyframes' ? ['-skip_frame', 'nokey'] : []),
    '-an',
    '-sn',
    '-dn',
    '-i',
    ffmpegPath(input.source),
    '-filter_complex',
    sheetFilterGraph(input),
    ...jpegFiles('[sheets]', input.outputDir, threads),
    ...(input.extras === undefined
      ? []
      : [
          ...jpegFiles('[roku]', input.extras.rokuDir, threads),
          ...jpegFiles('[singles]', input.extras.thumbnailDir, threads),
        ]),
    // One line per thumbnail to the owner (see adapters/trickplay-ffmpeg.ts): the owner gone, the
    // write fails and ffmpeg stops. It also carries the progress `out_time`.
    '-map',
    '[thumbs]',
    '-flush_packets',
    '1',
    '-f',
    'framecrc',
    'pipe:3',
  ];
}
