import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';

/** One accepted WebSocket: text messages both ways, closed by either side. */
export interface WebSocketConnection {
  send(text: string): void;
  close(code?: number): void;
  onText(listener: (text: string) => void): void;
  onClose(listener: () => void): void;
  readonly closed: boolean;
}

/** The largest message a client may send (the apps send KeepAlive and small session messages). */
const MAX_MESSAGE_BYTES = 64 * 1024;
/** A client that never answers the close frame does not hold the connection (or a server's close). */
const CLOSE_GRACE_MS = 1000;

/** RFC 6455 §4.1: a client's key is 16 random bytes, base64. */
const CLIENT_KEY = /^[+/0-9A-Za-z]{22}==$/;

/** Answers an upgrade request with a plain HTTP error (JSON, as the API's errors) and ends it. */
export function refuseUpgrade(socket: Duplex, status: number, reason: string, body: object): void {
  const json = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(json)}\r\nConnection: close\r\n\r\n${json}`,
  );
}

// The protocol (framing, masking, ping/pong, close handshake, limits) is the `ws` package's; it
// only completes handshakes we hand it (noServer), after the caller has checked the token.
const server = new WebSocketServer({
  noServer: true,
  maxPayload: MAX_MESSAGE_BYTES,
  perMessageDeflate: false,
});

function wrap(ws: WebSocket): WebSocketConnection {
  let closed = false;
  const closeListeners: (() => void)[] = [];
  const finish = () => {
    if (closed) return;
    closed = true;
    for (const listener of closeListeners) listener();
  };
  ws.on('close', finish);
  // A protocol error (a bad frame, an over-long message) closes with its code; never an uncaught error.
  ws.on('error', () => ws.terminate());
  return {
    send(text) {
      if (!closed && ws.readyState === ws.OPEN) ws.send(text);
    },
    close(code = 1000) {
      if (ws.readyState === ws.OPEN) {
        ws.close(code);
        setTimeout(() => ws.terminate(), CLOSE_GRACE_MS).unref();
      } else ws.terminate();
      finish();
    },
    onText(listener) {
      ws.on('message', (data, isBinary) => {
        if (!isBinary) listener(Buffer.isBuffer(data) ? data.toString('utf8') : String(data));
      });
    },
    onClose(listener) {
      closeListeners.push(listener);
    },
    get closed() {
      return closed;
    },
  };
}

/**
 * Completes the WebSocket handshake of an HTTP upgrade and resolves to the connection, or to null
 * after answering 400 when the request is not a version-13 WebSocket handshake (or the client left).
 */
export function acceptWebSocket(
  request: IncomingMessage,
  socket: Duplex,
  head: Buffer,
): Promise<WebSocketConnection | null> {
  const key = request.headers['sec-websocket-key'];
  const upgrade = (request.headers.upgrade ?? '').toLowerCase();
  if (
    request.method !== 'GET' ||
    upgrade !== 'websocket' ||
    request.headers['sec-websocket-version'] !== '13' ||
    typeof key !== 'string' ||
    !CLIENT_KEY.test(key)
  ) {
    refuseUpgrade(socket, 400, 'Bad Request', {
      error: 'bad_request',
      message: 'Not a WebSocket handshake (RFC 6455, version 13).',
      hint: 'Open the socket with a WebSocket client.',
    });
    return Promise.resolve(null);
  }
  return new Promise((resolve) => {
    // Should ws refuse the handshake itself, the socket closes and nothing is left waiting.
    socket.once('close', () => resolve(null));
    server.handleUpgrade(request, socket, head, (ws) => resolve(wrap(ws)));
  });
}
