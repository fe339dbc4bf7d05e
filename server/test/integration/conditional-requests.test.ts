import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { LibraryResponse } from '@reelshelf/contract';
import sharp from 'sharp';
import { registerFiles } from '../helpers/library-fixtures.ts';
import { makeFixture } from '../helpers/media.ts';
import { startTestServer, type TestServer } from '../helpers/test-server.ts';

/**
 * RFC 9110 §13–14 over real HTTP on loopback, the same table on every byte-serving route: the direct
 * stream of a generated MP4, a finished playback artifact (an MKV with DTS remuxed for the TV) and
 * an artwork image. Each row names the request and what the answer must be.
 */

interface Answer {
  status: number;
  headers: Headers;
  body: Buffer;
}

/** What the table rows need to know about the representation, read from a plain GET. */
interface Current {
  bytes: Buffer;
  size: number;
  etag: string;
  lastModified: string;
  /** Last-Modified ± one hour, as HTTP-dates. */
  before: string;
  after: string;
  rfc850: string;
  asctime: string;
}

type Row = [
  name: string,
  method: 'GET' | 'HEAD',
  headers: (c: Current) => Record<string, string>,
  expect: (a: Answer, c: Current) => void,
];

const RFC850_DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const two = (n: number) => String(n).padStart(2, '0');

/** The obsolete forms of an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`). */
function obsoleteForms(imf: string): { rfc850: string; asctime: string } {
  const d = new Date(Date.parse(imf));
  const month = imf.slice(8, 11);
  const clock = `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`;
  return {
    rfc850: `${RFC850_DAYS[d.getUTCDay()]}, ${two(d.getUTCDate())}-${month}-${two(d.getUTCFullYear() % 100)} ${clock} GMT`,
    asctime: `${imf.slice(0, 3)} ${month} ${String(d.getUTCDate()).padStart(2, ' ')} ${clock} ${d.getUTCFullYear()}`,
  };
}

function full(a: Answer, c: Current): void {
  assert.equal(a.status, 200);
  assert.equal(a.headers.get('content-length'), String(c.size));
  assert.equal(a.headers.get('accept-ranges'), 'bytes');
  assert.equal(a.headers.get('content-range'), null);
}

function fullGet(a: Answer, c: Current): void {
  full(a, c);
  assert.ok(a.body.equals(c.bytes), 'the whole representation');
}

function fullHead(a: Answer, c: Current): void {
  full(a, c);
  assert.equal(a.body.length, 0);
}

const partial =
  (start: number, end: (c: Current) => number) =>
  (a: Answer, c: Current): void => {
    const last = end(c);
    assert.equal(a.status, 206);
    assert.equal(a.headers.get('content-range'), `bytes ${start}-${last}/${c.size}`);
    assert.equal(a.headers.get('content-length'), String(last - start + 1));
    assert.ok(a.body.equals(c.bytes.subarray(start, last + 1)), 'the bytes of the range');
  };

function unsatisfiable(a: Answer, c: Current): void {
  assert.equal(a.status, 416);
  assert.equal(a.headers.get('content-range'), `bytes */${c.size}`);
  assert.equal((JSON.parse(a.body.toString()) as { error: string }).error, 'range_not_satisfiable');
}

/** 304: the validators and Cache-Control a 200 would carry, no body and no representation headers. */
function notModified(a: Answer, c: Current): void {
  assert.equal(a.status, 304);
  assert.equal(a.headers.get('etag'), c.etag);
  assert.equal(a.headers.get('last-modified'), c.lastModified);
  assert.ok(a.headers.get('cache-control'), 'Cache-Control as on a 200');
  assert.equal(a.headers.get('content-range'), null);
  assert.equal(a.headers.get('content-type'), null);
  assert.equal(a.body.length, 0);
}

const preconditionFailed =
  (field: string) =>
  (a: Answer): void => {
    assert.equal(a.status, 412);
    const body = JSON.parse(a.body.toString()) as { error: string; message: string; hint: string };
    assert.equal(body.error, 'precondition_failed');
    assert.match(body.message, new RegExp(field));
    assert.ok(body.hint.length > 0);
  };

const weakOf = (etag: string) => `W/${etag}`;

