/**
 * DLNA time seek: a TV asks for a conversion from a given time with `TimeSeekRange.dlna.org: npt=…`
 * (DLNA.ORG_OP=10) and expects the chosen range back in the same header. Pure parsing and formatting;
 * the route decides what to stream.
 *
 * Normal play time (npt, RFC 2326 §3.6 as DLNA uses it) comes in two forms: `H+:MM:SS[.fraction]`
 * (`0:05:35.3`, `01:45:30.000`) and plain seconds (`335.3`). The end is optional (`npt=10-`).
 */

export interface TimeSeekRange {
  /** seconds from the start */
  start: number;
  /** seconds, inclusive end; null when open (`npt=10-`) */
  end: number | null;
}

export type TimeSeekProblem = 'malformed' | 'out-of-range';

const CLOCK = /^(\d+):([0-5]\d):([0-5]\d)(?:\.(\d+))?$/;
const SECONDS = /^(\d+)(?:\.(\d+))?$/;

/** One npt time in seconds, or null when it is not a valid npt time. */
export function parseNptTime(text: string): number | null {
  const trimmed = text.trim();
  const clock = CLOCK.exec(trimmed);
  if (clock) {
    const [, hours, minutes, seconds, fraction] = clock;
    return Number(hours) * 3600 + Number(minutes) * 60 + Number(seconds) + fractionOf(fraction);
  }
  const plain = SECONDS.exec(trimmed);
  if (plain) return Number(plain[1]) + fractionOf(plain[2]);
  return null;
}

function fractionOf(digits: string | undefined): number {
  return digits === undefined ? 0 : Number(`0.${digits}`);
}

/**
 * The value of a `TimeSeekRange.dlna.org` request header.
 * @example parseTimeSeekRange('npt=0:10:00.000-') // { start: 600, end: null }
 */
export function parseTimeSeekRange(header: string): TimeSeekRange | TimeSeekProblem {
  // A TV may add the byte part (`npt=10- bytes=…`) or spaces; only the npt part is ours to read.
  const match = /^\s*npt\s*=\s*([\d:.]+)\s*-\s*([\d:.]*)\s*(?:\s[^=\s]+=.*)?$/i.exec(header);
  if (!match) return 'malformed';
  const start = parseNptTime(match[1] ?? '');
  if (start === null) return 'malformed';
  const endText = match[2] ?? '';
  if (endText === '') return { start, end: null };
  const end = parseNptTime(endText);
  if (end === null) return 'malformed';
  if (end < start) return 'malformed';
  return { start, end };
}

/**
 * The asked range fitted to a stream of `durationSeconds`: an open end runs to the end; a start at or past
 * the end is out of range (the route answers 416). An end past the duration is clipped, as for bytes.
 */
export function resolveTimeSeek(
  range: TimeSeekRange,
  durationSeconds: number,
): TimeSeekRange | TimeSeekProblem {
  if (!Number.isFinite(durationSeconds) || durationSeconds <= 0) return 'out-of-range';
  if (range.start >= durationSeconds) return 'out-of-range';
  const end = range.end === null ? durationSeconds : Math.min(range.end, durationSeconds);
  return { start: range.start, end };
}

/** Seconds as `H:MM:SS.mmm`, the form DIDL `duration` attributes and the answer header use. */
export function formatNptTime(seconds: number): string {
  const millis = Math.max(0, Math.round(seconds * 1000));
  const hours = Math.floor(millis / 3_600_000);
  const minutes = Math.floor((millis % 3_600_000) / 60_000);
  const secs = Math.floor((millis % 60_000) / 1000);
  const ms = millis % 1000;
  return `${hours}:${pad(minutes, 2)}:${pad(secs, 2)}.${pad(ms, 3)}`;
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}

/**
 * The `TimeSeekRange.dlna.org` answer header: `npt=START-END/DURATION` (DLNA 7.4.40.4), `*` when the
 * duration is unknown.
 */
export function formatTimeSeekAnswer(
  range: { start: number; end: number },
  durationSeconds: number | null,
): string {
  const total = durationSeconds === null ? '*' : formatNptTime(durationSeconds);
  return `npt=${formatNptTime(range.start)}-${formatNptTime(range.end)}/${total}`;
}
