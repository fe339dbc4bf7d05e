/**
 * The segment plan of one HLS rendition: where the film is cut, known up front for the whole film
 * (RFC 8216 VOD playlist). The HLS engine restarts ffmpeg at `segments[k].start` after a seek and
 * must cut at the very same boundaries, so the plan is a pure, deterministic function of its input.
 */

export interface HlsSegment {
  index: number;
  /** Seconds from the start of the film. */
  start: number;
  /** Seconds; the exact difference of two boundaries. */
  duration: number;
}

export const DEFAULT_SEGMENT_SECONDS = 4;

/** A last piece shorter than this joins the segment before it (a 0.1 s segment helps nobody). */
const MIN_LAST_PIECE_SECONDS = 0.5;
/** Keyframes this close to the start count as 0: the first segment always starts at 0. */
export const START_SNAP_SECONDS = 0.5;

const MICROS_PER_SECOND = 1_000_000;

/** Boundaries are kept as integer microseconds so that no float drift accumulates over 2 hours. */
function toMicros(seconds: number): number {
  return Math.round(seconds * MICROS_PER_SECOND);
}

function fromMicros(micros: number): number {
  return micros / MICROS_PER_SECOND;
}

/** Encoded video: keyframes are forced at k·target, so the boundaries are exactly there. */
function fixedBoundaries(durationMicros: number, targetMicros: number): number[] {
  const boundaries: number[] = [];
  for (let start = 0; start < durationMicros; start += targetMicros) boundaries.push(start);
  return boundaries;
}

/**
 * Copied video can only be cut at its own keyframes: from 0, each next boundary is the first
 * keyframe at least one target after the previous boundary (a GOP longer than the target gives a
 * longer segment, never a cut inside a GOP).
 */
function keyframeBoundaries(keyframes: number[], durationMicros: number, targetMicros: number): number[] {
  const usable: number[] = [];
  let sorted = true;
  for (const time of keyframes) {
    if (!Number.isFinite(time)) continue;
    const micros = time < START_SNAP_SECONDS ? 0 : toMicros(time);
    if (micros >= durationMicros) continue;
    if (usable.length > 0 && micros < (usable[usable.length - 1] ?? 0)) sorted = false;
    usable.push(micros);
  }
  // The container's index lists keyframes in order; sort only a list that is not (an all-intra
  // 2-hour film has 170,000 keyframes: sorting them would be most of the plan's time).
  if (!sorted) usable.sort((a, b) => a - b);
  const boundaries = [0];
  let last = 0;
  for (const keyframe of usable) {
    if (keyframe >= last + targetMicros) {
      boundaries.push(keyframe);
      last = keyframe;
    }
  }
  return boundaries;
}

/**
 * keyframes: presentation times (s) of the source's video keyframes when video is copied; null when
 * video is encoded (fixed-length segments with forced keyframes at index·target). An empty list
 * means the only cut point is the start: one segment. Duration 0 (or not a number) gives [].
 */
export function planSegments(input: {
  durationSeconds: number;
  keyframes: number[] | null;
  targetSeconds?: number;
}): HlsSegment[] {
  const durationMicros = Number.isFinite(input.durationSeconds) ? toMicros(input.durationSeconds) : 0;
  if (durationMicros <= 0) return [];
  const target = input.targetSeconds ?? DEFAULT_SEGMENT_SECONDS;
  if (!Number.isFinite(target) || target <= 0) {
    throw new RangeError(`segment target must be a positive number of seconds, got ${target}`);
  }
  const targetMicros = toMicros(target);
  const boundaries =
    input.keyframes === null
      ? fixedBoundaries(durationMicros, targetMicros)
      : keyframeBoundaries(input.keyframes, durationMicros, targetMicros);
  const lastStart = boundaries[boundaries.length - 1] ?? 0;
  if (boundaries.length > 1 && durationMicros - lastStart < toMicros(MIN_LAST_PIECE_SECONDS)) {
    boundaries.pop();
  }
  return boundaries.map((start, index) => ({
    index,
    start: fromMicros(start),
    duration: fromMicros((boundaries[index + 1] ?? durationMicros) - start),
  }));
}

/**
 * The index of the segment holding that time: a time on a boundary belongs to the segment that
 * starts there; before the start → 0, at or past the end → the last. -1 only for an empty plan.
 */
export function segmentAt(segments: HlsSegment[], seconds: number): number {
  if (segments.length === 0) return -1;
  const wanted = Number.isFinite(seconds) ? toMicros(seconds) : seconds > 0 ? Infinity : 0;
  let low = 0;
  let high = segments.length - 1;
  // The last segment whose start is ≤ the wanted time (binary search: a 2-hour plan has 1,800).
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    const start = segments[middle]?.start ?? 0;
    if (toMicros(start) <= wanted) low = middle;
    else high = middle - 1;
  }
  return low;
}
