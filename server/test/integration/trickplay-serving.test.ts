/**
 * Seek thumbnails served to reelshelf's own clients, through the real server: a set made by the
 * real ffmpeg pass (helpers/trickplay-made.ts, as the job would leave it), read through
 * `GET /api/media-file/{id}/trickplay`, its sheets under /stream (token-checked, strong ETag,
 * immutable, HEAD, 304, an old generation 404), the image playlist of the Roku sheets (RFC 8216 +
 * image tags), the BIF (header, index, every JPEG decodes), the HLS master's image stream line,
 * the answers before "ready", and a PG child's 404 on every URL of an R film.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { M3U8Parser } from 'hls.js';
import type { TrickplayInfo } from '@reelshelf/contract';
import { sheetCount, sheetSize } from '../../src/domain/trickplay/geometry.ts';
import type { TrickplayMade } from '../../src/services/trickplay/trickplay-ports.ts';
import { readBif } from '../helpers/bif-reader.ts';
import { checkMasterPlaylist } from '../helpers/hls-check.ts';
import { checkImagePlaylist } from '../helpers/image-playlist-check.ts';
import { CHILD_KID, addPeople } from '../helpers/household.ts';
import { fixtureFfmpeg } from '../helpers/media.ts';
import { jsonBody, type TestServer } from '../helpers/test-server.ts';
import { makeColourFilm } from '../helpers/trickplay-fixtures.ts';
import { makeTrickplayFor, setTrickplayStatus, startTrickplayServer } from '../helpers/trickplay-made.ts';

const run = promisify(execFile);

/** Small sets with several sheets, and a Roku re-cut of another grid (20 vs 16 per row). */
const OPTIONS = { intervalMs: 2000, width: 64, tileWidth: 20, tileHeight: 1 };

