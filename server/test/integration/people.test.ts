/**
 * People, sessions, keys, failure limits and quick switching (issue 22 §1, 4, 5, 6) through a real
 * server on loopback with its SQLite file: every rule as a client meets it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Clock } from '../../src/adapters/clock.ts';
import { jsonBody, startTestServer, type TestServer } from '../helpers/test-server.ts';

const PASSWORD = 'correct horse battery';

/** A clock a test moves (sessions' idle and absolute expiry). */
function movableClock(): Clock & { advance(ms: number): void } {
  let offset = 0;
  return { now: () => new Date(Date.now() + offset), advance: (ms) => (offset += ms) };
}

interface Signed {
  cookie: string;
  csrf: string;
  setCookie: string;
  user: { id: number; name: string; role: string };
}

async function signIn(t: TestServer, name: string, password: string, from = '10.9.9.9'): Promise<Signed> {
  const res = await fetch(`${t.url}/api/sessions`, {
    ...jsonBody('POST', { name, password }),
    headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
  });
  assert.equal(res.status, 200, await res.clone().text());
  const body = (await res.json()) as { user: Signed['user']; csrf_token: string };
  const setCookie = res.headers.get('set-cookie') ?? '';
  return { cookie: setCookie.split(';')[0] ?? '', csrf: body.csrf_token, setCookie, user: body.user };
}

/** A request as a browser with a session: the cookie, and the CSRF header on writes. */
function asSession(t: TestServer, s: Signed, path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set('cookie', s.cookie);
  if ((init.method ?? 'GET') !== 'GET') headers.set('x-csrf-token', s.csrf);
  if (init.body !== undefined && !headers.has('content-type'))
    headers.set('content-type', 'application/json');
  return fetch(`${t.url}${path}`, { ...init, headers });
}

