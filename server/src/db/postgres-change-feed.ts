import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { ListingChange } from '../domain/library-listing/changes.ts';
import type { ChangeFeed, StateMessage } from './change-feed.ts';
import {
  HLS_CHANNEL,
  JOBS_CHANNEL,
  LISTING_CHANNEL,
  PEOPLE_CHANNEL,
  STATE_CHANNEL,
} from './postgres-change-capture.ts';

/** How long a barrier may take before the feed counts its connection as lost. */
const BARRIER_TIMEOUT_MS = 5_000;
/** Wait before reconnecting a lost listener. */
const RECONNECT_MS = 500;

interface Waiters {
  resolve: () => void;
  promise: Promise<void>;
}

function waiters(): Waiters {
  let resolve = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { resolve, promise };
}

/** Parses a listing payload of the triggers (postgres-change-capture.ts); anything odd is "everything". */
export function parseListingPayload(payload: string | undefined): ListingChange {
  try {
    const raw = JSON.parse(payload ?? '') as { a?: boolean; m?: unknown; f?: unknown; u?: unknown };
    if (raw.a === true || !Array.isArray(raw.m) || !Array.isArray(raw.f)) return { all: true };
    const ids = (list: unknown[]) => list.map(Number).filter((n) => Number.isSafeInteger(n));
    const change: ListingChange = { movies: ids(raw.m), files: ids(raw.f) };
    if (typeof raw.u === 'number') change.user = raw.u;
    return change;
  } catch {
    return { all: true };
  }
}

/** Parses a node-state payload (`<topic> <json>`); null when it is not one (ignored). */
export function parseStatePayload(payload: string | undefined): StateMessage | null {
  const text = payload ?? '';
  const space = text.indexOf(' ');
  if (space <= 0) return null;
  try {
    const data = JSON.parse(text.slice(space + 1)) as unknown;
    if (data === null || typeof data !== 'object' || Array.isArray(data)) return null;
    return { topic: text.slice(0, space), data: data as Record<string, unknown> };
  } catch {
    return null;
  }
}

/**
 * The change feed on PostgreSQL: one dedicated connection per process LISTENs to the channels the
 * triggers NOTIFY (a pooled connection cannot: it is handed to other queries). PostgreSQL delivers
 * notifications at commit, in commit order, and never replays them: so a lost connection counts as
 * "everything changed" (and, until it is back, every read is one), and `catchUp` sends a NOTIFY of
 * its own on a private channel and waits to hear it back — by then every notification of a
 * transaction that committed before it has been heard.
 */
export class PostgresChangeFeed implements ChangeFeed {
  readonly engine = 'postgres' as const;
  private readonly listingListeners: ((change: ListingChange) => void)[] = [];
  private readonly peopleListeners: (() => void)[] = [];
  private readonly jobsListeners: (() => void)[] = [];
  private readonly stateListeners: ((message: StateMessage) => void)[] = [];
  private readonly hlsListeners: ((key: string) => void)[] = [];
  private readonly barrierChannel = `reelshelf_barrier_${randomBytes(6).toString('hex')}`;
  private client: pg.Client | null = null;
  private version = 0;
  private closed = false;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private barrierSeq = 0;
  /** The barrier sent and not yet heard, and those asking after it was sent (they need the next). */
  private inflight: { id: string; waiters: Waiters; timer: NodeJS.Timeout } | null = null;
  private queued: Waiters | null = null;

  constructor(private readonly config: pg.ClientConfig) {}

  /** Connects and listens; rejects when the first connection fails (the server does not start). */
  async start(): Promise<void> {
    await this.connect();
  }

  subscribe(listener: (change: ListingChange) => void): () => void {
    this.listingListeners.push(listener);
    return () => {
      const at = this.listingListeners.indexOf(listener);
      if (at >= 0) this.listingListeners.splice(at, 1);
    };
  }

  subscribePeople(listener: () => void): void {
    this.peopleListeners.push(listener);
  }

  subscribeJobs(listener: () => void): () => void {
    this.jobsListeners.push(listener);
    return () => {
      const at = this.jobsListeners.indexOf(listener);
      if (at >= 0) this.jobsListeners.splice(at, 1);
    };
  }

  subscribeState(listener: (message: StateMessage) => void): () => void {
    this.stateListeners.push(listener);
    return () => {
      const at = this.stateListeners.indexOf(listener);
      if (at >= 0) this.stateListeners.splice(at, 1);
    };
  }

