import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { testDatabaseEnv } from './test-database.ts';
import { waitFor } from './wait.ts';

const repo = new URL('../../../', import.meta.url).pathname;

/** `npm start` as its own process: what a bench measures (its memory is its own) or a test kills. */
export interface ServerProcess {
  child: ChildProcess;
  /** http://127.0.0.1:<port>, as the server printed it. */
  url: string;
  pid: number;
  /** The admin token (REELSHELF_API_TOKEN, else the one the server wrote to its data dir). */
  token: string;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
  /** What it printed so far, stdout and stderr. */
  output(): string;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
}

/**
 * Starts `server/src/main.ts` on 127.0.0.1 (any free port) with `dataDir` and `env` added, and waits
 * for its "listening on" line (a cold start compiles with tsx: slow on a busy 2-core machine).
 */
export async function startServerProcess(
  dataDir: string,
  env: Record<string, string> = {},
  { timeoutMs = 60_000 }: { timeoutMs?: number } = {},
): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], {
    cwd: repo,
    env: {
      ...process.env,
      REELSHELF_DATA_DIR: dataDir,
      REELSHELF_PORT: '0',
      REELSHELF_HOST: '127.0.0.1',
      REELSHELF_LOG_LEVEL: 'warn',
      REELSHELF_JELLYFIN_PORT: 'off',
      REELSHELF_JELLYFIN_DISCOVERY_PORT: 'off',
      // SSDP multicasts: only ever inside a test's own network namespace (helpers/netns.ts).
      REELSHELF_DLNA_SSDP_PORT: 'off',
      // No trickplay ffmpeg jobs after scans unless a test asks for them.
      REELSHELF_TRICKPLAY: 'off',
      // The engine under test: SQLite in the data dir, or the data dir's PostgreSQL database.
      ...testDatabaseEnv(dataDir),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let url: string;
  try {
    url = await waitFor(
      () => {
        if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}): ${out}`);
        return /listening on (http:\/\/\S+)/.exec(out)?.[1];
      },
      () => `the server to listen: ${out}`,
      { timeoutMs, intervalMs: 50 },
    );
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  return {
    child,
    url,
    pid: child.pid ?? 0,
    token: env.REELSHELF_API_TOKEN ?? readFileSync(join(dataDir, 'api-token'), 'utf8').trim(),
    exited,
    output: () => out,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
