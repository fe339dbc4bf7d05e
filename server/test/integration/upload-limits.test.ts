import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import type { MovieList } from '@reelshelf/contract';
import Fastify from 'fastify';
import { registerRefusedBodyDrain } from '../../src/http/plugins/refused-body.ts';
import { IMPORT_BODY_LIMIT } from '../../src/http/routes/import-export.routes.ts';
import { startTestServer, type TestServer } from '../helpers/test-server.ts';

/** 50 MB: over the 40 MiB an import accepts. */
const OVERSIZED = 50 * 1024 * 1024;
const CHUNK = 1024 * 1024;
/** The longest a read waits for the server: a server that never answers fails the test, never hangs it. */
const ANSWER_DEADLINE_MS = 60_000;

interface Upload {
  contentType: string;
  /** Sent with Content-Length when true; as chunked transfer-encoding (no length) when false. */
  withLength: boolean;
  /** The body's first and last bytes; the rest is filler up to OVERSIZED. */
  head?: Buffer;
  tail?: Buffer;
}

interface Answer {
  status: number;
  headers: Map<string, string>;
  body: string;
}

/**
 * A plain HTTP/1.1 client on one keep-alive TCP connection. Every byte of a request is written
 * (honouring back-pressure) whatever the server answers meanwhile, and a socket error — a reset
 * that would destroy an answer before it is read — fails the test. (Node's own http client cannot
 * serve here: once a complete early answer arrives it stops relaying 'drain' to the request.)
 */
class RawConnection {
  private received = Buffer.alloc(0);
  private failure: Error | null = null;
  private ended = false;
  private wake: (() => void) | null = null;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.received = Buffer.concat([this.received, chunk]);
      this.poke();
    });
    socket.on('error', (err) => {
      this.failure = err;
      this.poke();
    });
    socket.on('end', () => {
      this.ended = true;
      this.poke();
    });
  }

  static open(baseUrl: string): Promise<RawConnection> {
    const url = new URL(baseUrl);
    return new Promise((resolve, reject) => {
      const socket = connect({ host: url.hostname, port: Number(url.port) }, () =>
        resolve(new RawConnection(socket)),
      );
      socket.once('error', reject);
    });
  }

  /** Waits for the next socket event; fails with `what` when none comes before `deadline`. */
  private async nextEvent(deadline: number, what: string): Promise<void> {
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`no ${what} within ${ANSWER_DEADLINE_MS / 1000} s`);
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      this.wake = resolve;
      timer = setTimeout(resolve, left);
    });
    clearTimeout(timer);
  }

  private poke(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  private check(): void {
    if (this.failure !== null) throw this.failure;
  }

  async write(data: Buffer | string): Promise<void> {
    this.check();
    if (this.socket.destroyed) throw new Error('write after the connection closed');
    if (!this.socket.write(data)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          this.socket.off('drain', done);
          this.socket.off('close', done);
          resolve();
        };
        this.socket.on('drain', done);
        this.socket.on('close', done);
      });
    }
    this.check();
  }

  /** Whether a complete answer has already arrived (without waiting). */
  hasAnswer(): boolean {
    return this.parse() !== null;
  }

  /** The next complete answer (Content-Length framed, as the server's JSON answers are). */
  async read(): Promise<Answer> {
    const deadline = Date.now() + ANSWER_DEADLINE_MS;
    for (;;) {
      this.check();
      const parsed = this.parse();
      if (parsed !== null) {
        this.received = this.received.subarray(parsed.size);
        return parsed.answer;
      }
      if (this.ended) throw new Error('the server closed the connection before a complete answer');
      await this.nextEvent(deadline, 'complete answer');
    }
  }

  private parse(): { answer: Answer; size: number } | null {
    const end = this.received.indexOf('\r\n\r\n');
    if (end < 0) return null;
    const [statusLine = '', ...lines] = this.received.subarray(0, end).toString('latin1').split('\r\n');
    const headers = new Map<string, string>();
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    const length = Number(headers.get('content-length'));
    assert.ok(Number.isInteger(length), `a Content-Length on: ${statusLine}`);
    if (this.received.length < end + 4 + length) return null;
    const body = this.received.subarray(end + 4, end + 4 + length).toString('utf8');
    return { answer: { status: Number(statusLine.split(' ')[1]), headers, body }, size: end + 4 + length };
  }

  /** Resolves when the server has closed the connection (FIN, no reset) and the socket is gone. */
  async closedByServer(): Promise<void> {
    const deadline = Date.now() + ANSWER_DEADLINE_MS;
    while (!this.ended) {
      this.check();
      await this.nextEvent(deadline, 'close by the server');
    }
    this.check();
  }

  close(): void {
    this.socket.destroy();
  }
}

