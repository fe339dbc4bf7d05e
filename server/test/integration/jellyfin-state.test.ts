// The Jellyfin facade's progress, played, sessions, sign-out and login-screen calls, driven by
// @jellyfin/sdk 1.0.0 against a real reelshelf on loopback with real (ffprobed) films: a report
// becomes the person's own resume position in GET /library (another person sees none) under the
// one resume rule, the play shows on the admin's now-playing list with the app and device, played
// marks come back as UserItemDataDto, sign-out ends the token, and unknown paths are JSON 404s.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { LibraryResponse } from '@reelshelf/contract';
import { Jellyfin } from '@jellyfin/sdk/lib/jellyfin.js';
import type { Api } from '@jellyfin/sdk/lib/api.js';
import { getSessionApi } from '@jellyfin/sdk/lib/utils/api/session-api.js';
import { getUserDataApi } from '@jellyfin/sdk/lib/utils/api/user-data-api.js';
import { WebSocket } from 'undici';
import { registerFiles } from '../helpers/library-fixtures.ts';
import { makeFixture } from '../helpers/media.ts';
import { jsonBody, startTestServer, type TestServer } from '../helpers/test-server.ts';

const jellyfin = new Jellyfin({
  clientInfo: { name: 'Findroid', version: '0.15.0' },
  deviceInfo: { name: 'Living room Shield', id: 'device-1' },
});

const TICKS = 10_000_000;
const PASSWORD = 'correct horse battery';
/** The SDK's own Accept header (players.md §1.10): camelCase is offered, PascalCase must win. */
const SDK_ACCEPT =
  'application/json,application/json; profile=CamelCase,application/json; profile=PascalCase,text/html';

/** The SDK calls used here, typed by hand (docs/jellyfin.md "SDK types"); the calls are the SDK's. */
interface Report {
  ItemId?: string;
  MediaSourceId?: string;
  PositionTicks?: number;
  PlayMethod?: string;
  PlaySessionId?: string;
  IsPaused?: boolean;
}
interface SessionCalls {
  reportPlaybackStart(r: { playbackStartInfo: Report }): Promise<{ status: number }>;
  reportPlaybackProgress(r: { playbackProgressInfo: Report }): Promise<{ status: number }>;
  reportPlaybackStopped(r: { playbackStopInfo: Report }): Promise<{ status: number }>;
  pingPlaybackSession(r: { playSessionId: string }): Promise<{ status: number }>;
  reportSessionEnded(): Promise<{ status: number }>;
}
interface UserItemData {
  Played?: boolean;
  PlaybackPositionTicks?: number;
  PlayCount?: number;
  IsFavorite?: boolean;
  ItemId?: string;
  Key?: string;
}
interface UserDataCalls {
  markPlayedItem(r: { itemId: string; userId?: string }): Promise<{ data: UserItemData }>;
  markUnplayedItem(r: { itemId: string; userId?: string }): Promise<{ data: UserItemData }>;
}
const sessionsOf = (api: Api): SessionCalls => getSessionApi(api) as unknown as SessionCalls;
const userDataOf = (api: Api): UserDataCalls => getUserDataApi(api) as unknown as UserDataCalls;

function statusOf(error: unknown): number | undefined {
  return (error as { response?: { status?: number } }).response?.status;
}

interface ActivePlay {
  id: number;
  user_name: string;
  device: string;
  media_file_id: number;
  position_seconds: number;
}