describe('trickplay: serving the made sets (reelshelf API, /stream, HLS)', () => {
  let server: TestServer;
  let media = '';
  const files = new Map<string, number>();
  let made: TrickplayMade;
  let kidKey = '';

  const fileOf = (title: string): number => {
    const id = files.get(title);
    assert.ok(id !== undefined, title);
    return id;
  };
  const info = async (fileId: number, bearer?: string, device?: string) =>
    server.api(
      `/api/media-file/${fileId}/trickplay${device === undefined ? '' : `?device=${device}`}`,
      bearer === undefined ? {} : { headers: { authorization: `Bearer ${bearer}` } },
    );
  const ready = async (fileId: number): Promise<TrickplayInfo> => {
    const response = await info(fileId);
    assert.equal(response.status, 200, await response.clone().text());
    return (await response.json()) as TrickplayInfo;
  };
  const get = (path: string, init: RequestInit = {}) => fetch(`${server.url}${path}`, init);

  before(async () => {
    server = await startTrickplayServer();
    media = mkdtempSync(join(tmpdir(), 'reelshelf-trickplay-serving-'));
    for (const title of ['Meadow', 'Razorwire', 'Plain']) {
      await makeColourFilm(media, `${title} (2001).mp4`, {
        durationSeconds: 45,
        offsetSeconds: 0,
        gopSeconds: 2,
        codec: 'h264',
      });
    }
    const created = await server.api('/api/library-roots', jsonBody('POST', { path: media }));
    const { id: rootId } = (await created.json()) as { id: number };
    const scanned = await server.api(`/api/library-roots/${rootId}/scan?wait=true`, { method: 'POST' });
    assert.equal(scanned.status, 200, await scanned.text());
    const listed = (await (await server.api('/api/movies')).json()) as {
      items: { id: number; title: string }[];
    };
    for (const movie of listed.items) {
      const detail = (await (await server.api(`/api/movies/${movie.id}`)).json()) as {
        media_files: { id: number }[];
      };
      files.set(movie.title, detail.media_files[0]?.id ?? 0);
      const certification = movie.title === 'Razorwire' ? 'R' : 'G';
      const set = await server.api(`/api/movies/${movie.id}`, jsonBody('PATCH', { certification }));
      assert.equal(set.status, 200, await set.text());
    }
    assert.deepEqual([...files.keys()].sort(), ['Meadow', 'Plain', 'Razorwire']);
    made = await makeTrickplayFor(server, fileOf('Meadow'), { options: OPTIONS });
    await makeTrickplayFor(server, fileOf('Razorwire'), { options: OPTIONS });
    await addPeople(server, [CHILD_KID]);
    const users = (await (await server.api('/api/users')).json()) as {
      items: { id: number; name: string }[];
    };
    const kid = users.items.find((u) => u.name === CHILD_KID.name);
    const key = await server.api(
      '/api/keys',
      jsonBody('POST', { name: 'kid tv', scope: 'playback', user: kid?.id }),
    );
    assert.equal(key.status, 201, await key.clone().text());
    kidKey = ((await key.json()) as { key: string }).key;
  });
  after(async () => {
    await server?.close();
    rmSync(media, { recursive: true, force: true });
  });

  it('GET /api/media-file/{id}/trickplay: the layout, and sheet URLs with a token for the caller', async () => {
    const body = await ready(fileOf('Meadow'));
    const { layout } = made;
    assert.equal(layout.thumbnailCount, 23, '45 s at 2 s');
    assert.deepEqual(
      { ...body, sheets: body.sheets.length },
      {
        status: 'ready',
        mode: 'keyframes',
        interval_ms: 2000,
        width: 64,
        height: 36,
        tile_width: 20,
        tile_height: 1,
        thumbnail_count: 23,
        sheets: 2,
      },
    );
    for (const [index, url] of body.sheets.entries()) {
      assert.match(
        url,
        new RegExp(
          `^/stream/media_file/${fileOf('Meadow')}/trickplay/${made.generation}/${index}\\.jpg\\?device=web&token=[^&]+$`,
        ),
      );
    }
    const tv = (await (await info(fileOf('Meadow'), undefined, 'tv')).json()) as TrickplayInfo;
    assert.match(tv.sheets[0] ?? '', /\?device=tv&token=/);
  });

  it('a sheet: image/jpeg with its bytes and size, strong ETag, immutable, HEAD, 304; without a token refused', async () => {
    const body = await ready(fileOf('Meadow'));
    const url = body.sheets[1] ?? '';
    const response = await get(url);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'image/jpeg');
    assert.equal(response.headers.get('cache-control'), 'private, max-age=31536000, immutable');
    const etag = response.headers.get('etag') ?? '';
    assert.match(etag, /^"[0-9a-f]{24}"$/);
    const bytes = Buffer.from(await response.arrayBuffer());
    assert.equal(bytes.length, made.sheetBytes[1]);
    const meta = await sharp(bytes).metadata();
    assert.deepEqual({ width: meta.width, height: meta.height }, sheetSize(made.layout));

    const head = await get(url, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-length'), String(bytes.length));
    assert.equal(head.headers.get('etag'), etag);
    assert.equal((await head.arrayBuffer()).byteLength, 0);

    const again = await get(url, { headers: { 'if-none-match': etag } });
    assert.equal(again.status, 304);
    assert.equal((await again.arrayBuffer()).byteLength, 0);
    const other = await get(body.sheets[0] ?? '');
    assert.notEqual(other.headers.get('etag'), etag, 'every sheet its own ETag');
    await other.arrayBuffer();

    const path = url.slice(0, url.indexOf('?'));
    for (const [why, query] of [
      ['no token', '?device=web'],
      ['a forged token', `?device=web&token=${'A'.repeat(40)}`],
      ['another device than signed for', url.slice(url.indexOf('?')).replace('device=web', 'device=tv')],
    ] as const) {
      const refused = await get(`${path}${query}`);
      assert.equal(refused.status, 401, why);
      assert.equal(((await refused.json()) as { error: string }).error, 'unauthorized', why);
    }
    // The admin bearer may play: the same sheet without a token.
    const bearer = await server.api(path);
    assert.equal(bearer.status, 200);
    await bearer.arrayBuffer();
  });

  it('a sheet past the last, a name that is no sheet: 404 JSON', async () => {
    const body = await ready(fileOf('Meadow'));
    const url = body.sheets[0] ?? '';
    const query = url.slice(url.indexOf('?'));
    const base = `/stream/media_file/${fileOf('Meadow')}/trickplay/${made.generation}`;
    for (const path of [`${base}/2.jpg`, `${base}/roku/2.jpg`, `${base}/x.png`]) {
      const response = await get(`${path}${query}`);
      assert.equal(response.status, 404, path);
      assert.equal(((await response.json()) as { error: string }).error, 'not_found');
    }
  });

  it('tiles.m3u8: the Roku sheets as an EXT-X-IMAGES-ONLY playlist whose URIs carry the token and serve', async () => {
    const body = await ready(fileOf('Meadow'));
    const sheet = body.sheets[0] ?? '';
    const query = sheet.slice(sheet.indexOf('?'));
    const playlistUrl = `${server.url}/stream/media_file/${fileOf('Meadow')}/trickplay/tiles.m3u8${query}`;
    const response = await fetch(playlistUrl);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/vnd.apple.mpegurl');
    const text = await response.text();
    const checked = checkImagePlaylist(text);
    const roku = made.roku.layout;
    assert.equal(roku.tileWidth, 16, 'Roku: at most 1080 px a side');
    assert.equal(checked.segments.length, sheetCount(roku));
    assert.deepEqual(
      checked.segments.map((s) => s.duration),
      [32, 14],
      '16 and 7 thumbnails of 2 s',
    );
    for (const [index, segment] of checked.segments.entries()) {
      assert.deepEqual(segment.tiles, { width: 64, height: 36, columns: 16, rows: 1, duration: 2 });
      const resolved = new URL(segment.uri, playlistUrl);
      assert.equal(
        resolved.pathname,
        `/stream/media_file/${fileOf('Meadow')}/trickplay/${made.generation}/roku/${index}.jpg`,
      );
      const image = await fetch(resolved);
      assert.equal(image.status, 200, segment.uri);
      const bytes = Buffer.from(await image.arrayBuffer());
      assert.equal(bytes.length, made.roku.sheetBytes[index]);
      const meta = await sharp(bytes).metadata();
      assert.deepEqual({ width: meta.width, height: meta.height }, sheetSize(roku));
    }
    // Asked with the bearer: the URIs get a token signed for its person.
    const bearer = await server.api(`/stream/media_file/${fileOf('Meadow')}/trickplay/tiles.m3u8`);
    const uri = checkImagePlaylist(await bearer.text()).segments[0]?.uri ?? '';
    assert.match(uri, /\?device=web&token=[^&]+$/);
    assert.equal((await fetch(new URL(uri, playlistUrl))).status, 200);
  });

  it('trickplay.bif: header, index every 2 s, one decodable JPEG per thumbnail', async () => {
    const body = await ready(fileOf('Meadow'));
    const sheet = body.sheets[0] ?? '';
    const url = `/stream/media_file/${fileOf('Meadow')}/trickplay.bif${sheet.slice(sheet.indexOf('?'))}`;
    const response = await get(url);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/octet-stream');
    assert.equal(response.headers.get('cache-control'), 'private, max-age=0, must-revalidate');
    const bytes = Buffer.from(await response.arrayBuffer());
    assert.equal(bytes.length, made.bifBytes);
    const bif = readBif(bytes);
    assert.equal(bif.images.length, 23);
    assert.deepEqual(
      bif.images.map((i) => i.timeMs),
      Array.from({ length: 23 }, (_, n) => n * 2000),
    );
    for (const image of bif.images) {
      const meta = await sharp(image.bytes).metadata();
      assert.deepEqual(
        { width: meta.width, height: meta.height, format: meta.format },
        {
          width: 64,
          height: 36,
          format: 'jpeg',
        },
      );
    }
    const ranged = await get(url, { headers: { range: 'bytes=0-7' } });
    assert.equal(ranged.status, 206);
    assert.deepEqual(
      [...Buffer.from(await ranged.arrayBuffer())],
      [0x89, 0x42, 0x49, 0x46, 0x0d, 0x0a, 0x1a, 0x0a],
    );
    const conditional = await get(url, { headers: { 'if-none-match': response.headers.get('etag') ?? '' } });
    assert.equal(conditional.status, 304);
  });

  it('the HLS master announces the image playlist (EXT-X-IMAGE-STREAM-INF) when made, and only then', async () => {
    const playback = (await (
      await server.api(`/api/media-file/${fileOf('Meadow')}/playback?device=roku`)
    ).json()) as { hls_url: string };
    const masterUrl = `${server.url}${playback.hls_url}`;
    const text = await (await fetch(masterUrl)).text();
    checkMasterPlaylist(text);
    const lines = text.split('\n').filter((line) => line.startsWith('#EXT-X-IMAGE-STREAM-INF:'));
    assert.equal(lines.length, 1, text);
    const line = lines[0] ?? '';
    const roku = made.roku.layout;
    const peak = Math.max(
      ...made.roku.sheetBytes.map((b) => Math.ceil((b * 8) / (roku.tileWidth * roku.tileHeight) / 2)),
    );
    assert.match(
      line,
      new RegExp(`^#EXT-X-IMAGE-STREAM-INF:BANDWIDTH=${peak},RESOLUTION=64x36,CODECS="jpeg",URI="([^"]+)"$`),
    );
    const uri = /URI="([^"]+)"/.exec(line)?.[1] ?? '';
    const tiles = new URL(uri, masterUrl);
    assert.equal(tiles.pathname, `/stream/media_file/${fileOf('Meadow')}/trickplay/tiles.m3u8`);
    assert.equal(tiles.searchParams.get('token'), new URL(masterUrl).searchParams.get('token'));
    const playlist = await fetch(tiles);
    assert.equal(playlist.status, 200);
    checkImagePlaylist(await playlist.text());
    // hls.js (the page's player) reads the same variant with and without the line.
    const withLine = M3U8Parser.parseMasterPlaylist(text, masterUrl);
    const without = M3U8Parser.parseMasterPlaylist(text.replace(`${line}\n`, ''), masterUrl);
    assert.equal(withLine.playlistParsingError, null);
    assert.equal(withLine.levels.length, 1);
    assert.deepEqual(
      withLine.levels.map((l) => [l.url, l.bitrate]),
      without.levels.map((l) => [l.url, l.bitrate]),
    );

    const plain = (await (
      await server.api(`/api/media-file/${fileOf('Plain')}/playback?device=roku`)
    ).json()) as { hls_url: string };
    const none = await (await fetch(`${server.url}${plain.hls_url}`)).text();
    assert.doesNotMatch(none, /IMAGE-STREAM-INF/);
  });

  it("FFmpeg's HLS demuxer reads the master with the image stream line (it skips the tag)", async () => {
    const playback = (await (
      await server.api(`/api/media-file/${fileOf('Meadow')}/playback?device=roku`)
    ).json()) as { hls_url: string };
    const probe = await run(
      fixtureFfmpeg,
      [
        '-hide_banner',
        '-loglevel',
        'error',
        '-i',
        `${server.url}${playback.hls_url}`,
        '-t',
        '2',
        '-f',
        'null',
        '-',
      ],
      { timeout: 120_000 },
    );
    assert.equal(probe.stderr.trim(), '');
  });

  it('a remake: the old sheet URLs are 404 with a hint to re-read the info; the new ones serve', async () => {
    const fileId = fileOf('Razorwire');
    const before = await ready(fileId);
    const old = before.sheets[0] ?? '';
    assert.equal((await get(old)).status, 200);
    const remade = await makeTrickplayFor(server, fileId, { options: OPTIONS });
    const gone = await get(old);
    assert.equal(gone.status, 404);
    const error = (await gone.json()) as { error: string; hint: string };
    assert.equal(error.error, 'not_found');
    assert.match(error.hint, new RegExp(`GET /api/media-file/${fileId}/trickplay`));
    const after = await ready(fileId);
    assert.match(after.sheets[0] ?? '', new RegExp(`/trickplay/${remade.generation}/0\\.jpg\\?`));
    assert.equal((await get(after.sheets[0] ?? '')).status, 200);
  });

  it('not ready: none, queued, running, failed — each its ApiError; an unknown file 404', async () => {
    const fileId = fileOf('Plain');
    const expect = async (status: number, error: string): Promise<Record<string, unknown>> => {
      const response = await info(fileId);
      const body = (await response.json()) as Record<string, unknown>;
      assert.equal(response.status, status, JSON.stringify(body));
      assert.equal(body.error, error);
      assert.equal(typeof body.message, 'string');
      assert.equal(typeof body.hint, 'string');
      return body;
    };
    const none = await expect(404, 'trickplay_not_made');
    assert.match(String(none.hint), new RegExp(`POST /api/media-file/${fileId}/trickplay`));
    setTrickplayStatus(server, fileId, { state: 'queued', jobId: 41 });
    const queued = await expect(503, 'trickplay_pending');
    assert.deepEqual([queued.state, queued.job_id], ['queued', 41]);
    setTrickplayStatus(server, fileId, { state: 'running', jobId: 42 });
    const running = await info(fileId);
    assert.equal(running.headers.get('retry-after'), '30');
    const body = (await running.json()) as Record<string, unknown>;
    assert.deepEqual([body.error, body.state, body.job_id], ['trickplay_pending', 'running', 42]);
    assert.match(String(body.message), /job 42/);
    setTrickplayStatus(server, fileId, {
      state: 'failed',
      reason: 'no keyframe index',
      jobId: 43,
      failedAt: '2026-11-26T08:00:00.000Z',
    });
    const failed = await expect(422, 'trickplay_failed');
    assert.deepEqual(
      [failed.reason, failed.job_id, failed.failed_at],
      ['no keyframe index', 43, '2026-11-26T08:00:00.000Z'],
    );
    assert.match(String(failed.message), /no keyframe index/);
    setTrickplayStatus(server, fileId, { state: 'none' });

    const unknown = await server.api('/api/media-file/999999/trickplay');
    assert.equal(unknown.status, 404);
    assert.equal(((await unknown.json()) as { error: string }).error, 'not_found');
    // A file without a set has no playlist or BIF either.
    for (const path of ['trickplay/tiles.m3u8', 'trickplay.bif']) {
      const response = await server.api(`/stream/media_file/${fileId}/${path}`);
      assert.equal(response.status, 404, path);
    }
  });

  it('a PG child: 404 on every trickplay URL of the R film (API, sheets, Roku sheets, playlist, BIF)', async () => {
    const fileId = fileOf('Razorwire');
    const body = await ready(fileId);
    const sheet = body.sheets[0] ?? '';
    const path = sheet.slice(0, sheet.indexOf('?'));
    const generation = /trickplay\/(\d+)\//.exec(path)?.[1] ?? '';
    const urls = [
      `/api/media-file/${fileId}/trickplay`,
      path,
      `/stream/media_file/${fileId}/trickplay/${generation}/roku/0.jpg`,
      `/stream/media_file/${fileId}/trickplay/tiles.m3u8`,
      `/stream/media_file/${fileId}/trickplay.bif`,
    ];
    for (const url of urls) {
      const response = await get(url, { headers: { authorization: `Bearer ${kidKey}` } });
      assert.equal(response.status, 404, url);
      assert.equal(((await response.json()) as { error: string }).error, 'not_found', url);
    }
    // The G film is theirs to see: the same URLs answer.
    const meadow = await info(fileOf('Meadow'), kidKey);
    assert.equal(meadow.status, 200);
    const sheets = ((await meadow.json()) as TrickplayInfo).sheets;
    assert.equal((await get(sheets[0] ?? '')).status, 200);
  });
});

