/**
 * Runs the one-pass trickplay ffmpeg (domain/trickplay/sheet-command.ts) the way a background job
 * must: at the lowest CPU priority (`nice -n 19`) and idle I/O class (`ionice -c3`, when the machine
 * has ionice), killed with its whole process group on abort, and ended by a watchdog when it stops
 * making headway (Jellyfin's "Trickplay process unresponsive", #11828: jobs that hang at 0 % forever).
 *
 * Headway is a new sheet in the folder or a new thumbnail reported on `-progress pipe:1` (a sheet
 * holds 100 thumbnails, over a quarter of an hour of film: a slow full decode can take longer than
 * any sane timeout to fill one).
 *
 * ffmpeg never outlives this process: the argv writes one line per thumbnail to `pipe:3`; when Node
 * dies, even by SIGKILL, the next line's write fails and ffmpeg ends its outputs and exits. (The
 * `-progress` pipe cannot do it: ffmpeg ignores SIGPIPE and carries on past a failed progress write.)
 * A STOPPED ffmpeg (paused for a viewer, below) writes nothing and cannot notice, so it also runs
 * under `setpriv --pdeathsig KILL` (as every ffmpeg does: adapters/owned-process.ts): the kernel
 * kills it when Node goes.
 *
 * Paused: while `pause.paused` (a viewer's conversion holds or waits for a slot) the process group is
 * sent SIGSTOP, and SIGCONT once it is not; the watchdog does not count the time stopped.
 */
import { readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { basename } from 'node:path';
import { FfmpegAdapter } from './ffmpeg.ts';
import { findOnPath } from './media-tools.ts';
import { ProgressParser } from '../domain/ffmpeg/progress.ts';
import { pauseAction } from '../domain/trickplay/making.ts';

/** ffmpeg made no new sheet and no new thumbnail for `stallMs`: it was ended. */
export class TrickplayStalledError extends Error {
  override name = 'TrickplayStalledError';
  readonly code = 'trickplay_stalled';
}

/** Whether the run must be stopped now, and a way to hear when that changes. */
export interface PauseSource {
  readonly paused: boolean;
  /** Returns the unsubscribe. */
  onChange(listener: () => void): () => void;
}

export interface SheetRunOptions {
  /** The argv from `buildSheetArgs` (without the binary). */
  args: string[];
  /** The folder the argv writes its sheets to (watched for new ones). */
  outputDir: string;
  /** The film's duration (s), for the percent. */
  durationSeconds: number | null;
  /** Aborting kills ffmpeg (its process group) and rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Percent 0..100 (100 only at the end), as ffmpeg reports it. */
  onProgress?(percent: number): void;
  /** Called with ffmpeg's pid once it runs (tests, logs). */
  onSpawn?(pid: number): void;
  /** How long without headway before ffmpeg is ended; default {@link DEFAULT_STALL_MS}. */
  stallMs?: number;
  /** Stops ffmpeg (SIGSTOP) while paused, continues it (SIGCONT) after. */
  pause?: PauseSource;
  /** Called with true when ffmpeg was stopped, false when continued (logs, tests). */
  onPauseChange?(stopped: boolean): void;
}

export interface SheetRunResult {
  /** Sheet files written (`0.jpg` … in order). */
  sheets: number;
  /** Thumbnails ffmpeg picked (one `framecrc` line each on pipe:3): the real count, not the padded grid's. */
  thumbnails: number;
}

export const DEFAULT_STALL_MS = 120_000;
const SHEET_FILE = /^\d+\.jpg$/;

export async function countSheets(dir: string): Promise<number> {
  try {
    return (await readdir(dir)).filter((name) => SHEET_FILE.test(name)).length;
  } catch {
    return 0;
  }
}

/** How to start a process at the lowest priority on this machine: `nice -n 19 [ionice -c3] <tool>`. */
export function lowPriorityPrefix(searchPath: string | undefined = process.env.PATH): string[] {
  const nice = findOnPath('nice', searchPath);
  const ionice = findOnPath('ionice', searchPath);
  return [...(nice === null ? [] : [nice, '-n', '19']), ...(ionice === null ? [] : [ionice, '-c3'])];
}

/** Counts `framecrc` data lines (one per thumbnail) as they arrive in chunks. */
class ThumbnailCounter {
  count = 0;
  private partial = '';

  push(chunk: Buffer): void {
    const lines = (this.partial + chunk.toString('latin1')).split('\n');
    this.partial = lines.pop() ?? '';
    for (const line of lines) if (line !== '' && !line.startsWith('#')) this.count++;
  }

  end(): number {
    if (this.partial !== '' && !this.partial.startsWith('#')) this.count++;
    this.partial = '';
    return this.count;
  }
}

export class TrickplayFfmpeg {
  private readonly prefix: string[];

  constructor(
    private readonly ffmpegPath: string,
    prefix: string[] = lowPriorityPrefix(),
  ) {
    this.prefix = prefix;
  }

  /**
   * Whether process `pid` has exec'd the tool (its `comm` is ffmpeg's, not setpriv's (FfmpegAdapter
   * ties every ffmpeg to us through it, adapters/owned-process.ts) or a priority prefix's). Without
   * /proc (not Linux: no setpriv either) it is taken as running.
   */
  private runsTool(pid: number): boolean {
    let comm: string;
    try {
      comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    } catch {
      return true;
    }
    return comm === basename(this.ffmpegPath).slice(0, 15);
  }

  async run(options: SheetRunOptions): Promise<SheetRunResult> {
    const stallMs = options.stallMs ?? DEFAULT_STALL_MS;
    const watchdog = new AbortController();
    const signal =
      options.signal === undefined ? watchdog.signal : AbortSignal.any([options.signal, watchdog.signal]);
    const progress = new ProgressParser(options.durationSeconds);
    let lastHeadway = Date.now();
    let lastOutTime: number | null = null;
    let lastSheets = await countSheets(options.outputDir);
    let lastPercent = -1;
    let pid: number | null = null;
    let stopped = false;
    const thumbnails = new ThumbnailCounter();
    // Stopped or continued as the pause source says; stopped time is no stall.
    let retry: NodeJS.Timeout | undefined;
    const follow = () => {
      const action = pauseAction(options.pause?.paused === true, stopped);
      if (pid === null || action === 'none') return;
      // Not before ffmpeg itself runs: a setpriv stopped before it set the parent-death signal
      // would outlive us. (Exec takes milliseconds; asked again shortly.)
      if (action === 'stop' && !this.runsTool(pid)) {
        clearTimeout(retry);
        retry = setTimeout(follow, 20);
        return;
      }
      try {
        process.kill(-pid, action === 'stop' ? 'SIGSTOP' : 'SIGCONT');
      } catch {
        return; // already gone: its exit settles the run
      }
      stopped = action === 'stop';
      lastHeadway = Date.now();
      options.onPauseChange?.(stopped);
    };
    const unfollow = options.pause?.onChange(follow);
    const check = async () => {
      if (stopped) lastHeadway = Date.now();
      const sheets = await countSheets(options.outputDir);
      if (sheets !== lastSheets) {
        lastSheets = sheets;
        lastHeadway = Date.now();
      }
      if (Date.now() - lastHeadway >= stallMs && !watchdog.signal.aborted) {
        watchdog.abort(
          new TrickplayStalledError(
            `ffmpeg wrote no sheet and no thumbnail for ${Math.round(stallMs / 1000)} s and was stopped`,
          ),
        );
      }
    };
    const timer = setInterval(() => void check(), Math.max(50, Math.min(1000, stallMs / 4)));
    const [binary, ...prefixArgs] = [...this.prefix, this.ffmpegPath];
    try {
      await new FfmpegAdapter(binary ?? this.ffmpegPath).run([...prefixArgs, ...options.args], {
        signal,
        // pipe:3, the thumbnail lines: counted (the real number of thumbnails).
        outputs: 1,
        onOutput: (_index, chunk) => {
          thumbnails.push(chunk);
          lastHeadway = Date.now();
        },
        onSpawn: (spawned) => {
          pid = spawned;
          options.onSpawn?.(spawned);
          follow();
        },
        onStdout: (chunk) => {
          const now = progress.push(chunk);
          if (now.outTimeSeconds !== null && now.outTimeSeconds !== lastOutTime) {
            lastOutTime = now.outTimeSeconds;
            lastHeadway = Date.now();
          }
          if (now.percent !== lastPercent) {
            lastPercent = now.percent;
            options.onProgress?.(now.percent);
          }
        },
      });
    } finally {
      clearInterval(timer);
      clearTimeout(retry);
      unfollow?.();
    }
    return { sheets: await countSheets(options.outputDir), thumbnails: thumbnails.end() };
  }
}
