import { createHash } from 'node:crypto';

/**
 * The parts of RFC 6455 a small server needs, pure (the socket I/O is adapters/websocket.ts):
 * the handshake's accept key, server frames (never masked) and an incremental reader of client
 * frames (always masked). Written here because no WebSocket package is installed (docs/jellyfin.md):
 * only what the Jellyfin apps' `/socket` uses — text messages, ping/pong, close — and bounded.
 */

const HANDSHAKE_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

export const OPCODES = {
  continuation: 0x0,
  text: 0x1,
  binary: 0x2,
  close: 0x8,
  ping: 0x9,
  pong: 0xa,
} as const;

/** `Sec-WebSocket-Accept` for a client's `Sec-WebSocket-Key` (RFC 6455 §4.2.2). */
export function acceptKey(clientKey: string): string {
  return createHash('sha1').update(`${clientKey.trim()}${HANDSHAKE_GUID}`).digest('base64');
}

/** Whether `Sec-WebSocket-Key` is what RFC 6455 asks: 16 bytes in base64. */
export function isValidClientKey(key: string | undefined): key is string {
  return typeof key === 'string' && /^[A-Za-z0-9+/]{22}==$/.test(key.trim());
}

/** One unmasked, unfragmented server frame. */
export function encodeFrame(opcode: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const length = payload.length;
  let header: Buffer;
  if (length < 126) {
    header = Buffer.from([0x80 | opcode, length]);
  } else if (length < 0x10000) {
    header = Buffer.alloc(4);
    header[0] = 0x80 | opcode;
    header[1] = 126;
    header.writeUInt16BE(length, 2);
  } else {
    header = Buffer.alloc(10);
    header[0] = 0x80 | opcode;
    header[1] = 127;
    header.writeBigUInt64BE(BigInt(length), 2);
  }
  return Buffer.concat([header, payload]);
}

/** A close frame with its status code (1000 normal, 1002 protocol error, 1009 too big…). */
export function closeFrame(code: number): Buffer {
  const payload = Buffer.alloc(2);
  payload.writeUInt16BE(code, 0);
  return encodeFrame(OPCODES.close, payload);
}

/** What the reader makes of the bytes so far. */
export type ClientEvent =
  | { kind: 'text'; text: string }
  | { kind: 'binary'; data: Buffer }
  | { kind: 'ping'; data: Buffer }
  | { kind: 'pong' }
  | { kind: 'close'; code: number | null }
  | { kind: 'error'; code: 1002 | 1007 | 1009; reason: string };

/**
 * Reads client frames as they arrive in any chunks: unmasks them, joins fragmented messages
 * (control frames may come between), and stops at the first protocol error or a message over
 * `maxMessageBytes` (the connection is to be closed with that code).
 */
export class FrameReader {
  private buffer: Buffer = Buffer.alloc(0);
  private fragments: Buffer[] = [];
  private fragmentOpcode: number | null = null;
  private fragmentBytes = 0;
  private failed = false;

  constructor(private readonly maxMessageBytes = 64 * 1024) {}

  push(chunk: Buffer): ClientEvent[] {
    if (this.failed) return [];
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const events: ClientEvent[] = [];
    for (;;) {
      const frame = this.nextFrame();
      if (frame === null) break;
      if ('error' in frame) {
        this.failed = true;
        events.push(frame.error);
        break;
      }
      const event = this.handle(frame);
      if (event !== null) {
        events.push(event);
        if (event.kind === 'error') {
          this.failed = true;
          break;
        }
      }
    }
    return events;
  }

