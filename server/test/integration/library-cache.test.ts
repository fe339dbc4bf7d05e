import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import type { LibraryResponse, MovieDetail } from '@reelshelf/contract';
import { request } from 'undici';
import { openDatabase } from '../../src/db/database.ts';
import { HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from '../../src/http/app.ts';
import { ADMIN, contract, jsonBody, startTestServer, type TestServer } from '../helpers/test-server.ts';

/** A pinned clock: the stream URLs' tokens (and with them the listing) move only when a test says. */
let nowMs = Date.parse('2026-03-01T12:00:00Z');
const clock = { now: () => new Date(nowMs) };
const HOUR = 3600_000;

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: Buffer;
}

/** GET without fetch's decompression: the bytes as sent. */
async function raw(t: TestServer, path: string, headers: Record<string, string> = {}): Promise<Raw> {
  const res = await request(`${t.url}${path}`, {
    headers: { authorization: `Bearer ${t.token}`, 'accept-encoding': 'gzip', ...headers },
  });
  return {
    status: res.statusCode,
    headers: res.headers,
    bytes: Buffer.from(await res.body.arrayBuffer()),
  };
}

function decoded(r: Raw): string {
  const coding = r.headers['content-encoding'];
  if (coding === 'gzip') return gunzipSync(r.bytes).toString();
  if (coding === 'br') return brotliDecompressSync(r.bytes).toString();
  assert.equal(coding, undefined);
  return r.bytes.toString();
}

function etagOf(r: Raw): string {
  const tag = r.headers.etag;
  assert.equal(typeof tag, 'string', 'an ETag');
  return tag as string;
}

async function waitForJobs(t: TestServer): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const busy = [
      ...(await t.server.services.jobViews.list({ status: 'running' })),
      ...(await t.server.services.jobViews.list({ status: 'queued' })),
    ];
    if (busy.length === 0) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('jobs did not finish');
}

