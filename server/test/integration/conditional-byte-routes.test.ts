import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { LibraryResponse } from '@reelshelf/contract';
import { fixtureFfmpeg } from '../helpers/media.ts';
import { ADMIN, jsonBody, startTestServer, type TestServer } from '../helpers/test-server.ts';

const run = promisify(execFile);
const repo = new URL('../../../', import.meta.url).pathname;

const SRT = `1
00:00:01,000 --> 00:00:02,000
Hello.
`;

/**
 * Every route that serves bytes answers RFC 9110 preconditions through the one module
 * (domain/http-conditional.ts, via http/stream-response.ts): an If-None-Match list naming the
 * current tag among others, a weak copy of it, or `*` is a 304; another tag is a 200; an If-Match
 * that does not hold is a 412 (docs/http.md).
 */
describe('conditional requests on every byte-serving route', () => {
  let t: TestServer;
  let media: string;
  const paths: Record<string, string> = {};

  before(async () => {
    media = mkdtempSync(join(tmpdir(), 'reelshelf-conditional-'));
    writeFileSync(join(media, 'en.srt'), SRT);
    // H.264 + AC-3 (adaptive on web: HLS) with one SubRip track (a WebVTT rendition).
    await run(fixtureFfmpeg, [
      ...['-hide_banner', '-loglevel', 'error', '-y'],
      ...['-f', 'lavfi', '-i', 'testsrc2=duration=4:size=160x120:rate=25'],
      ...['-f', 'lavfi', '-i', 'sine=frequency=440:duration=4:sample_rate=48000'],
      ...['-i', join(media, 'en.srt')],
      ...['-map', '0:v', '-map', '1:a', '-map', '2:s'],
      ...['-c:v', 'libx264', '-preset', 'ultrafast', '-g', '50', '-c:a', 'ac3', '-c:s', 'srt'],
      join(media, 'Preconditions (2001).mkv'),
    ]);
    rmSync(join(media, 'en.srt'));
    t = await startTestServer();
    const root = (await (await t.api('/api/library-roots', jsonBody('POST', { path: media }))).json()) as {
      id: number;
    };
    assert.equal(
      (await t.api(`/api/library-roots/${root.id}/scan?wait=true`, { method: 'POST' })).status,
      200,
    );
    const library = (await (await t.api('/library?device=web')).json()) as LibraryResponse;
    const id = library.items[0]?.editions[0]?.media_file_id ?? 0;
    const q = new URLSearchParams({ device: 'web', token: t.server.services.tokens.sign(id, 'web', ADMIN) });
    const base = `/stream/media_file/${id}`;
    Object.assign(paths, {
      'HLS master playlist': `${base}/master.m3u8?${q}`,
      'HLS video playlist': `${base}/hls/v/index.m3u8?${q}`,
      'HLS audio playlist': `${base}/hls/a0/index.m3u8?${q}`,
      'HLS subtitle playlist': `${base}/hls/s0/index.m3u8?${q}`,
      'HLS WebVTT segment': `${base}/hls/s0/0.vtt?${q}`,
      'HLS init section': `${base}/hls/v/init.mp4?${q}`,
      'HLS media segment': `${base}/hls/v/0.m4s?${q}`,
      'subtitle track as WebVTT': `${base}/subtitles/0.vtt?${q}`,
      'page asset': '/assets/app.css',
      'vendor page asset': '/assets/vendor/hls.min.js',
    });
  });
  after(async () => {
    await t?.close();
    rmSync(media, { recursive: true, force: true });
  });

  const names = [
    'HLS master playlist',
    'HLS video playlist',
    'HLS audio playlist',
    'HLS subtitle playlist',
    'HLS WebVTT segment',
    'HLS init section',
    'HLS media segment',
    'subtitle track as WebVTT',
    'page asset',
    'vendor page asset',
  ];
  for (const name of names) {
    it(`${name}: If-None-Match lists, weak copies and * are 304; another tag 200; a failed If-Match 412`, async () => {
      const url = `${t.url}${paths[name]}`;
      const first = await fetch(url);
      assert.equal(first.status, 200, `${name}: ${await first.clone().text()}`);
      const body = Buffer.from(await first.arrayBuffer());
      const etag = first.headers.get('etag');
      assert.ok(etag !== null && /^"[^"]+"$/.test(etag), `${name} has a strong ETag: ${etag}`);
      for (const noneMatch of [`W/"x", ${etag}`, `W/${etag}`, '*', `"a", "b",${etag}`]) {
        const res = await fetch(url, { headers: { 'if-none-match': noneMatch } });
        assert.equal(res.status, 304, `If-None-Match: ${noneMatch}`);
        assert.equal(res.headers.get('etag'), etag);
        assert.equal((await res.arrayBuffer()).byteLength, 0);
      }
      const other = await fetch(url, { headers: { 'if-none-match': '"not-this-one"' } });
      assert.equal(other.status, 200);
      assert.deepEqual(Buffer.from(await other.arrayBuffer()), body);
      const failed = await fetch(url, { headers: { 'if-match': '"not-this-one"' } });
      assert.equal(failed.status, 412);
      assert.equal(((await failed.json()) as { error: string }).error, 'precondition_failed');
      const held = await fetch(url, { headers: { 'if-match': etag } });
      assert.equal(held.status, 200);
      await held.arrayBuffer();
    });
  }
});

describe('the conditional request headers are read in one place', () => {
  it('only the module reads If-* headers (and the listing route, which hands If-None-Match to its service)', () => {
    const files = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => {
        const full = join(dir, name);
        return statSync(full).isDirectory() ? files(full) : name.endsWith('.ts') ? [full] : [];
      });
    const readers = files(join(repo, 'server/src'))
      .filter((file) =>
        /headers\[['"]if-(none-match|match|modified-since|unmodified-since|range)['"]\]/i.test(
          readFileSync(file, 'utf8'),
        ),
      )
      .map((file) => relative(repo, file));
    // The listing compares If-None-Match strongly on purpose (docs/api.md "/library"), with the
    // module's own parser (domain/library-listing/etag.ts).
    assert.deepEqual(readers, [
      'server/src/domain/http-conditional.ts',
      'server/src/http/routes/library.routes.ts',
    ]);
  });
});
