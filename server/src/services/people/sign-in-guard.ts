import type { AttemptLimiter } from '../../adapters/attempt-limiter.ts';
import type { StateMessage, SubscribeState } from '../../domain/cluster/state-message.ts';
import { afterFailure, type FailureWindow, mergeHeard } from '../../domain/people/failure-window.ts';
import { AppError } from '../../errors.ts';
import type { AuthFailureRepository } from '../../repositories/auth-failure.repository.ts';

/** Failures one address may have in a minute (sign-ins, PINs and bearer tokens together). */
export const ADDRESS_FAILURES_PER_MINUTE = 20;
/** Failures one account may have in a minute before the addresses that failed on it wait. */
export const ACCOUNT_FAILURES_PER_MINUTE = 10;
/** An account failed from this many addresses in a window counts every address as one that failed. */
const MANY_ADDRESSES = 1000;
/** The window of both counts. */
export const FAILURE_WINDOW_MS = 60_000;

/** Where the nodes count failures together: the table, the change feed, the clock. */
export interface SharedFailures {
  store: Pick<AuthFailureRepository, 'fail' | 'startedAfter' | 'expire'>;
  /** The change feed's node-state messages (PostgreSQL: every node's failures, at once). */
  subscribe?: SubscribeState;
  nowMs: () => number;
}

const ADDRESS = 'address:';
const ACCOUNT = 'account:';

/**
 * Slows guessing without locking anyone out (issue 22 §5; Jellyfin #1045 lets anyone lock the admin
 * out on purpose). Per address: 20 failures in a minute, then 429 for everything that address
 * tries. Per account: after 10 failures in a minute, the addresses that failed on it wait too, but
 * an address that has not failed on it in that minute is still heard — the person at home signs in
 * while someone elsewhere guesses. Answers 429 `rate_limited` with `Retry-After`.
 *
 * Several nodes count together (docs/cluster.md): each failure is counted in `auth_failures` (one
 * row per address and per account, in a transaction) and the limiters keep this node's copy, so the
 * check before a sign-in costs no query; the other nodes' failures reach the copy through the change
 * feed before a later request is served. Without `share`, the counts are this process's (unit tests).
 */
export class SignInGuard {
  private shared: SharedFailures | null = null;
  private unsubscribe: () => void = () => undefined;

  constructor(
    private readonly byAddress: AttemptLimiter,
    private readonly byAccount: AttemptLimiter,
  ) {}

  /** Counts with the other nodes: reads the live windows and follows their failures from now on. */
  async share(shared: SharedFailures): Promise<void> {
    this.shared = shared;
    this.unsubscribe = shared.subscribe?.((message) => this.heard(message)) ?? (() => undefined);
    await this.reload();
  }

  close(): void {
    this.unsubscribe();
  }

  private async reload(): Promise<void> {
    const shared = this.shared;
    if (shared === null) return;
    const now = shared.nowMs();
    await shared.store.expire(now - FAILURE_WINDOW_MS);
    for (const row of await shared.store.startedAfter(now - FAILURE_WINDOW_MS)) {
      const target = this.limiterOf(row.key);
      if (target !== null) target.limiter.set(target.key, row);
    }
  }

  private limiterOf(key: string): { limiter: AttemptLimiter; key: string } | null {
    if (key.startsWith(ADDRESS)) return { limiter: this.byAddress, key: key.slice(ADDRESS.length) };
    if (key.startsWith(ACCOUNT)) return { limiter: this.byAccount, key: key.slice(ACCOUNT.length) };
    return null;
  }

  private heard(message: StateMessage): void {
    if (message.topic === '*') {
      void this.reload().catch(() => undefined);
      return;
    }
    if (message.topic !== 'auth' || !('data' in message)) return;
    const { k, s, c, a } = message.data;
    if (typeof k !== 'string' || typeof s !== 'number' || typeof c !== 'number') return;
    const target = this.limiterOf(k);
    if (target === null) return;
    const address = k.startsWith(ACCOUNT) && typeof a === 'string' ? a : null;
    const merged = mergeHeard(target.limiter.copyOf(target.key), { count: c, startedMs: s, address });
    target.limiter.set(target.key, merged);
  }

  /** Throws 429 when `address` (or `address` on `account`) must wait before trying again. */
  check(address: string, account: string | null): void {
    const fromAddress = this.byAddress.window(address);
    if (fromAddress !== null && fromAddress.count >= ADDRESS_FAILURES_PER_MINUTE) {
      throw tooMany(this.byAddress.msLeft(address), 'from this address');
    }
    if (account === null) return;
    const onAccount = this.byAccount.window(account);
    if (
      onAccount !== null &&
      onAccount.count >= ACCOUNT_FAILURES_PER_MINUTE &&
      (onAccount.addresses.has(address) || onAccount.addresses.size >= MANY_ADDRESSES)
    ) {
      throw tooMany(this.byAccount.msLeft(account), 'for this name');
    }
  }

  /**
   * Counts one failure from `address` (on `account`, for a sign-in): here at once, and on every
   * node once the count is written (before this resolves).
   */
  async failed(address: string, account: string | null): Promise<void> {
    this.byAddress.fail(address);
    if (account !== null) this.byAccount.fail(account, address);
    const shared = this.shared;
    if (shared === null) return;
    const count = async (limiter: AttemptLimiter, key: string, stored: string, from: string | null) => {
      const now = shared.nowMs();
      const window: FailureWindow = await shared.store.fail(stored, from, (current) =>
        afterFailure(current, now, FAILURE_WINDOW_MS, from),
      );
      // A count heard meanwhile from a later commit may be higher already: the higher stays.
      const mine = limiter.copyOf(key);
      const higher = mine !== null && mine.startedMs === window.startedMs && mine.count > window.count;
      limiter.set(key, higher ? { ...window, count: mine.count } : window);
    };
    await count(this.byAddress, address, `${ADDRESS}${address}`, null);
    if (account !== null) await count(this.byAccount, account, `${ACCOUNT}${account}`, address);
  }
}

export function tooMany(msLeft: number, what: string): AppError {
  const seconds = Math.max(1, Math.ceil(msLeft / 1000));
  return new AppError('rate_limited', {
    message: `Too many failed attempts ${what}; try again in ${seconds} s.`,
    hint: 'Wait for the time in Retry-After, then check the name and password (or key).',
    headers: { 'retry-after': String(seconds) },
    extra: { retry_after_seconds: seconds },
  });
}
