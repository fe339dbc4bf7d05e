import type { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/**
 * Lingering for request bodies the server answered without reading (a 413, a 415, a 401 on an upload).
 *
 * A server that closes a socket while unread request bytes sit in its receive buffer makes the
 * kernel send a reset, and the reset destroys the answer before the client reads it: the person who
 * dropped a too-big file sees "connection reset" instead of "too large". Fastify marks such answers
 * `Connection: close`, which does exactly that. Instead, like nginx's lingering close, the rest of the
 * body is read and discarded after the answer, within a budget, and the connection is kept for the
 * next request; past the budget the socket is dropped (the client has had its answer for a while).
 */
export interface DrainBudget {
  /** At most this many body bytes are read and discarded after the answer. */
  maxBytes: number;
  /** At most this long in all (nginx: lingering_time 30 s). */
  maxMs: number;
  /** At most this long without a byte from the client (nginx: lingering_timeout 5 s). */
  idleMs: number;
}

export const DEFAULT_DRAIN_BUDGET: DrainBudget = {
  maxBytes: 1024 * 1024 * 1024,
  maxMs: 30_000,
  idleMs: 5_000,
};

export type RefusedBodyAction = 'none' | 'drain' | 'close';

/** What to do with a request's unread body once its answer has gone out. */
export function refusedBodyAction(
  request: { complete: boolean; declaredBytes: number | null; closing: boolean },
  budget: DrainBudget,
): RefusedBodyAction {
  if (request.complete) return 'none';
  if (request.closing) return 'close';
  if (request.declaredBytes !== null && request.declaredBytes > budget.maxBytes) return 'close';
  return 'drain';
}

/** Whether draining goes on, given what has been read and discarded so far. */
export function keepDraining(
  progress: { drainedBytes: number; elapsedMs: number; msSinceLastByte: number },
  budget: DrainBudget,
): boolean {
  return (
    progress.drainedBytes <= budget.maxBytes &&
    progress.elapsedMs <= budget.maxMs &&
    progress.msSinceLastByte <= budget.idleMs
  );
}

/** A declared Content-Length, or null for chunked or a malformed header. */
export function declaredLength(header: string | undefined): number | null {
  if (header === undefined || !/^\d+$/.test(header)) return null;
  return Number(header);
}

/**
 * Reads and discards what is left of `req`, within the budget; past it, the socket is destroyed.
 * Progress is read from the socket's byte count: a request nobody consumed is dumped by Node's
 * parser below the stream, so no 'data' event tells of it.
 */
function drain(req: IncomingMessage, budget: DrainBudget, draining: Set<IncomingMessage>): void {
  const socket = req.socket;
  const started = Date.now();
  const startBytes = socket.bytesRead;
  let lastBytes = startBytes;
  let lastByteAt = started;
  const tick = setInterval(
    () => {
      const now = Date.now();
      if (socket.bytesRead !== lastBytes) {
        lastBytes = socket.bytesRead;
        lastByteAt = now;
      }
      const progress = {
        drainedBytes: lastBytes - startBytes,
        elapsedMs: now - started,
        msSinceLastByte: now - lastByteAt,
      };
      if (!keepDraining(progress, budget)) {
        done();
        socket.destroy();
      }
    },
    Math.max(10, Math.min(1000, budget.idleMs / 5)),
  );
  const done = () => {
    clearInterval(tick);
    req.off('end', done);
    req.off('close', done);
    draining.delete(req);
  };
  draining.add(req);
  req.once('end', done);
  req.once('close', done);
  // A body parser that stopped half-way (busboy at its limit) may still be piped and hold the flow.
  req.unpipe();
  req.resume();
}

/** Keeps connections whose body was refused readable, and drains what the client still sends. */
export function registerRefusedBodyDrain(
  app: FastifyInstance,
  budget: DrainBudget = DEFAULT_DRAIN_BUDGET,
): void {
  const draining = new Set<IncomingMessage>();
  let closing = false;

  const actionFor = (req: IncomingMessage) =>
    refusedBodyAction(
      { complete: req.complete, declaredBytes: declaredLength(req.headers['content-length']), closing },
      budget,
    );

  // Callback hooks, not async ones: they run on every answer, streams included.
  app.addHook('onSend', (request, reply, payload, done) => {
    // Fastify closes the connection after a body-parser error (the client may still be sending);
    // the drain below reads that rest instead, so the answer is not lost to a reset. A rest too big
    // to drain is announced as the end of the connection.
    const action = actionFor(request.raw);
    if (action === 'drain' && reply.getHeader('connection') === 'close') reply.removeHeader('connection');
    else if (action === 'close') {
      reply.header('connection', 'close');
      // Node ends a `Connection: close` answer with destroySoon(): a FIN and then, once it is out, a
      // destroy that resets the connection if the client is still sending. Only the FIN is sent here;
      // the drain below reads the rest and lets the socket go.
      const socket = request.raw.socket;
      if (socket instanceof Socket && !closing) socket.destroySoon = () => void socket.end();
    }
    done(null, payload);
  });

  app.addHook('onResponse', (request, _reply, done) => {
    // Injected requests (tests, light-my-request) have no socket to keep or drop.
    if (request.raw.socket instanceof Socket) {
      const action = actionFor(request.raw);
      if (action === 'drain') drain(request.raw, budget, draining);
      else if (action === 'close' && closing) request.raw.socket.destroy();
      else if (action === 'close') {
        // Too much to keep the connection for: our side is shut once the answer is out (a FIN, not a
        // reset), and what the client still sends is read and discarded for the time budget, so the
        // answer is not destroyed under it (nginx's lingering close). The socket goes when the client
        // closes, or when the time is up.
        drain(request.raw, { ...budget, maxBytes: Number.POSITIVE_INFINITY }, draining);
      }
    }
    done();
  });

  app.addHook('preClose', async () => {
    closing = true;
    for (const req of draining) req.socket.destroy();
    draining.clear();
  });
}
