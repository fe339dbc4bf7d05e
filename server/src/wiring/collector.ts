// A piece of the composition root (services/index.ts, at its size bound): issue 27's collector
// services, so each slice (binders, loans, wishes, stats, …) is wired here and index.ts names them
// once. Composition may `new` repositories; capabilities may not.
import type { Clock } from '../adapters/clock.ts';
import type { Db } from '../db/database.ts';
import type { Providers } from '../providers/index.ts';
import { CollectorRepository } from '../repositories/collector.repository.ts';
import { LoanRepository } from '../repositories/loan.repository.ts';
import { kyselyUnitOfWork } from '../repositories/unit-of-work.ts';
import { WishRepository } from '../repositories/wish.repository.ts';
import { LoanService } from '../services/collector/loan.service.ts';
import { ShelfReportService } from '../services/collector/shelf-reports.service.ts';
import { UpgradeFileFacts } from '../services/collector/upgrade-file-facts.ts';
import { tmdbPort } from '../services/metadata/provider-adapters.ts';
import { WishService } from '../services/collector/wish.service.ts';
import { type BinderService, buildBinders } from './binders.ts';
import { type StatsService, type StatsWiringDeps, buildStats } from './stats.ts';

export type { BinderService, LoanService, ShelfReportService, StatsService, WishService };

/** The collector services every surface (API, pages) reads. */
export interface CollectorServices {
  binders: BinderService;
  /** Lends and returns of discs, the loans list (docs/collector.md "Loans"). */
  loans: LoanService;
  /** The household's wish list (docs/collector.md "Wish list"). */
  wishes: WishService;
  /** /stats and "your year" (issue 27 item 6). */
  stats: StatsService;
  /** GET /api/rip-queue and GET /api/upgrades: reads over the discs and the files. */
  shelfReports: ShelfReportService;
}

/** What the collector services need from the rest of the composition root. */
export interface CollectorDeps extends StatsWiringDeps {
  providers: Pick<Providers, 'tmdb'>;
}

export function buildCollector(db: Db, deps: CollectorDeps): CollectorServices {
  return {
    binders: buildBinders(db, deps.clock),
    loans: buildLoans(db, deps.clock),
    wishes: new WishService({
      wishes: new WishRepository(db),
      metadata: deps.providers.tmdb === null ? null : tmdbPort(deps.providers.tmdb),
      clock: deps.clock,
    }),
    stats: buildStats(db, deps),
    shelfReports: buildShelfReports(db),
  };
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

function buildShelfReports(db: Db): ShelfReportService {
  const reads = new CollectorRepository(db);
  return new ShelfReportService(reads, new UpgradeFileFacts(reads));
}
