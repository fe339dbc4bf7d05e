import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { LibraryResponse } from '@reelshelf/contract';
import { registerFiles } from '../helpers/library-fixtures.ts';
import { fixtureFfmpeg, makeFixture } from '../helpers/media.ts';
import { jsonBody, startTestServer, type TestServer } from '../helpers/test-server.ts';
import { waitFor } from '../helpers/wait.ts';

// Issue 22, each person's own state: two people of one household resume the same film at their own
// positions, each with their own history and "continue watching"; one person's progress leaves the
// other's listing (bytes and ETag) alone; a playback token dies with its session or key within one
// request; an admin stops a play (its HLS run ends, its next segment is 401). Real SQLite, real
// HTTP on loopback, real ffmpeg on media made here.

/** The server's ffmpeg at half real time: a conversion is still running when the admin stops it. */
function halfSpeedFfmpeg(dir: string): string {
  const path = join(dir, 'ffmpeg-at-half-speed');
  writeFileSync(path, `#!/bin/sh\nexec '${fixtureFfmpeg.replaceAll("'", "'\\''")}' -readrate 0.5 "$@"\n`);
  chmodSync(path, 0o755);
  return path;
}

interface Edition {
  media_file_id: number;
  stream_url: string;
  resume_position_seconds: number;
  watched: boolean;
}

