import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  FrameReader,
  OPCODES,
  acceptKey,
  closeFrame,
  encodeFrame,
  isValidClientKey,
} from '../domain/websocket-frames.ts';

/** One accepted WebSocket: text messages both ways, closed by either side. */
export interface WebSocketConnection {
  send(text: string): void;
  close(code?: number): void;
  onText(listener: (text: string) => void): void;
  onClose(listener: () => void): void;
  readonly closed: boolean;
}

/** Answers an upgrade request with a plain HTTP error (JSON, as the API's errors) and ends it. */
export function refuseUpgrade(socket: Duplex, status: number, reason: string, body: object): void {
  const json = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(json)}\r\nConnection: close\r\n\r\n${json}`,
  );
}

/**
 * Completes the RFC 6455 handshake of an HTTP upgrade and returns the connection, or null after
 * answering 400 when the request is not a version-13 WebSocket handshake. Pings are answered,
 * a protocol error or an over-long message closes the connection with its code.
 */
export function acceptWebSocket(
  request: IncomingMessage,
  socket: Duplex,
  head: Buffer,
): WebSocketConnection | null {
  const key = request.headers['sec-websocket-key'];
  const upgrade = (request.headers.upgrade ?? '').toLowerCase();
  if (
    upgrade !== 'websocket' ||
    request.headers['sec-websocket-version'] !== '13' ||
    !isValidClientKey(key)
  ) {
    refuseUpgrade(socket, 400, 'Bad Request', {
      error: 'bad_request',
      message: 'Not a WebSocket handshake (RFC 6455, version 13).',
      hint: 'Open the socket with a WebSocket client.',
    });
    return null;
  }
  socket.write(
    'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
      `Sec-WebSocket-Accept: ${acceptKey(key)}\r\n\r\n`,
  );
  const textListeners: ((text: string) => void)[] = [];
  const closeListeners: (() => void)[] = [];
  const reader = new FrameReader();
  let closed = false;
  const finish = () => {
    if (closed) return;
    closed = true;
    for (const listener of closeListeners) listener();
  };
  const connection: WebSocketConnection = {
    send(text) {
      if (!closed && socket.writable) socket.write(encodeFrame(OPCODES.text, Buffer.from(text, 'utf8')));
    },
    close(code = 1000) {
      if (!closed && socket.writable) {
        socket.end(closeFrame(code));
        // A client that never closes its side does not hold the connection (or a server's close).
        setTimeout(() => socket.destroy(), 1000).unref();
      } else socket.destroy();
      finish();
    },
    onText(listener) {
      textListeners.push(listener);
    },
    onClose(listener) {
      closeListeners.push(listener);
    },
    get closed() {
      return closed;
    },
  };
  const receive = (chunk: Buffer) => {
    for (const event of reader.push(chunk)) {
      if (event.kind === 'text') for (const listener of textListeners) listener(event.text);
      else if (event.kind === 'ping') {
        if (socket.writable) socket.write(encodeFrame(OPCODES.pong, event.data));
      } else if (event.kind === 'close') connection.close(1000);
      else if (event.kind === 'error') connection.close(event.code);
    }
  };
  socket.on('data', receive);
  socket.on('close', finish);
  socket.on('error', () => socket.destroy());
  if (head.length > 0) receive(head);
  return connection;
}
