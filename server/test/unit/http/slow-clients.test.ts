import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import { describe, it } from 'node:test';
import { HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from '../../../src/http/app.ts';

/** Resolves with how long the socket stayed open, and what it received. */
function client(port: number, send: string | null): Promise<{ ms: number; received: string }> {
  const t0 = Date.now();
  return new Promise((resolve) => {
    let received = '';
    const socket = connect(port, '127.0.0.1', () => {
      if (send !== null) socket.write(send);
    });
    socket.on('data', (d) => {
      received += d.toString();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ ms: Date.now() - t0, received }));
  });
}

/**
 * What the app's settings rely on (HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS in http/app.ts), shown at a
 * scale a test can wait for: Node's headersTimeout closes a silent connection and one whose headers
 * never end (408), and times nothing of a response.
 */
describe('slow clients', () => {
  it('the app asks for nginx-like limits', () => {
    assert.equal(HEADERS_TIMEOUT_MS, 60_000);
    assert.ok(REQUEST_TIMEOUT_MS >= HEADERS_TIMEOUT_MS);
  });

  it('closes a connection that sends nothing, times partial headers out, and never cuts a long response', async () => {
    const server = createServer({ headersTimeout: 300, connectionsCheckingInterval: 50 }, (_req, res) => {
      // A "stream" that outlives every timeout: three chunks, 500 ms apart.
      res.writeHead(200, { 'content-type': 'text/plain', connection: 'close' });
      let n = 0;
      const timer = setInterval(() => {
        res.write(`chunk ${n}\n`);
        if (++n === 3) {
          clearInterval(timer);
          res.end();
        }
      }, 500);
    });
    // As buildHttpApp sets them (Fastify assigns requestTimeout after creating the server).
    server.requestTimeout = 10_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const [silent, partial, streamed] = await Promise.all([
        client(port, null),
        client(port, 'GET / HTTP/1.1\r\nHost: x\r\n'),
        client(port, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n'),
      ]);
      assert.ok(silent.ms >= 250 && silent.ms < 2500, `silent connection closed after ${silent.ms} ms`);
      assert.match(silent.received, /^(HTTP\/1\.1 408|$)/);
      assert.match(partial.received, /^HTTP\/1\.1 408/, 'partial headers: 408');
      assert.ok(streamed.ms >= 1400, `the response ran its ${streamed.ms} ms`);
      assert.match(streamed.received, /chunk 2/);
    } finally {
      server.close();
    }
  });
});
