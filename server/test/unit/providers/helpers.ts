import type { Clock } from '../../../src/adapters/clock.ts';
import { MemoryProviderCache } from '../../../src/repositories/provider-cache.repository.ts';

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  private t: number;
  constructor(iso = '2025-03-01T12:00:00.000Z') {
    this.t = Date.parse(iso);
  }
  now(): Date {
    return new Date(this.t);
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

/** A `sleep` that returns at once and remembers what it was asked to wait. */
export function recordingSleep(): { sleep: (ms: number) => Promise<void>; waits: number[] } {
  const waits: number[] = [];
  return {
    waits,
    sleep: async (ms: number) => {
      waits.push(ms);
    },
  };
}

/** Options shared by the client tests: memory cache, manual clock, instant sleep, short timeouts. */
export function clientDeps() {
  const cache = new MemoryProviderCache();
  const clock = new ManualClock();
  const { sleep, waits } = recordingSleep();
  return { cache, clock, sleep, waits, timeoutMs: 2_000, maxRetries: 2, retryBaseDelayMs: 10 };
}

/** Runs `fn` and returns what it threw (fails when it did not throw). */
export async function caught(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (e) {
    return e;
  }
  throw new Error('expected a rejection');
}
