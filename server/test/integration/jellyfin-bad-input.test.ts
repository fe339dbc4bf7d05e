// The Jellyfin facade against bad input (issue 23 security review): every answer is ApiError JSON
// (`error`, `message`), never a 500 or Fastify's own error body; query tokens open media only; a
// `userId` must be the caller's; ids of another kind, forged or non-hex ids are unknown items.
// Real server on loopback (both ports), real SQLite, one film made by ffmpeg.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { registerFiles } from '../helpers/library-fixtures.ts';
import { makeFixture } from '../helpers/media.ts';
import { jsonBody, startTestServer, type TestServer } from '../helpers/test-server.ts';

const CLIENT = 'MediaBrowser Client="Fuzz", Device="Bench", DeviceId="fuzz-1", Version="1.0"';

describe('jellyfin facade: bad input gets ApiError JSON, and nothing else opens', () => {
  let server: TestServer;
  let root = '';
  let media = '';
  let token = '';
  let userId = '';
  let otherUserId = '';
  let movie = '';
  let source = '';
  let auth: Record<string, string> = {};

  before(async () => {
    media = mkdtempSync(join(tmpdir(), 'reelshelf-jf-fuzz-'));
    const file = await makeFixture('h264_aac.mp4', join(media, 'Fuzz Film.mp4'));
    server = await startTestServer({ REELSHELF_JELLYFIN_PORT: '0' });
    root = server.server.jellyfin.url ?? '';
    const registered = await registerFiles(server.server.database.db, media, { film: file });
    await server.server.services.analysis.analyzePending();
    for (const name of ['Tom', 'Ann']) {
      const made = await server.api(
        '/api/users',
        jsonBody('POST', { name, password: 'correct horse battery', role: 'member' }),
      );
      assert.equal(made.status, 201, await made.text());
    }
    const signIn = async (name: string) => {
      const res = await fetch(`${server.url}/jellyfin/Users/AuthenticateByName`, {
        method: 'POST',
        headers: { authorization: CLIENT, 'content-type': 'application/json' },
        body: JSON.stringify({ Username: name, Pw: 'correct horse battery' }),
      });
      assert.equal(res.status, 200);
      return (await res.json()) as { AccessToken: string; User: { Id: string } };
    };
    const tom = await signIn('Tom');
    token = tom.AccessToken;
    userId = tom.User.Id;
    otherUserId = (await signIn('Ann')).User.Id;
    auth = { authorization: `${CLIENT}, Token="${token}"` };
    const ids = server.server.services.jellyfin.ids;
    const found = registered.film;
    assert.ok(found !== undefined);
    movie = ids.encode('movie', found.movieId);
    source = ids.encode('media-source', found.fileId);
  });

  after(async () => {
    await server?.close();
    rmSync(media, { recursive: true, force: true });
  });

  /** An ApiError: JSON with `error` and `message`, nothing of Fastify's own shape or a stack. */
  async function apiError(res: Response, status: number, error: string, label: string): Promise<void> {
    const text = await res.text();
    assert.equal(res.status, status, `${label}: ${text}`);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/, label);
    const body = JSON.parse(text) as Record<string, unknown>;
    assert.equal(body.error, error, `${label}: ${text}`);
    assert.equal(typeof body.message, 'string', label);
    assert.doesNotMatch(text, /FST_|statusCode|\bat .*\.ts:\d+/, label);
  }

  const playbackInfo = (body: string, type = 'application/json') =>
    fetch(`${server.url}/jellyfin/Items/${movie}/PlaybackInfo`, {
      method: 'POST',
      headers: { ...auth, 'content-type': type },
      body,
    });

  it('PlaybackInfo: a malformed DeviceProfile is a 400 naming the member (it was a 500)', async () => {
    const cases: [string, string][] = [
      ['{"DeviceProfile":{"DirectPlayProfiles":"x"}}', 'DeviceProfile.DirectPlayProfiles'],
      ['{"DeviceProfile":{"DirectPlayProfiles":[null]}}', 'DeviceProfile.DirectPlayProfiles[0]'],
      [
        '{"DeviceProfile":{"DirectPlayProfiles":[{"Container":{}}]}}',
        'DeviceProfile.DirectPlayProfiles[0].Container',
      ],
      ['{"DeviceProfile":{"TranscodingProfiles":[null]}}', 'DeviceProfile.TranscodingProfiles[0]'],
      [
        '{"DeviceProfile":{"TranscodingProfiles":[{"Protocol":"hls","VideoCodec":["h264"]}]}}',
        'DeviceProfile.TranscodingProfiles[0].VideoCodec',
      ],
      ['{"DeviceProfile":{"SubtitleProfiles":[{"Format":[]}]}}', 'DeviceProfile.SubtitleProfiles[0].Format'],
      [
        '{"DeviceProfile":{"CodecProfiles":[{"Type":"Video","Conditions":5}]}}',
        'DeviceProfile.CodecProfiles[0].Conditions',
      ],
      [
        '{"DeviceProfile":{"CodecProfiles":[{"Type":"Video","Conditions":[{"Value":{}}]}]}}',
        'DeviceProfile.CodecProfiles[0].Conditions[0].Value',
      ],
      ['{"DeviceProfile":{"MaxStreamingBitrate":"fast"}}', 'DeviceProfile.MaxStreamingBitrate'],
      ['{"DeviceProfile":"phone"}', 'DeviceProfile'],
    ];
    for (const [body, field] of cases) {
      const res = await playbackInfo(body);
      const text = await res.clone().text();
      await apiError(res, 400, 'validation_failed', body);
      assert.equal((JSON.parse(text) as { field?: string }).field, field, body);
    }
  });

  it('PlaybackInfo: bad JSON, a body of the wrong type and a huge body are ApiErrors; a camelCase profile is read', async () => {
    await apiError(await playbackInfo('{"DeviceProfile":'), 400, 'invalid_json', 'bad JSON');
    await apiError(await playbackInfo('{}', 'text/plain'), 415, 'unsupported_media_type', 'text/plain');
    const huge = JSON.stringify({ DeviceProfile: { Name: 'x'.repeat(3 * 1024 * 1024) } });
    await apiError(await playbackInfo(huge), 413, 'payload_too_large', 'a 3 MB body');
    // Member names in any case, numbers where text is expected: read, not refused.
    const res = await playbackInfo(
      JSON.stringify({
        deviceProfile: {
          directPlayProfiles: [{ container: 'mp4', videoCodec: 'h264', audioCodec: 'aac', type: 'Video' }],
          transcodingProfiles: [
            { Container: 'ts', Protocol: 'hls', MaxAudioChannels: 2, VideoCodec: 'h264' },
          ],
        },
      }),
    );
    assert.equal(res.status, 200, await res.clone().text());
    const answer = (await res.json()) as { MediaSources: { SupportsDirectPlay: boolean }[] };
    assert.equal(answer.MediaSources[0]?.SupportsDirectPlay, true);
  });

  it('the router’s own errors (a bad %-escape, an over-long id) are ApiError JSON on both ports (were Fastify’s body)', async () => {
    for (const base of [`${server.url}/jellyfin`, root]) {
      await apiError(
        await fetch(`${base}/Items/%zz`, { headers: auth }),
        400,
        'validation_failed',
        `${base} %zz`,
      );
      await apiError(
        await fetch(`${base}/Items/${'a'.repeat(5000)}`, { headers: auth }),
        414,
        'validation_failed',
        `${base} long id`,
      );
    }
    await apiError(await server.api('/api/movies/%zz'), 400, 'validation_failed', '/api %zz');
  });

  it('a query token opens media and images only; elsewhere it is no token', async () => {
    for (const path of [
      `/Items?ApiKey=${token}`,
      `/Items/${movie}?api_key=${token}`,
      `/Items/${movie}/PlaybackInfo?ApiKey=${token}`,
      `/Users/Me?ApiKey=${token}`,
      `/Sessions?api_key=${token}`,
    ]) {
      await apiError(await fetch(`${server.url}/jellyfin${path}`), 401, 'unauthorized', path);
    }
    const logout = await fetch(`${server.url}/jellyfin/Sessions/Logout?ApiKey=${token}`, { method: 'POST' });
    await apiError(logout, 401, 'unauthorized', 'logout by query token');
    const stream = await fetch(
      `${server.url}/jellyfin/Videos/${movie}/stream?static=true&mediaSourceId=${source}&ApiKey=${token}`,
      { headers: { range: 'bytes=0-9' } },
    );
    assert.equal(stream.status, 206, 'the token survived the refused logout, and opens the stream');
  });

  it('a userId in a path or query must be the caller’s', async () => {
    for (const path of [
      `/Items?userId=${otherUserId}&Recursive=true`,
      `/Users/${otherUserId}/Items?Recursive=true`,
      `/Users/${otherUserId}/Items/${movie}`,
      `/Users/${otherUserId}/Views`,
      `/Items/${movie}/PlaybackInfo?UserId=${otherUserId}`,
      `/Users/nothex/Items/Latest`,
    ]) {
      await apiError(await fetch(`${server.url}/jellyfin${path}`, { headers: auth }), 403, 'forbidden', path);
    }
    for (const method of ['POST', 'DELETE']) {
      for (const path of [
        `/Users/${otherUserId}/PlayedItems/${movie}`,
        `/Users/${otherUserId}/FavoriteItems/${movie}`,
      ]) {
        await apiError(
          await fetch(`${server.url}/jellyfin${path}`, { method, headers: auth }),
          403,
          'forbidden',
          `${method} ${path}`,
        );
      }
    }
    await apiError(
      await fetch(`${server.url}/jellyfin/Users/${otherUserId}`, { headers: auth }),
      404,
      'not_found',
      'another person',
    );
    const own = await fetch(`${server.url}/jellyfin/Users/${userId}/Items/${movie}`, { headers: auth });
    assert.equal(own.status, 200);
  });

  it('paging: huge StartIndex/Limit answer an empty page; negative or absurd numbers are a 400', async () => {
    const huge = await fetch(
      `${server.url}/jellyfin/Items?Recursive=true&StartIndex=999999999&Limit=999999999`,
      { headers: auth },
    );
    assert.equal(huge.status, 200);
    assert.deepEqual(await huge.json(), { Items: [], TotalRecordCount: 1, StartIndex: 999999999 });
    for (const query of [
      'StartIndex=-1',
      'Limit=-5',
      'Limit=1e3',
      'StartIndex=99999999999999999999',
      'Limit=abc',
    ]) {
      for (const path of [
        '/Items?Recursive=true&',
        '/Items/Latest?',
        `/Items/${movie}/Similar?`,
        '/Genres?',
      ]) {
        await apiError(
          await fetch(`${server.url}/jellyfin${path}${query}`, { headers: auth }),
          400,
          'validation_failed',
          `${path}${query}`,
        );
      }
    }
  });

  it('ids of another kind, forged or non-hex ids are unknown items (404 JSON) on every item route', async () => {
    const ids = server.server.services.jellyfin.ids;
    const strangers = [
      ids.encode('user', 1),
      ids.encode('session', 1),
      ids.encode('genre', 1),
      ids.encode('folder', 1),
      ids.encode('movie', 424242),
      `${movie.slice(0, 31)}${movie.endsWith('0') ? '1' : '0'}`,
      'not-an-id',
      '00000000000000000000000000000000',
    ];
    for (const id of strangers) {
      const calls: [string, string][] = [
        ['GET', `/Items/${id}`],
        ['GET', `/Items/${id}/PlaybackInfo`],
        ['POST', `/Items/${id}/PlaybackInfo`],
        ['GET', `/Items/${id}/Similar`],
        ['GET', `/Items/${id}/ThemeMedia`],
        ['GET', `/MediaSegments/${id}`],
        ['GET', `/Videos/${id}/stream?static=true`],
        ['GET', `/Videos/${id}/master.m3u8`],
        ['GET', `/Videos/${movie}/stream?static=true&mediaSourceId=${id}`],
        ['GET', `/Videos/${movie}/${id}/Subtitles/1/0/Stream.vtt`],
        ['GET', `/Items/${id}/Images/Primary`],
        ['POST', `/UserFavoriteItems/${id}`],
        ['DELETE', `/UserPlayedItems/${id}`],
        ['POST', `/UserPlayedItems/${id}`],
      ];
      for (const [method, path] of calls) {
        const init: RequestInit = { method, headers: { ...auth, 'content-type': 'application/json' } };
        if (method === 'POST') init.body = '{}';
        await apiError(
          await fetch(`${server.url}/jellyfin${path}`, init),
          404,
          'not_found',
          `${method} ${path}`,
        );
      }
    }
    // Reports for them are taken and change nothing (an app's report is never refused).
    const report = await fetch(`${server.url}/jellyfin/Sessions/Playing/Progress`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ ItemId: ids.encode('user', 1), PositionTicks: 1e30 }),
    });
    assert.equal(report.status, 204);
  });

  it('report bodies are size-limited', async () => {
    const res = await fetch(`${server.url}/jellyfin/Sessions/Playing/Progress`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ ItemId: movie, Padding: 'x'.repeat(2 * 1024 * 1024) }),
    });
    await apiError(res, 413, 'payload_too_large', 'a 2 MB report');
    const favourite = await fetch(`${server.url}/jellyfin/UserFavoriteItems/${movie}`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: 'x'.repeat(200 * 1024),
    });
    await apiError(favourite, 413, 'payload_too_large', 'a 200 KB favourite body');
  });
});
