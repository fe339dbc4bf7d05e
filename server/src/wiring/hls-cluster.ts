// A piece of the composition root (services/index.ts, at its size bound): what the HLS runs need of
// the cluster (docs/cluster.md "HLS across nodes"): their rows, this node as the job runner knows it
// (its id once it started, its role, its host), the live nodes its heartbeat read, the wake-ups.
import { localHostName, pidAlive } from '../adapters/local-processes.ts';
import type { ChangeFeed } from '../db/change-feed.ts';
import type { Db } from '../db/database.ts';
import type { NodeRole } from '../domain/jobs/cluster-jobs.ts';
import type { JobRunner } from '../jobs/job-runner.ts';
import { HlsRunRepository } from '../repositories/hls-run.repository.ts';
import type { ConversionSlots } from '../services/playback/conversion-slots.ts';
import type { HlsClusterDeps, HlsService } from '../services/playback/hls.service.ts';

export function hlsCluster(
  db: Db,
  jobs: Pick<JobRunner, 'nodeId' | 'knownLiveNodes'>,
  feed: ChangeFeed | undefined,
  role: NodeRole,
): HlsClusterDeps {
  const host = localHostName();
  return {
    repo: new HlsRunRepository(db),
    node: () => {
      const id = jobs.nodeId;
      return id === null ? null : { id, role, host };
    },
    peers: () => jobs.knownLiveNodes(),
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
