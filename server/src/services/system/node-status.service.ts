import type { NodeView } from '@reelshelf/contract';
import type { Clock } from '../../adapters/clock.ts';
import type { JobRunner } from '../../jobs/job-runner.ts';
import type { NodeRow } from '../../repositories/node.repository.ts';

type NodeLoad = NodeView['load'];

/** A load as a node published it; anything missing or odd reads as nothing running. */
function parseLoad(json: string): NodeLoad {
  const load: NodeLoad = { jobs: {}, conversions: { in_use: 0, limit: 0 } };
  try {
    const raw = JSON.parse(json) as { jobs?: unknown; conversions?: { in_use?: unknown; limit?: unknown } };
    if (typeof raw.jobs === 'object' && raw.jobs !== null) {
      for (const [kind, n] of Object.entries(raw.jobs)) if (typeof n === 'number') load.jobs[kind] = n;
    }
    if (typeof raw.conversions?.in_use === 'number') load.conversions.in_use = raw.conversions.in_use;
    if (typeof raw.conversions?.limit === 'number') load.conversions.limit = raw.conversions.limit;
  } catch {
    // a row written by something else: nothing known
  }
  return load;
}

/** The nodes sharing this library's database, for /api/health and the people page (docs/cluster.md). */
export class NodeStatusService {
  constructor(
    private readonly runner: Pick<JobRunner, 'knownLiveNodes' | 'nodeId'>,
    private readonly clock: Clock,
  ) {}

  /** The live nodes as of the last heartbeat, oldest first; `host` and `pid` only for an admin. */
  async nodes(forAdmin: boolean): Promise<NodeView[]> {
    const now = this.clock.now().getTime();
    const self = this.runner.nodeId;
    return this.runner.knownLiveNodes().map((row: NodeRow) => ({
      id: row.id,
      role: row.role === 'api' || row.role === 'worker' ? row.role : 'all',
      host: forAdmin ? row.host : null,
      pid: forAdmin ? row.pid : null,
      version: row.version,
      started_at: row.started_at,
      heartbeat_at: new Date(row.heartbeat_at).toISOString(),
      heartbeat_age_ms: Math.max(0, now - row.heartbeat_at),
      load: parseLoad(row.load_json),
      self: row.id === self,
    }));
  }
}