describe('households: own watch state, history, tokens that end, what plays now', () => {
  let t: TestServer;
  let dir: string;
  let ids: Record<string, { movieId: number; fileId: number }>;
  /** A person's credential: a bearer (the admin token, a key) or a signed-in browser's cookie and CSRF token. */
  type Cred = string | { cookie: string; csrf: string };
  const secrets: Record<'anna' | 'ben', Cred> = { anna: '', ben: '' };
  let benKey = '';
  const sessionIds: Record<string, number> = {};
  let benKeyId = 0;
  const PASSWORD = 'a-long-household-password';

  /** Signs a person in through POST /api/sessions, as the sign-in page does. */
  async function signIn(name: string): Promise<{ cookie: string; csrf: string }> {
    const res = await fetch(`${t.url}/api/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name, password: PASSWORD }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const { csrf_token } = (await res.json()) as { csrf_token: string };
    return { cookie, csrf: csrf_token };
  }

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'reelshelf-households-'));
    const files = {
      // 400 s: positions in it are places to resume (the resume rule: films of 5 minutes or more).
      direct: await makeFixture('h264_aac_long.mp4', join(dir, 'Direct (2001).mp4'), 400),
      convert: await makeFixture('mpeg2_ac3.mkv', join(dir, 'Convert (2002).mkv'), 12),
    };
    t = await startTestServer({ REELSHELF_FFMPEG: halfSpeedFfmpeg(dir), REELSHELF_HLS_IDLE_SECONDS: '60' });
    const db = t.server.database.db;
    ids = await registerFiles(db, dir, files);
    await t.server.services.analysis.analyzePending();
    // Two members, made by the admin and each signed in on a browser, and a playback key an admin
    // made for Ben's TV: all through the people API.
    for (const name of ['anna', 'ben'] as const) {
      const made = await t.api('/api/users', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name, password: PASSWORD, role: 'member' }),
      });
      assert.equal(made.status, 201, await made.clone().text());
      const user = (await made.json()) as { id: number };
      const session = await signIn(name);
      secrets[name] = session;
      sessionIds[name] = (
        (await (await as(session, '/api/me')).json()) as { credential: { id: number } }
      ).credential.id;
      if (name === 'ben') {
        const key = await t.api('/api/keys', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'living-room TV', scope: 'playback', user: user.id }),
        });
        assert.equal(key.status, 201, await key.clone().text());
        const made = (await key.json()) as { id: number; key: string };
        benKey = made.key;
        benKeyId = made.id;
      }
    }
  });
  after(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const as = (cred: Cred, path: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    if (typeof cred === 'string') headers.set('authorization', `Bearer ${cred}`);
    else {
      headers.set('cookie', cred.cookie);
      if ((init.method ?? 'GET') !== 'GET') headers.set('x-csrf-token', cred.csrf);
    }
    return fetch(`${t.url}${path}`, { ...init, headers });
  };
  const fileId = (name: string) => ids[name]?.fileId ?? 0;

  async function edition(bearer: Cred, name: string): Promise<Edition> {
    const res = await as(bearer, '/library?device=web');
    assert.equal(res.status, 200);
    const body = (await res.json()) as LibraryResponse;
    const found = body.items.flatMap((i) => i.editions).find((e) => e.media_file_id === fileId(name));
    assert.ok(found, `${name} is listed`);
    return found as Edition;
  }

  async function play(url: string): Promise<Response> {
    const res = await fetch(`${t.url}${url}`, { headers: { range: 'bytes=0-99' } });
    await res.arrayBuffer();
    return res;
  }

  it('two people resume the same film at their own positions; each sees only their own state and history', async () => {
    // Each starts the film from their own listing's URL (signed for their session)…
    for (const who of ['anna', 'ben'] as const) {
      const e = await edition(secrets[who], 'direct');
      assert.match(e.stream_url, new RegExp(`token=v2\\.\\d+\\.s${sessionIds[who]}\\.`));
      assert.equal((await play(e.stream_url)).status, 206);
    }
    // …and stops at their own place.
    const put = (who: 'anna' | 'ben', seconds: number) =>
      as(
        secrets[who],
        `/api/media-file/${fileId('direct')}/progress`,
        jsonBody('PUT', { position_seconds: seconds }),
      );
    assert.equal((await put('anna', 100)).status, 200);
    assert.equal((await put('ben', 40)).status, 200);

    assert.equal((await edition(secrets.anna, 'direct')).resume_position_seconds, 100);
    assert.equal((await edition(secrets.ben, 'direct')).resume_position_seconds, 40);
    assert.equal((await edition(t.token, 'direct')).resume_position_seconds, 0, "the admin's own: none");
    const listing = (await (await t.api('/library?device=web')).json()) as LibraryResponse;
    assert.equal(
      listing.items.filter((i) => i.editions.some((e) => e.media_file_id === fileId('direct'))).length,
      1,
      'one item for the file, however many people have state on it',
    );

    for (const [who, position] of [
      ['anna', 100],
      ['ben', 40],
    ] as const) {
      const history = (await (await as(secrets[who], '/api/me/history')).json()) as {
        items: {
          title: string;
          device: string;
          mode: string;
          position_seconds: number;
          duration_seconds: number;
        }[];
        total: number;
      };
      assert.equal(history.total, 1, `${who}: one play`);
      assert.deepEqual(
        history.items.map((i) => [i.title, i.device, i.mode, i.position_seconds, i.duration_seconds]),
        [['Movie direct', 'web', 'direct', position, 400]],
        `${who}: their own play only`,
      );
      const resume = (await (await as(secrets[who], '/api/me/continue')).json()) as {
        items: { media_file_id: number; position_seconds: number }[];
      };
      assert.deepEqual(
        resume.items.map((i) => [i.media_file_id, i.position_seconds]),
        [[fileId('direct'), position]],
      );
    }
    const adminHistory = (await (await t.api('/api/me/history')).json()) as { total: number };
    assert.equal(adminHistory.total, 0, "nobody else's plays");

    // Watched: out of "continue watching", for that person only.
    await as(
      secrets.ben,
      `/api/media-file/${fileId('direct')}/progress`,
      jsonBody('PUT', { position_seconds: 41, watched: true }),
    );
    const benResume = (await (await as(secrets.ben, '/api/me/continue')).json()) as { items: unknown[] };
    assert.deepEqual(benResume.items, []);
    const annaResume = (await (await as(secrets.anna, '/api/me/continue')).json()) as { items: unknown[] };
    assert.equal(annaResume.items.length, 1);
  });

  it("one person's progress leaves another's listing alone: same bytes, same ETag, no rebuild", async () => {
    const first = await as(secrets.anna, '/library?device=web');
    const tag = first.headers.get('etag') ?? '';
    const bytes = await first.text();
    const builds = t.server.services.listing.stats().builds;
    assert.equal(
      (
        await as(
          secrets.ben,
          `/api/media-file/${fileId('direct')}/progress`,
          jsonBody('PUT', { position_seconds: 55 }),
        )
      ).status,
      200,
    );
    const again = await as(secrets.anna, '/library?device=web', { headers: { 'if-none-match': tag } });
    assert.equal(again.status, 304, "Ben's progress is not Anna's change");
    const full = await as(secrets.anna, '/library?device=web');
    assert.equal(full.headers.get('etag'), tag);
    assert.equal(await full.text(), bytes);
    assert.equal(t.server.services.listing.stats().builds, builds, 'nothing was built for Anna');
    assert.equal((await edition(secrets.ben, 'direct')).resume_position_seconds, 55, "Ben's shows his");
    // Anna's own progress does change hers.
    await as(
      secrets.anna,
      `/api/media-file/${fileId('direct')}/progress`,
      jsonBody('PUT', { position_seconds: 120 }),
    );
    const moved = await as(secrets.anna, '/library?device=web', { headers: { 'if-none-match': tag } });
    assert.equal(moved.status, 200);
    assert.notEqual(moved.headers.get('etag'), tag);
  });

  it('a token whose session or key is revoked or expired is refused on the next request (401)', async () => {
    const db = t.server.database.db;
    // A key's tokens: the key signs the listing, its URL plays, then the key is revoked.
    const byKey = await edition(benKey, 'direct');
    assert.match(byKey.stream_url, new RegExp(`token=v2\\.\\d+\\.k${benKeyId}\\.`));
    assert.equal((await play(byKey.stream_url)).status, 206);
    // Ben's session's URL of the same file: a token of another credential lives on.
    const bySession = await edition(secrets.ben, 'direct');
    assert.equal((await t.api(`/api/keys/${benKeyId}`, { method: 'DELETE' })).status, 204);
    const refused = await play(byKey.stream_url);
    assert.equal(refused.status, 401);
    const why = (await (await fetch(`${t.url}${byKey.stream_url}`)).json()) as { reason: string };
    assert.equal(why.reason, 'revoked');
    assert.equal((await play(bySession.stream_url)).status, 206, "the session's token still plays");

    // A session that reaches its absolute expiry, then one signed out (revoked).
    await db
      .updateTable('sessions')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', sessionIds.ben ?? 0)
      .execute();
    assert.equal((await play(bySession.stream_url)).status, 401, 'expired session');
    const annas = await edition(secrets.anna, 'direct');
    assert.equal((await play(annas.stream_url)).status, 206);
    // Anna signs out: her session is revoked, and with it every token made from it.
    assert.equal((await as(secrets.anna, '/api/sessions/current', { method: 'DELETE' })).status, 204);
    const gone = await fetch(`${t.url}${annas.stream_url}`);
    assert.equal(gone.status, 401);
    const body = (await gone.json()) as { error: string; message: string; reason: string };
    assert.equal(body.error, 'unauthorized');
    assert.equal(body.reason, 'revoked');
    assert.match(body.message, /session or key/);
    // The admin token's tokens have no row to end.
    assert.equal((await play((await edition(t.token, 'direct')).stream_url)).status, 206);
    // Sign Anna back in (a new session) for the next test.
    secrets.anna = await signIn('anna');
  });

  it('an admin sees what plays now and stops a play: its HLS run ends, its next segment is 401', async () => {
    const hls = t.server.services.hls;
    const info = (await (
      await as(secrets.anna, `/api/media-file/${fileId('convert')}/playback?device=web`)
    ).json()) as {
      hls_url: string | null;
    };
    assert.ok(info.hls_url !== null, 'the conversion plays over HLS');
    const master = await fetch(`${t.url}${info.hls_url}`);
    assert.equal(master.status, 200);
    await master.text();
    // The video rendition's segments, as its media playlist names them (MPEG-TS or fMP4).
    const query = new URL(`${t.url}${info.hls_url}`).search;
    const playlistUrl = `${t.url}/stream/media_file/${fileId('convert')}/hls/v/index.m3u8${query}`;
    const playlist = await (await fetch(playlistUrl)).text();
    const uris = playlist.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
    assert.ok(uris.length >= 2, playlist);
    const segmentUrl = (n: number) => new URL(uris[n] ?? '', playlistUrl).toString();
    const first = await fetch(segmentUrl(0));
    assert.equal(first.status, 200);
    await first.arrayBuffer();
    await waitFor(
      () => hls.running() === 1,
      () => 'the conversion to run',
    );

    type Active = {
      id: number;
      user_name: string;
      title: string;
      mode: string;
      device: string;
      conversion_speed: number | null;
    };
    const active = await waitFor(
      async () => {
        const res = await t.api('/api/sessions/active');
        assert.equal(res.status, 200);
        const { items } = (await res.json()) as { items: Active[] };
        const found = items.find((i) => i.user_name === 'anna' && i.title === 'Movie convert');
        return found?.conversion_speed != null ? found : null;
      },
      () => "Anna's converted play with its conversion speed",
      { timeoutMs: 15_000, intervalMs: 100 },
    );
    assert.equal(active.mode, 'converted');
    assert.equal(active.device, 'web');
    assert.ok(
      (active.conversion_speed ?? 0) > 0 && (active.conversion_speed ?? 1) < 1,
      `speed ${active.conversion_speed}`,
    );
    assert.equal((await as(secrets.anna, '/api/sessions/active')).status, 403, 'a member may not list them');
    assert.equal(
      (await as(secrets.anna, `/api/sessions/active/${active.id}`, { method: 'DELETE' })).status,
      403,
    );

    const stopped = await t.api(`/api/sessions/active/${active.id}`, { method: 'DELETE' });
    assert.equal(stopped.status, 200);
    assert.equal(hls.running(), 0, 'the run has ended');
    const next = await fetch(segmentUrl(1));
    assert.equal(next.status, 401);
    const body = (await next.json()) as { error: string; message: string };
    assert.equal(body.error, 'unauthorized');
    assert.match(body.message, /admin stopped/);
    const { items } = (await (await t.api('/api/sessions/active')).json()) as { items: Active[] };
    assert.ok(!items.some((i) => i.id === active.id), 'it left the list');
    assert.equal((await t.api(`/api/sessions/active/${active.id}`, { method: 'DELETE' })).status, 404);

    // Anna may start it again: a fresh URL plays.
    const fresh = (await (
      await as(secrets.anna, `/api/media-file/${fileId('convert')}/playback?device=web`)
    ).json()) as {
      hls_url: string;
    };
    assert.notEqual(fresh.hls_url, info.hls_url);
    const restarted = await fetch(`${t.url}${fresh.hls_url}`);
    assert.equal(restarted.status, 200);
    await restarted.text();
  });

  it('the pages: history per person, continue watching on the library, now playing with a stop form', async () => {
    const annaHistory = await as(secrets.anna, '/history', { headers: { accept: 'text/html' } });
    assert.equal(annaHistory.status, 200);
    const text = await annaHistory.text();
    assert.match(text, /Movie direct/);
    assert.match(text, /Movie convert/);
    const library = await (await as(secrets.anna, '/library', { headers: { accept: 'text/html' } })).text();
    assert.match(library, /Continue watching[\s\S]*Movie direct[\s\S]*at 2 min/);

    // The admin plays the film, signs in in a browser (the admin token), sees the play and stops it.
    const adminUrl = (await edition(t.token, 'direct')).stream_url;
    assert.equal((await play(adminUrl)).status, 206);
    const signIn = await fetch(`${t.url}/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: t.token, next: '/now-playing' }).toString(),
    });
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const page = await fetch(`${t.url}/now-playing`, { headers: { cookie } });
    assert.equal(page.status, 200);
    const html = await page.text();
    const form =
      /<form method="post" action="\/now-playing\/(\d+)\/stop">\s*<input type="hidden" name="_csrf" value="([^"]+)"/.exec(
        html,
      );
    assert.ok(form, html);
    assert.match(html, /admin/);
    const withoutCsrf = await fetch(`${t.url}/now-playing/${form[1]}/stop`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    assert.equal(withoutCsrf.status, 403, 'the form needs its CSRF token');
    const stop = await fetch(`${t.url}/now-playing/${form[1]}/stop`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: form[2] ?? '' }).toString(),
    });
    assert.equal(stop.status, 200);
    assert.match(await stop.text(), /Stopped: Movie direct for admin/);
    assert.equal((await play(adminUrl)).status, 401, "the stopped play's URL is dead");
  });
});
