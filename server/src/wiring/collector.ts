// A piece of the composition root (services/index.ts, at its size bound): issue 27's collector
// services, so each slice (binders, wishes, stats, …) is wired here and index.ts names them once.
// Composition may `new` repositories; capabilities may not.
import type { Db } from '../db/database.ts';
import type { Providers } from '../providers/index.ts';
import { WishRepository } from '../repositories/wish.repository.ts';
import { tmdbPort } from '../services/metadata/provider-adapters.ts';
import { WishService } from '../services/collector/wish.service.ts';
import { type BinderService, buildBinders } from './binders.ts';
import { type StatsService, type StatsWiringDeps, buildStats } from './stats.ts';

export type { BinderService, StatsService, WishService };

/** The collector services every surface (API, pages) reads. */
export interface CollectorServices {
  binders: BinderService;
  /** The household's wish list (docs/collector.md "Wish list"). */
  wishes: WishService;
  /** /stats and "your year" (issue 27 item 6). */
  stats: StatsService;
}

/** What the collector services need from the rest of the composition root. */
export interface CollectorDeps extends StatsWiringDeps {
  providers: Pick<Providers, 'tmdb'>;
}

export function buildCollector(db: Db, deps: CollectorDeps): CollectorServices {
  return {
    binders: buildBinders(db, deps.clock),
    wishes: new WishService({
      wishes: new WishRepository(db),
      metadata: deps.providers.tmdb === null ? null : tmdbPort(deps.providers.tmdb),
      clock: deps.clock,
    }),
    stats: buildStats(db, deps),
  };
}
