import type { Writable } from 'node:stream';
import { type GenericFormatter, SingleBar } from 'cli-progress';
import { formatDuration } from '../domain/format-duration.ts';

/** What a CLI command shows while a long job runs: one redrawn line on a terminal, plain lines otherwise. */
export interface CliProgress {
  /** The job's progress; the line appears once a total is known. */
  update(done: number, total: number): void;
  /** A line of output of its own (e.g. one per disc), printed on stdout without breaking the bar. */
  log(line: string): void;
  /** Draws the final state and ends the line. */
  stop(): void;
}

export interface CliProgressOptions {
  /** What runs: "scanning", "importing". */
  label: string;
  /** What is counted: "files", "writes". */
  unit: string;
  /** Where progress goes (stderr by default, so that stdout stays the command's result). */
  stream?: Writable & { isTTY?: boolean; columns?: number };
  /** Where `log` lines go (stdout by default). */
  out?: Writable;
  /** Plain-line mode: one line at most this often (and at start and end). */
  plainEveryMs?: number;
  /** The clock, in ms (tests pass their own). */
  now?: () => number;
}

/** An estimate of time left means nothing before the job has run this long. */
const ETA_AFTER_MS = 1000;

const BAR_WIDTH = 24;

/**
 * The words of a progress line: "scanning: 40/100 files (40%), 1 min left". The estimate is left out
 * until it means something (some done, some left, a finite number).
 * @example progressText('importing', 'writes', 500, 2000, 3.2) // 'importing: 500/2000 writes (25%), 3 s left'
 */
export function progressText(
  label: string,
  unit: string,
  done: number,
  total: number,
  etaSeconds: number | null,
): string {
  const percent = total <= 0 ? 0 : Math.floor((Math.min(done, total) / total) * 100);
  const base = `${label}: ${done}/${total} ${unit} (${percent}%)`;
  const left = done > 0 && done < total ? formatDuration(etaSeconds) : null;
  return left === null ? base : `${base}, ${left} left`;
}

/** A bar of `width` cells for a fraction in [0, 1]: "██████░░░░". */
export function progressBar(fraction: number, width = BAR_WIDTH): string {
  const full = Math.round(Math.min(1, Math.max(0, fraction)) * width);
  return '█'.repeat(full) + '░'.repeat(width - full);
}

function finiteOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/**
 * Plain lines for a pipe, a log file or CI: the first count, then at most one line every `everyMs`,
 * and the last count once. Written here rather than with cli-progress's notty mode, which repeats an
 * unchanged line on a timer and writes the final one twice.
 */
function plainProgress(options: CliProgressOptions, stream: Writable, out: Writable): CliProgress {
  const everyMs = options.plainEveryMs ?? 2000;
  const now = options.now ?? Date.now;
  let startedAt: number | null = null;
  let lastWrite = 0;
  let lastLine = '';
  let latest: { done: number; total: number } | null = null;
  let stopped = false;
  const write = () => {
    if (latest === null || startedAt === null) return;
    const elapsedMs = now() - startedAt;
    const eta =
      latest.done > 0 && elapsedMs >= ETA_AFTER_MS
        ? (elapsedMs / 1000 / latest.done) * (latest.total - latest.done)
        : null;
    const line = progressText(options.label, options.unit, latest.done, latest.total, eta);
    if (line === lastLine) return;
    stream.write(`${line}\n`);
    lastLine = line;
    lastWrite = now();
  };
  return {
    update(done, total) {
      if (stopped || total <= 0) return;
      latest = { done, total };
      if (startedAt === null) {
        startedAt = now();
        // A job that is already complete at its first report gets its one line at stop().
        if (done < total) write();
        return;
      }
      if (now() - lastWrite >= everyMs) write();
    },
    log(line) {
      out.write(`${line}\n`);
    },
    stop() {
      if (stopped) return;
      stopped = true;
      write();
    },
  };
}

/** A line redrawn in place, with a bar, on cli-progress. */
function terminalProgress(
  options: CliProgressOptions,
  stream: Writable & { isTTY?: boolean },
  out: Writable,
): CliProgress {
  const format: GenericFormatter = (_opts, params) =>
    `${progressBar(params.progress)} ${progressText(options.label, options.unit, params.value, params.total, finiteOrNull(params.eta))}`;
  // forceRedraw: a log line clears the bar, so the next render must draw it even when unchanged.
  const bar = new SingleBar({
    format,
    stream,
    hideCursor: true,
    forceRedraw: true,
    etaBuffer: 50,
    gracefulExit: true,
  });
  let started = false;
  let stopped = false;
  return {
    update(done, total) {
      if (stopped) return;
      if (!started) {
        if (total <= 0) return;
        bar.start(total, done);
        started = true;
        return;
      }
      if (total !== bar.getTotal()) bar.setTotal(total);
      bar.update(done);
    },
    log(line) {
      if (!started || stopped) {
        out.write(`${line}\n`);
        return;
      }
      // Clear the bar's line, print ours, then draw the bar again below it.
      stream.write('\r\u001b[2K');
      out.write(`${line}\n`);
      bar.render();
    },
    stop() {
      if (stopped) return;
      stopped = true;
      if (started) bar.stop();
    },
  };
}

/**
 * The one progress display of the CLI (scan, import, the barcode loop): on a TTY a line redrawn in
 * place with a bar; elsewhere (a pipe, a log file, CI) plain lines with no bar and no control
 * characters. Nothing shows until a total is known.
 */
export function startCliProgress(options: CliProgressOptions): CliProgress {
  const stream = options.stream ?? process.stderr;
  const out = options.out ?? process.stdout;
  return stream.isTTY === true ? terminalProgress(options, stream, out) : plainProgress(options, stream, out);
}