  subscribeHls(listener: (presentationKey: string) => void): () => void {
    this.hlsListeners.push(listener);
    return () => {
      const at = this.hlsListeners.indexOf(listener);
      if (at >= 0) this.hlsListeners.splice(at, 1);
    };
  }

  externalVersion(): number {
    // Not listening: nothing heard can be trusted, so every read counts as after a change.
    if (this.client === null) this.version += 1;
    return this.version;
  }

  catchUp(): Promise<void> {
    if (this.client === null || this.closed) return Promise.resolve();
    if (this.queued === null) this.queued = waiters();
    const promise = this.queued.promise;
    if (this.inflight === null) this.sendBarrier();
    return promise;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.reconnectTimer !== null) clearTimeout(this.reconnectTimer);
    const client = this.client;
    this.client = null;
    this.releaseBarriers();
    if (client !== null) await client.end().catch(() => {});
  }

  private async connect(): Promise<void> {
    const client = new pg.Client(this.config);
    client.on('notification', (message) => this.heard(message));
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    await client.connect();
    try {
      // The barrier's NOTIFY commits a transaction of its own on every request: it needs no
      // durability, so it does not wait for the WAL to reach the disk (an fsync per request).
      await client.query(
        `SET synchronous_commit = off; LISTEN ${LISTING_CHANNEL}; LISTEN ${PEOPLE_CHANNEL}; LISTEN ${JOBS_CHANNEL}; LISTEN ${HLS_CHANNEL}; LISTEN ${STATE_CHANNEL}; LISTEN ${this.barrierChannel}`,
      );
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    if (this.closed) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
    // Whatever was committed while no one listened is unknown.
    this.everythingChanged();
  }

  private heard(message: pg.Notification): void {
    if (message.channel === this.barrierChannel) {
      if (this.inflight !== null && this.inflight.id === message.payload) this.barrierHeard();
      return;
    }
    if (message.channel === HLS_CHANNEL) {
      for (const listener of this.hlsListeners) listener(message.payload ?? '');
      return;
    }
    if (message.channel === JOBS_CHANNEL) {
      for (const listener of this.jobsListeners) listener();
      return;
    }
    if (message.channel === STATE_CHANNEL) {
      const state = parseStatePayload(message.payload);
      if (state !== null) for (const listener of this.stateListeners) listener(state);
      return;
    }
    if (message.channel === PEOPLE_CHANNEL) {
      for (const listener of this.peopleListeners) listener();
      return;
    }
    if (message.channel === LISTING_CHANNEL) {
      const change = parseListingPayload(message.payload);
      for (const listener of this.listingListeners) listener(change);
    }
  }

  private sendBarrier(): void {
    const client = this.client;
    const asking = this.queued;
    if (client === null || asking === null) return;
    this.queued = null;
    const id = String(++this.barrierSeq);
    const timer = setTimeout(() => this.lost(client), BARRIER_TIMEOUT_MS);
    this.inflight = { id, waiters: asking, timer };
    client.query('select pg_notify($1, $2)', [this.barrierChannel, id]).catch(() => this.lost(client));
  }

  private barrierHeard(): void {
    const done = this.inflight;
    if (done === null) return;
    clearTimeout(done.timer);
    this.inflight = null;
    done.waiters.resolve();
    if (this.queued !== null) this.sendBarrier();
  }

  private releaseBarriers(): void {
    if (this.inflight !== null) {
      clearTimeout(this.inflight.timer);
      this.inflight.waiters.resolve();
      this.inflight = null;
    }
    if (this.queued !== null) {
      this.queued.resolve();
      this.queued = null;
    }
  }

  private everythingChanged(): void {
    this.version += 1;
    for (const listener of this.listingListeners) listener({ all: true });
    for (const listener of this.peopleListeners) listener();
    for (const listener of this.jobsListeners) listener();
    for (const listener of this.stateListeners) listener({ topic: '*' });
    // '' is every presentation.
    for (const listener of this.hlsListeners) listener('');
  }

  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = null;
    client.end().catch(() => {});
    this.everythingChanged();
    // Waiting requests go on: with no listener every read counts as after a change.
    this.releaseBarriers();
    if (!this.closed) this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.reconnectTimer !== null) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      if (this.closed) return;
      this.connect().catch(() => this.scheduleReconnect());
    }, RECONNECT_MS);
    this.reconnectTimer.unref();
  }
}
