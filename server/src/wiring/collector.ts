// A piece of the composition root (services/index.ts, at its size bound): issue 27's collector
// services, so each slice (binders, stats, …) is wired here and index.ts names them once.
import type { Db } from '../db/database.ts';
import { type BinderService, buildBinders } from './binders.ts';
import { type StatsService, type StatsWiringDeps, buildStats } from './stats.ts';

export type { BinderService, StatsService };

/** The collector services every surface (API, pages) reads. */
export interface CollectorServices {
  binders: BinderService;
  /** /stats and "your year" (issue 27 item 6). */
  stats: StatsService;
}

/** What the collector services need from the rest of the composition root. */
export type CollectorDeps = StatsWiringDeps;

export function buildCollector(db: Db, deps: CollectorDeps): CollectorServices {
  return { binders: buildBinders(db, deps.clock), stats: buildStats(db, deps) };
}
