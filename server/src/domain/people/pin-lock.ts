/**
 * The per-profile PIN limit (issue 22 §6): a 4-digit PIN has 10,000 values, so a profile, not only
 * an address, counts wrong PINs. Five are free; then each wrong PIN pauses the profile, twice as long
 * as the last pause (1 min, 2, 4 … at most a day). A right PIN resets the count.
 */
export const FREE_PIN_FAILURES = 5;
const FIRST_PAUSE_MS = 60_000;
const LONGEST_PAUSE_MS = 24 * 3_600_000;

export interface PinFailureState {
  failures: number;
  lockedUntil: string | null;
}

/** The state after one more wrong PIN at `nowMs`. */
export function afterWrongPin(failures: number, nowMs: number): PinFailureState {
  const count = failures + 1;
  if (count < FREE_PIN_FAILURES) return { failures: count, lockedUntil: null };
  const pauseMs = Math.min(LONGEST_PAUSE_MS, FIRST_PAUSE_MS * 2 ** (count - FREE_PIN_FAILURES));
  return { failures: count, lockedUntil: new Date(nowMs + pauseMs).toISOString() };
}

/** Seconds until the profile takes a PIN again (rounded up), or null when it takes one now. */
export function pinPauseSeconds(lockedUntil: string | null, nowMs: number): number | null {
  if (lockedUntil === null) return null;
  const left = Date.parse(lockedUntil) - nowMs;
  return left > 0 ? Math.ceil(left / 1000) : null;
}
