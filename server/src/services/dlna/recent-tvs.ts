/**
 * The TVs that asked recently (issue 24 §1: the admin page shows which TVs asked): one entry per
 * address and User-Agent, kept in memory (a restart empties it), at most MAX_RECENT_TVS — the one
 * seen longest ago goes first, so a flood of made-up User-Agents costs bounded memory.
 */
import type { Clock } from '../../adapters/clock.ts';
import type { DlnaClient } from './dlna-ports.ts';

export const MAX_RECENT_TVS = 32;

export interface RecentTv {
  address: string;
  userAgent: string;
  /** Sony's X-AV-Client-Info, when sent. */
  avClientInfo: string | null;
  firstSeen: Date;
  lastSeen: Date;
  /** The last control action (`ContentDirectory#Browse`), or what was wrong with the request. */
  lastAction: string;
}

/** Long header values are cut: they are shown, never parsed. */
const MAX_TEXT = 256;

export class RecentTvs {
  /** Insertion order = least recently seen first (an entry seen again is moved to the end). */
  private readonly entries = new Map<string, RecentTv>();

  constructor(
    private readonly clock: Clock,
    private readonly max = MAX_RECENT_TVS,
  ) {}

  seen(client: DlnaClient, action: string): void {
    const userAgent = client.userAgent.slice(0, MAX_TEXT);
    const key = `${client.address}\n${userAgent}`;
    const now = this.clock.now();
    const known = this.entries.get(key);
    this.entries.delete(key);
    this.entries.set(key, {
      address: client.address,
      userAgent,
      avClientInfo: client.avClientInfo?.slice(0, MAX_TEXT) ?? null,
      firstSeen: known?.firstSeen ?? now,
      lastSeen: now,
      lastAction: action.slice(0, MAX_TEXT),
    });
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.max) break;
      this.entries.delete(oldest);
    }
  }

  /** The TVs, the one seen last first. */
  list(): RecentTv[] {
    return [...this.entries.values()].reverse().map((tv) => ({ ...tv }));
  }
}
