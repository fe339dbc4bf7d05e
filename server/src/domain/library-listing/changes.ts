/**
 * What a write changed, as the listing sees it: movies (by id), media files (by id), or everything.
 * Writes are observed as they happen (db/listing-writes.ts, plus the in-memory state the listing
 * reads, such as finished playback artifacts); the listing cache asks what changed since the
 * version it last built and re-presents only those items.
 */
export interface ListingChange {
  movies?: Iterable<number>;
  files?: Iterable<number>;
  /** Anything may have changed (a write whose rows are not known, another process's commit). */
  all?: boolean;
}

/** The union of the changes between two versions. */
export type ChangeSummary =
  { all: true } | { all: false; movies: ReadonlySet<number>; files: ReadonlySet<number> };

/** Beyond this many ids a change counts as "everything": a full build is cheaper than a long IN list. */
export const MAX_TRACKED_IDS = 20_000;

/** Sequence numbers whose changes are kept; an older base than this is rebuilt in full. */
const KEPT_ENTRIES = 512;

class ChangeSet {
  movies = new Set<number>();
  files = new Set<number>();
  all = false;

  add(change: ListingChange): void {
    if (this.all) return;
    if (change.all === true) {
      this.markAll();
      return;
    }
    for (const id of change.movies ?? []) this.movies.add(id);
    for (const id of change.files ?? []) this.files.add(id);
    if (this.movies.size + this.files.size > MAX_TRACKED_IDS) this.markAll();
  }

  private markAll(): void {
    this.all = true;
    this.movies = new Set();
    this.files = new Set();
  }

  get empty(): boolean {
    return !this.all && this.movies.size === 0 && this.files.size === 0;
  }

  summary(): ChangeSummary {
    return this.all ? { all: true } : { all: false, movies: this.movies, files: this.files };
  }
}

/**
 * Numbered changes. Writes go into a pending set; reading the current sequence number closes the
 * pending set under the next number (so a scan's thousand statements between two requests are one
 * entry). A write that is rolled back leaves its ids in the log: a superset, which only costs a
 * re-presentation.
 */
export class ChangeLog {
  private seq = 0;
  private pending = new ChangeSet();
  private readonly entries = new Map<number, ChangeSet>();

  record(change: ListingChange): void {
    this.pending.add(change);
  }

  /** The current sequence number (closing what is pending under a new one). */
  current(): number {
    if (!this.pending.empty) {
      this.seq++;
      this.entries.set(this.seq, this.pending);
      this.pending = new ChangeSet();
      for (const old of this.entries.keys()) {
        if (old > this.seq - KEPT_ENTRIES) break;
        this.entries.delete(old);
      }
    }
    return this.seq;
  }

  /** What changed after `base` up to `seq`: the union of the entries, or all when one is no longer kept. */
  since(base: number, seq: number): ChangeSummary {
    if (base > seq) return { all: true };
    const union = new ChangeSet();
    for (let n = base + 1; n <= seq; n++) {
      const entry = this.entries.get(n);
      if (entry === undefined) return { all: true };
      union.add(entry.all ? { all: true } : entry);
      if (union.all) return { all: true };
    }
    return union.summary();
  }
}
