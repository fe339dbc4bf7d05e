import type { NodeRole } from '../jobs/cluster-jobs.ts';

/**
 * Who watches the library roots (and rescans them periodically): one node at a time, so several
 * nodes do not each arm watchers and start scans (docs/cluster.md "Shared node state").
 * - `never`: an `api` node (it serves; it starts no work of its own);
 * - `always`: SQLite, one node (the CLI never watches);
 * - `leader`: PostgreSQL: the node holding the `root-watch` lease, renewed while it lives.
 */
export type RootWatchMode = 'never' | 'always' | 'leader';

export function rootWatchMode(role: NodeRole, engine: 'sqlite' | 'postgres'): RootWatchMode {
  if (role === 'api') return 'never';
  return engine === 'sqlite' ? 'always' : 'leader';
}

/** How long a lease lasts and how often its holder renews it (a dead holder is replaced within this). */
export const WATCH_LEASE = { leaseMs: 5_000, renewMs: 1_000 } as const;