describe('GET /library: cached listing, ETag, 304, pages', () => {
  let t: TestServer;
  let media: string;
  let rootId: number;

  /** The listing as served now (gzip), checked against a fresh build: same bytes, valid contract. */
  async function listing(device = 'web'): Promise<{ etag: string; body: LibraryResponse; text: string }> {
    const r = await raw(t, `/library?device=${device}`);
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-encoding'], 'gzip');
    const text = decoded(r);
    const fresh = JSON.stringify(await t.server.services.library.getLibrary(ADMIN, device));
    assert.equal(text, fresh, 'the cached listing is the listing a fresh build makes, byte for byte');
    const body = JSON.parse(text) as LibraryResponse;
    const check = contract.validate('libraryResponse', body);
    assert.ok(check.ok, check.ok ? '' : check.errors.join('\n'));
    return { etag: etagOf(r), body, text };
  }

  /** A write must change the ETag; the old tag then gets a 200, the new one a 304. */
  async function afterWrite(label: string, write: () => Promise<void>): Promise<LibraryResponse> {
    const before = await listing();
    assert.equal((await raw(t, '/library', { 'if-none-match': before.etag })).status, 304);
    await write();
    const now = await listing();
    assert.notEqual(now.etag, before.etag, `${label}: a new ETag`);
    assert.equal((await raw(t, '/library', { 'if-none-match': before.etag })).status, 200, label);
    assert.equal((await raw(t, '/library', { 'if-none-match': now.etag })).status, 304, label);
    return now.body;
  }

  before(async () => {
    media = mkdtempSync(join(tmpdir(), 'reelshelf-cache-media-'));
    t = await startTestServer({}, { clock });
    const res = await t.api('/api/library-roots', jsonBody('POST', { path: media }));
    assert.equal(res.status, 201);
    rootId = ((await res.json()) as { id: number }).id;
    for (const title of ['Alpha', 'Beta', 'Gamma', 'Delta', 'Épée', 'Zulu']) {
      const created = await t.api('/api/movies', jsonBody('POST', { title, year: 2001 }));
      assert.equal(created.status, 201);
    }
  });
  after(async () => {
    await t.close();
    rmSync(media, { recursive: true, force: true });
  });

  it('answers 304 to an unchanged listing (strong match, lists, *) and 200 otherwise', async () => {
    const first = await raw(t, '/library');
    const etag = etagOf(first);
    assert.match(etag, /^"[^"]+"$/, 'a strong tag');
    assert.equal(first.headers['cache-control'], 'private, no-cache');
    assert.match(String(first.headers.vary), /Accept-Encoding/);
    const again = await raw(t, '/library', { 'if-none-match': etag });
    assert.equal(again.status, 304);
    assert.equal(again.bytes.length, 0);
    assert.equal(again.headers.etag, etag);
    assert.equal((await raw(t, '/library', { 'if-none-match': `"nope", ${etag}` })).status, 304);
    assert.equal((await raw(t, '/library', { 'if-none-match': '*' })).status, 304);
    assert.equal((await raw(t, '/library', { 'if-none-match': `W/${etag}` })).status, 200, 'weak ≠ strong');
    assert.equal((await raw(t, '/library', { 'if-none-match': '"other"' })).status, 200);
    // Discs only, no stream URL: the token hour moving changes nothing.
    nowMs += HOUR;
    assert.equal((await raw(t, '/library', { 'if-none-match': etag })).status, 304);
    // Another device is another listing with its own tag.
    const tv = await raw(t, '/library?device=tv');
    assert.notEqual(etagOf(tv), etag);
    assert.equal(JSON.parse(decoded(tv)).device, 'tv');
  });

  it('serves the same listing as gzip, br (once made) and identity, each under its own tag', async () => {
    const gz = await raw(t, '/library');
    const identity = await raw(t, '/library', { 'accept-encoding': 'identity' });
    assert.equal(identity.headers['content-encoding'], undefined);
    assert.equal(decoded(identity), decoded(gz));
    assert.notEqual(etagOf(identity), etagOf(gz));
    let br = await raw(t, '/library', { 'accept-encoding': 'gzip, deflate, br' });
    for (let i = 0; i < 100 && br.headers['content-encoding'] !== 'br'; i++) {
      await new Promise((r) => setTimeout(r, 20));
      br = await raw(t, '/library', { 'accept-encoding': 'gzip, deflate, br' });
    }
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(decoded(br), decoded(gz));
    assert.equal(
      (await raw(t, '/library', { 'accept-encoding': 'br', 'if-none-match': etagOf(br) })).status,
      304,
    );
    // fetch (which decompresses) reads it like any JSON.
    const body = (await (await t.api('/library')).json()) as LibraryResponse;
    assert.equal(JSON.stringify(body), decoded(gz));
  });

  it('gives a new ETag after each kind of write, and the cached bytes stay those of a fresh build', async () => {
    const services = t.server.services;
    let movieId = 0;
    await afterWrite('movie create', async () => {
      const res = await t.api('/api/movies', jsonBody('POST', { title: 'Aardvark', year: 1999 }));
      movieId = ((await res.json()) as MovieDetail).id;
    });
    let body = await afterWrite('movie patch', async () => {
      const res = await t.api(`/api/movies/${movieId}`, jsonBody('PATCH', { title: 'Zzyzx Road' }));
      assert.equal(res.status, 200);
    });
    assert.equal(body.items.at(-1)?.title, 'Zzyzx Road', 'moved to its new place in the order');
    body = await afterWrite('physical copy', async () => {
      const db = t.server.database.db;
      const binder = await db
        .insertInto('binders')
        .values({ name: 'Shelf B', capacity: 10, created_at: 'x' })
        .returning('id')
        .executeTakeFirstOrThrow();
      await db
        .insertInto('physical_copies')
        .values({
          movie_id: movieId,
          edition_id: null,
          binder_id: binder.id,
          slot: '3',
          notes: null,
          created_at: 'x',
        })
        .execute();
    });
    assert.deepEqual(body.items.find((i) => i.movie_id === movieId)?.physical_copies, [
      { binder: 'Shelf B', slot: '3', format: null },
    ]);
    await afterWrite('movie delete', async () => {
      assert.equal((await t.api(`/api/movies/${movieId}`, { method: 'DELETE' })).status, 204);
    });

    // A scan adding a file (not a real video: its analysis fails, which the listing shows).
    const folder = join(media, 'Kilo (2004)');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'Kilo (2004).mkv'), Buffer.alloc(4096, 7));
    writeFileSync(join(folder, 'poster.jpg'), Buffer.alloc(64, 1));
    body = await afterWrite('scan adding a file', async () => {
      const res = await t.api(`/api/library-roots/${rootId}/scan?wait=true`, { method: 'POST' });
      assert.equal(res.status, 200);
      await waitForJobs(t);
    });
    const kilo = body.items.find((i) => i.title === 'Kilo');
    assert.ok(kilo !== undefined && kilo.movie_id !== null, 'the scanned film is listed');
    const fileId = kilo.editions[0]?.media_file_id ?? 0;
    await afterWrite('analysis', async () => {
      await services.analysis.analyzeFile(fileId);
    });
    body = await afterWrite('artwork state', async () => {
      const res = await t.api(
        '/api/artwork/fetch?wait=true',
        jsonBody('POST', { movie_ids: [kilo.movie_id] }),
      );
      assert.equal(res.status, 200);
    });
    body = await afterWrite('watch progress', async () => {
      const res = await t.api(
        `/api/media-file/${fileId}/progress`,
        jsonBody('PUT', { position_seconds: 42, watched: false }),
      );
      assert.equal(res.status, 200);
    });
    assert.equal(body.items.find((i) => i.title === 'Kilo')?.editions[0]?.resume_position_seconds, 42);
    body = await afterWrite('import', async () => {
      const res = await t.api('/api/import', {
        method: 'POST',
        headers: { 'content-type': 'text/csv' },
        body: 'title,year,binder,slot\nImported Film,1987,Shelf C,1\n',
      });
      assert.equal(res.status, 200, await res.text());
      await waitForJobs(t);
    });
    assert.ok(body.items.some((i) => i.title === 'Imported Film'));
    await afterWrite('a write by another process (the CLI)', async () => {
      // A connection of its own, which the server's write observers never see (SQLite: another
      // handle on the file; PostgreSQL: another node's pool): the server hears of it as the CLI's.
      const other = await openDatabase(t.config.databaseUrl);
      try {
        await other.db
          .updateTable('movies')
          .set({ overview: 'written elsewhere' })
          .where('title', '=', 'Alpha')
          .execute();
      } finally {
        await other.close();
      }
    });

    // Cleared, the cache builds the same bytes from scratch.
    const cached = await raw(t, '/library', { 'accept-encoding': 'identity' });
    services.listing.clear();
    const rebuilt = await raw(t, '/library', { 'accept-encoding': 'identity' });
    assert.ok(rebuilt.bytes.equals(cached.bytes));
    assert.equal(etagOf(rebuilt), etagOf(cached), 'same generation, same tag');
  });

  it('re-presents only the movie that changed', async () => {
    const services = t.server.services;
    await listing();
    const before = services.listing.stats();
    const res = await t.api('/api/movies?limit=1');
    const id = ((await res.json()) as { items: { id: number }[] }).items[0]?.id ?? 0;
    await t.api(`/api/movies/${id}`, jsonBody('PATCH', { overview: 'Changed once.' }));
    const after = await listing();
    const stats = services.listing.stats();
    assert.equal(stats.builds - before.builds, 1);
    assert.equal(stats.fullBuilds, before.fullBuilds, 'no full build');
    assert.equal(stats.presented - before.presented, 1, 'one movie presented again');
    assert.equal(after.body.items.find((i) => i.movie_id === id)?.overview, 'Changed once.');
  });

  it('presents the items with stream URLs again when their tokens move to the next hour', async () => {
    const services = t.server.services;
    const before = await listing();
    const withUrls = before.body.items.filter((i) => i.editions.length > 0).length;
    assert.ok(withUrls > 0 && withUrls < before.body.items.length);
    const stats = services.listing.stats();
    nowMs += HOUR;
    const after = await listing();
    assert.notEqual(after.etag, before.etag);
    assert.notEqual(after.text, before.text, 'new tokens in the stream URLs');
    const now = services.listing.stats();
    assert.equal(now.fullBuilds, stats.fullBuilds);
    assert.equal(now.presented - stats.presented, withUrls);
  });

  it('shares one build among concurrent requests', async () => {
    const services = t.server.services;
    services.listing.clear();
    const before = services.listing.stats();
    const answers = await Promise.all(Array.from({ length: 12 }, () => raw(t, '/library')));
    assert.equal(services.listing.stats().builds - before.builds, 1);
    const first = answers[0] as Raw;
    for (const a of answers) {
      assert.equal(a.status, 200);
      assert.ok(a.bytes.equals(first.bytes), 'the same cached buffer');
    }
  });

  it('pages with limit and offset, the total in X-Total-Count; bad values are a 400', async () => {
    const whole = await listing();
    const total = whole.body.items.length;
    assert.ok(total >= 5);
    const full = await raw(t, '/library');
    assert.equal(full.headers['x-total-count'], String(total));
    const page = await raw(t, '/library?limit=2&offset=1');
    assert.equal(page.status, 200);
    assert.equal(page.headers['x-total-count'], String(total));
    const body = JSON.parse(decoded(page)) as LibraryResponse;
    assert.deepEqual(body.items, whole.body.items.slice(1, 3));
    assert.equal(body.health_summary, whole.body.health_summary, 'the summary is the whole library’s');
    assert.ok(contract.validate('libraryResponse', body).ok);
    assert.notEqual(etagOf(page), whole.etag);
    assert.equal((await raw(t, '/library?limit=2&offset=1', { 'if-none-match': etagOf(page) })).status, 304);
    const rest = JSON.parse(decoded(await raw(t, `/library?offset=${total - 1}`))) as LibraryResponse;
    assert.deepEqual(rest.items, whole.body.items.slice(total - 1));
    const beyond = JSON.parse(
      decoded(await raw(t, `/library?offset=${total + 5}&limit=3`)),
    ) as LibraryResponse;
    assert.deepEqual(beyond.items, []);
    for (const bad of ['limit=0', 'limit=abc', 'offset=-1', 'limit=10001', 'limit=1.5', 'offset=x']) {
      const res = await t.api(`/library?${bad}`);
      assert.equal(res.status, 400, bad);
      const error = (await res.json()) as { error: string };
      assert.equal(error.error, 'validation_failed', bad);
    }
  });

  it('times out slow request headers as nginx does, but never a response', () => {
    const server = t.server.app.server;
    assert.equal(server.headersTimeout, HEADERS_TIMEOUT_MS);
    assert.equal(HEADERS_TIMEOUT_MS, 60_000);
    assert.equal(server.requestTimeout, REQUEST_TIMEOUT_MS);
    assert.equal(server.timeout, 0, 'no socket idle timeout: a paused player keeps its stream');
  });
});
