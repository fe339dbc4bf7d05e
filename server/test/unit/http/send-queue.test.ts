import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import type { FastifyReply } from 'fastify';
import { SendQueue } from '../../../src/http/send-queue.ts';

/** A reply whose raw response finishes (or closes) when the test says. */
function fakeReply(name: string, sent: string[]) {
  const raw = Object.assign(new EventEmitter(), { destroyed: false });
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
});
