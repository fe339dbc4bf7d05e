import { sql } from 'kysely';
import { changeFeedOf } from '../db/change-feed.ts';
import type { Db } from '../db/database.ts';

/**
 * Repositories that write together, in one transaction. A service that must commit several writes
 * at once is handed one of these instead of the database: it names the repositories it needs (`R`),
 * the composition root opens them on a Kysely transaction, and a unit test hands in fakes.
 */
export interface UnitOfWork<R> {
  /** Runs `work` with repositories bound to one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (repos: R) => Promise<T>): Promise<T>;
}

export interface UnitOfWorkOptions {
  /**
   * Transactions with the same name run one at a time, on every node: for work that reads, decides
   * and writes on what it read (an import matches movies by title and year, then creates the missing
   * ones). PostgreSQL: a transaction-level advisory lock (READ COMMITTED would let two imports both
   * see a movie missing); SQLite: nothing to do, its one connection runs one transaction at a time.
   */
  exclusive?: string;
  /**
   * For a transaction that fences a job's or run's write (`assertHeld` first): PostgreSQL ends its
   * session when it sits idle this long between statements (its process frozen: SIGSTOP, a paused
   * VM), so the row lock the fence took does not hold every take-over of the job until the thaw.
   * Only for transactions whose statements follow each other at once (never one that waits on a
   * client or a long computation in between). SQLite: nothing to do (one process).
   */
  frozenAfterMs?: number;
  /**
   * For a bulk write (an import): PostgreSQL leaves the search rows of the movies it marked to be
   * built after the commit (migration 0018: `reelshelf.search_rows = 'after-commit'`) instead of at
   * the commit, so the writer answers first; the caller builds them after (a search before that finds
   * the marks and builds them itself). SQLite: nothing to do (its first search builds them anyway).
   */
  searchRowsAfterCommit?: boolean;
}

/** A {@link UnitOfWork} on the database: `open` builds the repositories on the transaction. */
export function kyselyUnitOfWork<R>(
  db: Db,
  open: (trx: Db) => R,
  options: UnitOfWorkOptions = {},
): UnitOfWork<R> {
  const postgres = changeFeedOf(db)?.engine === 'postgres';
  const lock = options.exclusive !== undefined && postgres ? options.exclusive : null;
  const frozenAfterMs = postgres ? (options.frozenAfterMs ?? null) : null;
  const searchRowsAfterCommit = postgres && options.searchRowsAfterCommit === true;
  return {
    transaction: (work) =>
      db.transaction().execute(async (trx) => {
        if (frozenAfterMs !== null) {
          const ms = sql.raw(String(Math.max(1, Math.round(frozenAfterMs))));
          await sql`SET LOCAL idle_in_transaction_session_timeout = ${ms}`.execute(trx);
        }
        if (lock !== null) await sql`select pg_advisory_xact_lock(hashtextextended(${lock}, 0))`.execute(trx);
        if (searchRowsAfterCommit) {
          await sql`select set_config('reelshelf.search_rows', 'after-commit', true)`.execute(trx);
        }
        return work(open(trx));
      }),
  };
}