function asBearer(t: TestServer, key: string, path: string, init: RequestInit = {}): Promise<Response> {
  return t.api(path, {
    ...init,
    headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${key}` },
  });
}

async function createUser(
  t: TestServer,
  body: Record<string, unknown>,
): Promise<{ id: number; name: string }> {
  const res = await t.api('/api/users', jsonBody('POST', body));
  assert.equal(res.status, 201, await res.clone().text());
  return (await res.json()) as { id: number; name: string };
}

async function errorOf(res: Response): Promise<{ error: string; message: string; hint?: string }> {
  return (await res.json()) as { error: string; message: string; hint?: string };
}

describe('people, sessions, keys', () => {
  let t: TestServer;
  const clock = movableClock();

  before(async () => {
    t = await startTestServer({ REELSHELF_TRUST_PROXY: '127.0.0.1' }, { clock });
  });
  after(async () => {
    await t.close();
  });

  it('people: create (201, no hash shown), list; bad input is a clear 4xx that writes nothing', async () => {
    const anna = await t.api(
      '/api/users',
      jsonBody('POST', { name: ' Anna ', password: PASSWORD, role: 'member' }),
    );
    assert.equal(anna.status, 201);
    const created = (await anna.json()) as Record<string, unknown>;
    assert.deepEqual(Object.keys(created).sort(), [
      'allow_unrated',
      'created_at',
      'has_password',
      'has_pin',
      'id',
      'max_certification',
      'name',
      'role',
    ]);
    assert.equal(created.name, 'Anna');
    assert.equal(created.allow_unrated, true);
    const kid = await createUser(t, {
      name: 'Kid',
      password: PASSWORD,
      role: 'child',
      max_certification: 'PG',
    });
    const kidView = (await (await t.api(`/api/users/${kid.id}`)).json()) as { allow_unrated: boolean };
    assert.equal(kidView.allow_unrated, false, "a child's unrated films are hidden by default");

    const before = ((await (await t.api('/api/users')).json()) as { items: unknown[] }).items.length;
    const refusals: [Record<string, unknown>, number, string, RegExp][] = [
      [{ name: 'ANNA', password: PASSWORD, role: 'member' }, 409, 'conflict', /Anna|ANNA/],
      [{ name: 'Bert', password: 'short', role: 'member' }, 400, 'validation_failed', /password/],
      [{ name: 'Bert', password: PASSWORD, role: 'owner' }, 400, 'validation_failed', /role/],
      [{ name: 'Bert', password: PASSWORD, role: 'child' }, 400, 'validation_failed', /max_certification/],
      [
        { name: 'Bert', password: PASSWORD, role: 'child', max_certification: '12A' },
        400,
        'validation_failed',
        /12A/,
      ],
      [{ name: '   ', password: PASSWORD, role: 'member' }, 400, 'validation_failed', /name/],
      [{ name: 'x'.repeat(65), password: PASSWORD, role: 'member' }, 400, 'validation_failed', /name/],
    ];
    for (const [body, status, code, message] of refusals) {
      const res = await t.api('/api/users', jsonBody('POST', body));
      assert.equal(res.status, status, JSON.stringify(body));
      const err = await errorOf(res);
      assert.equal(err.error, code);
      assert.match(err.message, message);
      if (code === 'validation_failed' && body.password === 'short')
        assert.match(err.hint ?? '', /10 characters/);
    }
    const afterCount = ((await (await t.api('/api/users')).json()) as { items: unknown[] }).items.length;
    assert.equal(afterCount, before, 'nothing written');
  });

  it('the last admin: removing or demoting it is 409 last_admin; with a second admin it works', async () => {
    const admin = (await (await t.api('/api/me')).json()) as {
      user: { id: number };
      credential: { kind: string };
    };
    assert.equal(admin.credential.kind, 'admin-token');
    const del = await t.api(`/api/users/${admin.user.id}`, { method: 'DELETE' });
    assert.equal(del.status, 409);
    assert.equal((await errorOf(del)).error, 'last_admin');
    const demote = await t.api(`/api/users/${admin.user.id}`, jsonBody('PATCH', { role: 'member' }));
    assert.equal((await errorOf(demote)).error, 'last_admin');
    const second = await createUser(t, { name: 'Second Admin', password: PASSWORD, role: 'admin' });
    const demoted = await t.api(
      `/api/users/${second.id}`,
      jsonBody('PATCH', { role: 'child', max_certification: 'G' }),
    );
    assert.equal(demoted.status, 200);
    assert.equal(((await demoted.json()) as { role: string }).role, 'child');
    assert.equal((await t.api(`/api/users/${second.id}`, { method: 'DELETE' })).status, 204);
    assert.equal((await t.api(`/api/users/${second.id}`)).status, 404);
  });

  it('the admin token follows its person: renamed, it answers with the new name (kept in memory, read again on a change)', async () => {
    const me = async () =>
      ((await (await t.api('/api/me')).json()) as { user: { id: number; name: string } }).user;
    const before = await me();
    const renamed = await t.api(`/api/users/${before.id}`, jsonBody('PATCH', { name: 'Head of House' }));
    assert.equal(renamed.status, 200);
    assert.equal((await me()).name, 'Head of House');
    await t.api(`/api/users/${before.id}`, jsonBody('PATCH', { name: before.name }));
    assert.equal((await me()).name, before.name);
  });

  it('sign-in: a session cookie (HttpOnly, SameSite=Lax; Secure behind TLS), /api/me, CSRF on writes, sign-out', async () => {
    const s = await signIn(t, 'anna', PASSWORD);
    assert.match(
      s.setCookie,
      /^reelshelf_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=2592000; HttpOnly; SameSite=Lax$/,
    );
    assert.equal(s.user.name, 'Anna');
    const me = (await (await asSession(t, s, '/api/me')).json()) as {
      user: { name: string; role: string };
      credential: { kind: string; scope: string };
    };
    assert.deepEqual(
      [me.user.name, me.user.role, me.credential.kind, me.credential.scope],
      ['Anna', 'member', 'session', 'full'],
    );
    const noCsrf = await fetch(`${t.url}/api/me/pin`, {
      method: 'PUT',
      headers: { cookie: s.cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ pin: '1234' }),
    });
    assert.equal(noCsrf.status, 403);
    assert.equal((await errorOf(noCsrf)).error, 'csrf_failed');
    assert.equal((await asSession(t, s, '/api/users')).status, 403, 'a member is no admin');

    const tls = await fetch(`${t.url}/api/sessions`, {
      ...jsonBody('POST', { name: 'anna', password: PASSWORD }),
      headers: {
        'content-type': 'application/json',
        'x-forwarded-proto': 'https',
        'x-forwarded-for': '10.9.9.9',
      },
    });
    assert.match(tls.headers.get('set-cookie') ?? '', /; Secure$/, 'TLS at the proxy: a Secure cookie');

    const sessionId = ((await (await asSession(t, s, '/api/me')).json()) as { credential: { id: number } })
      .credential.id;
    const auth = t.server.services.authentication;
    assert.equal(await auth.credentialLive({ kind: 'session', id: sessionId }), true);
    const out = await asSession(t, s, '/api/sessions/current', { method: 'DELETE' });
    assert.equal(await auth.credentialLive({ kind: 'session', id: sessionId }), false);
    assert.equal(out.status, 204);
    assert.match(out.headers.get('set-cookie') ?? '', /Max-Age=0/);
    assert.equal((await asSession(t, s, '/api/me')).status, 401);
  });

  it('the first admin signs in with the admin token as password (name admin, or none); wrong → 401', async () => {
    await signIn(t, 'admin', t.token);
    await signIn(t, '', t.token);
    const wrong = await fetch(`${t.url}/api/sessions`, {
      ...jsonBody('POST', { name: 'admin', password: 'not the token' }),
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '10.9.9.8' },
    });
    assert.equal(wrong.status, 401);
    assert.equal((await errorOf(wrong)).error, 'unauthorized');
    const anna = await fetch(`${t.url}/api/sessions`, {
      ...jsonBody('POST', { name: 'anna', password: t.token }),
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '10.9.9.8' },
    });
    assert.equal(anna.status, 401, 'the admin token is only the first admin’s');
  });

  it('sign out everywhere ends every session of the person, not others’', async () => {
    const a1 = await signIn(t, 'anna', PASSWORD);
    const a2 = await signIn(t, 'anna', PASSWORD);
    const admin = await signIn(t, 'admin', t.token);
    const res = await asSession(t, a1, '/api/sessions', { method: 'DELETE' });
    assert.equal(res.status, 200);
    assert.ok(((await res.json()) as { revoked: number }).revoked >= 2);
    assert.equal((await asSession(t, a1, '/api/me')).status, 401);
    assert.equal((await asSession(t, a2, '/api/me')).status, 401);
    assert.equal((await asSession(t, admin, '/api/me')).status, 200);
  });

  it('a new password signs the person out everywhere', async () => {
    const anna = await signIn(t, 'anna', PASSWORD);
    const id = anna.user.id;
    assert.equal(
      (await t.api(`/api/users/${id}`, jsonBody('PATCH', { password: `${PASSWORD}!` }))).status,
      200,
    );
    assert.equal((await asSession(t, anna, '/api/me')).status, 401);
    await signIn(t, 'anna', `${PASSWORD}!`);
    assert.equal((await t.api(`/api/users/${id}`, jsonBody('PATCH', { password: PASSWORD }))).status, 200);
  });

  it('browser sessions: idle after 12 h without a request, ended after 30 days whatever', async () => {
    const idle = await signIn(t, 'anna', PASSWORD);
    const busy = await signIn(t, 'anna', PASSWORD);
    clock.advance(11 * 3_600_000);
    assert.equal((await asSession(t, busy, '/api/me')).status, 200);
    clock.advance(2 * 3_600_000);
    assert.equal((await asSession(t, idle, '/api/me')).status, 401, 'idle 13 h');
    assert.equal((await asSession(t, busy, '/api/me')).status, 200, 'used 2 h ago');
    // Used every 11 h from hour 13 on, it holds until its absolute end at 720 h (30 days).
    let hours = 13;
    while (hours + 11 < 720) {
      clock.advance(11 * 3_600_000);
      hours += 11;
      assert.equal((await asSession(t, busy, '/api/me')).status, 200, `at ${hours} h`);
    }
    clock.advance(11 * 3_600_000);
    assert.equal((await asSession(t, busy, '/api/me')).status, 401, `at ${hours + 11} h: past 30 days`);
  });

  it('keys: shown once as rsk_…, stored hashed; scopes hold; last use listed; revoked → 401 at once', async () => {
    const created = await t.api(
      '/api/keys',
      jsonBody('POST', { name: 'Script', scope: 'read', user: 'anna' }),
    );
    assert.equal(created.status, 201);
    const readKey = (await created.json()) as { id: number; key: string; scope: string; owner: string };
    assert.match(readKey.key, /^rsk_[A-Za-z0-9_-]{43}$/);
    assert.equal(readKey.owner, 'Anna');
    const row = t.server.database.db;
    const stored = await row
      .selectFrom('api_keys')
      .select('key_hash')
      .where('id', '=', readKey.id)
      .executeTakeFirstOrThrow();
    assert.match(stored.key_hash, /^[0-9a-f]{64}$/);
    assert.notEqual(stored.key_hash, readKey.key);

    assert.equal((await asBearer(t, readKey.key, '/library')).status, 200);
    const post = await asBearer(t, readKey.key, '/api/movies', jsonBody('POST', { title: 'Nope' }));
    assert.equal(post.status, 403, 'a read key cannot POST');
    assert.equal((await asBearer(t, readKey.key, '/api/keys')).status, 403);

    const playback = (await (
      await t.api('/api/keys', jsonBody('POST', { name: 'TV', scope: 'playback', user: readKey.owner }))
    ).json()) as { id: number; key: string };
    assert.equal((await asBearer(t, playback.key, '/library')).status, 200);
    const list = await asBearer(t, playback.key, '/api/keys');
    assert.equal(list.status, 403, 'a playback key cannot list keys');
    assert.equal((await errorOf(list)).error, 'forbidden');
    assert.equal(
      (await asBearer(t, playback.key, '/api/keys', jsonBody('POST', { name: 'x', scope: 'read' }))).status,
      403,
    );

    const admin = (await (await t.api('/api/keys')).json()) as {
      items: { id: number; owner: string; last_used_at: string | null; last_used_address: string | null }[];
    };
    const used = admin.items.find((k) => k.id === readKey.id);
    assert.equal(used?.owner, 'Anna');
    assert.ok(used?.last_used_at !== null);
    assert.equal(used?.last_used_address, '127.0.0.1');

    const auth = t.server.services.authentication;
    assert.equal(await auth.credentialLive({ kind: 'key', id: playback.id }), true);
    assert.equal((await t.api(`/api/keys/${playback.id}`, { method: 'DELETE' })).status, 204);
    assert.equal(
      await auth.credentialLive({ kind: 'key', id: playback.id }),
      false,
      'for playback tokens made from it',
    );
    assert.equal((await asBearer(t, playback.key, '/library')).status, 401, 'revoked within one request');
    const listed = (await (await t.api('/api/keys')).json()) as {
      items: { id: number; revoked_at: string | null }[];
    };
    assert.ok(listed.items.find((k) => k.id === playback.id)?.revoked_at !== null);
  });

  it('keys: an admin key only for an admin; a member makes read/playback keys for themself only', async () => {
    const forMember = await t.api('/api/keys', jsonBody('POST', { name: 'x', scope: 'admin', user: 'anna' }));
    assert.equal(forMember.status, 400);
    const anna = await signIn(t, 'anna', PASSWORD);
    const own = await asSession(t, anna, '/api/keys', jsonBody('POST', { name: 'Phone', scope: 'playback' }));
    assert.equal(own.status, 201);
    assert.equal(
      (await asSession(t, anna, '/api/keys', jsonBody('POST', { name: 'x', scope: 'admin' }))).status,
      400,
    );
    assert.equal(
      (await asSession(t, anna, '/api/keys', jsonBody('POST', { name: 'x', scope: 'read', user: 'admin' })))
        .status,
      403,
    );
    const mine = (await (await asSession(t, anna, '/api/keys')).json()) as { items: { owner: string }[] };
    assert.ok(mine.items.length >= 1);
    assert.ok(
      mine.items.every((k) => k.owner === 'Anna'),
      'a member lists only their own keys',
    );
    const adminKey = (await (
      await t.api('/api/keys', jsonBody('POST', { name: 'ops', scope: 'admin' }))
    ).json()) as { key: string };
    assert.equal((await asBearer(t, adminKey.key, '/api/users')).status, 200);
  });

  it('a key in the query string of /api is refused with a hint; the header works', async () => {
    const key = (
      (await (await t.api('/api/keys', jsonBody('POST', { name: 'q', scope: 'read' }))).json()) as {
        key: string;
      }
    ).key;
    for (const param of ['api_key', 'key', 'token']) {
      const res = await fetch(`${t.url}/api/movies?${param}=${key}`);
      assert.equal(res.status, 401, param);
      const err = await errorOf(res);
      assert.equal(err.error, 'unauthorized');
      assert.match(err.hint ?? '', /Authorization: Bearer/);
    }
    assert.equal((await asBearer(t, key, '/api/movies')).status, 200);
  });

  it('20 wrong passwords in a minute → 429 with Retry-After; the right password still works from another address', async () => {
    await createUser(t, { name: 'Target', password: PASSWORD, role: 'member' });
    let limited: Response | null = null;
    for (let i = 0; i < 21; i++) {
      const res = await fetch(`${t.url}/api/sessions`, {
        ...jsonBody('POST', { name: 'target', password: `wrong guess ${i}` }),
        headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.7' },
      });
      assert.ok(res.status === 401 || res.status === 429, String(res.status));
      if (res.status === 429) limited = res;
    }
    assert.ok(limited !== null, 'limited within 20 failures');
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
    assert.equal((await errorOf(limited)).error, 'rate_limited');
    const attacker = await fetch(`${t.url}/api/sessions`, {
      ...jsonBody('POST', { name: 'target', password: PASSWORD }),
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.7' },
    });
    assert.equal(attacker.status, 429, 'the guessing address waits even with the right password');
    const home = await signIn(t, 'Target', PASSWORD, '192.168.1.20');
    assert.equal(home.user.name, 'Target', 'not locked out from another address');
  });

  it('an address failing 20 times on any names or tokens waits for everything (429)', async () => {
    for (let i = 0; i < 10; i++) {
      await fetch(`${t.url}/api/sessions`, {
        ...jsonBody('POST', { name: `nobody${i}`, password: 'whatever whatever' }),
        headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.9' },
      });
    }
    for (let i = 0; i < 10; i++) {
      const res = await fetch(`${t.url}/library`, {
        headers: { authorization: `Bearer rsk_${'x'.repeat(43)}`, 'x-forwarded-for': '198.51.100.9' },
      });
      assert.equal(res.status, 401);
    }
    const res = await fetch(`${t.url}/library`, {
      headers: { authorization: `Bearer ${t.token}`, 'x-forwarded-for': '198.51.100.9' },
    });
    assert.equal(res.status, 429);
    assert.ok(Number(res.headers.get('retry-after')) >= 1);
    assert.equal(
      (
        await fetch(`${t.url}/library`, {
          headers: { authorization: `Bearer ${t.token}`, 'x-forwarded-for': '198.51.100.10' },
        })
      ).status,
      200,
    );
  });

  it('quick switching: a PIN opens a profile; five wrong PINs pause it (429, doubling); never to an admin', async () => {
    const mum = await createUser(t, { name: 'Mum', password: PASSWORD, role: 'member' });
    const kid2 = await createUser(t, {
      name: 'Kid Two',
      password: PASSWORD,
      role: 'child',
      max_certification: 'G',
    });
    const mumSession = await signIn(t, 'mum', PASSWORD, '10.7.0.1');
    assert.equal(
      (
        await asSession(t, mumSession, '/api/me/pin', {
          method: 'PUT',
          body: JSON.stringify({ pin: '12a4' }),
        })
      ).status,
      400,
    );
    assert.equal(
      (
        await asSession(t, mumSession, '/api/me/pin', {
          method: 'PUT',
          body: JSON.stringify({ pin: '4711' }),
        })
      ).status,
      204,
    );

    // A child's session: to Mum with her PIN, never to an admin, not to a child without a PIN.
    const kid = await signIn(t, 'kid', PASSWORD, '10.7.0.2');
    const toAdmin = await asSession(t, kid, '/api/sessions/switch', {
      method: 'POST',
      body: JSON.stringify({ user: 'admin' }),
    });
    assert.equal(toAdmin.status, 403);
    assert.equal(
      (
        await asSession(t, kid, '/api/sessions/switch', {
          method: 'POST',
          body: JSON.stringify({ user: kid2.id }),
        })
      ).status,
      403,
    );
    const noPin = await asSession(t, kid, '/api/sessions/switch', {
      method: 'POST',
      body: JSON.stringify({ user: mum.id }),
    });
    assert.equal(noPin.status, 400);
    const statuses: number[] = [];
    let paused: Response | null = null;
    for (let i = 0; i < 5; i++) {
      const res = await asSession(t, kid, '/api/sessions/switch', {
        method: 'POST',
        body: JSON.stringify({ user: mum.id, pin: `000${i}` }),
      });
      statuses.push(res.status);
      paused = res;
    }
    assert.deepEqual(statuses, [403, 403, 403, 403, 429]);
    assert.equal(paused?.headers.get('retry-after'), '60');
    const rightButPaused = await asSession(t, kid, '/api/sessions/switch', {
      method: 'POST',
      body: JSON.stringify({ user: mum.id, pin: '4711' }),
    });
    assert.equal(rightButPaused.status, 429, 'paused means paused, even for the right PIN');
    clock.advance(61_000);
    const sixth = await asSession(t, kid, '/api/sessions/switch', {
      method: 'POST',
      body: JSON.stringify({ user: mum.id, pin: '9999' }),
    });
    assert.equal(sixth.status, 429);
    assert.equal(sixth.headers.get('retry-after'), '120', 'the pause doubles');
    clock.advance(121_000);
    const ok = await asSession(t, kid, '/api/sessions/switch', {
      method: 'POST',
      body: JSON.stringify({ user: 'Mum', pin: '4711' }),
    });
    assert.equal(ok.status, 200);
    const me = (await (await asSession(t, kid, '/api/me')).json()) as { user: { name: string } };
    assert.equal(me.user.name, 'Mum', 'the same session now speaks for Mum (and its CSRF token still holds)');
    // Mum (a member) switches down to a child without a PIN; an admin's session to Mum would too.
    const down = await asSession(t, kid, '/api/sessions/switch', {
      method: 'POST',
      body: JSON.stringify({ user: kid2.id }),
    });
    assert.equal(down.status, 200);
    // A key has no session to switch.
    const key = (
      (await (await t.api('/api/keys', jsonBody('POST', { name: 'k', scope: 'admin' }))).json()) as {
        key: string;
      }
    ).key;
    assert.equal(
      (await asBearer(t, key, '/api/sessions/switch', jsonBody('POST', { user: mum.id }))).status,
      403,
    );
    // The admin clears Mum's PIN.
    assert.equal((await t.api(`/api/users/${mum.id}/pin`, { method: 'DELETE' })).status, 204);
    assert.equal(
      ((await (await t.api(`/api/users/${mum.id}`)).json()) as { has_pin: boolean }).has_pin,
      false,
    );
  });

  it('pages: who’s watching lists the profiles; People (admins) creates a key shown once; the nav links it', async () => {
    const admin = await signIn(t, 'admin', t.token);
    const who = await asSession(t, admin, '/who', { headers: { accept: 'text/html' } });
    assert.equal(who.status, 200);
    const whoHtml = await who.text();
    assert.match(whoHtml, /Who’s watching\?/);
    assert.match(whoHtml, /Switch to Anna/);
    assert.match(whoHtml, /href="\/people"/);
    const form = new URLSearchParams({
      _csrf: admin.csrf,
      name: 'Living room',
      scope: 'playback',
      user: '1',
    });
    const created = await fetch(`${t.url}/people/keys`, {
      method: 'POST',
      headers: { cookie: admin.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    });
    assert.equal(created.status, 200);
    const key = /<code class="key" id="new-key">(rsk_[A-Za-z0-9_-]{43})<\/code>/.exec(
      await created.text(),
    )?.[1];
    assert.ok(key !== undefined, 'the key is shown');
    assert.equal((await asBearer(t, key, '/library')).status, 200);
    const again = await (await asSession(t, admin, '/people', { headers: { accept: 'text/html' } })).text();
    assert.ok(!again.includes(key), 'shown once');
    assert.match(again, /Living room/);
    const anna = await signIn(t, 'anna', PASSWORD);
    const annaPeople = await asSession(t, anna, '/people', { headers: { accept: 'text/html' } });
    assert.equal(annaPeople.status, 403);
    const annaLib = await (await asSession(t, anna, '/who', { headers: { accept: 'text/html' } })).text();
    assert.doesNotMatch(annaLib, /href="\/people"/, 'no People link for a member');
  });
});

describe('sessions survive a restart; so does their revocation', () => {
  it('sign in, sign out, restart on the same data dir, replay the old cookie → 401', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'reelshelf-sessions-'));
    try {
      let t = await startTestServer({ REELSHELF_DATA_DIR: dataDir });
      const out = await signIn(t, 'admin', t.token);
      const kept = await signIn(t, 'admin', t.token);
      assert.equal((await asSession(t, out, '/api/sessions/current', { method: 'DELETE' })).status, 204);
      assert.equal((await asSession(t, out, '/api/me')).status, 401);
      await t.close();
      t = await startTestServer({ REELSHELF_DATA_DIR: dataDir });
      try {
        assert.equal((await asSession(t, out, '/api/me')).status, 401, 'the signed-out cookie stays out');
        assert.equal((await asSession(t, kept, '/api/me')).status, 200, 'a live session survives');
        const write = await asSession(t, kept, '/api/me/pin', { method: 'DELETE' });
        assert.equal(write.status, 204, 'its CSRF token still holds');
      } finally {
        await t.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
