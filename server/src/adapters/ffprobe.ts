import { spawn } from 'node:child_process';

/** Raw result of one ffprobe run: its JSON (when it printed any) and what it said on stderr. */
export interface ProbeOutput {
  json: unknown;
  /** Error lines ffprobe printed while reading the streams (`-v error`), at most 20. */
  errors: string[];
}

/** ffprobe could not read the file (bad data, timeout, tool missing); the message says which. */
export class ProbeError extends Error {
  override name = 'ProbeError';
}

export interface FfprobeOptions {
  path: string;
  timeoutMs?: number;
  /** Upper bound on stdout bytes; a file with thousands of streams must not exhaust memory. */
  maxOutputBytes?: number;
}

/** The only place that runs ffprobe. */
export class FfprobeAdapter {
  readonly calls: { count: number } = { count: 0 };
  /** How many packet scans ({@link keyframes}) ran: tests assert a stored index is not read again. */
  readonly packetScans: { count: number } = { count: 0 };
  private readonly timeoutMs: number;
  private readonly maxOutputBytes: number;

  constructor(private readonly options: FfprobeOptions) {
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.maxOutputBytes = options.maxOutputBytes ?? 4 * 1024 * 1024;
  }

  /** Runs `ffprobe -show_format -show_streams -of json` on one file. */
  probe(file: string, signal?: AbortSignal): Promise<ProbeOutput> {
    this.calls.count++;
    return new Promise((resolve, reject) => {
      const child = spawn(
        this.options.path,
        ['-v', 'error', '-hide_banner', '-show_format', '-show_streams', '-of', 'json', '-i', file],
        { stdio: ['ignore', 'pipe', 'pipe'], ...(signal === undefined ? {} : { signal }) },
      );
      const out: Buffer[] = [];
      let outBytes = 0;
      let err = '';
      let failure: string | null = null;
      const timer = setTimeout(() => {
        failure = `ffprobe timed out after ${this.timeoutMs} ms`;
        child.kill('SIGKILL');
      }, this.timeoutMs);
      child.stdout.on('data', (chunk: Buffer) => {
        outBytes += chunk.length;
        if (outBytes > this.maxOutputBytes) {
          failure = `ffprobe output exceeded ${this.maxOutputBytes} bytes`;
          child.kill('SIGKILL');
          return;
        }
        out.push(chunk);
      });
      child.stderr.on('data', (chunk: Buffer) => {
        if (err.length < 16_384) err += chunk.toString('utf8');
      });
      child.on('error', (e: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        reject(
          new ProbeError(
            e.code === 'ENOENT'
              ? `ffprobe is not installed (no ${this.options.path}); GET /api/health says which tools were found`
              : `ffprobe failed to start: ${e.message}`,
          ),
        );
      });
      child.on('close', (code) => {
        clearTimeout(timer);
        if (failure !== null) return reject(new ProbeError(failure));
        const errors = err
          .split('\n')
          .map((l) => l.trim())
          .filter((l) => l.length > 0)
          .slice(0, 20);
        const text = Buffer.concat(out).toString('utf8');
        let json: unknown = null;
        try {
          json = text.trim() === '' ? null : JSON.parse(text);
        } catch {
          json = null;
        }
        if (code !== 0) {
          const reason = errors.at(-1) ?? `exit code ${code}`;
          return reject(new ProbeError(`ffprobe could not read the file: ${stripPath(reason, file)}`));
        }
        resolve({ json, errors: errors.map((e) => stripPath(e, file)) });
      });
    });
  }

  /**
   * The presentation times (seconds, ascending) of the keyframe packets of the first video stream,
   * read by demuxing every packet (`-select_streams v:0 -show_entries packet=pts_time,flags`): the
   * fallback for containers without an index of their own (AVI, MPEG-TS, MKV without Cues). Reads the
   * whole file, so it is slow (seconds per GB); lines are parsed as they come, only keyframes are kept.
   */
  keyframes(file: string, signal?: AbortSignal, timeoutMs = 15 * 60_000): Promise<number[]> {
    this.packetScans.count++;
    return new Promise((resolve, reject) => {
      const child = spawn(
        this.options.path,
        [
          '-v',
          'error',
          '-hide_banner',
          '-select_streams',
          'v:0',
          '-show_entries',
          'packet=pts_time,flags',
          '-of',
          'csv=p=0',
          '-i',
          file,
        ],
        { stdio: ['ignore', 'pipe', 'pipe'], ...(signal === undefined ? {} : { signal }) },
      );
      const times: number[] = [];
      let partial = '';
      let err = '';
      let failure: string | null = null;
      const takeLine = (line: string) => {
        // "12.345000,K__" (MPEG-TS adds a trailing ","): time first, flags second; "N/A" has no time.
        const [pts, flags] = line.trim().split(',');
        const time = Number(pts);
        if (flags?.includes('K') === true && pts !== '' && Number.isFinite(time)) {
          times.push(time);
        }
      };
      const timer = setTimeout(() => {
        failure = `ffprobe timed out after ${timeoutMs} ms`;
        child.kill('SIGKILL');
      }, timeoutMs);
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => {
        const lines = (partial + chunk).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) takeLine(line);
      });
      child.stderr.on('data', (chunk: Buffer) => {
        if (err.length < 16_384) err += chunk.toString('utf8');
      });
      child.on('error', (e: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        reject(
          new ProbeError(
            e.code === 'ENOENT'
              ? `ffprobe is not installed (no ${this.options.path}); GET /api/health says which tools were found`
              : `ffprobe failed to start: ${e.message}`,
          ),
        );
      });
      child.on('close', (code) => {
        clearTimeout(timer);
        takeLine(partial);
        if (failure !== null) return reject(new ProbeError(failure));
        if (code !== 0) {
          const reason = err.trim().split('\n').at(-1) ?? `exit code ${code}`;
          return reject(new ProbeError(`ffprobe could not read the packets: ${stripPath(reason, file)}`));
        }
        resolve(times.sort((a, b) => a - b));
      });
    });
  }
}

/** ffprobe prefixes messages with the input path; a person needs the message, not our path. */
function stripPath(message: string, file: string): string {
  return message.split(`${file}: `).join('');
}