const ROWS: Row[] = [
  ['GET', 'GET', () => ({}), fullGet],
  ['HEAD', 'HEAD', () => ({}), fullHead],
  // Ranges players send today keep working.
  ['Range 0-99', 'GET', () => ({ range: 'bytes=0-99' }), partial(0, () => 99)],
  ['Range 100-', 'GET', () => ({ range: 'bytes=100-' }), partial(100, (c) => c.size - 1)],
  [
    'suffix Range -50',
    'GET',
    () => ({ range: 'bytes=-50' }),
    (a, c) => partial(c.size - 50, () => c.size - 1)(a, c),
  ],
  [
    'suffix longer than the file',
    'GET',
    (c) => ({ range: `bytes=-${c.size * 10}` }),
    partial(0, (c) => c.size - 1),
  ],
  ['two ranges → the first alone', 'GET', () => ({ range: 'bytes=0-9,20-29' }), partial(0, () => 9)],
  ['Range size- → 416', 'GET', (c) => ({ range: `bytes=${c.size}-` }), unsatisfiable],
  ['Range -0 → 416', 'GET', () => ({ range: 'bytes=-0' }), unsatisfiable],
  ['Range 5-2 is invalid → ignored', 'GET', () => ({ range: 'bytes=5-2' }), fullGet],
  ['Range of another unit → ignored', 'GET', () => ({ range: 'items=0-5' }), fullGet],
  // Numbers above 2^53: a last-pos clamps, a first-pos is past the end.
  [
    'Range 0-2^64 clamps',
    'GET',
    () => ({ range: 'bytes=0-18446744073709551616' }),
    partial(0, (c) => c.size - 1),
  ],
  ['Range 2^64- → 416', 'GET', () => ({ range: 'bytes=18446744073709551616-' }), unsatisfiable],
  [
    'Range 2^64-2^64+1 → 416',
    'GET',
    () => ({ range: 'bytes=18446744073709551616-18446744073709551617' }),
    unsatisfiable,
  ],
  // HEAD answers as a GET without Range would.
  ['HEAD with Range → 200', 'HEAD', () => ({ range: 'bytes=0-99' }), fullHead],
  ['HEAD with a suffix Range → 200', 'HEAD', () => ({ range: 'bytes=-5' }), fullHead],
  ['HEAD with an unsatisfiable Range → 200', 'HEAD', (c) => ({ range: `bytes=${c.size}-` }), fullHead],
  // If-None-Match: weak comparison; 304 also when a Range is sent.
  ['If-None-Match strong → 304', 'GET', (c) => ({ 'if-none-match': c.etag }), notModified],
  ['If-None-Match weak → 304', 'GET', (c) => ({ 'if-none-match': weakOf(c.etag) }), notModified],
  ['If-None-Match * → 304', 'GET', () => ({ 'if-none-match': '*' }), notModified],
  ['If-None-Match list → 304', 'GET', (c) => ({ 'if-none-match': `"old", ${c.etag}` }), notModified],
  [
    'If-None-Match with Range → 304',
    'GET',
    (c) => ({ 'if-none-match': c.etag, range: 'bytes=0-9' }),
    notModified,
  ],
  [
    'If-None-Match weak with Range → 304',
    'GET',
    (c) => ({ 'if-none-match': weakOf(c.etag), range: 'bytes=0-9' }),
    notModified,
  ],
  [
    'If-None-Match * with Range → 304',
    'GET',
    () => ({ 'if-none-match': '*', range: 'bytes=0-9' }),
    notModified,
  ],
  ['HEAD If-None-Match → 304', 'HEAD', (c) => ({ 'if-none-match': c.etag }), notModified],
  ['If-None-Match other → 200', 'GET', () => ({ 'if-none-match': '"old"' }), fullGet],
  [
    'If-None-Match other with Range → 206',
    'GET',
    () => ({ 'if-none-match': '"old"', range: 'bytes=0-9' }),
    partial(0, () => 9),
  ],
  // If-Match: strong comparison; failing → 412, also with a Range.
  ['If-Match → 200', 'GET', (c) => ({ 'if-match': c.etag }), fullGet],
  [
    'If-Match with Range → 206',
    'GET',
    (c) => ({ 'if-match': c.etag, range: 'bytes=0-9' }),
    partial(0, () => 9),
  ],
  ['If-Match * → 200', 'GET', () => ({ 'if-match': '*' }), fullGet],
  ['If-Match other → 412', 'GET', () => ({ 'if-match': '"old"' }), preconditionFailed('If-Match')],
  [
    'If-Match other with Range → 412',
    'GET',
    () => ({ 'if-match': '"old"', range: 'bytes=0-9' }),
    preconditionFailed('If-Match'),
  ],
  ['If-Match weak → 412', 'GET', (c) => ({ 'if-match': weakOf(c.etag) }), preconditionFailed('If-Match')],
  // If-Unmodified-Since (ignored under If-Match or when not a date).
  ['If-Unmodified-Since later → 200', 'GET', (c) => ({ 'if-unmodified-since': c.after }), fullGet],
  [
    'If-Unmodified-Since earlier → 412',
    'GET',
    (c) => ({ 'if-unmodified-since': c.before }),
    preconditionFailed('If-Unmodified-Since'),
  ],
  [
    'If-Unmodified-Since earlier under a matching If-Match → 200',
    'GET',
    (c) => ({ 'if-match': c.etag, 'if-unmodified-since': c.before }),
    fullGet,
  ],
  ['If-Unmodified-Since not a date → 200', 'GET', () => ({ 'if-unmodified-since': 'yesterday' }), fullGet],
  // If-Modified-Since (GET/HEAD, ignored under If-None-Match or when not an HTTP-date).
  [
    'If-Modified-Since = Last-Modified → 304',
    'GET',
    (c) => ({ 'if-modified-since': c.lastModified }),
    notModified,
  ],
  ['If-Modified-Since later → 304', 'GET', (c) => ({ 'if-modified-since': c.after }), notModified],
  ['If-Modified-Since RFC 850 → 304', 'GET', (c) => ({ 'if-modified-since': c.rfc850 }), notModified],
  ['If-Modified-Since asctime → 304', 'GET', (c) => ({ 'if-modified-since': c.asctime }), notModified],
  [
    'If-Modified-Since with Range → 304',
    'GET',
    (c) => ({ 'if-modified-since': c.lastModified, range: 'bytes=0-9' }),
    notModified,
  ],
  ['HEAD If-Modified-Since → 304', 'HEAD', (c) => ({ 'if-modified-since': c.lastModified }), notModified],
  ['If-Modified-Since earlier → 200', 'GET', (c) => ({ 'if-modified-since': c.before }), fullGet],
  [
    'If-Modified-Since ISO 8601 → 200',
    'GET',
    () => ({ 'if-modified-since': '2999-01-01T00:00:00Z' }),
    fullGet,
  ],
  [
    'If-Modified-Since under a failing If-None-Match → 200',
    'GET',
    (c) => ({ 'if-none-match': '"old"', 'if-modified-since': c.lastModified }),
    fullGet,
  ],
  // If-Range: a strong ETag or the exact date, else the whole representation.
  ['If-Range ETag → 206', 'GET', (c) => ({ range: 'bytes=0-9', 'if-range': c.etag }), partial(0, () => 9)],
  [
    'If-Range date → 206',
    'GET',
    (c) => ({ range: 'bytes=0-9', 'if-range': c.lastModified }),
    partial(0, () => 9),
  ],
  ['If-Range stale ETag → 200', 'GET', () => ({ range: 'bytes=0-9', 'if-range': '"old"' }), fullGet],
  ['If-Range weak ETag → 200', 'GET', (c) => ({ range: 'bytes=0-9', 'if-range': weakOf(c.etag) }), fullGet],
  ['If-Range later date → 200', 'GET', (c) => ({ range: 'bytes=0-9', 'if-range': c.after }), fullGet],
];

