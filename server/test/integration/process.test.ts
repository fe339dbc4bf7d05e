import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';

const root = new URL('../../../', import.meta.url).pathname;

interface Running {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  exited: Promise<number | null>;
}

function startMain(dataDir: string, env: Record<string, string> = {}): Promise<Running> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], {
    cwd: root,
    env: {
      ...process.env,
      REELSHELF_DATA_DIR: dataDir,
      REELSHELF_PORT: '0',
      REELSHELF_HOST: '127.0.0.1',
      REELSHELF_LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    // Only stops a hang: a cold start (tsx compiling) on a busy 2-core machine takes several seconds.
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}${err}`)), 60_000);
    const poll = setInterval(() => {
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match?.[1] !== undefined) {
        clearInterval(poll);
        clearTimeout(timer);
        resolve({ child, url: match[1], stdout: () => out, exited });
      }
    }, 50);
    exited.then((code) => {
      clearInterval(poll);
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}: ${out}${err}`));
    });
  });
}

describe('the server process (npm start)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'reelshelf-proc-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('prints the token once, serves, and shuts down cleanly on SIGTERM', async () => {
    const first = await startMain(dataDir);
    assert.match(first.stdout(), /Admin token \(shown once/);
    const token = /Admin token[^\n]*\n\s+(\S+)/.exec(first.stdout())?.[1] ?? '';
    const inFlight = fetch(`${first.url}/library`, { headers: { authorization: `Bearer ${token}` } });
    const health = await fetch(`${first.url}/api/health`);
    assert.equal(health.status, 200);
    first.child.kill('SIGTERM');
    assert.equal((await inFlight).status, 200, 'the in-flight request finished');
    assert.equal(await first.exited, 0);
    // better-sqlite3 removes the WAL file only when the last connection closes cleanly.
    assert.equal(existsSync(join(dataDir, 'reelshelf.sqlite-wal')), false, 'database closed cleanly');

    const second = await startMain(dataDir);
    assert.doesNotMatch(second.stdout(), /Admin token/, 'the token is printed only when generated');
    const res = await fetch(`${second.url}/library`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(res.status, 200, 'the kept token still works');
    second.child.kill('SIGINT');
    assert.equal(await second.exited, 0);
  });

  it('refuses a bad configuration value with a clear message', async () => {
    await assert.rejects(startMain(dataDir, { REELSHELF_PLAYBACK_POLICY: 'sometimes' }), (err: Error) => {
      assert.match(
        err.message,
        /REELSHELF_PLAYBACK_POLICY=sometimes is not valid: expected one of adaptive, strict/,
      );
      return true;
    });
  });
});
