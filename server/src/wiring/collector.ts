// A piece of the composition root (services/index.ts, at its size bound): the collector's services
// (issue 27) on their repositories. Composition may `new` repositories; capabilities may not.
import type { Clock } from '../adapters/clock.ts';
import type { Db } from '../db/database.ts';
import { LoanRepository } from '../repositories/loan.repository.ts';
import { kyselyUnitOfWork } from '../repositories/unit-of-work.ts';
import { LoanService } from '../services/collector/loan.service.ts';
import { type BinderService, buildBinders } from './binders.ts';

export type { BinderService, LoanService };

/** The collector's part of `Services`. */
export interface CollectorServices {
  binders: BinderService;
  /** Lends and returns of discs, the loans list (docs/collector.md "Loans"). */
  loans: LoanService;
}

export function buildCollector(db: Db, clock: Clock): CollectorServices {
  return { binders: buildBinders(db, clock), loans: buildLoans(db, clock) };
}

/**
 * Reads outside a transaction; a lend or return in one, one at a time cluster-wide (a lend reads
 * "is it out?" to name the borrower in its 409; the partial unique index is the last word).
 */
function buildLoans(db: Db, clock: Clock): LoanService {
  return new LoanService({
    reads: new LoanRepository(db),
    store: kyselyUnitOfWork(db, (trx) => ({ loans: new LoanRepository(trx) }), { exclusive: 'loans' }),
    clock,
  });
}
