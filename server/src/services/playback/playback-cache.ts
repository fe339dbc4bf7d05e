import { type CacheEntry, chooseEvictions } from '../../domain/playback/cache-eviction.ts';

/** One kind of cached playback file (progressive artifacts, HLS presentations): what it holds, and removal. */
export interface CacheKind {
  /** Its entries on disk, measured, with their last use and whether they are in use now. */
  entries(): Promise<CacheEntry[]>;
  /** Removes one entry (its files, and what remembers it). */
  evict(key: string): Promise<void>;
}

/**
 * The cluster's one clean at a time (PostgreSQL: a `node_leases` row; absent on SQLite, one node).
 * A lease with an expiry, not a lock held on a connection: the clean's own queries need the pool,
 * which may be one connection, and a node that dies mid-clean frees it when the lease runs out.
 */
export interface CleanLease {
  /** Takes the lease, or renews it when this process holds it: true when it holds it now. */
  take(): Promise<boolean>;
  release(): Promise<void>;
  /** How often a node that finds it held tries again, and for how long before it gives up. */
  retryMs: number;
  waitMs: number;
}

export interface PlaybackCacheDeps {
  /** Bytes both areas (`artifacts` and `segments`) hold on disk now, whatever names them. */
  usage(): Promise<number>;
  /** REELSHELF_ARTIFACT_CACHE_MB in bytes. */
  boundBytes: number;
  lease?: CleanLease;
  /**
   * A clean that left the cache over its bound (entries in use) cleans again after this long
   * (default 30 s): "in use" may be only a recent read (`cache-use.ts`), which no event ends.
   */
  recheckMs?: number;
  log?: { warn(obj: unknown, msg: string): void };
}

/**
 * The one bound of the playback cache (REELSHELF_ARTIFACT_CACHE_MB) and its one cleaner: progressive
 * artifacts and HLS presentations are measured together on disk and removed least recently used
 * first, whatever their kind, never one in use (being converted, served, or just made).
 *
 * Cleans run one at a time; a clean asked for while one runs is done once more after it (several
 * asks meanwhile share that one), so every ask is answered by a clean that started after it.
 * Several nodes on one data dir: one clean at a time cluster-wide too (`lease`). A node that finds
 * another cleaning waits for it rather than skip: that clean may have measured before this node's
 * newest file landed. Usage is measured under the lease, so the later clean removes only what is
 * still over the bound (two nodes never both evict down to it), and every eviction asks its kind
 * again whether the entry is in use (`CacheKind.evict`).
 */
export class PlaybackCache {
  private readonly kinds = new Map<CacheEntry['kind'], CacheKind>();
  private tail: Promise<void> = Promise.resolve();
  private next: Promise<void> | null = null;
  private recheck: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly deps: PlaybackCacheDeps) {}

  /** The two kinds register themselves (each is built with this cache). */
  register(kind: CacheEntry['kind'], source: CacheKind): void {
    this.kinds.set(kind, source);
  }

  /** Brings the cache within its bound; never rejects (a failure is logged, the next clean retries). */
  clean(): Promise<void> {
    if (this.next !== null) return this.next;
    const run = this.tail.then(async () => {
      this.next = null;
      await this.once().catch((err: unknown) => this.deps.log?.warn({ err }, 'playback cache clean failed'));
    });
    this.next = run;
    this.tail = run;
    return run;
  }

  private async once(): Promise<void> {
    const lease = this.deps.lease;
    if (lease === undefined) return this.evictDown(null);
    if (!(await this.acquire(lease))) {
      this.deps.log?.warn({ waitedMs: lease.waitMs }, 'playback cache clean skipped: another node cleans');
      return;
    }
    try {
      await this.evictDown(lease);
    } finally {
      await lease
        .release()
        .catch((err: unknown) => this.deps.log?.warn({ err }, 'clean lease not given back'));
    }
  }

  private async acquire(lease: CleanLease): Promise<boolean> {
    for (let waited = 0; ; waited += lease.retryMs) {
      if (await lease.take()) return true;
      if (waited >= lease.waitMs) return false;
      await new Promise((resolve) => setTimeout(resolve, lease.retryMs));
    }
  }

  private async evictDown(lease: CleanLease | null): Promise<void> {
    const total = await this.deps.usage();
    if (total <= this.deps.boundBytes) return;
    const entries: CacheEntry[] = [];
    for (const kind of this.kinds.values()) entries.push(...(await kind.entries()));
    const chosen = chooseEvictions(entries, total, this.deps.boundBytes);
    for (const entry of chosen) {
      // Renewed before each removal: a clean longer than the lease does not let a second one in.
      if (lease !== null && !(await lease.take())) return;
      await this.kinds.get(entry.kind)?.evict(entry.key);
    }
    // Still over: entries in use (or come back into use) stay, and nothing may end their use but time.
    if ((await this.deps.usage()) > this.deps.boundBytes) this.cleanLater();
  }

  private cleanLater(): void {
    if (this.recheck !== null) return;
    this.recheck = setTimeout(() => {
      this.recheck = null;
      void this.clean();
    }, this.deps.recheckMs ?? 30_000);
    this.recheck.unref();
  }
}
