import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  FrameReader,
  OPCODES,
  acceptKey,
  closeFrame,
  encodeClientFrame,
  encodeFrame,
  isValidClientKey,
} from '../../src/domain/websocket-frames.ts';

// The RFC 6455 pieces of reelshelf's small WebSocket server (the Jellyfin apps' /socket).

describe('websocket frames', () => {
  it('the accept key of RFC 6455 §1.3', () => {
    assert.equal(acceptKey('dGhlIHNhbXBsZSBub25jZQ=='), 's3pPLMBiTxaQ9kYGzzhZRbK+xOo=');
    assert.equal(isValidClientKey('dGhlIHNhbXBsZSBub25jZQ=='), true);
    assert.equal(isValidClientKey('short'), false);
    assert.equal(isValidClientKey(undefined), false);
  });

  it('server frames: 7-bit, 16-bit and 64-bit lengths, never masked', () => {
    assert.deepEqual([...encodeFrame(OPCODES.text, Buffer.from('Hi'))], [0x81, 2, 0x48, 0x69]);
    const mid = encodeFrame(OPCODES.text, Buffer.alloc(300));
    assert.deepEqual([...mid.subarray(0, 4)], [0x81, 126, 1, 44]);
    const big = encodeFrame(OPCODES.binary, Buffer.alloc(70_000));
    assert.deepEqual([...big.subarray(0, 2)], [0x82, 127]);
    assert.equal(big.readBigUInt64BE(2), 70_000n);
    assert.deepEqual([...closeFrame(1000)], [0x88, 2, 0x03, 0xe8]);
  });

  it('reads masked client frames in any chunks, joins fragments around a ping', () => {
    const reader = new FrameReader();
    const bytes = Buffer.concat([
      encodeClientFrame(OPCODES.text, Buffer.from('{"MessageType":'), false),
      encodeClientFrame(OPCODES.ping, Buffer.from('p')),
      encodeClientFrame(OPCODES.continuation, Buffer.from('"KeepAlive"}')),
      encodeClientFrame(OPCODES.close, Buffer.from([0x03, 0xe8])),
    ]);
    const events = [];
    for (let i = 0; i < bytes.length; i += 3) events.push(...reader.push(bytes.subarray(i, i + 3)));
    assert.deepEqual(events, [
      { kind: 'ping', data: Buffer.from('p') },
      { kind: 'text', text: '{"MessageType":"KeepAlive"}' },
      { kind: 'close', code: 1000 },
    ]);
  });

  const errors: [string, Buffer, number][] = [
    ['an unmasked client frame', encodeFrame(OPCODES.text, Buffer.from('x')), 1002],
    ['a continuation with no start', encodeClientFrame(OPCODES.continuation, Buffer.from('x')), 1002],
    ['an unknown opcode', encodeClientFrame(0x3, Buffer.from('x')), 1002],
    ['a fragmented ping', encodeClientFrame(OPCODES.ping, Buffer.from('x'), false), 1002],
    ['text that is not UTF-8', encodeClientFrame(OPCODES.text, Buffer.from([0xff, 0xfe])), 1007],
    ['a message over the limit', encodeClientFrame(OPCODES.text, Buffer.alloc(70_000)), 1009],
  ];
  for (const [name, bytes, code] of errors) {
    it(`${name} is an error (${code}) and nothing after it is read`, () => {
      const reader = new FrameReader(64 * 1024);
      const events = reader.push(
        Buffer.concat([bytes, encodeClientFrame(OPCODES.text, Buffer.from('later'))]),
      );
      assert.equal(events.length, 1);
      assert.equal(events[0]?.kind, 'error');
      assert.equal(events[0]?.kind === 'error' ? events[0].code : null, code);
      assert.deepEqual(reader.push(encodeClientFrame(OPCODES.text, Buffer.from('more'))), []);
    });
  }

  it('a 64-bit length over the limit is refused before its bytes arrive', () => {
    const header = Buffer.from([0x81, 0x80 | 127, 0, 0, 0, 1, 0, 0, 0, 0]);
    const events = new FrameReader(1024).push(header);
    assert.deepEqual(events, [{ kind: 'error', code: 1009, reason: 'message too big' }]);
  });
});
