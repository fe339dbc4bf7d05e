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
  /**
   * Only this person's view of the items changed (their watch state): the listings of everyone else
   * keep their bytes and their ETag. Absent: the change is everyone's.
   */
  user?: number;
}

/** The union of the changes between two versions. */
export type ChangeSummary =
  { all: true } | { all: false; movies: ReadonlySet<number>; files: ReadonlySet<number> };

/** Beyond this many ids a change counts as "everything": a full build is cheaper than a long IN list. */
export const MAX_TRACKED_IDS = 20_000;

/** Sequence numbers whose changes are kept; an older base than this is rebuilt in full. */
const KEPT_ENTRIES = 512;

interface Items {
  movies: Set<number>;
  files: Set<number>;
}

class ChangeSet {
  movies = new Set<number>();
  files = new Set<number>();
  /** Changes of one person's view only (watch state), by user id. */
  byUser = new Map<number, Items>();
  all = false;
  private tracked = 0;

  add(change: ListingChange): void {
    if (this.all) return;
    if (change.all === true) {
      this.markAll();
      return;
    }
    const into = change.user === undefined ? this.everyone() : this.own(change.user);
    const before = into.movies.size + into.files.size;
    for (const id of change.movies ?? []) into.movies.add(id);
    for (const id of change.files ?? []) into.files.add(id);
    this.tracked += into.movies.size + into.files.size - before;
    if (this.tracked > MAX_TRACKED_IDS) this.markAll();
  }

  private everyone(): Items {
    return { movies: this.movies, files: this.files };
  }

  private own(user: number): Items {
    let own = this.byUser.get(user);
    if (own === undefined) {
      own = { movies: new Set(), files: new Set() };
      this.byUser.set(user, own);
    }
    return own;
  }

  private markAll(): void {
    this.all = true;
    this.movies = new Set();
    this.files = new Set();
    this.byUser = new Map();
    this.tracked = 0;
  }

  get empty(): boolean {
    return !this.all && this.movies.size === 0 && this.files.size === 0 && this.byUser.size === 0;
  }

  /** Whether the set changes what `user` sees (undefined: anybody). */
  touches(user: number | undefined): boolean {
    if (this.all || this.movies.size > 0 || this.files.size > 0) return true;
    return user === undefined ? this.byUser.size > 0 : this.byUser.has(user);
  }

  /** Adds what `entry` changed for `user` (everyone's changes and that person's own). */
  addFor(entry: ChangeSet, user: number | undefined): void {
    if (entry.all) {
      this.add({ all: true });
      return;
    }
    this.add(entry);
    if (user === undefined) for (const own of entry.byUser.values()) this.add(own);
    else {
      const own = entry.byUser.get(user);
      if (own !== undefined) this.add(own);
    }
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

  /**
   * What changed after `base` up to `seq` as `user` sees it (everyone's changes and that person's
   * own; every person's when undefined): the union of the entries, or all when one is no longer kept.
   */
  since(base: number, seq: number, user?: number): ChangeSummary {
    if (base > seq) return { all: true };
    const union = new ChangeSet();
    for (let n = base + 1; n <= seq; n++) {
      const entry = this.entries.get(n);
      if (entry === undefined) return { all: true };
      union.addFor(entry, user);
      if (union.all) return { all: true };
    }
    return union.summary();
  }

  /**
   * Whether anything `user` sees changed after `base` up to `seq` (true when that is no longer
   * known). Cheap: no union is made, so a listing whose person saw no change keeps its version.
   */
  changedFor(base: number, seq: number, user: number): boolean {
    if (base > seq) return true;
    for (let n = base + 1; n <= seq; n++) {
      const entry = this.entries.get(n);
      if (entry === undefined || entry.touches(user)) return true;
    }
    return false;
  }
}
