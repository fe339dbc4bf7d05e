/**
 * Reads ffmpeg's `-progress pipe:1` output: blocks of `key=value` lines, each ended by
 * `progress=continue` (or `progress=end` for the last one). Keys used: `out_time_us`, `out_time`
 * (`HH:MM:SS.micro`), `out_time_ms` (microseconds too in ffmpeg 5.1: a misnomer) and `speed`
 * (`1.23x`). Any value may be `N/A`. Values are taken when a block ends, so a half-written block
 * never moves the progress.
 */

export interface FfmpegProgress {
  /** 0..100 with one decimal; never decreases; 100 only once ffmpeg printed `progress=end`. */
  percent: number;
  /** Output time reached, seconds; null until ffmpeg reports one. */
  outTimeSeconds: number | null;
  /** Encoding speed as a multiple of real time (`2.5` for `2.5x`); null until known. */
  speed: number | null;
  /** ffmpeg printed `progress=end` (the caller still checks the exit code). */
  done: boolean;
}

/** The progress plus what the incremental parser carries between chunks. */
export interface ProgressState extends FfmpegProgress {
  /** Text after the last newline: a line still being written. */
  partial: string;
  /** Values of the block being read (since the last `progress=` line), known keys only. */
  block: Record<string, string>;
}

export function initialProgress(): ProgressState {
  return { percent: 0, outTimeSeconds: null, speed: null, done: false, partial: '', block: {} };
}

/** The keys kept from a block; the others (frame, fps, bitrate, total_size…) are not needed. */
const BLOCK_KEYS = new Set(['out_time_us', 'out_time_ms', 'out_time', 'speed']);

function microsecondsToSeconds(text: string | undefined): number | null {
  if (text === undefined || !/^-?\d+$/.test(text)) return null;
  const value = Number(text);
  // ffmpeg prints a negative (even INT64_MIN-like) time before the first packet.
  return Number.isFinite(value) && value >= 0 ? value / 1e6 : null;
}

function clockToSeconds(text: string | undefined): number | null {
  const match = text === undefined ? null : /^(\d+):(\d{1,2}):(\d{1,2}(?:\.\d+)?)$/.exec(text);
  if (match === null) return null;
  const [, hours, minutes, seconds] = match;
  return Number(hours) * 3600 + Number(minutes) * 60 + Number(seconds);
}

function outTimeOf(block: Record<string, string>): number | null {
  return (
    microsecondsToSeconds(block.out_time_us) ??
    clockToSeconds(block.out_time) ??
    microsecondsToSeconds(block.out_time_ms)
  );
}

function speedOf(text: string | undefined): number | null {
  const match = text === undefined ? null : /^(\d+(?:\.\d+)?)x$/.exec(text.trim());
  if (match?.[1] === undefined) return null;
  const value = Number(match[1]);
  return Number.isFinite(value) ? value : null;
}

function percentOf(seconds: number | null, durationSeconds: number | null): number | null {
  if (seconds === null || durationSeconds === null || !(durationSeconds > 0)) return null;
  // The epsilon keeps 0.29 × 1000 = 289.99999999999994 from flooring to 28.9.
  const raw = Math.floor((seconds / durationSeconds) * 1000 + 1e-9) / 10;
  return Math.min(99.9, Math.max(0, raw));
}

function endBlock(state: ProgressState, status: string, durationSeconds: number | null): ProgressState {
  const outTime = outTimeOf(state.block);
  const percent = percentOf(outTime, durationSeconds);
  const done = state.done || status === 'end';
  return {
    percent: done ? 100 : Math.max(state.percent, percent ?? state.percent),
    outTimeSeconds: outTime ?? state.outTimeSeconds,
    speed: speedOf(state.block.speed) ?? state.speed,
    done,
    partial: '',
    block: {},
  };
}

/**
 * Feeds one chunk of ffmpeg's progress output (split anywhere, even mid-line) and returns the new
 * state; pass the returned state as `previous` with the next chunk. Pure: `previous` is not changed.
 * @param chunk text as read from ffmpeg's stdout
 * @param durationSeconds the source duration (percent stays 0 until the end when unknown)
 * @param previous the state returned for the previous chunk; omitted for the first chunk
 * @example let p = parseProgress(text, 7200); p = parseProgress(more, 7200, p); p.percent
 */
export function parseProgress(
  chunk: string,
  durationSeconds: number | null,
  previous: ProgressState = initialProgress(),
): ProgressState {
  const lines = (previous.partial + chunk).split('\n');
  const partial = lines.pop() ?? '';
  let state: ProgressState = { ...previous, block: { ...previous.block }, partial: '' };
  for (const rawLine of lines) {
    const line = rawLine.trim();
    const equals = line.indexOf('=');
    if (equals <= 0) continue;
    const key = line.slice(0, equals).trim();
    const value = line.slice(equals + 1).trim();
    if (key === 'progress') state = endBlock(state, value, durationSeconds);
    else if (BLOCK_KEYS.has(key)) state.block[key] = value;
  }
  return { ...state, partial };
}

/** A small stateful wrapper: `push(chunk)` returns the public progress after each chunk. */
export class ProgressParser {
  private state: ProgressState = initialProgress();
  private readonly durationSeconds: number | null;

  constructor(durationSeconds: number | null) {
    this.durationSeconds = durationSeconds;
  }

  push(chunk: string | Buffer): FfmpegProgress {
    this.state = parseProgress(String(chunk), this.durationSeconds, this.state);
    return this.current();
  }

  current(): FfmpegProgress {
    const { percent, outTimeSeconds, speed, done } = this.state;
    return { percent, outTimeSeconds, speed, done };
  }
}
