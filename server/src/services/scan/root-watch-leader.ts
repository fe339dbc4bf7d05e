import type { RootWatchMode } from '../../domain/scan/watch-leadership.ts';
import type { RootWatchService, WatchLog } from './root-watch.service.ts';

/** The lease that makes one node the watcher (NodeLeaseRepository under the name `root-watch`). */
export interface WatchLease {
  /** Takes or renews the lease; true while this node holds it. */
  take(): Promise<boolean>;
  release(): Promise<void>;
}

export interface RootWatchLeaderDeps {
  mode: RootWatchMode;
  /** A fresh watch service (one per term as watcher: a closed one cannot start again). */
  make: () => RootWatchService;
  /** Needed in `leader` mode. */
  lease?: WatchLease;
  renewMs: number;
}

const IDLE = { watching: false, pending: 0, scanning: false };

/**
 * Runs the library roots' watching on one node at a time (domain/scan/watch-leadership.ts): in
 * `leader` mode the node that holds the `root-watch` lease watches, renewing it every `renewMs`; when
 * it dies (or freezes past the lease) another node takes the lease and starts watching — its first
 * pass scans each root once, what changed meanwhile. A node that finds it lost the lease stops its
 * watchers. Scans are deduped cluster-wide anyway (docs/cluster.md), so an overlap of one renewal
 * costs at most a joined scan.
 */
export class RootWatchLeader {
  private current: RootWatchService | null = null;
  private log: WatchLog | undefined;
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;
  private closed = false;

  constructor(private readonly deps: RootWatchLeaderDeps) {}

  /** Whether this node watches the roots now. */
  get watching(): boolean {
    return this.current !== null;
  }

  start(log?: WatchLog): Promise<void> {
    if (this.closed || this.timer !== null || this.current !== null) return Promise.resolve();
    this.log = log;
    if (this.deps.mode === 'never') return Promise.resolve();
    if (this.deps.mode === 'always') return this.begin();
    this.timer = setInterval(() => void this.tick(), this.deps.renewMs);
    this.timer.unref();
    return this.tick();
  }

  /** One renewal: take or keep the lease, start or stop watching accordingly. */
  private tick(): Promise<void> {
    this.ticking ??= (async () => {
      try {
        const lease = this.deps.lease;
        if (lease === undefined || this.closed) return;
        const held = await lease.take().catch((err: unknown) => {
          this.log?.warn({ err }, 'library watch: the watch lease could not be renewed');
          return false;
        });
        if (this.closed) return;
        if (held && this.current === null) {
          this.log?.info({}, 'library watch: this node watches the library roots');
          // Arming runs in the background (a first scan of every root); the renewal goes on.
          void this.begin();
        } else if (!held && this.current !== null) {
          this.log?.info({}, 'library watch: another node watches the library roots now');
          this.end();
        }
      } finally {
        this.ticking = null;
      }
    })();
    return this.ticking;
  }

  private begin(): Promise<void> {
    const service = this.deps.make();
    this.current = service;
    return service.start(this.log);
  }

  private end(): void {
    this.current?.close();
    this.current = null;
  }

  async rootAdded(root: { id: number; path: string }): Promise<void> {
    await this.current?.rootAdded(root);
  }

  rootRemoved(rootId: number): void {
    this.current?.rootRemoved(rootId);
  }

  watchState(rootId: number): { watching: boolean; pending: number; scanning: boolean } {
    return this.current?.watchState(rootId) ?? IDLE;
  }

  /** Stops watching and gives the lease up, so another node takes over at its next renewal. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    this.end();
    await this.ticking;
    if (this.deps.mode === 'leader') await this.deps.lease?.release().catch(() => undefined);
  }
}