  private nextFrame():
    | { fin: boolean; opcode: number; payload: Buffer }
    | { error: Extract<ClientEvent, { kind: 'error' }> }
    | null {
    const b = this.buffer;
    if (b.length < 2) return null;
    const first = b[0] ?? 0;
    const second = b[1] ?? 0;
    if ((first & 0x70) !== 0) return { error: { kind: 'error', code: 1002, reason: 'reserved bits set' } };
    if ((second & 0x80) === 0)
      return { error: { kind: 'error', code: 1002, reason: 'client frame not masked' } };
    let length = second & 0x7f;
    let offset = 2;
    if (length === 126) {
      if (b.length < 4) return null;
      length = b.readUInt16BE(2);
      offset = 4;
    } else if (length === 127) {
      if (b.length < 10) return null;
      const big = b.readBigUInt64BE(2);
      if (big > BigInt(this.maxMessageBytes)) {
        return { error: { kind: 'error', code: 1009, reason: 'message too big' } };
      }
      length = Number(big);
      offset = 10;
    }
    if (length > this.maxMessageBytes)
      return { error: { kind: 'error', code: 1009, reason: 'message too big' } };
    if (b.length < offset + 4 + length) return null;
    const mask = b.subarray(offset, offset + 4);
    const payload = Buffer.alloc(length);
    for (let i = 0; i < length; i++) payload[i] = (b[offset + 4 + i] ?? 0) ^ (mask[i % 4] ?? 0);
    this.buffer = b.subarray(offset + 4 + length);
    return { fin: (first & 0x80) !== 0, opcode: first & 0x0f, payload };
  }

  private handle(frame: { fin: boolean; opcode: number; payload: Buffer }): ClientEvent | null {
    const { fin, opcode, payload } = frame;
    if (opcode >= 0x8) {
      if (!fin || payload.length > 125) return { kind: 'error', code: 1002, reason: 'bad control frame' };
      if (opcode === OPCODES.close)
        return { kind: 'close', code: payload.length >= 2 ? payload.readUInt16BE(0) : null };
      if (opcode === OPCODES.ping) return { kind: 'ping', data: payload };
      if (opcode === OPCODES.pong) return { kind: 'pong' };
      return { kind: 'error', code: 1002, reason: `unknown opcode ${opcode}` };
    }
    if (opcode === OPCODES.continuation) {
      if (this.fragmentOpcode === null)
        return { kind: 'error', code: 1002, reason: 'continuation without a start' };
    } else if (opcode === OPCODES.text || opcode === OPCODES.binary) {
      if (this.fragmentOpcode !== null)
        return { kind: 'error', code: 1002, reason: 'new message inside a fragmented one' };
      this.fragmentOpcode = opcode;
    } else {
      return { kind: 'error', code: 1002, reason: `unknown opcode ${opcode}` };
    }
    this.fragmentBytes += payload.length;
    if (this.fragmentBytes > this.maxMessageBytes)
      return { kind: 'error', code: 1009, reason: 'message too big' };
    this.fragments.push(payload);
    if (!fin) return null;
    const data = Buffer.concat(this.fragments);
    const kind = this.fragmentOpcode;
    this.fragments = [];
    this.fragmentOpcode = null;
    this.fragmentBytes = 0;
    if (kind === OPCODES.binary) return { kind: 'binary', data };
    const text = new TextDecoder('utf-8', { fatal: true });
    try {
      return { kind: 'text', text: text.decode(data) };
    } catch {
      return { kind: 'error', code: 1007, reason: 'text is not UTF-8' };
    }
  }
}

/** A masked client frame (what a browser sends): for tests and a client of our own. */
export function encodeClientFrame(
  opcode: number,
  payload: Buffer,
  fin = true,
  mask = Buffer.from([1, 2, 3, 4]),
): Buffer {
  const server = encodeFrame(opcode, payload);
  const headerLength = server.length - payload.length;
  const header = Buffer.from(server.subarray(0, headerLength));
  header[0] = (fin ? 0x80 : 0) | opcode;
  header[1] = (header[1] ?? 0) | 0x80;
  const masked = Buffer.alloc(payload.length);
  for (let i = 0; i < payload.length; i++) masked[i] = (payload[i] ?? 0) ^ (mask[i % 4] ?? 0);
  return Buffer.concat([header, mask, masked]);
}
