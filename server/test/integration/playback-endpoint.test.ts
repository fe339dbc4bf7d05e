// GET /api/media-file/{id}/playback over real HTTP, on real generated files analysed by ffprobe.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { LibraryResponse } from '@reelshelf/contract';
import type { PlaybackInfo } from '../../src/services/playback/playback.service.ts';
import { registerFiles } from '../helpers/library-fixtures.ts';
import { type FixtureName, makeFixtures } from '../helpers/media.ts';
import { startTestServer, type TestServer } from '../helpers/test-server.ts';

const FIXTURES: FixtureName[] = ['h264_aac.mp4', 'h264_dts.mkv', 'mpeg2_ac3.mkv', 'garbage.mkv'];

/** fixture × device → [prediction, hls_url set?]: conversions always, direct files where the profile prefers HLS. */
const EXPECTED: [FixtureName, string, string, boolean][] = [
  ['h264_aac.mp4', 'web', 'direct', false],
  ['h264_aac.mp4', 'full', 'direct', false],
  ['h264_aac.mp4', 'tv', 'direct', true],
  ['h264_aac.mp4', 'safari', 'direct', true],
  ['h264_aac.mp4', 'roku', 'direct', true],
  ['h264_dts.mkv', 'web', 'adaptive', true],
  ['h264_dts.mkv', 'tv', 'adaptive', true],
  ['h264_dts.mkv', 'full', 'direct', false],
  ['h264_dts.mkv', 'androidtv', 'direct', true],
  ['mpeg2_ac3.mkv', 'web', 'transcode', true],
];

function tokenOf(url: string): string | null {
  return new URL(url, 'http://x').searchParams.get('token');
}

describe('GET /api/media-file/{id}/playback', () => {
  let t: TestServer;
  let root: string;
  let ids: Record<string, { movieId: number; fileId: number }>;
  const fileId = (name: FixtureName) => ids[name]?.fileId ?? 0;

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'reelshelf-playback-'));
    const files = await makeFixtures(root, FIXTURES);
    t = await startTestServer();
    ids = await registerFiles(t.server.database.db, root, files);
    await t.server.services.analysis.analyzePending();
  });
  after(async () => {
    await t?.close();
    rmSync(root, { recursive: true, force: true });
  });

  async function playback(id: number, device?: string): Promise<PlaybackInfo> {
    const res = await t.api(
      `/api/media-file/${id}/playback${device === undefined ? '' : `?device=${device}`}`,
    );
    assert.equal(res.status, 200, await res.clone().text());
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    return (await res.json()) as PlaybackInfo;
  }

  for (const [fixture, device, prediction, hls] of EXPECTED) {
    it(`${fixture} on ${device}: ${prediction}, ${hls ? 'HLS' : 'progressive only'}`, async () => {
      const info = await playback(fileId(fixture), device);
      assert.equal(info.prediction, prediction);
      assert.equal(info.is_playable, true);
      assert.deepEqual(info.subtitles, []);
      assert.deepEqual(info.warnings, []);
      assert.ok(info.duration_seconds !== null && Math.abs(info.duration_seconds - 2) < 0.5, 'about 2 s');
      if (!hls) {
        assert.equal(info.hls_url, null);
        return;
      }
      const id = fileId(fixture);
      assert.match(
        info.hls_url ?? '',
        new RegExp(`^/stream/media_file/${id}/master\\.m3u8\\?device=${device}&token=`),
      );
      assert.equal(tokenOf(info.hls_url ?? ''), tokenOf(info.stream_url), 'the same signed token');
    });
  }

  it('stream_url is the edition’s stream_url in GET /library; the device defaults to web', async () => {
    const id = fileId('h264_dts.mkv');
    const library = (await (await t.api('/library?device=web')).json()) as LibraryResponse;
    const edition = library.items.flatMap((item) => item.editions).find((e) => e.media_file_id === id);
    assert.ok(edition, 'listed');
    const info = await playback(id);
    assert.equal(info.stream_url, edition.stream_url);
    assert.equal(info.prediction, edition.playback_prediction);
    assert.equal(
      info.duration_seconds !== null && Math.round(info.duration_seconds),
      edition.duration_seconds,
    );
    assert.deepEqual(await playback(id), info, 'the same answer twice (tokens are stable within the hour)');
  });

  it('a file that cannot play: 200 with is_playable false and no HLS; its stream URL says why (400)', async () => {
    const info = await playback(fileId('garbage.mkv'), 'web');
    assert.equal(info.is_playable, false);
    assert.equal(info.hls_url, null);
    assert.equal(info.duration_seconds, null);
    const stream = await fetch(`${t.url}${info.stream_url}`);
    assert.equal(stream.status, 400);
    const body = (await stream.json()) as { error: string };
    assert.equal(typeof body.error, 'string');
  });

  it('the progressive URL it gives plays the file itself for a direct file', async () => {
    const info = await playback(fileId('h264_aac.mp4'), 'web');
    const res = await fetch(`${t.url}${info.stream_url}`, { headers: { range: 'bytes=0-7' } });
    assert.equal(res.status, 206);
    assert.equal(
      Buffer.from(await res.arrayBuffer())
        .subarray(4, 8)
        .toString('latin1'),
      'ftyp',
    );
  });

  it('unknown device: the same 400 as GET /library; unknown file: 404; bad id: 400', async () => {
    const mine = await t.api(`/api/media-file/${fileId('h264_aac.mp4')}/playback?device=xbox`);
    const library = await t.api('/library?device=xbox');
    assert.equal(mine.status, 400);
    assert.deepEqual(await mine.json(), await library.json());
    const missing = await t.api('/api/media-file/999999/playback');
    assert.equal(missing.status, 404);
    assert.equal(((await missing.json()) as { error: string }).error, 'not_found');
    const bad = await t.api('/api/media-file/abc/playback');
    assert.equal(bad.status, 400);
    const extra = await t.api(`/api/media-file/${fileId('h264_aac.mp4')}/playback?devise=web`);
    assert.equal(extra.status, 400, 'unknown query parameters are refused');
  });

  it('needs the admin token or a session', async () => {
    const res = await t.api(`/api/media-file/${fileId('h264_aac.mp4')}/playback`, { auth: false });
    assert.equal(res.status, 401);
    const forged = await t.api(`/api/media-file/${fileId('h264_aac.mp4')}/playback`, {
      headers: { authorization: 'Bearer not-the-token-at-all' },
    });
    assert.equal(forged.status, 401);
  });
});