async function send(url: string, method: string, headers: Record<string, string>): Promise<Answer> {
  const res = await fetch(url, { method, headers });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

async function current(url: string, auth: Record<string, string>): Promise<Current> {
  const res = await send(url, 'GET', auth);
  assert.equal(res.status, 200, `GET ${url}`);
  const etag = res.headers.get('etag') ?? '';
  assert.match(etag, /^"[^"]+"$/, 'a strong ETag');
  const lastModified = res.headers.get('last-modified') ?? '';
  const time = Date.parse(lastModified);
  assert.ok(Number.isFinite(time), 'Last-Modified');
  return {
    bytes: res.body,
    size: res.body.length,
    etag,
    lastModified,
    before: new Date(time - 3_600_000).toUTCString(),
    after: new Date(time + 3_600_000).toUTCString(),
    ...obsoleteForms(lastModified),
  };
}

describe('conditional requests and ranges on every byte-serving route (RFC 9110 §13–14)', () => {
  let t: TestServer;
  let media: string;
  const routes: Record<string, { url: string; auth: Record<string, string>; current: Current }> = {};

  before(async () => {
    media = mkdtempSync(join(tmpdir(), 'reelshelf-conditional-'));
    const direct = await makeFixture('h264_aac.mp4', join(media, 'Direct (2000)', 'Direct (2000).mp4'), 2);
    const dts = await makeFixture('h264_dts.mkv', join(media, 'Dts (2001)', 'Dts (2001).mkv'), 2);
    await sharp({ create: { width: 120, height: 180, channels: 3, background: '#246' } })
      .jpeg()
      .toFile(join(media, 'Direct (2000)', 'poster.jpg'));
    t = await startTestServer();
    const ids = await registerFiles(t.server.database.db, media, { direct, dts });
    await t.server.services.analysis.analyzePending();
    const dtsFile = ids.dts?.fileId ?? 0;
    const directMovie = ids.direct?.movieId ?? 0;

    // A finished artifact: prewarm the DTS file for the TV and wait until it is ready.
    await t.api(`/api/media-file/${dtsFile}/prewarm-tv`, { method: 'POST' });
    const deadline = Date.now() + 60_000;
    for (;;) {
      const state = (await (await t.api(`/api/media-file/${dtsFile}/prewarm-tv`)).json()) as {
        status: string;
      };
      if (state.status === 'ready') break;
      assert.equal(state.status, 'building');
      assert.ok(Date.now() < deadline, 'the artifact was built in time');
      await new Promise((r) => setTimeout(r, 100));
    }
    const art = await t.api('/api/artwork/fetch?wait=true', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ movie_ids: [directMovie] }),
    });
    assert.equal(art.status, 200);

    const streamUrl = async (device: string, movieId: number) => {
      const body = (await (await t.api(`/library?device=${device}`)).json()) as LibraryResponse;
      const edition = body.items.find((i) => i.movie_id === movieId)?.editions[0];
      assert.ok(edition, `edition of movie ${movieId} on ${device}`);
      return `${t.url}${edition.stream_url}`;
    };
    const bearer = { authorization: `Bearer ${t.token}` };
    const direct_ = { url: await streamUrl('web', directMovie), auth: {} };
    const artifact = { url: await streamUrl('tv', ids.dts?.movieId ?? 0), auth: {} };
    const artwork = { url: `${t.url}/artwork/${directMovie}/poster`, auth: bearer };
    for (const [name, route] of Object.entries({
      'direct stream': direct_,
      'finished artifact': artifact,
      artwork,
    })) {
      routes[name] = { ...route, current: await current(route.url, route.auth) };
    }
    assert.equal(routes['finished artifact']?.current.bytes.subarray(4, 8).toString('latin1'), 'ftyp');
  });
  after(async () => {
    await t.close();
    rmSync(media, { recursive: true, force: true });
  });

  it('a growing artifact (ffmpeg still writing) keeps its ranges; HEAD ignores Range; only * matches', async () => {
    const root = join(media, 'growing');
    const long = await makeFixture('mpeg2_720p.mkv', join(root, 'Long (2002)', 'Long (2002).mkv'), 30);
    const ids = await registerFiles(t.server.database.db, root, { long });
    await t.server.services.analysis.analyzePending();
    const fileId = ids.long?.fileId ?? 0;
    const body = (await (await t.api('/library?device=tv')).json()) as LibraryResponse;
    const edition = body.items.find((i) => i.movie_id === ids.long?.movieId)?.editions[0];
    assert.ok(edition);
    const url = `${t.url}${edition.stream_url}`;
    try {
      const first = await send(url, 'GET', { range: 'bytes=0-1023' });
      assert.equal(first.status, 206);
      assert.equal(first.headers.get('content-range'), 'bytes 0-1023/*');
      assert.equal(first.body.subarray(4, 8).toString('latin1'), 'ftyp');
      assert.equal(first.headers.get('etag'), null, 'no validator while the bytes still change');
      const state = (await (await t.api(`/api/media-file/${fileId}/prewarm-tv`)).json()) as {
        status: string;
      };
      assert.equal(state.status, 'building', 'still being written');
      const head = await send(url, 'HEAD', { range: 'bytes=0-1023' });
      assert.equal(head.status, 200, 'HEAD ignores Range');
      assert.equal(head.headers.get('content-range'), null);
      const other = await send(url, 'GET', { range: 'bytes=0-99', 'if-none-match': '"old"' });
      assert.equal(other.status, 206, 'a tag that cannot match leaves the range as it was');
      assert.equal(other.body.length, 100);
      const any = await send(url, 'GET', { range: 'bytes=0-99', 'if-none-match': '*' });
      assert.equal(any.status, 304, '* matches the representation being written');
      const ifMatch = await send(url, 'GET', { range: 'bytes=0-99', 'if-match': '"old"' });
      assert.equal(ifMatch.status, 412);
      const since = await send(url, 'GET', {
        range: 'bytes=0-99',
        'if-unmodified-since': 'Sun, 06 Nov 1994 08:49:37 GMT',
      });
      assert.equal(since.status, 206, 'no Last-Modified: If-Unmodified-Since is ignored (RFC 9110 §13.1.4)');
    } finally {
      await t.api(`/api/media-file/${fileId}/prewarm-tv`, { method: 'DELETE' });
    }
  });

  for (const name of ['direct stream', 'finished artifact', 'artwork']) {
    describe(name, () => {
      for (const [row, method, headers, expect] of ROWS) {
        it(row, async () => {
          const route = routes[name];
          assert.ok(route, `${name} was set up`);
          const answer = await send(route.url, method, { ...route.auth, ...headers(route.current) });
          expect(answer, route.current);
        });
      }
    });
  }
});
