/**
 * REELSHELF_ACCEL_REDIRECT behind real nginx, configured by docs/deploy/nginx.conf as documented:
 * reelshelf checks the token and the library root, nginx sends the bytes. What a player gets through
 * nginx must be what reelshelf would have sent itself (the bytes, ranges, its Content-Type and
 * Cache-Control); what reelshelf refuses, nginx never serves.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { LibraryResponse } from '@reelshelf/contract';
import { registerFiles } from '../helpers/library-fixtures.ts';
import { makeFixture } from '../helpers/media.ts';
import { nginxBinary, type RunningNginx, startNginx } from '../helpers/nginx.ts';
import { startTestServer, type TestServer } from '../helpers/test-server.ts';

/** A name nginx must decode back exactly: spaces, accents, `%`, `?`, `#`, `+`. */
const TRICKY = 'Amélie 100% #1? + more (2001)';

describe(
  'X-Accel-Redirect behind nginx (docs/deploy/nginx.conf)',
  { skip: nginxBinary === null && 'no nginx' },
  () => {
    let media = '';
    let outside = '';
    let t: TestServer;
    let nginx: RunningNginx;
    let ids: Record<string, { movieId: number; fileId: number }> = {};
    let bytes = Buffer.alloc(0);

    before(async () => {
      media = mkdtempSync(join(tmpdir(), 'reelshelf-accel-media-'));
      outside = mkdtempSync(join(tmpdir(), 'reelshelf-accel-outside-'));
      const film = await makeFixture('h264_aac.mp4', join(media, TRICKY, `${TRICKY}.mp4`), 3);
      bytes = readFileSync(film);
      writeFileSync(join(outside, 'secret.mp4'), bytes);
      mkdirSync(join(media, 'Escape (2002)'));
      // Analysed as a film of the root, then turned into a link out of it: the stream must refuse it.
      writeFileSync(join(media, 'Escape (2002)', 'Escape (2002).mp4'), bytes);
      // Links out of the root are refused here (REELSHELF_FOLLOW_SYMLINKS=off), so the escape
      // below is a file reelshelf refuses; symlinks.test.ts covers the rule with it on.
      t = await startTestServer({
        REELSHELF_ACCEL_REDIRECT: '/internal-media',
        REELSHELF_FOLLOW_SYMLINKS: 'off',
      });
      ids = await registerFiles(t.server.database.db, media, {
        film,
        escape: join(media, 'Escape (2002)', 'Escape (2002).mp4'),
      });
      await t.server.services.analysis.analyzePending();
      rmSync(join(media, 'Escape (2002)', 'Escape (2002).mp4'));
      symlinkSync(join(outside, 'secret.mp4'), join(media, 'Escape (2002)', 'Escape (2002).mp4'));
      nginx = await startNginx({ upstream: new URL(t.url).host });
    });
    after(async () => {
      await nginx?.stop();
      await t?.close();
      rmSync(media, { recursive: true, force: true });
      rmSync(outside, { recursive: true, force: true });
    });

    async function streamPath(name: string): Promise<string> {
      const body = (await (await t.api('/library?device=web')).json()) as LibraryResponse;
      const item = body.items.find((i) => i.movie_id === ids[name]?.movieId);
      const url = item?.editions[item.default_edition_index]?.stream_url;
      assert.ok(url, `stream_url of ${name}`);
      return url;
    }

    it('reelshelf answers with the file under the internal location and no body', async () => {
      const res = await fetch(`${t.url}${await streamPath('film')}`);
      assert.equal(res.status, 200);
      const uri = res.headers.get('x-accel-redirect') ?? '';
      assert.ok(uri.startsWith('/internal-media/'), uri);
      assert.ok(decodeURIComponent(uri).endsWith(`/${TRICKY}/${TRICKY}.mp4`), uri);
      assert.equal(res.headers.get('content-type'), 'video/mp4');
      assert.equal((await res.arrayBuffer()).byteLength, 0);
    });

    it('through nginx: the whole file, a range, HEAD and a 304, with reelshelf’s type and caching', async () => {
      const url = `${nginx.url}${await streamPath('film')}`;
      const full = await fetch(url);
      assert.equal(full.status, 200);
      assert.ok(Buffer.from(await full.arrayBuffer()).equals(bytes), 'the same bytes');
      assert.equal(full.headers.get('x-accel-redirect'), null, 'nginx keeps the internal URI to itself');
      assert.equal(full.headers.get('content-type'), 'video/mp4');
      assert.equal(full.headers.get('cache-control'), 'private, max-age=0, must-revalidate');
      assert.equal(full.headers.get('accept-ranges'), 'bytes');
      const etag = full.headers.get('etag') ?? '';
      assert.match(etag, /^"[^"]+"$/);

      const part = await fetch(url, { headers: { range: 'bytes=100-1099' } });
      assert.equal(part.status, 206);
      assert.equal(part.headers.get('content-range'), `bytes 100-1099/${bytes.length}`);
      assert.ok(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(100, 1100)));

      const tail = await fetch(url, { headers: { range: 'bytes=-500' } });
      assert.equal(tail.status, 206);
      assert.ok(Buffer.from(await tail.arrayBuffer()).equals(bytes.subarray(bytes.length - 500)));

      const head = await fetch(url, { method: 'HEAD' });
      assert.equal(head.status, 200);
      assert.equal(head.headers.get('content-length'), String(bytes.length));

      const again = await fetch(url, { headers: { 'if-none-match': etag } });
      assert.equal(again.status, 304);
      const stale = await fetch(url, { headers: { range: 'bytes=0-9', 'if-range': '"not-this-one"' } });
      assert.equal(stale.status, 200, 'an If-Range that does not match gets the whole file');
      await stale.body?.cancel();
    });

    it('through nginx: no token, a forged token, a symlink out of the root, the internal URI asked directly', async () => {
      const path = await streamPath('film');
      const bare = path.replace(/[?&]token=[^&]*/, '');
      const noToken = await fetch(`${nginx.url}${bare}`);
      assert.equal(noToken.status, 401);
      assert.equal(((await noToken.json()) as { error: string }).error, 'unauthorized');
      const forged = await fetch(`${nginx.url}${path.replace(/token=[^&]*/, 'token=forged')}`);
      assert.equal(forged.status, 401);
      await forged.body?.cancel();

      const escape = await fetch(`${nginx.url}${await streamPath('escape')}`);
      assert.equal(escape.status, 403);
      assert.equal(((await escape.json()) as { error: string }).error, 'forbidden');

      const encoded = join(media, TRICKY, `${TRICKY}.mp4`)
        .split('/')
        .map((segment) => encodeURIComponent(segment))
        .join('/');
      const internal = await fetch(`${nginx.url}/internal-media${encoded}`);
      assert.equal(internal.status, 404, 'the internal location answers no client');
      await internal.body?.cancel();
    });
  },
);
