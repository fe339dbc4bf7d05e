import type { FailureWindow } from '../domain/people/failure-window.ts';

/**
 * Counts failures per key in a fixed window, in memory (issue 22 §5: failed sign-ins and bearer
 * tokens). `@fastify/rate-limit` counts every request of a route by one key; this counts only
 * failures, by address and by account, and lets a caller ask before checking a credential. At most
 * `maxKeys` keys are kept (the oldest window goes first), so a flood of made-up names costs bounded
 * memory. With several nodes this is each node's copy of the shared counts (`set` writes what the
 * table or another node says: services/people/sign-in-guard.ts).
 */
export interface AttemptWindow {
  count: number;
  startedMs: number;
  /** The addresses that failed on this key in the window (account keys only). */
  addresses: Set<string>;
}

export class AttemptLimiter {
  private readonly windows = new Map<string, AttemptWindow>();

  constructor(
    private readonly windowMs: number,
    private readonly nowMs: () => number = Date.now,
    private readonly maxKeys = 10_000,
  ) {}

  /** The live window of `key`, or null when it has none (or it ended). */
  window(key: string): AttemptWindow | null {
    const found = this.windows.get(key);
    if (found === undefined) return null;
    if (this.nowMs() - found.startedMs >= this.windowMs) {
      this.windows.delete(key);
      return null;
    }
    return found;
  }

  /** The live window of `key` as plain data (what the shared counts merge with). */
  copyOf(key: string): FailureWindow | null {
    const found = this.window(key);
    return found === null ? null : { ...found, addresses: [...found.addresses] };
  }

  /** Makes `window` the count of `key` (the shared count, as the table or another node has it). */
  set(key: string, window: FailureWindow): void {
    this.windows.delete(key);
    this.insert(key, {
      count: window.count,
      startedMs: window.startedMs,
      addresses: new Set(window.addresses),
    });
  }

  private insert(key: string, window: AttemptWindow): void {
    this.windows.set(key, window);
    while (this.windows.size > this.maxKeys) {
      const oldest = this.windows.keys().next().value;
      if (oldest === undefined) break;
      this.windows.delete(oldest);
    }
  }

  /** Counts one failure of `key` (from `address`); returns the count in the window. */
  fail(key: string, address?: string): number {
    let current = this.window(key);
    if (current === null) {
      current = { count: 0, startedMs: this.nowMs(), addresses: new Set() };
      this.windows.delete(key);
      this.insert(key, current);
    }
    current.count++;
    if (address !== undefined && current.addresses.size < 1000) current.addresses.add(address);
    return current.count;
  }

  /** Milliseconds until `key`'s window ends (0 without one). */
  msLeft(key: string): number {
    const current = this.window(key);
    return current === null ? 0 : Math.max(0, current.startedMs + this.windowMs - this.nowMs());
  }
}