/** Writes a whole oversized upload; reports whether the answer was in before the last byte went. */
async function sendUpload(conn: RawConnection, t: TestServer, spec: Upload): Promise<{ early: boolean }> {
  const head = spec.head ?? Buffer.alloc(0);
  const tail = spec.tail ?? Buffer.alloc(0);
  const fill = OVERSIZED - head.length - tail.length;
  const framing = spec.withLength ? `Content-Length: ${OVERSIZED}` : 'Transfer-Encoding: chunked';
  await conn.write(
    `POST /api/import HTTP/1.1\r\nHost: reelshelf.test\r\nAuthorization: Bearer ${t.token}\r\n` +
      `Content-Type: ${spec.contentType}\r\n${framing}\r\n\r\n`,
  );
  const send = async (piece: Buffer) => {
    if (piece.length === 0) return;
    if (spec.withLength) return conn.write(piece);
    await conn.write(`${piece.length.toString(16)}\r\n`);
    await conn.write(piece);
    await conn.write('\r\n');
  };
  await send(head);
  const filler = Buffer.alloc(CHUNK, 0x61);
  let early = false;
  for (let left = fill; left > 0; left -= CHUNK) {
    early ||= conn.hasAnswer();
    await send(filler.subarray(0, Math.min(CHUNK, left)));
  }
  await send(tail);
  if (!spec.withLength) await conn.write('0\r\n\r\n');
  return { early };
}

async function health(conn: RawConnection, t: TestServer): Promise<Answer> {
  await conn.write(
    `GET /api/health HTTP/1.1\r\nHost: reelshelf.test\r\nAuthorization: Bearer ${t.token}\r\n\r\n`,
  );
  return conn.read();
}

function multipartParts(boundary: string): { head: Buffer; tail: Buffer } {
  return {
    head: Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.csv"\r\n` +
        'Content-Type: text/csv\r\n\r\nTitle\n',
    ),
    tail: Buffer.from(`\r\n--${boundary}--\r\n`),
  };
}

async function movieCount(t: TestServer): Promise<number> {
  return ((await (await t.api('/api/movies?limit=1')).json()) as MovieList).total;
}

