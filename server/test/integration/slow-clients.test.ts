import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from '../../src/http/app.ts';
import { registerFiles } from '../helpers/library-fixtures.ts';
import { makeFixture } from '../helpers/media.ts';
import { ADMIN, startTestServer, type TestServer } from '../helpers/test-server.ts';

/** The app's limits at a scale a test can wait for (production: 60 s and 10 min, checked every 5 s). */
const TIMEOUTS = { headersMs: 400, requestMs: 1_200, checkMs: 50 };

interface Exchange {
  /** How long the socket stayed open. */
  ms: number;
  /** The response head (status line and headers). */
  head: string;
  /** Body bytes received. */
  bodyBytes: number;
}

/**
 * A raw client: connects, writes `send`, and reads until the server closes. `pauseMs` stops reading
 * for that long after the first body bytes, as a paused player does.
 */
function client(port: number, send: string | null, pauseMs = 0): Promise<Exchange> {
  const t0 = Date.now();
  return new Promise((resolve) => {
    let raw = Buffer.alloc(0);
    let headEnd = -1;
    let bodyBytes = 0;
    let paused = pauseMs === 0;
    const socket = connect(port, '127.0.0.1', () => {
      if (send !== null) socket.write(send);
    });
    socket.on('data', (chunk: Buffer) => {
      if (headEnd < 0) {
        raw = Buffer.concat([raw, chunk]);
        headEnd = raw.indexOf('\r\n\r\n');
        if (headEnd >= 0) bodyBytes = raw.length - headEnd - 4;
      } else {
        bodyBytes += chunk.length;
      }
      if (!paused && bodyBytes > 0) {
        paused = true;
        socket.pause();
        setTimeout(() => socket.resume(), pauseMs);
      }
    });
    socket.on('error', () => undefined);
    // A limit that does not act is a failure of the assertions below, not a hung test.
    const giveUp = setTimeout(() => socket.destroy(), 15_000);
    socket.on('close', () => clearTimeout(giveUp));
    socket.on('close', () =>
      resolve({
        ms: Date.now() - t0,
        head: (headEnd < 0 ? raw : raw.subarray(0, headEnd)).toString('latin1'),
        bodyBytes,
      }),
    );
  });
}

/**
 * Slow clients against the app itself (buildHttpApp through createServer, its routes and plugins),
 * with its limits scaled down: a connection that sends nothing, headers that never end and a body
 * that never ends are closed with 408 in their time; a response is never timed — a player that stops
 * reading for longer than every limit still gets the whole film (docs/http.md "Slow clients").
 */
describe('slow clients (the app, limits scaled down)', () => {
  let t: TestServer;
  let media: string;
  let port = 0;
  let streamPath = '';
  let size = 0;

  before(async () => {
    media = mkdtempSync(join(tmpdir(), 'reelshelf-slow-clients-'));
    const film = await makeFixture('h264_aac.mp4', join(media, 'film.mp4'), 2);
    // 48 MB after the film (ignored by players and ffprobe): more than the socket buffers hold, so
    // the server is still writing when the client pauses.
    appendFileSync(film, Buffer.alloc(48 * 1024 * 1024));
    size = statSync(film).size;
    t = await startTestServer({}, { httpTimeouts: TIMEOUTS });
    port = Number(new URL(t.url).port);
    const ids = await registerFiles(t.server.database.db, media, { film });
    await t.server.services.analysis.analyzePending();
    const id = ids.film?.fileId ?? 0;
    const q = new URLSearchParams({ device: 'web', token: t.server.services.tokens.sign(id, 'web', ADMIN) });
    streamPath = `/stream/media_file/${id}?${q}`;
  });
  after(async () => {
    await t?.close();
    rmSync(media, { recursive: true, force: true });
  });

  it('production limits are nginx-like', () => {
    assert.equal(HEADERS_TIMEOUT_MS, 60_000);
    assert.ok(REQUEST_TIMEOUT_MS >= HEADERS_TIMEOUT_MS);
  });

  it('closes a silent connection and answers 408 to headers or a body that never end; never cuts a paused stream', async () => {
    const slack = 1_500;
    const [silent, partialHeaders, partialBody, paused] = await Promise.all([
      client(port, null),
      client(port, 'GET /api/health HTTP/1.1\r\nHost: x\r\n'),
      client(
        port,
        `POST /api/movies HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.token}\r\n` +
          'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"title": "Half',
      ),
      client(
        port,
        `GET ${streamPath} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
        2 * TIMEOUTS.requestMs,
      ),
    ]);
    const within = (ms: number, limit: number) => ms >= limit - 100 && ms < limit + slack;
    assert.ok(within(silent.ms, TIMEOUTS.headersMs), `silent connection closed after ${silent.ms} ms`);
    assert.match(silent.head, /^(HTTP\/1\.1 408|$)/);
    assert.ok(
      within(partialHeaders.ms, TIMEOUTS.headersMs),
      `partial headers closed after ${partialHeaders.ms} ms`,
    );
    assert.match(partialHeaders.head, /^HTTP\/1\.1 408/, 'partial headers: 408');
    assert.ok(within(partialBody.ms, TIMEOUTS.requestMs), `partial body closed after ${partialBody.ms} ms`);
    assert.match(partialBody.head, /^HTTP\/1\.1 408/, 'a body that never ends: 408');
    assert.match(paused.head, /^HTTP\/1\.1 200/);
    assert.match(paused.head, new RegExp(`content-length: ${size}`, 'i'));
    assert.ok(paused.ms >= 2 * TIMEOUTS.requestMs, `the stream ran ${paused.ms} ms, past every limit`);
    assert.equal(paused.bodyBytes, size, 'the whole film arrived after the pause');
  });
});
