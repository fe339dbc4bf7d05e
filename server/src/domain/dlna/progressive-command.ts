/**
 * The ffmpeg argv that joins an HLS presentation's video and audio segments, fed through two pipes,
 * into one progressive MPEG-TS on stdout for a DLNA TV (`-c copy`: nothing is encoded here; the HLS
 * run did that). Pure.
 *
 * The segments carry the film's own times shifted by HLS_TIMESTAMP_OFFSET_SECONDS (hls-command.ts);
 * the stream gets the film's times back (`-copyts` with the offset taken off, no mux delay), so a
 * stream started at 30:00 by a time seek has its first timestamp at 30:00, as the TimeSeekRange
 * answer says. (ffmpeg lifts a first decode time below zero to zero: the B-frame lead at the start.)
 */
import { HLS_TIMESTAMP_OFFSET_SECONDS } from '../hls/hls-command.ts';
import type { HlsContainer } from '../hls/hls-plan.ts';

export interface ProgressiveInputs {
  /** The segments' container (fMP4 segments come after their init section). */
  container: HlsContainer;
  video: boolean;
  audio: boolean;
}

/** The argv (without the binary); inputs are `pipe:3` (video, when there is one), then the audio. */
export function progressiveRemuxArgs(input: ProgressiveInputs): string[] {
  const demuxer = input.container === 'mpegts' ? 'mpegts' : 'mp4';
  const args = ['-hide_banner', '-loglevel', 'error', '-nostdin'];
  const maps: string[] = [];
  let fd = 3;
  let index = 0;
  for (const [present, kind] of [
    [input.video, 'v'],
    [input.audio, 'a'],
  ] as const) {
    if (!present) continue;
    // A segment or two tells the codec: no need to read ffmpeg's default 5 s before starting.
    args.push('-analyzeduration', '2000000', '-f', demuxer, '-i', `pipe:${fd}`);
    maps.push('-map', `${index}:${kind}:0`);
    fd++;
    index++;
  }
  return [
    ...args,
    ...maps,
    '-c',
    'copy',
    '-copyts',
    '-output_ts_offset',
    String(-HLS_TIMESTAMP_OFFSET_SECONDS),
    '-muxdelay',
    '0',
    '-muxpreload',
    '0',
    '-map_metadata',
    '-1',
    '-f',
    'mpegts',
    'pipe:1',
  ];
}

/** How many pipes the argv reads. */
export function progressiveInputCount(input: ProgressiveInputs): number {
  return (input.video ? 1 : 0) + (input.audio ? 1 : 0);
}

/**
 * The segments a time-seek range is served from: the one containing its start (a stream can only
 * begin at a segment's first keyframe) through the one containing its end; and the times they cover,
 * which the `TimeSeekRange.dlna.org` answer names. Null for an empty plan.
 */
export function segmentsForTimeRange(
  segments: readonly { start: number; duration: number }[],
  range: { start: number; end: number | null },
): { first: number; last: number; start: number; end: number } | null {
  if (segments.length === 0) return null;
  const containing = (time: number): number => {
    let found = 0;
    for (let i = 0; i < segments.length; i++) {
      if ((segments[i]?.start ?? Infinity) <= time) found = i;
      else break;
    }
    return found;
  };
  const first = containing(range.start);
  // An end exactly on a boundary ends the segment before it.
  const last = range.end === null ? segments.length - 1 : Math.max(first, containing(range.end - 1e-6));
  const lastSegment = segments[last];
  return {
    first,
    last,
    start: segments[first]?.start ?? 0,
    end: lastSegment === undefined ? 0 : lastSegment.start + lastSegment.duration,
  };
}
