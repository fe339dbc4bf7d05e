import { randomBytes } from 'node:crypto';
import { type ChangeSummary, ChangeLog, type ListingChange } from '../../domain/library-listing/changes.ts';

/** What the listing's bytes are a function of, besides the device and the contract. */
export interface ListingVersion {
  /** Differs for each process: in-memory state (finished artifacts) is rebuilt at start. */
  boot: string;
  /** The library generation: moves with every change to what the listing shows. */
  generation: number;
  /** The expiry the stream URLs' tokens carry now (moves once an hour). */
  tokenExpiry: number;
}

/**
 * The port writers use to say what they changed. Database writes need no call: every statement
 * through Kysely is observed (db/listing-writes.ts). State kept in memory that the listing reads
 * (which playback artifacts are ready) says so here.
 */
export interface ListingChanges {
  changed(change: ListingChange): void;
}

/** Where database writes are seen: the observer installed by openDatabase. */
export interface ListingWriteSource {
  subscribe(listener: (change: ListingChange) => void): () => void;
  /** Moves when another process commits (then anything may have changed). */
  externalVersion(): number;
}

/**
 * The library generation: a number that moves whenever something GET /library shows changes, with
 * the log of what changed (movie and file ids) so a rebuild re-presents only those. Kept in memory:
 * writes of this process are observed as they run, writes of another process (the CLI) are noticed
 * through SQLite's data_version and count as "everything". With the process id (`boot`) in the ETag,
 * a tag never outlives the process that made it.
 */
export class LibraryGeneration implements ListingChanges {
  private readonly log = new ChangeLog();
  private readonly boot = randomBytes(4).toString('hex');
  private external: number;

  constructor(
    private readonly writes: ListingWriteSource | undefined,
    private readonly tokenExpiry: () => number,
  ) {
    writes?.subscribe((change) => this.log.record(change));
    this.external = writes?.externalVersion() ?? 0;
  }

  changed(change: ListingChange): void {
    this.log.record(change);
  }

  current(): ListingVersion {
    const external = this.writes?.externalVersion() ?? 0;
    if (external !== this.external) {
      this.external = external;
      this.log.record({ all: true });
    }
    return { boot: this.boot, generation: this.log.current(), tokenExpiry: this.tokenExpiry() };
  }

  /**
   * What changed after generation `base` up to `generation` for `user` (everyone's changes and that
   * person's own watch state; all, when that is no longer known).
   */
  since(base: number, generation: number, user?: number): ChangeSummary {
    return this.log.since(base, generation, user);
  }

  /** Whether anything `user` sees changed after generation `base` up to `generation`. */
  changedFor(base: number, generation: number, user: number): boolean {
    return this.log.changedFor(base, generation, user);
  }
}
