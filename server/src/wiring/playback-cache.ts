// A piece of the composition root (services/index.ts, at its size bound): the playback cache's one
// bound over both areas and, on PostgreSQL (several nodes on one data dir), its one clean at a time
// cluster-wide (docs/cluster.md "The playback cache across nodes").
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Clock } from '../adapters/clock.ts';
import type { DataStore } from '../adapters/data-store.ts';
import type { Db } from '../db/database.ts';
import { sqlEngineOf } from '../db/sql-engine.ts';
import { NodeLeaseRepository } from '../repositories/node-lease.repository.ts';
import { type CleanLease, PlaybackCache } from '../services/playback/playback-cache.ts';

/** The `node_leases` row of the clean. */
export const CLEAN_LEASE = 'playback-cache-clean';
/**
 * How long a clean holds the lease without renewing it (it renews before each removal): far above
 * one removal, even of a large file on a network share; a node that died mid-clean frees it so.
 */
const CLEAN_LEASE_MS = 30_000;
/** A node that finds the lease held tries again this often, up to the lease and a bit more. */
const CLEAN_RETRY_MS = 250;

/** The clean's lease in `node_leases`, held by this process (one id per process, not per node row). */
export function cleanLease(
  db: Db,
  clock: Clock,
  holder = `${hostname()}:${process.pid}:${randomUUID()}`,
): CleanLease {
  const leases = new NodeLeaseRepository(db);
  const now = () => clock.now().getTime();
  return {
    take: () => leases.take(CLEAN_LEASE, holder, now(), now() + CLEAN_LEASE_MS),
    release: () => leases.release(CLEAN_LEASE, holder),
    retryMs: CLEAN_RETRY_MS,
    waitMs: CLEAN_LEASE_MS + 5_000,
  };
}

/** REELSHELF_ARTIFACT_CACHE_MB over the `artifacts` and `segments` areas together. */
export function buildPlaybackCache(db: Db, clock: Clock, store: DataStore, boundMb: number): PlaybackCache {
  return new PlaybackCache({
    usage: async () => (await store.usage('artifacts')).bytes + (await store.usage('segments')).bytes,
    boundBytes: boundMb * 1024 * 1024,
    // SQLite is one node: its cleans are one at a time already.
    ...(sqlEngineOf(db) === 'postgres' ? { lease: cleanLease(db, clock) } : {}),
  });
}
