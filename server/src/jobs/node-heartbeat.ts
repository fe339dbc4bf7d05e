// This process as a node of the cluster (docs/cluster.md "Nodes"): its row and heartbeat, the
// renewal of its leases, and the sweep that takes over the running jobs whose owner is gone.
import { type Clock, isoNow } from '../adapters/clock.ts';
import type { Fence, JobRepository, JobRow } from '../repositories/job.repository.ts';
import type { NodeRepository, NodeRow } from '../repositories/node.repository.ts';
import {
  JobLeaseLostError,
  type LeaseTimings,
  type NodeRole,
  nodeAlive,
  takeOverReason,
} from '../domain/jobs/cluster-jobs.ts';
import type { Held } from './held-job.ts';
import { JobCancelledError } from './job-kind.ts';

/** This process as a node of the cluster (docs/cluster.md "Nodes"). */
export interface NodeIdentity {
  id: string;
  role: NodeRole;
  host: string;
  pid: number;
  version: string;
}

export interface NodeHeartbeatDeps {
  repo: JobRepository;
  nodes: NodeRepository;
  clock: Clock;
  timings: LeaseTimings;
  /** Whether a process of this host is alive (the fast path after a crash on the same machine). */
  pidAlive: (pid: number) => boolean;
  /** The jobs this node holds (the runner's own map). */
  held: ReadonlyMap<number, Held>;
  /** The load this node publishes (JSON). */
  load: () => string;
  /** Whether the runner has closed (no sweep then). */
  closed: () => boolean;
  /** A job taken from a gone owner: recovered, then queued again or failed (JobRunner.giveBack). */
  giveBack(row: JobRow, fence: Fence, ownerDied: boolean): Promise<void>;
}

/** The node's row, heartbeat, lease renewal and take-over sweep. */
export class NodeHeartbeat {
  private node: NodeIdentity | null = null;
  /** Every node row the last heartbeat read (knownLiveNodes). */
  private lastNodes: NodeRow[] = [];
  private beating: Promise<void> | null = null;

  constructor(private readonly deps: NodeHeartbeatDeps) {}

  /** Registers the node and takes over what gone nodes left (at once for a dead process of this host). */
  async join(node: NodeIdentity): Promise<void> {
    this.node = node;
    await this.deps.nodes.register(this.nodeRow(node));
    await this.sweep();
  }

  /** One heartbeat (skipped while the last one runs): renew the leases, beat, sweep. */
  tick(): void {
    if (this.beating !== null || this.deps.closed()) return;
    this.beating = (async () => {
      await this.renew();
      await this.beat();
      await this.sweep();
    })()
      .catch(() => undefined)
      .finally(() => {
        this.beating = null;
      });
  }

  /** Resolves once the heartbeat under way (if any) has settled. */
  async settled(): Promise<void> {
    await this.beating;
  }

  /** Removes the node's row (a clean shutdown). */
  async leave(): Promise<void> {
    if (this.node !== null) await this.deps.nodes.remove(this.node.id).catch(() => undefined);
  }

  /** The live nodes, oldest first (health, the admin page). */
  async liveNodes(): Promise<NodeRow[]> {
    const now = this.now();
    return (await this.deps.nodes.list()).filter((n) => nodeAlive(n.heartbeat_at, now, this.deps.timings));
  }

  /**
   * The live nodes as the last heartbeat read them (at most a second old), without a query: what
   * /api/health shows, so it answers while an import's transaction holds SQLite's one connection.
   */
  knownLiveNodes(): NodeRow[] {
    const now = this.now();
    return this.lastNodes.filter((n) => nodeAlive(n.heartbeat_at, now, this.deps.timings));
  }

  /** Renews this node's leases; a job taken over meanwhile stops, a cancel asked elsewhere lands. */
  private async renew(): Promise<void> {
    const node = this.node;
    if (node === null) return;
    const renewed = await this.deps.repo.renewLeases(node.id, this.leaseUntil());
    const still = new Map(renewed.map((r) => [r.id, r]));
    for (const [id, h] of this.deps.held) {
      const row = still.get(id);
      if (row === undefined || row.epoch !== h.fence.epoch) {
        h.controller.abort(new JobLeaseLostError('lease lost'));
      } else if (row.cancel_requested === 1 && !h.controller.signal.aborted) {
        h.controller.abort(new JobCancelledError('cancelled'));
      }
    }
  }

  private async beat(): Promise<void> {
    const node = this.node;
    if (node === null) return;
    const { nodes, timings } = this.deps;
    // Counted dead while it could not write (a long stall): it says it is back.
    if (!(await nodes.beat(node.id, this.now(), this.deps.load()))) await nodes.register(this.nodeRow(node));
    await nodes.removeSilentSince(this.now() - 3 * timings.nodeDeadMs);
  }

  /** Takes over the running jobs whose owner is gone (any node does this; one wins each job). */
  private async sweep(): Promise<void> {
    const node = this.node;
    if (node === null || this.deps.closed()) return;
    const { repo } = this.deps;
    const [running, nodes] = await Promise.all([repo.listRunning(), this.deps.nodes.list()]);
    this.lastNodes = nodes;
    const byId = new Map(nodes.map((n) => [n.id, n]));
    const now = this.now();
    for (const row of running) {
      const reason = takeOverReason(
        row,
        now,
        { nodeId: node.id, host: node.host, runsIt: this.deps.held.has(row.id) },
        row.owner_node === null ? undefined : byId.get(row.owner_node),
        this.deps.pidAlive,
      );
      if (reason === null) continue;
      const taken = await repo.takeOver(row, node.id, this.leaseUntil());
      if (taken === undefined) continue; // another node was first
      await this.deps.giveBack(taken, taken, true);
    }
  }

  private now(): number {
    return this.deps.clock.now().getTime();
  }

  private leaseUntil(): number {
    return this.now() + this.deps.timings.leaseMs;
  }

  private nodeRow(node: NodeIdentity): NodeRow {
    return {
      id: node.id,
      role: node.role,
      host: node.host,
      pid: node.pid,
      version: node.version,
      started_at: isoNow(this.deps.clock),
      heartbeat_at: this.now(),
      load_json: this.deps.load(),
    };
  }
}
