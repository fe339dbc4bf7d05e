/**
 * The ffmpeg argv of one HLS conversion run: from a segment boundary to the end of the film, each
 * rendition (the video, every audio track) written to its own pipe (fd 3, 4, …) as MPEG-TS or a
 * fragmented MP4 (the plan's container), which Node cuts into segments (SegmentSplitter). Pure.
 *
 * Timestamps are the source's own (`-copyts`, `-seek_timestamp`), shifted by a constant
 * {@link HLS_TIMESTAMP_OFFSET_SECONDS} so an AAC encoder's priming samples never fall below zero,
 * and written into every PES (`-mpegts_copyts`) or every fragment's `tfdt` (`frag_discont` with an
 * edit list): a run started at
 * segment 40 after a seek writes exactly the times a run from the start writes there, so segments of
 * two runs join without a gap or a jump. Encoded video has no B-frames (decode time = presentation
 * time) and keyframes forced exactly at the segment boundaries.
 */
import type { Capabilities } from '../media/capabilities.ts';
import type { VideoEncodePlan } from '../playback/decision-types.ts';
import {
  COMMON_ARGS,
  copyVideo,
  EXPERIMENTAL_IN_MP4,
  encodeAudio,
  encoderArgs,
  findAudio,
  INPUT_ARGS,
  pixelFormat,
  type Strictness,
  videoGraph,
} from '../ffmpeg/artifact-command.ts';
import { ffmpegPath } from '../ffmpeg/filter-escape.ts';
import type { HlsContainer, HlsPlan } from './hls-plan.ts';

export const HLS_TIMESTAMP_OFFSET_SECONDS = 10;
/** Audio fragments are this long (µs), so a segment boundary falls within a quarter second of a cut. */
export const AUDIO_FRAGMENT_MICROSECONDS = 250_000;
// delay_moov: the moov waits for the first packets (AC-3/E-AC-3 copies need them for dac3/dec3).
const FRAGMENT_FLAGS = '+empty_moov+delay_moov+default_base_moof+frag_discont';

export interface HlsRunInput {
  source: string;
  capabilities: Capabilities;
  plan: HlsPlan;
  /** Source time (s) the run starts at: a segment boundary, 0 for the first. */
  startSeconds: number;
  /** Encoded video: the boundaries from `startSeconds` on, where keyframes are forced. */
  keyframeTimes: number[];
  /** Encoder threads (the machine's cores shared among the conversion slots). */
  threads: number;
}

export interface HlsRun {
  args: string[];
  /** Rendition id written to fd 3 + i. */
  outputs: string[];
}

function seconds(value: number): string {
  return value.toFixed(6).replace(/\.?0+$/, '') || '0';
}

function outputTail(
  fd: number,
  strict: Strictness,
  container: HlsContainer,
  extraFlags: string,
  fragment: string[],
  tsExtra: string[] = [],
): string[] {
  // What every rendition's output shares, whatever its container.
  const head = [
    '-map_metadata',
    '-1',
    '-map_chapters',
    '-1',
    ...(strict === 'normal' ? [] : ['-strict', strict]),
    '-max_muxing_queue_size',
    '4096',
    '-output_ts_offset',
    String(HLS_TIMESTAMP_OFFSET_SECONDS),
  ];
  if (container === 'mpegts') {
    return [
      ...head,
      // The times as they are (the muxer would add its 0.7 s delay to every PTS and DTS).
      '-mpegts_copyts',
      '1',
      ...tsExtra,
      '-f',
      'mpegts',
      `pipe:${fd}`,
    ];
  }
  return [
    ...head,
    '-use_editlist',
    '1',
    '-movflags',
    `${extraFlags}${FRAGMENT_FLAGS}`,
    ...fragment,
    '-f',
    'mp4',
    `pipe:${fd}`,
  ];
}

function encodedVideoArgs(video: VideoEncodePlan, input: HlsRunInput): string[] {
  const args = [
    ...encoderArgs(video),
    '-pix_fmt',
    pixelFormat(video),
    '-bf',
    '0',
    '-threads',
    String(input.threads),
  ];
  if (video.codec === 'h264') args.push('-sc_threshold', '0');
  if (video.maxBitrateBps !== undefined) {
    args.push('-maxrate', String(video.maxBitrateBps), '-bufsize', String(video.maxBitrateBps * 2));
  }
  if (input.keyframeTimes.length > 0) {
    args.push('-force_key_frames', input.keyframeTimes.map(seconds).join(','));
  }
  return args;
}

/**
 * The argv (without the binary) of a run from `startSeconds`, and which rendition each pipe carries.
 * @example spawn(ffmpeg, run.args, { stdio: ['ignore', 'pipe', 'pipe', ...run.outputs.map(() => 'pipe')] })
 */
export function buildHlsRunArgs(input: HlsRunInput): HlsRun {
  const { plan, capabilities: caps } = input;
  const args = [...COMMON_ARGS, ...INPUT_ARGS, '-copyts'];
  if (input.startSeconds > 0) args.push('-seek_timestamp', '1', '-ss', seconds(input.startSeconds));
  args.push('-i', ffmpegPath(input.source));
  const outputs: string[] = [];
  let fd = 3;
  if (plan.video !== null && caps.video !== null) {
    if (plan.video === 'copy') {
      const part = copyVideo(plan, caps);
      args.push(
        ...part.maps,
        ...part.codec,
        ...outputTail(fd, part.strict, plan.container, '+frag_keyframe', []),
      );
    } else {
      const burn = plan.video.burnSubtitle;
      args.push(
        '-filter_complex',
        videoGraph(input.source, plan.video, caps, burn),
        '-map',
        '[vout]',
        ...encodedVideoArgs(plan.video, input),
        ...outputTail(fd, 'normal', plan.container, '+frag_keyframe', []),
      );
    }
    outputs.push('v');
    fd++;
  }
  for (const rendition of plan.audio) {
    const source = findAudio(caps, rendition.track);
    const codec = rendition.audio === 'copy' ? ['-c:a', 'copy'] : encodeAudio(rendition.audio, source);
    const strict: Strictness = EXPERIMENTAL_IN_MP4.has(rendition.codec) ? 'experimental' : 'normal';
    args.push(
      '-map',
      `0:a:${rendition.track}`,
      ...codec,
      '-metadata:s:a:0',
      `language=${source.language ?? 'und'}`,
      ...outputTail(
        fd,
        strict,
        plan.container,
        '',
        ['-frag_duration', String(AUDIO_FRAGMENT_MICROSECONDS)],
        // One audio frame per PES (the muxer packs ~0.2 s into one by default). A fragment is a PES
        // and joins the segment its start falls in; with several frames per PES, where segments of
        // two runs meet (each run's encoder starts its frames at its own start) the last PES of one
        // overlapped the first of the other by up to 0.2 s — decode times going backwards.
        ['-pes_payload_size', '0'],
      ),
    );
    outputs.push(`a${rendition.track}`);
    fd++;
  }
  return { args, outputs };
}
