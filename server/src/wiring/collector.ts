// A piece of the composition root (services/index.ts, at its size bound): the collector's services
// (issue 27) on their repositories. Composition may `new` repositories; capabilities may not.
import type { Clock } from '../adapters/clock.ts';
import type { Db } from '../db/database.ts';
import type { Providers } from '../providers/index.ts';
import { WishRepository } from '../repositories/wish.repository.ts';
import { tmdbPort } from '../services/metadata/provider-adapters.ts';
import { WishService } from '../services/collector/wish.service.ts';
import { type BinderService, buildBinders } from './binders.ts';

export type { BinderService, WishService };

/** The collector's services, spread into the composition root's Services. */
export interface CollectorServices {
  binders: BinderService;
  /** The household's wish list (docs/collector.md "Wish list"). */
  wishes: WishService;
}

export function buildCollector(db: Db, clock: Clock, providers: Pick<Providers, 'tmdb'>): CollectorServices {
  return {
    binders: buildBinders(db, clock),
    wishes: new WishService({
      wishes: new WishRepository(db),
      metadata: providers.tmdb === null ? null : tmdbPort(providers.tmdb),
      clock,
    }),
  };
}
