import type { AttemptLimiter } from '../../adapters/attempt-limiter.ts';
import { AppError } from '../../errors.ts';

/** Failures one address may have in a minute (sign-ins, PINs and bearer tokens together). */
export const ADDRESS_FAILURES_PER_MINUTE = 20;
/** Failures one account may have in a minute before the addresses that failed on it wait. */
export const ACCOUNT_FAILURES_PER_MINUTE = 10;
/** An account failed from this many addresses in a window counts every address as one that failed. */
const MANY_ADDRESSES = 1000;

/**
 * Slows guessing without locking anyone out (issue 22 §5; Jellyfin #1045 lets anyone lock the admin
 * out on purpose). Per address: 20 failures in a minute, then 429 for everything that address
 * tries. Per account: after 10 failures in a minute, the addresses that failed on it wait too, but
 * an address that has not failed on it in that minute is still heard — the person at home signs in
 * while someone elsewhere guesses. Answers 429 `rate_limited` with `Retry-After`.
 */
export class SignInGuard {
  constructor(
    private readonly byAddress: AttemptLimiter,
    private readonly byAccount: AttemptLimiter,
  ) {}

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

  /** Counts one failure from `address` (on `account`, for a sign-in). */
  failed(address: string, account: string | null): void {
    this.byAddress.fail(address);
    if (account !== null) this.byAccount.fail(account, address);
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
