// A piece of the composition root (services/index.ts, at its size bound): what the HLS runs need of
// the cluster (docs/cluster.md "HLS across nodes"): their rows, this node as the job runner knows it
// (its id once it started, its role, its host), the live nodes its heartbeat read, the wake-ups.
import { localHostName, pidAlive } from '../adapters/local-processes.ts';
import type { ChangeFeed } from '../db/change-feed.ts';
import type { Db } from '../db/database.ts';
import type { NodeRole } from '../domain/jobs/cluster-jobs.ts';
import type { JobRunner } from '../jobs/job-runner.ts';
import { HlsRunRepository } from '../repositories/hls-run.repository.ts';
import type { NodeRow } from '../repositories/node.repository.ts';
import type { ConversionSlots } from '../services/playback/conversion-slots.ts';
import type { HlsClusterDeps, HlsService } from '../services/playback/hls.service.ts';

/** How long a read of the nodes made for a player stands in for the heartbeat's (one heartbeat). */
const FRESH_PEERS_MS = 1_000;

export function hlsCluster(
  db: Db,
  jobs: Pick<JobRunner, 'nodeId' | 'knownLiveNodes' | 'liveNodes'>,
  feed: ChangeFeed | undefined,
  role: NodeRole,
): HlsClusterDeps {
  const host = localHostName();
  let fresh: { at: number; nodes: NodeRow[] } | null = null;
  return {
    repo: new HlsRunRepository(db),
    node: () => {
      const id = jobs.nodeId;
      return id === null ? null : { id, role, host };
    },
    // The last heartbeat's read (at most a second old), or a read made since for a player who would
    // otherwise be told that no node converts (refreshPeers), while it is the fresher of the two.
    peers: () =>
      fresh !== null && Date.now() - fresh.at < FRESH_PEERS_MS ? fresh.nodes : jobs.knownLiveNodes(),
    refreshPeers: async () => {
      fresh = { at: Date.now(), nodes: await jobs.liveNodes() };
    },
    ...(feed === undefined ? {} : { feed }),
    pidAlive,
  };
}

/**
 * What this node's heartbeat publishes besides its running jobs: its conversion slots (the nodes' load
 * in /api/health) and its HLS runs with their speed (an api node tells its players how they go).
 */
export function reportNodeLoad(
  jobs: Pick<JobRunner, 'reportLoad'>,
  slots: Pick<ConversionSlots, 'inUse' | 'max'>,
  hls: Pick<HlsService, 'publishedRuns'>,
): void {
  jobs.reportLoad(() => ({
    conversions: { in_use: slots.inUse, limit: slots.max },
    hls_runs: hls.publishedRuns(),
  }));
}
