// A piece of the composition root (services/index.ts, at its size bound): the collector's services
// (issue 27). Services extends CollectorServices, so a new collector service is added here only.
import type { Clock } from '../adapters/clock.ts';
import type { Db } from '../db/database.ts';
import { CollectorRepository } from '../repositories/collector.repository.ts';
import { ShelfReportService } from '../services/collector/shelf-reports.service.ts';
import { UpgradeFileFacts } from '../services/collector/upgrade-file-facts.ts';
import { type BinderService, buildBinders } from './binders.ts';

export interface CollectorServices {
  binders: BinderService;
  /** GET /api/rip-queue and GET /api/upgrades: reads over the discs and the files. */
  shelfReports: ShelfReportService;
}

export function buildCollector(db: Db, clock: Clock): CollectorServices {
  const reads = new CollectorRepository(db);
  return {
    binders: buildBinders(db, clock),
    shelfReports: new ShelfReportService(reads, new UpgradeFileFacts(reads)),
  };
}
