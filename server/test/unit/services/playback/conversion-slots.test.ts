import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../../../src/errors.ts';
import { ConversionSlots } from '../../../../src/services/playback/conversion-slots.ts';

describe('ConversionSlots: the one limit of conversions', () => {
  it('a player takes a slot now or gets 503 conversions_busy with Retry-After', () => {
    const slots = new ConversionSlots(2);
    const a = slots.takeNow();
    slots.takeNow();
    assert.equal(slots.inUse, 2);
    assert.throws(
      () => slots.takeNow(),
      (err: unknown) =>
        err instanceof AppError &&
        err.code === 'conversions_busy' &&
        err.status === 503 &&
        /^\d+$/.test(err.headers?.['retry-after'] ?? ''),
    );
    a.release();
    a.release(); // twice is once
    assert.equal(slots.inUse, 1);
    assert.notEqual(slots.tryTake(), null, 'the freed slot is free at once, not a tick later');
  });

  it('waiters are served in order, each freed slot handed straight over (a player cannot slip in)', async () => {
    const slots = new ConversionSlots(1);
    const held = slots.takeNow();
    const order: string[] = [];
    const first = slots.take().then((s) => (order.push('first'), s));
    const second = slots.take().then((s) => (order.push('second'), s));
    assert.equal(slots.queued, 2);
    held.release();
    assert.equal(slots.tryTake(), null, 'handed to the first waiter, not freed');
    (await first).release();
    assert.equal(slots.tryTake(), null);
    (await second).release();
    assert.deepEqual(order, ['first', 'second']);
    assert.equal(slots.inUse, 0);
  });

  it('a waiter whose signal aborts leaves the queue and the slot goes to the next', async () => {
    const slots = new ConversionSlots(1);
    const held = slots.takeNow();
    const controller = new AbortController();
    const cancelled = slots.take(controller.signal);
    const next = slots.take();
    controller.abort(new Error('prewarm cancelled'));
    await assert.rejects(cancelled, /prewarm cancelled/);
    assert.equal(slots.queued, 1);
    held.release();
    (await next).release();
    assert.equal(slots.inUse, 0);
    await assert.rejects(slots.take(AbortSignal.abort(new Error('already'))), /already/);
  });

  it('tells listeners each change of held and waiting slots (trickplay pauses on it)', async () => {
    const slots = new ConversionSlots(1);
    const seen: string[] = [];
    const stop = slots.onChange(() => seen.push(`${slots.inUse}/${slots.queued}`));
    slots.onChange(() => {
      throw new Error('a broken listener changes nothing');
    });
    const held = slots.takeNow();
    const waiting = slots.take();
    held.release();
    const next = await waiting;
    next.release();
    next.release();
    stop();
    slots.takeNow().release();
    assert.deepEqual(seen, ['1/0', '1/1', '1/0', '0/0']);
    assert.equal(slots.inUse, 0);
  });
});
