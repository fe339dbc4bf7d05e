/**
 * When a session holds (issue 22 §5), pure. A browser session ends after `idleMs` without a request
 * (OWASP's idle timeout) and at its absolute `expires_at` whatever it did; a device session (an app's
 * long-lived token) only when revoked or at its `expires_at` if it has one.
 */
export interface SessionPolicy {
  idleMs: number;
  maxMs: number;
}

export interface SessionTimes {
  kind: string;
  last_seen_at: string;
  expires_at: string | null;
  revoked_at: string | null;
}

export type SessionStatus = 'active' | 'revoked' | 'expired' | 'idle';

/** `last_seen_at` is written at most this often: a page's many requests cost one write a minute. */
export const TOUCH_INTERVAL_MS = 60_000;

export function sessionStatus(session: SessionTimes, nowMs: number, policy: SessionPolicy): SessionStatus {
  if (session.revoked_at !== null) return 'revoked';
  if (session.expires_at !== null && Date.parse(session.expires_at) <= nowMs) return 'expired';
  if (session.kind === 'browser' && Date.parse(session.last_seen_at) + policy.idleMs <= nowMs) return 'idle';
  return 'active';
}

/** Whether a use at `nowMs` should be written back (the last write is a minute old or more). */
export function needsTouch(lastUsedAt: string | null, nowMs: number): boolean {
  return lastUsedAt === null || nowMs - Date.parse(lastUsedAt) >= TOUCH_INTERVAL_MS;
}
