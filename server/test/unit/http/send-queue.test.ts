import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { describe, it } from 'node:test';
import type { FastifyReply } from 'fastify';
import { SendQueue } from '../../../src/http/send-queue.ts';

/**
 * A reply whose raw response finishes (or closes) when the test says. Like Node's, it detaches its
 * socket before `finish` reaches other listeners.
 */
function fakeReply(name: string, sent: string[], socket: EventEmitter | null = null) {
  const raw: EventEmitter & { destroyed: boolean; socket: EventEmitter | null } = Object.assign(
    new EventEmitter(),
    { destroyed: false, socket },
  );
  raw.on('finish', () => {
    raw.socket = null;
  });
  const reply = {
    raw,
    send: () => {
      sent.push(name);
      return reply;
    },
  };
  return { reply: reply as unknown as FastifyReply, raw };
}

describe('SendQueue', () => {
  it('sends large bodies first come, first served, a slot freed when one is written or its client goes', async () => {
    const sent: string[] = [];
    const queue = new SendQueue(2);
    const body = Buffer.alloc(1);
    const a = fakeReply('a', sent);
    const b = fakeReply('b', sent);
    const c = fakeReply('c', sent);
    const d = fakeReply('d', sent);
    const sending = [a, b, c, d].map((r) => queue.send(r.reply, body));
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(sent, ['a', 'b'], 'two slots');
    a.raw.emit('finish');
    a.raw.emit('close');
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(sent, ['a', 'b', 'c'], 'c in a’s slot (once, though a both finished and closed)');
    b.raw.emit('close');
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(sent, ['a', 'b', 'c', 'd'], 'a client that goes frees its slot too');
    await Promise.all(sending);
  });

  it('holds a slot after the kernel took the body, until the client asks again, closes, or the read time passes', async () => {
    const sent: string[] = [];
    const queue = new SendQueue(1);
    const socket = Object.assign(new EventEmitter(), { destroyed: false });
    const tick = () => new Promise((r) => setImmediate(r));
    const a = fakeReply('a', sent, socket);
    const b = fakeReply('b', sent, socket);
    const c = fakeReply('c', sent, socket);
    const d = fakeReply('d', sent);
    const sending = [a, b, c, d].map((r) => queue.send(r.reply, Buffer.alloc(4_000_000)));
    await tick();
    a.raw.emit('finish');
    a.raw.emit('close');
    await tick();
    assert.deepEqual(sent, ['a'], 'the body may still sit in the kernel: the slot is held');
    queue.requestArrived(socket as unknown as Socket);
    await tick();
    assert.deepEqual(sent, ['a', 'b'], 'the next request on the connection frees it');
    b.raw.emit('finish');
    socket.emit('close');
    await tick();
    assert.deepEqual(sent, ['a', 'b', 'c'], 'so does the connection closing');
    c.raw.emit('finish');
    await tick();
    assert.deepEqual(sent, ['a', 'b', 'c']);
    // 4 MB at 100 MB/s: 40 ms, plus 20.
    await new Promise((r) => setTimeout(r, 120));
    assert.deepEqual(sent, ['a', 'b', 'c', 'd'], 'and, at the latest, the time to read it');
    await Promise.all(sending);
  });

  it('hands a freed slot to the first in line: a request arriving at that moment does not jump it', async () => {
    const sent: string[] = [];
    const queue = new SendQueue(1);
    const tick = () => new Promise((r) => setImmediate(r));
    const a = fakeReply('a', sent);
    const b = fakeReply('b', sent);
    const e = fakeReply('e', sent);
    const sending = [queue.send(a.reply, Buffer.alloc(1)), queue.send(b.reply, Buffer.alloc(1))];
    await tick();
    a.raw.emit('finish');
    sending.push(queue.send(e.reply, Buffer.alloc(1)));
    await tick();
    assert.deepEqual(sent, ['a', 'b'], 'b waited longer: the slot is its');
    b.raw.emit('finish');
    await tick();
    assert.deepEqual(sent, ['a', 'b', 'e']);
    await Promise.all(sending);
  });
});
