// A piece of the composition root (services/index.ts, at its size bound): the binders service on its
// repositories. Composition may `new` repositories; capabilities may not (dependency-cruiser).
import type { Clock } from '../adapters/clock.ts';
import { changeFeedOf } from '../db/change-feed.ts';
import type { Db } from '../db/database.ts';
import { BinderRepository } from '../repositories/binder.repository.ts';
import { kyselyUnitOfWork } from '../repositories/unit-of-work.ts';
import { BinderService } from '../services/collector/binder.service.ts';

export type { BinderService };

/**
 * Reads outside a transaction; moves, swaps and renames each in one, one at a time cluster-wide
 * (a move reads "is the slot free?" then writes: two moves to one free slot must not both see it free).
 */
export function buildBinders(db: Db, clock: Clock): BinderService {
  const postgres = changeFeedOf(db)?.engine === 'postgres';
  return new BinderService({
    reads: new BinderRepository(db, postgres),
    store: kyselyUnitOfWork(db, (trx) => ({ binders: new BinderRepository(trx, postgres) }), {
      exclusive: 'binder-slots',
    }),
    clock,
  });
}
