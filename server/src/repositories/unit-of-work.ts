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

/** A {@link UnitOfWork} on the database: `open` builds the repositories on the transaction. */
export function kyselyUnitOfWork<R>(db: Db, open: (trx: Db) => R): UnitOfWork<R> {
  return { transaction: (work) => db.transaction().execute((trx) => work(open(trx))) };
}
