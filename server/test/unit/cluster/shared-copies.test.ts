// Each node's in-memory copy of the shared state follows what the change feed says another node did
// (docs/cluster.md "Shared node state"): a stop mark heard refuses the token and re-signs the person's
// listing; a reconnect ('*') reads the table again; failures heard from another node count toward the
// limits here. The feed and the tables are in memory; test/integration/node-state*.test.ts runs them
// for real.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AttemptLimiter } from '../../../src/adapters/attempt-limiter.ts';
import type { StateMessage } from '../../../src/domain/cluster/state-message.ts';
import type { FailureWindow } from '../../../src/domain/people/failure-window.ts';
import { SignInGuard } from '../../../src/services/people/sign-in-guard.ts';
import { PlaybackTokenService } from '../../../src/services/playback/playback-token.service.ts';

function feed() {
  const listeners: ((m: StateMessage) => void)[] = [];
  return {
    subscribe: (listener: (m: StateMessage) => void) => {
      listeners.push(listener);
      return () => listeners.splice(listeners.indexOf(listener), 1);
    },
    say: (message: StateMessage) => {
      for (const l of listeners) l(message);
    },
  };
}

const flush = () => new Promise((r) => setImmediate(r));

describe('shared copies', () => {
  const anna = { userId: 4, credential: { kind: 'session', id: 17 } } as const;
  const nowMs = Date.parse('2030-01-01T10:00:00Z');
  const clock = { now: () => new Date(nowMs) };

  it('a stop heard from another node refuses the token here and re-signs the listing; a reconnect reloads', async () => {
    const rows: { stop_key: string; until_s: number }[] = [];
    const stopped: [number, number][] = [];
    const bus = feed();
    const tokens = new PlaybackTokenService('k'.repeat(43), clock);
    await tokens.share({
      store: { live: async () => rows, put: async () => undefined, expire: async () => undefined },
      subscribe: bus.subscribe,
      onStop: (userId, fileId) => void stopped.push([userId, fileId]),
    });
    const token = tokens.sign(7, 'web', anna);
    const other = tokens.sign(8, 'web', anna);
    assert.equal(tokens.verify(token, 7, 'web').ok, true);
    bus.say({ topic: 'stop', data: { k: '4|session|17|7', u: tokens.currentExpiry() } });
    assert.deepEqual(tokens.verify(token, 7, 'web'), { ok: false, reason: 'stopped' });
    assert.deepEqual(stopped, [[4, 7]]);
    assert.notEqual(tokens.sign(7, 'web', anna), token, 'a fresh URL past the mark');
    // Missed while the listener was away: read from the table.
    rows.push({ stop_key: '4|session|17|8', until_s: tokens.currentExpiry() });
    assert.equal(tokens.verify(other, 8, 'web').ok, true);
    bus.say({ topic: '*' });
    await flush();
    assert.deepEqual(tokens.verify(other, 8, 'web'), { ok: false, reason: 'stopped' });
  });

  it('failures heard from another node count here: 5 + 5 on an account → this address waits', async () => {
    const bus = feed();
    const now = () => nowMs;
    const guard = new SignInGuard(new AttemptLimiter(60_000, now), new AttemptLimiter(60_000, now));
    const stored = new Map<string, FailureWindow>();
    await guard.share({
      store: {
        fail: async (key, _address, next) => {
          const window = next(stored.get(key) ?? null);
          stored.set(key, window);
          return window;
        },
        startedAfter: async () => [],
        expire: async () => undefined,
      },
      subscribe: bus.subscribe,
      nowMs: now,
    });
    // Another node counted 5 failures of 10.0.0.1 on "anna".
    bus.say({ topic: 'auth', data: { k: 'account:anna', s: nowMs, c: 5, a: '10.0.0.1' } });
    for (let i = 0; i < 4; i++) {
      guard.check('10.0.0.1', 'anna');
      await guard.failed('10.0.0.1', 'anna');
    }
    guard.check('10.0.0.1', 'anna');
    assert.equal(stored.get('account:anna')?.count, 4, 'this node wrote its own four');
    // Its fifth is the other node's tenth: heard here.
    bus.say({ topic: 'auth', data: { k: 'account:anna', s: nowMs, c: 10, a: '10.0.0.1' } });
    assert.throws(() => guard.check('10.0.0.1', 'anna'), /Too many failed attempts for this name/);
    assert.doesNotThrow(() => guard.check('192.168.1.20', 'anna'), 'another address is still heard');
    // An older window's message arriving late changes nothing.
    bus.say({ topic: 'auth', data: { k: 'account:anna', s: nowMs - 120_000, c: 1, a: null } });
    assert.throws(() => guard.check('10.0.0.1', 'anna'));
  });
});
