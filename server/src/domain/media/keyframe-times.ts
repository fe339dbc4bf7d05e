/**
 * How keyframe times are kept in the database: whole microseconds, delta-encoded, as JSON. A 2-hour
 * all-intra film (170,000 keyframes at 24 fps) becomes about 1 MB instead of 3; regular GOPs repeat
 * one small number. Microseconds are what the segment plan computes in, so nothing is lost. Pure.
 */

/** Seconds (ascending) → the stored text. */
export function encodeKeyframeTimes(times: readonly number[]): string {
  const out: number[] = [];
  let previous = 0;
  for (const t of times) {
    const us = Math.round(t * 1_000_000);
    out.push(us - previous);
    previous = us;
  }
  return JSON.stringify(out);
}

/**
 * The stored text → seconds (ascending).
 * @throws Error when the text is not an array of integers (a damaged row: the caller reads the file again)
 */
export function decodeKeyframeTimes(text: string): number[] {
  const parsed: unknown = JSON.parse(text);
  if (!Array.isArray(parsed)) throw new Error('keyframe times are not an array');
  const times: number[] = [];
  let us = 0;
  for (const delta of parsed) {
    if (typeof delta !== 'number' || !Number.isInteger(delta))
      throw new Error('keyframe delta is not an integer');
    us += delta;
    times.push(us / 1_000_000);
  }
  return times;
}