describe('trickplay: a server that makes none', () => {
  let server: TestServer;
  before(async () => {
    server = await startTrickplayServer({}, { enabled: false });
  });
  after(async () => server?.close());

  it('GET /api/media-file/{id}/trickplay: 404 trickplay_off with the setting to change', async () => {
    const media = mkdtempSync(join(tmpdir(), 'reelshelf-trickplay-off-'));
    try {
      await makeColourFilm(media, 'Lone (2001).mp4', {
        durationSeconds: 5,
        offsetSeconds: 0,
        gopSeconds: 2,
        codec: 'h264',
      });
      const created = await server.api('/api/library-roots', jsonBody('POST', { path: media }));
      const { id: rootId } = (await created.json()) as { id: number };
      await server.api(`/api/library-roots/${rootId}/scan?wait=true`, { method: 'POST' });
      const file = await server.server.database.db
        .selectFrom('media_files')
        .select('id')
        .executeTakeFirstOrThrow();
      const fileId = file.id;
      const response = await server.api(`/api/media-file/${fileId}/trickplay`);
      const body = (await response.json()) as { error: string; hint: string };
      assert.equal(response.status, 404);
      assert.equal(body.error, 'trickplay_off');
      assert.match(body.hint, /REELSHELF_TRICKPLAY=on/);
    } finally {
      rmSync(media, { recursive: true, force: true });
    }
  });
});
