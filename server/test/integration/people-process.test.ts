/**
 * People from the outside: `reelshelf user …` on a data dir, then `npm start` on it, whose log names
 * each failed sign-in and bearer token with the address and the account — never the secret.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.ts';
import { waitFor } from '../helpers/wait.ts';
import { testDatabaseEnv } from '../helpers/test-database.ts';

const REPO = new URL('../../../', import.meta.url).pathname;
const ANNA_PASSWORD = 'anna-secret-passphrase';
const ADMIN_PASSWORD = 'admin-secret-passphrase';

function cli(args: string[], dataDir: string, stdin = ''): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, ['bin/reelshelf.mjs', ...args], {
    cwd: REPO,
    env: {
      ...process.env,
      REELSHELF_DATA_DIR: dataDir,
      ...testDatabaseEnv(dataDir),
      REELSHELF_LOG_LEVEL: 'warn',
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  child.stdin.end(stdin);
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out })));
}

describe('reelshelf user …, then the server’s log of failures', () => {
  let dataDir: string;
  let server: ServerProcess | null = null;

  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'reelshelf-people-'));
  });
  after(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('user add / passwd / list / remove print nothing secret; refusals exit 1 with the reason', async () => {
    const add = await cli(
      ['user', 'add', 'Anna', '--role', 'member', '--password-stdin'],
      dataDir,
      `${ANNA_PASSWORD}\n`,
    );
    assert.equal(add.code, 0, add.out);
    assert.match(add.out, /added Anna \(member, id \d+\)/);
    const child = await cli(
      ['user', 'add', 'Kid', '--role', 'child', '--password-stdin'],
      dataDir,
      `${ANNA_PASSWORD}\n`,
    );
    assert.equal(child.code, 1);
    assert.match(child.out, /max_certification/);
    const short = await cli(['user', 'add', 'Bert', '--role', 'member', '--password', 'short'], dataDir);
    assert.equal(short.code, 1);
    assert.match(short.out, /at least 10 characters/);
    const passwd = await cli(['user', 'passwd', 'admin'], dataDir, `${ADMIN_PASSWORD}\n`);
    assert.equal(passwd.code, 0, passwd.out);
    const last = await cli(['user', 'remove', 'admin'], dataDir);
    assert.equal(last.code, 1);
    assert.match(last.out, /without an admin/);
    const list = await cli(['user', 'list'], dataDir);
    assert.match(list.out, /\tadmin\tadmin\n/);
    assert.match(list.out, /\tAnna\tmember\n/);
    for (const run of [add, child, short, passwd, last, list]) {
      assert.ok(!run.out.includes(ANNA_PASSWORD) && !run.out.includes(ADMIN_PASSWORD), run.out);
      assert.ok(!run.out.includes('$argon2id$'), 'no hash printed');
    }
  });

  it('signs in with the passwords set by the CLI; each failure is logged with address and account, never the secret', async () => {
    server = await startServerProcess(dataDir);
    const signIn = (name: string, password: string) =>
      fetch(`${server?.url}/api/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name, password }),
      });
    assert.equal((await signIn('anna', ANNA_PASSWORD)).status, 200);
    assert.equal((await signIn('admin', ADMIN_PASSWORD)).status, 200);
    assert.equal(
      (await signIn('admin', server.token)).status,
      200,
      'the admin token still signs the first admin in',
    );
    const guess = 'guessed-password-42';
    assert.equal((await signIn('anna', guess)).status, 401);
    const badKey = `rsk_${'Q'.repeat(43)}`;
    assert.equal(
      (await fetch(`${server.url}/library`, { headers: { authorization: `Bearer ${badKey}` } })).status,
      401,
    );
    const lines = await waitFor(
      () => {
        const found =
          server
            ?.output()
            .split('\n')
            .filter((l) => /sign-in failed|bearer token refused/.test(l)) ?? [];
        return found.length >= 2 ? found : undefined;
      },
      () => `the failure lines: ${server?.output() ?? ''}`,
    );
    const signInLine = JSON.parse(lines.find((l) => l.includes('sign-in failed')) ?? '{}') as Record<
      string,
      unknown
    >;
    assert.equal(signInLine.address, '127.0.0.1');
    assert.equal(signInLine.account, 'anna');
    const bearerLine = JSON.parse(lines.find((l) => l.includes('bearer token refused')) ?? '{}') as Record<
      string,
      unknown
    >;
    assert.equal(bearerLine.address, '127.0.0.1');
    assert.equal(bearerLine.credential, 'key');
    const output = server.output();
    for (const secret of [guess, badKey, ANNA_PASSWORD, ADMIN_PASSWORD, server.token]) {
      assert.ok(!output.includes(secret), `the log never holds a secret (${secret.slice(0, 6)}…)`);
    }
  });
});
