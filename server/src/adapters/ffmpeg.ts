import { spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { ownedCommand } from './owned-process.ts';

/** ffmpeg exited with an error; `message` carries the last lines it printed. */
export class FfmpegError extends Error {
  override name = 'FfmpegError';
}

export interface FfmpegRunOptions {
  /** Receives stdout as it arrives (`-progress pipe:1` output). */
  onStdout?(chunk: string): void;
  /** Aborting kills the whole process group and rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Called once the process has started, with its pid (= its process group id). */
  onSpawn?(pid: number): void;
  /**
   * Extra output pipes (`pipe:3`, `pipe:4`, …) the argv writes to. (ffmpeg's life is tied to ours by
   * owned-process.ts, whatever it writes to.)
   */
  outputs?: number;
  /** Receives the bytes of output pipe `index` (fd 3 + index) as they arrive. */
  onOutput?(index: number, chunk: Buffer): void;
}

/** The only place that runs ffmpeg. Each run gets its own process group so a cancel kills it whole. */
export class FfmpegAdapter {
  constructor(private readonly path: string) {}

  run(args: string[], options: FfmpegRunOptions = {}): Promise<void> {
    return new Promise((resolve, reject) => {
      if (options.signal?.aborted === true) {
        reject(options.signal.reason);
        return;
      }
      const extra = Array.from({ length: options.outputs ?? 0 }, () => 'pipe' as const);
      const owned = ownedCommand(this.path, args);
      const child = spawn(owned.command, owned.args, {
        stdio: ['ignore', 'pipe', 'pipe', ...extra],
        detached: true,
      });
      child.stdio.slice(3).forEach((stream, index) => {
        stream?.on('data', (chunk: Buffer) => options.onOutput?.(index, chunk));
      });
      let stderr = '';
      let aborted = false;
      const killGroup = () => {
        if (child.pid === undefined) return;
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          child.kill('SIGKILL');
        }
      };
      const onAbort = () => {
        aborted = true;
        killGroup();
      };
      options.signal?.addEventListener('abort', onAbort, { once: true });
      if (child.pid !== undefined) options.onSpawn?.(child.pid);
      child.stdout?.setEncoding('utf8');
      child.stdout?.on('data', (chunk: string) => options.onStdout?.(chunk));
      child.stderr?.setEncoding('utf8');
      child.stderr?.on('data', (chunk: string) => {
        stderr = (stderr + chunk).slice(-8192);
      });
      child.on('error', (err: NodeJS.ErrnoException) => {
        options.signal?.removeEventListener('abort', onAbort);
        // A tool removed after start: one clear line, not a spawn stack.
        reject(
          new FfmpegError(
            err.code === 'ENOENT'
              ? `ffmpeg is not installed (no ${this.path}); GET /api/health says which tools were found`
              : `ffmpeg failed to start: ${err.message}`,
          ),
        );
      });
      child.on('close', (code, sig) => {
        options.signal?.removeEventListener('abort', onAbort);
        if (aborted) return reject(options.signal?.reason ?? new Error('aborted'));
        if (code === 0) return resolve();
        const tail = stderr.trim().split('\n').slice(-3).join(' | ');
        reject(new FfmpegError(`ffmpeg failed (${sig ?? `exit ${code}`}): ${tail || 'no message'}`));
      });
    });
  }
}

/** A running ffmpeg fed through input pipes, its output read from stdout (see `FfmpegAdapter.pipeline`). */
export interface FfmpegPipeline {
  /** The writing ends of the input pipes: `pipe:3`, `pipe:4`, … of the argv, in order. */
  inputs: Writable[];
  /** What ffmpeg writes to `pipe:1`. */
  output: Readable;
  /** Settles when ffmpeg has exited: resolves on exit code 0, else rejects with its last lines. */
  done: Promise<void>;
  /** Kills the process group (idempotent); `done` then rejects. */
  kill(): void;
}

/**
 * Starts ffmpeg with `inputs` input pipes (fd 3 + i, read by `pipe:3`…) and its stdout as a stream
 * with backpressure: a reader that stops reading stops ffmpeg, which stops reading its inputs. The
 * caller kills it when its reader goes away; a pipe also ties it to this process (when Node dies,
 * ffmpeg's next read or write fails and it exits).
 */
export function startFfmpegPipeline(path: string, args: string[], inputs: number): FfmpegPipeline {
  const extra = Array.from({ length: inputs }, () => 'pipe' as const);
  const owned = ownedCommand(path, args);
  const child = spawn(owned.command, owned.args, {
    stdio: ['ignore', 'pipe', 'pipe', ...extra],
    detached: true,
  });
  let stderr = '';
  let killed = false;
  const kill = () => {
    if (killed) return;
    killed = true;
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      child.kill('SIGKILL');
    }
  };
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-8192);
  });
  const pipes = child.stdio.slice(3, 3 + inputs).map((stream) => {
    if (stream === null || stream === undefined || !('write' in stream))
      throw new Error('ffmpeg input pipe missing');
    // ffmpeg gone (done, or killed): a write to its pipe fails; `done` says why.
    stream.on('error', () => {});
    return stream as Writable;
  });
  const output = child.stdout;
  if (output === null) throw new Error('ffmpeg stdout missing');
  output.on('error', () => {});
  const done = new Promise<void>((resolve, reject) => {
    child.on('error', (err: NodeJS.ErrnoException) =>
      reject(
        new FfmpegError(
          err.code === 'ENOENT'
            ? `ffmpeg is not installed (no ${path})`
            : `ffmpeg failed to start: ${err.message}`,
        ),
      ),
    );
    child.on('close', (code, signal) => {
      if (code === 0 && !killed) return resolve();
      const tail = stderr.trim().split('\n').slice(-3).join(' | ');
      reject(
        new FfmpegError(
          `ffmpeg ${killed ? 'stopped' : 'failed'} (${signal ?? `exit ${code}`}): ${tail || 'no message'}`,
        ),
      );
    });
  });
  // Nobody may have to wait for `done` (a reader that went away): never an unhandled rejection.
  done.catch(() => {});
  return { inputs: pipes, output, done, kill };
}
