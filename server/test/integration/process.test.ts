import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { startServerProcess } from '../helpers/server-process.ts';

describe('the server process (npm start)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'reelshelf-proc-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('prints the token once, serves, and shuts down cleanly on SIGTERM', async () => {
    const first = await startServerProcess(dataDir);
    assert.match(first.output(), /Admin token \(shown once/);
    const token = /Admin token[^\n]*\n\s+(\S+)/.exec(first.output())?.[1] ?? '';
    const inFlight = fetch(`${first.url}/library`, { headers: { authorization: `Bearer ${token}` } });
    const health = await fetch(`${first.url}/api/health`);
    assert.equal(health.status, 200);
    first.child.kill('SIGTERM');
    assert.equal((await inFlight).status, 200, 'the in-flight request finished');
    assert.equal(await first.exited, 0);
    // better-sqlite3 removes the WAL file only when the last connection closes cleanly.
    assert.equal(existsSync(join(dataDir, 'reelshelf.sqlite-wal')), false, 'database closed cleanly');

    const second = await startServerProcess(dataDir);
    assert.doesNotMatch(second.output(), /Admin token/, 'the token is printed only when generated');
    const res = await fetch(`${second.url}/library`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(res.status, 200, 'the kept token still works');
    second.child.kill('SIGINT');
    assert.equal(await second.exited, 0);
  });

  it('refuses a bad configuration value with a clear message', async () => {
    await assert.rejects(
      startServerProcess(dataDir, { REELSHELF_PLAYBACK_POLICY: 'sometimes' }),
      (err: Error) => {
        assert.match(
          err.message,
          /REELSHELF_PLAYBACK_POLICY=sometimes is not valid: expected one of adaptive, strict/,
        );
        return true;
      },
    );
  });
});
