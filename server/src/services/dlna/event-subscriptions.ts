/**
 * GENA subscriptions (UDA 1.0 §4.1) to the three services' events, kept in memory. reelshelf answers
 * SUBSCRIBE, renewals and UNSUBSCRIBE as the spec asks, so TVs that subscribe before browsing go on;
 * it sends no NOTIFY (docs/dlna.md: TVs refresh from GetSystemUpdateID when they browse). Expired
 * subscriptions are dropped when met; at most MAX_SUBSCRIPTIONS are kept (the oldest goes first).
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../adapters/clock.ts';
import { GENA_TIMEOUT_SECONDS } from '../../domain/dlna/gena.ts';
import type { DlnaServiceName } from '../../domain/dlna/paths.ts';

export const MAX_SUBSCRIPTIONS = 256;

interface Subscription {
  service: DlnaServiceName;
  callbacks: string[];
  expiresAtMs: number;
}

export interface Subscribed {
  sid: string;
  timeoutSeconds: number;
}

export class EventSubscriptions {
  private readonly bySid = new Map<string, Subscription>();

  constructor(
    private readonly clock: Clock,
    private readonly newSid: () => string = () => `uuid:${randomUUID()}`,
  ) {}

  subscribe(service: DlnaServiceName, callbacks: string[]): Subscribed {
    this.dropExpired();
    const sid = this.newSid();
    this.bySid.set(sid, { service, callbacks, expiresAtMs: this.expiry() });
    for (const oldest of this.bySid.keys()) {
      if (this.bySid.size <= MAX_SUBSCRIPTIONS) break;
      this.bySid.delete(oldest);
    }
    return { sid, timeoutSeconds: GENA_TIMEOUT_SECONDS };
  }

  /** A renewal: null when the SID names no live subscription of this service (→ 412). */
  renew(service: DlnaServiceName, sid: string): Subscribed | null {
    const found = this.live(service, sid);
    if (found === null) return null;
    found.expiresAtMs = this.expiry();
    return { sid, timeoutSeconds: GENA_TIMEOUT_SECONDS };
  }

  /** False when the SID names no live subscription of this service (→ 412). */
  unsubscribe(service: DlnaServiceName, sid: string): boolean {
    if (this.live(service, sid) === null) return false;
    this.bySid.delete(sid);
    return true;
  }

  /** How many are live (for tests and the admin page). */
  count(): number {
    this.dropExpired();
    return this.bySid.size;
  }

  private live(service: DlnaServiceName, sid: string): Subscription | null {
    const found = this.bySid.get(sid);
    if (found === undefined || found.service !== service) return null;
    if (found.expiresAtMs <= this.clock.now().getTime()) {
      this.bySid.delete(sid);
      return null;
    }
    return found;
  }

  private expiry(): number {
    return this.clock.now().getTime() + GENA_TIMEOUT_SECONDS * 1000;
  }

  private dropExpired(): void {
    const now = this.clock.now().getTime();
    for (const [sid, subscription] of this.bySid) if (subscription.expiresAtMs <= now) this.bySid.delete(sid);
  }
}
