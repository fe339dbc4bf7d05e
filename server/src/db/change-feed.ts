import type { StateMessage } from '../domain/cluster/state-message.ts';
import type { ListingChange } from '../domain/library-listing/changes.ts';

export type { StateMessage };

/**
 * Where the writes to the database are seen, whichever process or node makes them: what each write
 * changed in the listing (movies, files, or everything) and whether it may change who a request is
 * (users, sessions, keys). The caches that answer requests from memory (the listing, the kept media
 * files, the people cache) follow it.
 *
 * - SQLite: the statement observers on the one Kysely instance see this process's writes as they
 *   run; another process's commits (the CLI) move `externalVersion` (`PRAGMA data_version`).
 * - PostgreSQL: triggers announce every committed write with NOTIFY, to every node alike (this
 *   one's too), and `catchUp` makes sure every write committed before it was heard.
 */
export interface ChangeFeed {
  readonly engine: 'sqlite' | 'postgres';
  /** Calls `listener` with the change of every write; returns the unsubscribe. */
  subscribe(listener: (change: ListingChange) => void): () => void;
  /** Calls `listener` after every write that may change who a request is. */
  subscribePeople(listener: () => void): void;
  /**
   * Calls `listener` when a job may have been queued, cancelled or ended by any node (PostgreSQL:
   * the jobs trigger's NOTIFY; SQLite: never — the runner wakes itself and polls); returns the
   * unsubscribe. A hint to look now, never the only way a job is found (runners also poll).
   */
  subscribeJobs(listener: () => void): () => void;
  /**
   * Calls `listener` with every node-state message (PostgreSQL: the NOTIFYs of migration 0016's
   * triggers, this node's own writes included; SQLite: never — one node, whose services keep their
   * copies as they write); returns the unsubscribe.
   */
  subscribeState(listener: (message: StateMessage) => void): () => void;
  /**
   * Calls `listener` with a presentation key when any node announced one of its HLS segments, asked
   * for a seek or a run, or claimed or gave back its run (PostgreSQL: the hls triggers' NOTIFY of
   * migration 0011; SQLite: never — one node hears its own runs in memory); returns the unsubscribe.
   * A hint to look now (the HLS nodes poll as well); '' means any presentation (the listener reconnected).
   */
  subscribeHls(listener: (presentationKey: string) => void): () => void;
  /**
   * A number that moves when writes may have been missed (another SQLite process committed; the
   * PostgreSQL listener lost its connection): anything may have changed.
   */
  externalVersion(): number;
  /**
   * Resolves once every write committed before the call has reached the listeners: what a request
   * awaits before it reads a cache (at once on SQLite, whose own writes are seen as they run).
   */
  catchUp(): Promise<void>;
}

const feeds = new WeakMap<object, ChangeFeed>();

/** Records the feed of a Kysely instance (openDatabase does, when it opens one). */
export function registerChangeFeed(db: object, feed: ChangeFeed): void {
  feeds.set(db, feed);
}

/** The feed of this database, if it was opened by openDatabase. */
export function changeFeedOf(db: object): ChangeFeed | undefined {
  return feeds.get(db);
}
