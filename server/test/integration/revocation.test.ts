/**
 * Sessions, keys and people are kept in memory for authentication (services/people/people-cache.ts).
 * Each revocation path must still hold on the very next request — so every case here first uses the
 * credential (it is then kept), changes it, and asks again at once. people.test.ts covers sign-out,
 * sign-out everywhere, a new password and a revoked key the same way; here: a role change, a limit
 * change, a removed person (session, key and playback token), an admin signing someone out, and the
 * CLI changing people from another process on the same database file.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { jsonBody, startTestServer, type TestServer } from '../helpers/test-server.ts';
import { testDatabaseEnv } from '../helpers/test-database.ts';

const REPO = new URL('../../../', import.meta.url).pathname;
const PASSWORD = 'a-long-enough-passphrase';

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

describe('revocation holds on the very next request, with sessions and keys kept in memory', () => {
  let t: TestServer;

  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  async function person(name: string, role: string, extra: Record<string, unknown> = {}): Promise<number> {
    const res = await t.api('/api/users', jsonBody('POST', { name, password: PASSWORD, role, ...extra }));
    assert.equal(res.status, 201, await res.clone().text());
    return ((await res.json()) as { id: number }).id;
  }

  const csrfOf = new Map<string, string>();

  async function signIn(name: string): Promise<string> {
    const res = await fetch(`${t.url}/api/sessions`, jsonBody('POST', { name, password: PASSWORD }));
    assert.equal(res.status, 200, await res.clone().text());
    const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    csrfOf.set(cookie, ((await res.json()) as { csrf_token: string }).csrf_token);
    return cookie;
  }

  const withCookie = (cookie: string, path: string) => fetch(`${t.url}${path}`, { headers: { cookie } });
  const withBearer = (key: string, path: string) =>
    fetch(`${t.url}${path}`, { headers: { authorization: `Bearer ${key}` } });

  async function keyOf(cookie: string, scope: string): Promise<string> {
    const csrf = csrfOf.get(cookie);
    const res = await fetch(`${t.url}/api/keys`, {
      ...jsonBody('POST', { name: 'device', scope }),
      headers: { 'content-type': 'application/json', cookie, 'x-csrf-token': csrf ?? '' },
    });
    assert.equal(res.status, 201, await res.clone().text());
    return ((await res.json()) as { key: string }).key;
  }

  it('a role change holds at once: promoted reaches admin routes, demoted does not', async () => {
    const id = await person('Rolf', 'member');
    const cookie = await signIn('Rolf');
    assert.equal((await withCookie(cookie, '/api/users')).status, 403);
    assert.equal((await t.api(`/api/users/${id}`, jsonBody('PATCH', { role: 'admin' }))).status, 200);
    assert.equal((await withCookie(cookie, '/api/users')).status, 200, 'promoted: the next request');
    assert.equal((await t.api(`/api/users/${id}`, jsonBody('PATCH', { role: 'member' }))).status, 200);
    assert.equal((await withCookie(cookie, '/api/users')).status, 403, 'demoted: the next request');
  });

  it('a limit change holds at once: a child sees a film only from the request after it is raised', async () => {
    const id = await person('Kit', 'child', { max_certification: 'PG' });
    const cookie = await signIn('Kit');
    const movie = await t.server.database.db
      .insertInto('movies')
      .values({
        title: 'Rated R',
        sort_title: 'rated r',
        normalized_title: 'rated r',
        year: 2001,
        certification: 'R',
        created_at: new Date().toISOString(),
        updated_at: new Date().toISOString(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    assert.equal((await withCookie(cookie, `/api/movies/${movie.id}`)).status, 404);
    const raise = await t.api(`/api/users/${id}`, jsonBody('PATCH', { max_certification: 'R' }));
    assert.equal(raise.status, 200, await raise.clone().text());
    assert.equal(
      (await withCookie(cookie, `/api/movies/${movie.id}`)).status,
      200,
      'raised: the next request',
    );
    await t.api(`/api/users/${id}`, jsonBody('PATCH', { max_certification: 'PG' }));
    assert.equal(
      (await withCookie(cookie, `/api/movies/${movie.id}`)).status,
      404,
      'lowered: the next request',
    );
  });

  it('a removed person: their session, their key and a playback token of each end on the next request', async () => {
    const id = await person('Gone', 'member');
    const cookie = await signIn('Gone');
    const key = await keyOf(cookie, 'playback');
    assert.equal((await withCookie(cookie, '/api/me')).status, 200);
    assert.equal((await withBearer(key, '/api/me')).status, 200);
    const sessionId = ((await (await withCookie(cookie, '/api/me')).json()) as { credential: { id: number } })
      .credential.id;
    const keyId = ((await (await withBearer(key, '/api/me')).json()) as { credential: { id: number } })
      .credential.id;
    const auth = t.server.services.authentication;
    assert.equal(await auth.isLive('session', sessionId, id), true);
    assert.equal(await auth.isLive('key', keyId, id), true);
    assert.equal((await t.api(`/api/users/${id}`, { method: 'DELETE' })).status, 204);
    assert.equal((await withCookie(cookie, '/api/me')).status, 401);
    assert.equal((await withBearer(key, '/api/me')).status, 401);
    assert.equal(await auth.isLive('session', sessionId, id), false);
    assert.equal(await auth.isLive('key', keyId, id), false);
  });

  it('an admin signing a person out (the People page: signOutEverywhere) ends their sessions on the next request', async () => {
    const id = await person('Otto', 'member');
    const cookie = await signIn('Otto');
    assert.equal((await withCookie(cookie, '/api/me')).status, 200);
    const revoked = await t.server.services.sessions.signOutEverywhere(id);
    assert.equal(revoked, 1);
    assert.equal((await withCookie(cookie, '/api/me')).status, 401);
  });

  it('the CLI in another process: a new password and a removal hold on the next request (data_version)', async () => {
    await person('Cleo', 'member');
    const cookie = await signIn('Cleo');
    const key = await keyOf(cookie, 'read');
    assert.equal((await withCookie(cookie, '/api/me')).status, 200);
    assert.equal((await withBearer(key, '/api/me')).status, 200);
    const passwd = await cli(['user', 'passwd', 'Cleo', '--password-stdin'], t.dataDir, `${PASSWORD}-2\n`);
    assert.equal(passwd.code, 0, passwd.out);
    assert.equal((await withCookie(cookie, '/api/me')).status, 401, 'signed out everywhere by the CLI');
    assert.equal((await withBearer(key, '/api/me')).status, 200, 'a key lives on after a new password');
    const remove = await cli(['user', 'remove', 'Cleo'], t.dataDir);
    assert.equal(remove.code, 0, remove.out);
    assert.equal((await withBearer(key, '/api/me')).status, 401, 'removed by the CLI');
  });
});