describe('oversized uploads: 413 payload_too_large, readable by a plain client, and the server goes on', () => {
  let t: TestServer;

  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  const boundary = 'reelshelf-upload-limit-boundary';
  const cases: { name: string; spec: Upload }[] = [
    { name: 'raw text/csv with a Content-Length', spec: { contentType: 'text/csv', withLength: true } },
    {
      name: 'raw application/json with a Content-Length',
      spec: { contentType: 'application/json', withLength: true, head: Buffer.from('{"movies":["') },
    },
    {
      name: 'multipart/form-data with a Content-Length',
      spec: {
        contentType: `multipart/form-data; boundary=${boundary}`,
        withLength: true,
        ...multipartParts(boundary),
      },
    },
    { name: 'chunked text/csv (no length)', spec: { contentType: 'text/csv', withLength: false } },
    {
      name: 'chunked application/json (no length)',
      spec: { contentType: 'application/json', withLength: false, head: Buffer.from('{"movies":["') },
    },
    {
      name: 'chunked multipart/form-data (no length)',
      spec: {
        contentType: `multipart/form-data; boundary=${boundary}`,
        withLength: false,
        ...multipartParts(boundary),
      },
    },
  ];

  for (const { name, spec } of cases) {
    it(`${name}: the whole body is sent, the 413 is read, the next request is answered`, async () => {
      const before = await movieCount(t);
      const conn = await RawConnection.open(t.url);
      try {
        const { early } = await sendUpload(conn, t, spec);
        const answer = await conn.read();
        assert.equal(answer.status, 413, answer.body.slice(0, 300));
        assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
        const error = JSON.parse(answer.body) as { error: string; message: string; hint?: string };
        assert.equal(error.error, 'payload_too_large');
        assert.match(error.message, /40 MiB/);
        assert.match(error.hint ?? '', /reelshelf import/);
        if (spec.withLength)
          assert.ok(early, 'a declared length over the limit is refused before the body is read');
        // The same connection carries the next request, and it is answered.
        assert.notEqual(answer.headers.get('connection'), 'close');
        assert.equal((await health(conn, t)).status, 200);
      } finally {
        conn.close();
      }
      // A new connection is answered too, and nothing was written.
      assert.equal((await t.api('/api/health')).status, 200);
      assert.equal(await movieCount(t), before);
    });
  }

  it('a multipart file cut by the parser exactly at a chunk boundary is refused, not imported cut', async () => {
    // busboy marks a file truncated at the limit and pushes no more; when the limit falls on a chunk
    // boundary no chunk follows the mark, and @fastify/multipart's toBuffer() returned the cut file
    // as whole (a 400 import_invalid about its first line instead of 413). The chunks are fed in
    // process so the boundary is exact; the declared length is within the multipart allowance.
    const boundary = 'chunk-boundary';
    const { head, tail } = multipartParts(boundary);
    const fileHead = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.csv"\r\nContent-Type: text/csv\r\n\r\n`,
    );
    assert.ok(head.length > fileHead.length);
    const piece = Buffer.alloc(64 * 1024, 0x61);
    const chunks: Buffer[] = [fileHead];
    for (let sent = 0; sent < IMPORT_BODY_LIMIT; sent += piece.length) chunks.push(piece);
    chunks.push(Buffer.from('a'), tail);
    const length = chunks.reduce((sum, c) => sum + c.length, 0);
    const before = await movieCount(t);
    const res = await t.server.app.inject({
      method: 'POST',
      url: '/api/import',
      headers: {
        authorization: `Bearer ${t.token}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(length),
      },
      payload: Readable.from(chunks, { objectMode: false }),
    });
    assert.equal(res.statusCode, 413, res.body.slice(0, 300));
    assert.equal((res.json() as { error: string }).error, 'payload_too_large');
    assert.equal(await movieCount(t), before);
  });
});

describe('the drain after a refused body is bounded', () => {
  it('a client that goes quiet mid-body is let go after the idle budget, its answer already read', async () => {
    const app = Fastify({ bodyLimit: 1024 });
    registerRefusedBodyDrain(app, { maxBytes: 10 * 1024 * 1024, maxMs: 30_000, idleMs: 200 });
    app.post('/upload', async () => ({ ok: true }));
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const conn = await RawConnection.open(url);
      await conn.write(
        'POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n',
      );
      await conn.write(Buffer.alloc(64 * 1024, 0x20));
      const answer = await conn.read();
      assert.equal(answer.status, 413);
      assert.notEqual(answer.headers.get('connection'), 'close', 'kept while the rest may come');
      // The client never sends the rest: the server stops waiting and closes, with a FIN.
      const started = Date.now();
      await conn.closedByServer();
      assert.ok(Date.now() - started < 10_000, 'closed within the budget, not at a keep-alive timeout');
      conn.close();
    } finally {
      await app.close();
    }
  });

  it('a body declared larger than the drain budget: the 413 is read, then a FIN (no reset)', async () => {
    const app = Fastify({ bodyLimit: 1024 });
    registerRefusedBodyDrain(app, { maxBytes: 1024 * 1024, maxMs: 30_000, idleMs: 2_000 });
    app.post('/upload', async () => ({ ok: true }));
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const conn = await RawConnection.open(url);
      await conn.write(
        'POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2147483648\r\n\r\n',
      );
      // Keep sending well past the point of refusal, as a browser uploading a 2 GB file does.
      const piece = Buffer.alloc(CHUNK, 0x20);
      for (let i = 0; i < 64 && !conn.hasAnswer(); i++) await conn.write(piece);
      const answer = await conn.read();
      assert.equal(answer.status, 413);
      assert.equal(answer.headers.get('connection'), 'close', 'announced: the connection ends');
      await conn.closedByServer();
      conn.close();
    } finally {
      await app.close();
    }
  });
});