describe('jellyfin: progress, played, sessions and the calls on the way', () => {
  let server: TestServer;
  let media: string;
  let ids: Record<string, { movieId: number; fileId: number }>;
  const apis: Record<'anna' | 'ben', Api> = {} as Record<'anna' | 'ben', Api>;
  const tokens: Record<'anna' | 'ben', string> = { anna: '', ben: '' };
  const userIds: Record<'anna' | 'ben', string> = { anna: '', ben: '' };
  const secrets: Record<'anna' | 'ben', string> = { anna: '', ben: '' };
  const csrf: Record<'anna' | 'ben', string> = { anna: '', ben: '' };

  before(async () => {
    media = mkdtempSync(join(tmpdir(), 'reelshelf-jf-state-'));
    const files = {
      // 400 s and 240 s: the resume rule keeps places only in films of 5 minutes or more.
      long: await makeFixture('h264_aac_long.mp4', join(media, 'Long (2001).mp4'), 400),
      short: await makeFixture('h264_aac_long.mp4', join(media, 'Short (2002).mp4'), 240),
    };
    server = await startTestServer();
    ids = await registerFiles(server.server.database.db, media, files);
    await server.server.services.analysis.analyzePending();
    for (const name of ['anna', 'ben'] as const) {
      const made = await server.api(
        '/api/users',
        jsonBody('POST', { name, password: PASSWORD, role: 'member' }),
      );
      assert.equal(made.status, 201, await made.clone().text());
      const api = jellyfin.createApi(`${server.url}/jellyfin`);
      const { data } = await api.authenticateUserByName(name, PASSWORD);
      apis[name] = api;
      tokens[name] = data.AccessToken ?? '';
      userIds[name] = data.User?.Id ?? '';
      // A browser session of the same person, to read their /library.
      const signIn = await fetch(
        `${server.url}/api/sessions`,
        jsonBody('POST', { name, password: PASSWORD }),
      );
      assert.equal(signIn.status, 200, await signIn.clone().text());
      secrets[name] = (signIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      csrf[name] = ((await signIn.json()) as { csrf_token: string }).csrf_token;
    }
  });
  after(async () => {
    await server.close();
    rmSync(media, { recursive: true, force: true });
  });

  const idOf = (kind: 'movie' | 'media-source', n: number) =>
    server.server.services.jellyfin.ids.encode(kind, n);
  const raw = (path: string, init: RequestInit = {}): Promise<Response> =>
    fetch(`${server.url}/jellyfin${path}`, init);
  const auth = (who: 'anna' | 'ben') => ({
    authorization: `MediaBrowser Client="Findroid", Device="Living room Shield", DeviceId="device-1", Version="0.15.0", Token="${tokens[who]}"`,
  });

  /** The person's edition of a film in GET /library (through their browser session). */
  async function edition(who: 'anna' | 'ben', name: 'long' | 'short') {
    const res = await fetch(`${server.url}/library?device=web`, { headers: { cookie: secrets[who] } });
    assert.equal(res.status, 200);
    const body = (await res.json()) as LibraryResponse;
    const found = body.items.flatMap((i) => i.editions).find((e) => e.media_file_id === ids[name]?.fileId);
    assert.ok(found !== undefined, `${name} is in ${who}'s library`);
    return found;
  }

  const report = (name: 'long' | 'short', seconds?: number): Report => ({
    ItemId: idOf('movie', ids[name]?.movieId ?? 0),
    MediaSourceId: idOf('media-source', ids[name]?.fileId ?? 0),
    ...(seconds === undefined ? {} : { PositionTicks: seconds * TICKS }),
    PlayMethod: 'DirectPlay',
    PlaySessionId: 'play-1',
  });

  it("a play's progress becomes that person's resume position in /library; another person sees none", async () => {
    const anna = sessionsOf(apis.anna);
    assert.equal((await anna.reportPlaybackStart({ playbackStartInfo: report('long', 0) })).status, 204);

    // The admin's now-playing list shows the app and device of the play.
    const active = (await (await server.api('/api/sessions/active')).json()) as { items: ActivePlay[] };
    const play = active.items.find((p) => p.media_file_id === ids.long?.fileId);
    assert.ok(play !== undefined, JSON.stringify(active));
    assert.equal(play.user_name, 'anna');
    assert.equal(play.device, 'Findroid on Living room Shield');

    assert.equal(
      (await anna.reportPlaybackProgress({ playbackProgressInfo: report('long', 100) })).status,
      204,
    );
    assert.equal((await edition('anna', 'long')).resume_position_seconds, 100);
    assert.equal((await edition('ben', 'long')).resume_position_seconds, 0, "Ben's own: none");
    const moved = (await (await server.api('/api/sessions/active')).json()) as { items: ActivePlay[] };
    assert.equal(moved.items.find((p) => p.id === play.id)?.position_seconds, 100);

    // The apps' own view of it agrees: UserData of the item.
    const item = (await (
      await raw(`/Items/${idOf('movie', ids.long?.movieId ?? 0)}`, { headers: auth('anna') })
    ).json()) as {
      UserData: UserItemData;
    };
    assert.equal(item.UserData.PlaybackPositionTicks, 100 * TICKS);

    assert.equal((await sessionsOf(apis.anna).pingPlaybackSession({ playSessionId: 'play-1' })).status, 204);
    assert.equal((await anna.reportPlaybackStopped({ playbackStopInfo: report('long', 150) })).status, 204);
    assert.equal((await edition('anna', 'long')).resume_position_seconds, 150);
    const stopped = (await (await server.api('/api/sessions/active')).json()) as { items: ActivePlay[] };
    assert.equal(
      stopped.items.some((p) => p.id === play.id),
      false,
      'a stopped play leaves now playing',
    );
    // …and stays in Anna's history.
    const history = (await (
      await fetch(`${server.url}/api/me/history`, { headers: { cookie: secrets.anna } })
    ).json()) as { items: { media_file_id: number; position_seconds: number }[] };
    assert.deepEqual(
      history.items.map((h) => [h.media_file_id, h.position_seconds]),
      [[ids.long?.fileId, 150]],
    );
  });

  it('resume follows the one rule, on the apps and on reelshelf pages alike', async () => {
    const ben = sessionsOf(apis.ben);
    // [film, seconds reported] → [resume position in /library, watched]
    const table: ['long' | 'short', number, number, boolean][] = [
      ['long', 16, 0, false], // 4 %: the start
      ['long', 20, 20, false], // 5 %
      ['long', 200, 200, false], // 50 %
      ['long', 360, 360, false], // 90 %
      ['long', 364, 0, true], // 91 %: played
      ['short', 120, 0, true], // a 4-minute film at 50 %: played
    ];
    for (const [name, seconds, resume, watched] of table) {
      await userDataOf(apis.ben).markUnplayedItem({ itemId: idOf('movie', ids[name]?.movieId ?? 0) });
      await ben.reportPlaybackProgress({ playbackProgressInfo: report(name, seconds) });
      const e = await edition('ben', name);
      assert.deepEqual([e.resume_position_seconds, e.watched], [resume, watched], `${name} at ${seconds} s`);
      // reelshelf's own "continue watching" says the same.
      const cont = (await (
        await fetch(`${server.url}/api/me/continue`, { headers: { cookie: secrets.ben } })
      ).json()) as { items: { media_file_id: number }[] };
      assert.equal(
        cont.items.some((i) => i.media_file_id === ids[name]?.fileId),
        resume > 0,
      );
    }
    // reelshelf's own progress route goes through the same rule.
    const put = await fetch(`${server.url}/api/media-file/${ids.long?.fileId}/progress`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', cookie: secrets.ben, 'x-csrf-token': csrf.ben },
      body: JSON.stringify({ position_seconds: 10 }),
    });
    assert.equal(put.status, 200, await put.clone().text());
    assert.equal(((await put.json()) as { position_seconds: number }).position_seconds, 0);
  });

  it('played and unplayed return the UserItemDataDto, for that person only; old forms too', async () => {
    const movieId = idOf('movie', ids.short?.movieId ?? 0);
    await userDataOf(apis.anna).markUnplayedItem({ itemId: movieId });
    const { data } = await userDataOf(apis.anna).markPlayedItem({ itemId: movieId, userId: userIds.anna });
    assert.equal(data.Played, true);
    assert.equal(data.PlaybackPositionTicks, 0);
    assert.equal(data.IsFavorite, false);
    assert.equal(data.ItemId, movieId);
    assert.match(data.ItemId ?? '', /^[0-9a-f]{32}$/);
    assert.equal((await edition('anna', 'short')).watched, true);
    await userDataOf(apis.ben).markUnplayedItem({ itemId: movieId });
    assert.equal((await edition('ben', 'short')).watched, false, "Ben's own state");

    const unplayed = await raw(`/Users/${userIds.anna}/PlayedItems/${movieId}`, {
      method: 'DELETE',
      headers: { ...auth('anna'), accept: SDK_ACCEPT },
    });
    assert.equal(unplayed.status, 200);
    const body = (await unplayed.json()) as Record<string, unknown>;
    assert.equal(body.Played, false, 'PascalCase even when the Accept header offers CamelCase');
    assert.equal('played' in body, false);
    assert.equal((await edition('anna', 'short')).watched, false);

    // Someone else's user id, and an id that names nothing.
    const foreign = await raw(`/Users/${userIds.ben}/PlayedItems/${movieId}`, {
      method: 'POST',
      headers: auth('anna'),
    });
    assert.equal(foreign.status, 403);
    await assert.rejects(
      userDataOf(apis.anna).markPlayedItem({ itemId: 'f'.repeat(32) }),
      (err) => statusOf(err) === 404,
    );
  });

  it('the void calls answer 204 to an Accept of text/html only; the old PlayingItems forms work', async () => {
    const movieId = idOf('movie', ids.long?.movieId ?? 0);
    const html = { ...auth('anna'), accept: 'text/html' };
    for (const path of ['/Sessions/Playing/Ping', '/Sessions/Capabilities', '/Sessions/Capabilities/Full']) {
      const res = await raw(path, { method: 'POST', headers: html });
      assert.equal(res.status, 204, path);
      assert.equal(await res.text(), '');
    }
    const start = await raw('/Sessions/Playing', {
      method: 'POST',
      headers: { ...html, 'content-type': 'application/json' },
      body: JSON.stringify({ ItemId: movieId, PositionTicks: 0 }),
    });
    assert.equal(start.status, 204);
    const old = await raw(`/PlayingItems/${movieId}/Progress?PositionTicks=${222 * TICKS}`, {
      method: 'POST',
      headers: auth('anna'),
    });
    assert.equal(old.status, 204);
    assert.equal((await edition('anna', 'long')).resume_position_seconds, 222);
    const stop = await raw(`/Users/${userIds.anna}/PlayingItems/${movieId}?PositionTicks=${230 * TICKS}`, {
      method: 'DELETE',
      headers: auth('anna'),
    });
    assert.equal(stop.status, 204);
    assert.equal((await edition('anna', 'long')).resume_position_seconds, 230);
  });

  it('the calls the apps make on the way', async () => {
    const json = async (path: string, headers: Record<string, string> = {}) => {
      const res = await raw(path, { headers: { accept: SDK_ACCEPT, ...headers } });
      assert.equal(res.status, 200, `${path}: ${await res.clone().text()}`);
      return (await res.json()) as unknown;
    };
    // Before sign-in (the SDK sends Token="").
    const anonymous = {
      authorization: 'MediaBrowser Client="Findroid", Device="x", DeviceId="d", Version="1", Token=""',
    };
    assert.deepEqual(await json('/Users/Public', anonymous), []);
    assert.equal(await json('/QuickConnect/Enabled', anonymous), false);
    assert.deepEqual(await json('/Branding/Configuration', anonymous), {
      LoginDisclaimer: '',
      CustomCss: '',
      SplashscreenEnabled: false,
    });
    assert.equal((await raw('/Branding/Css')).status, 200);
    assert.equal(await json('/System/Ping'), 'Jellyfin Server');
    assert.equal((await raw('/System/Info')).status, 401, 'System/Info needs a token');

    const signedIn = auth('anna');
    const me = (await json('/Users/Me', signedIn)) as {
      Id: string;
      Name: string;
      Policy: { IsAdministrator: boolean };
    };
    assert.deepEqual([me.Id, me.Name, me.Policy.IsAdministrator], [userIds.anna, 'anna', false]);
    assert.equal(((await json(`/Users/${userIds.anna}`, signedIn)) as { Name: string }).Name, 'anna');
    assert.equal((await raw(`/Users/${userIds.ben}`, { headers: signedIn })).status, 404, "only one's own");
    const info = (await json('/System/Info', signedIn)) as { ProductName: string; Id: string };
    assert.equal(info.ProductName, 'Jellyfin Server');
    const sessions = (await json('/Sessions', signedIn)) as {
      UserId: string;
      Client: string;
      DeviceName: string;
    }[];
    assert.deepEqual(
      sessions.map((s) => [s.UserId, s.Client, s.DeviceName]),
      [[userIds.anna, 'Findroid', 'Living room Shield']],
    );
    assert.equal(
      ((await json('/DisplayPreferences/usersettings?client=emby', signedIn)) as { Id: string }).Id,
      'usersettings',
    );
    for (const path of ['/Localization/Countries', '/Localization/Cultures', '/Localization/Options']) {
      assert.ok(((await json(path, signedIn)) as unknown[]).length > 0, path);
    }
    const ratings = (await json('/Localization/ParentalRatings', signedIn)) as {
      Name: string;
      Value: number;
    }[];
    assert.ok(ratings.some((r) => r.Name === 'PG-13' && r.Value === 13));
    assert.deepEqual(await json(`/MediaSegments/${idOf('movie', ids.long?.movieId ?? 0)}`, signedIn), {
      Items: [],
      TotalRecordCount: 0,
      StartIndex: 0,
    });
    const probe = await raw('/Playback/BitrateTest?size=500000', { headers: signedIn });
    assert.equal(probe.status, 200);
    assert.equal((await probe.arrayBuffer()).byteLength, 500_000);
    const capped = await raw('/Playback/BitrateTest?size=999999999', { headers: signedIn });
    assert.equal((await capped.arrayBuffer()).byteLength, 10_000_000, 'capped');
  });

  it('an unknown facade path is a JSON 404 with or without a token; the rest of the app keeps its 404s', async () => {
    for (const headers of [{}, auth('anna')]) {
      const res = await raw('/Jellyfin.Plugin.KodiSyncQueue/GetServerDateTime', { headers });
      assert.equal(res.status, 404);
      assert.match(res.headers.get('content-type') ?? '', /application\/json/);
      const body = (await res.json()) as { error: string; message: string; hint: string };
      assert.equal(body.error, 'not_found');
      assert.ok(body.hint.length > 0);
    }
    assert.equal((await fetch(`${server.url}/emby/Nothing/Here`)).status, 404);
    // Outside the facade nothing changed: an unknown API path still asks for credentials first.
    assert.equal((await fetch(`${server.url}/api/nothing-here`)).status, 401);
    assert.equal((await server.api('/api/nothing-here')).status, 404);
  });

  /** Opens a socket as the apps do and collects its messages (undici's client: not our own code). */
  async function openSocket(path: string) {
    const ws = new WebSocket(`${server.url.replace(/^http/, 'ws')}${path}`);
    const messages: { MessageType: string; Data?: unknown }[] = [];
    const waiters: (() => void)[] = [];
    ws.addEventListener('message', (event) => {
      messages.push(JSON.parse(String(event.data)) as { MessageType: string; Data?: unknown });
      for (const wake of waiters.splice(0)) wake();
    });
    const opened = await new Promise<boolean>((resolve) => {
      ws.addEventListener('open', () => resolve(true));
      ws.addEventListener('error', () => resolve(false));
    });
    /** The first message of that type (waiting for it up to 5 s). */
    const next = async (type: string) => {
      const deadline = Date.now() + 5000;
      for (;;) {
        const found = messages.find((m) => m.MessageType === type);
        if (found !== undefined) return found;
        if (Date.now() > deadline) throw new Error(`no ${type}: ${JSON.stringify(messages)}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200);
        });
      }
    };
    return { ws, opened, messages, next };
  }

  it('the socket: opened with ApiKey, ForceKeepAlive on open, KeepAlive answered; no token, no socket', async () => {
    const refused = await openSocket('/jellyfin/socket');
    assert.equal(refused.opened, false, 'no token: refused');
    const wrong = await openSocket('/jellyfin/socket?api_key=not-a-token');
    assert.equal(wrong.opened, false);

    const socket = await openSocket(`/emby/Socket?api_key=${tokens.anna}&deviceId=device-1`);
    assert.equal(socket.opened, true);
    assert.deepEqual((await socket.next('ForceKeepAlive')).Data, 60);
    socket.ws.send(JSON.stringify({ MessageType: 'KeepAlive' }));
    const answer = await socket.next('KeepAlive');
    assert.match((answer as { MessageId?: string }).MessageId ?? '', /^[0-9a-f]{32}$/);
    socket.ws.close();
  });

  it('the socket: a plain HTTP upgrade is a JSON 400; a message over 64 KB closes the socket with 1009', async () => {
    const { request } = await import('node:http');
    const refused = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${server.url}/jellyfin/socket?ApiKey=${tokens.anna}`, {
        headers: { connection: 'Upgrade', upgrade: 'websocket' },
      });
      req.on('response', (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('upgrade', () => reject(new Error('upgraded without a WebSocket key')));
      req.on('error', reject);
      req.end();
    });
    assert.equal(refused.status, 400);
    assert.equal((JSON.parse(refused.body) as { error: string }).error, 'bad_request');

    const socket = await openSocket(`/jellyfin/socket?ApiKey=${tokens.anna}`);
    assert.equal(socket.opened, true);
    await socket.next('ForceKeepAlive');
    const closed = new Promise<number>((resolve) =>
      socket.ws.addEventListener('close', (event) => resolve(event.code)),
    );
    socket.ws.send('x'.repeat(65 * 1024));
    assert.equal(await closed, 1009);
  });

  it("an admin's stop from now playing reaches the app's socket as Playstate Stop, only that app's", async () => {
    const anna = await openSocket(`/jellyfin/socket?ApiKey=${tokens.anna}`);
    const ben = await openSocket(`/jellyfin/socket?ApiKey=${tokens.ben}`);
    assert.equal(anna.opened && ben.opened, true);
    await anna.next('ForceKeepAlive');
    await ben.next('ForceKeepAlive');
    await sessionsOf(apis.anna).reportPlaybackStart({ playbackStartInfo: report('long', 30) });
    const active = (await (await server.api('/api/sessions/active')).json()) as { items: ActivePlay[] };
    const play = active.items.find((p) => p.user_name === 'anna' && p.media_file_id === ids.long?.fileId);
    assert.ok(play !== undefined, JSON.stringify(active));
    const stop = await server.api(`/api/sessions/active/${play.id}`, { method: 'DELETE' });
    assert.equal(stop.status, 200, await stop.clone().text());
    const command = await anna.next('Playstate');
    assert.deepEqual(command.Data, { Command: 'Stop' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(
      ben.messages.some((m) => m.MessageType === 'Playstate'),
      false,
      "Ben's app plays on",
    );
    anna.ws.close();
    ben.ws.close();
  });

  it('a server closing with sockets open closes them and does not wait for the apps', async () => {
    const other = await startTestServer();
    let ws: WebSocket | null = null;
    let closing: Promise<void> | null = null;
    try {
      const made = await other.api(
        '/api/users',
        jsonBody('POST', { name: 'cleo', password: PASSWORD, role: 'member' }),
      );
      assert.equal(made.status, 201);
      const api = jellyfin.createApi(`${other.url}/jellyfin`);
      const { data } = await api.authenticateUserByName('cleo', PASSWORD);
      const socket = new WebSocket(
        `${other.url.replace(/^http/, 'ws')}/jellyfin/socket?ApiKey=${data.AccessToken ?? ''}`,
      );
      ws = socket;
      const closed = new Promise<void>((resolve) => socket.addEventListener('close', () => resolve()));
      await new Promise<void>((resolve, reject) => {
        socket.addEventListener('open', () => resolve());
        socket.addEventListener('error', () => reject(new Error('socket refused')));
      });
      closing = other.close();
      const outcome = await Promise.race([
        Promise.all([closing, closed]).then(() => 'closed'),
        new Promise((resolve) => setTimeout(() => resolve('still open after 5 s'), 5000).unref()),
      ]);
      assert.equal(outcome, 'closed');
    } finally {
      ws?.close();
      await (closing ?? other.close());
    }
  });

  it('sign-out (reportSessionEnded) ends that token at once, not the person’s others', async () => {
    const api = jellyfin.createApi(`${server.url}/jellyfin`);
    const { data } = await api.authenticateUserByName('anna', PASSWORD);
    const token = data.AccessToken ?? '';
    const headers = { 'x-emby-token': token };
    assert.equal((await raw('/Users/Me', { headers })).status, 200);
    assert.equal((await sessionsOf(api).reportSessionEnded()).status, 204);
    assert.equal((await raw('/Users/Me', { headers })).status, 401);
    assert.equal(
      (await raw('/Users/Me', { headers: auth('anna') })).status,
      200,
      'her other app stays signed in',
    );
  });
});
