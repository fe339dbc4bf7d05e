// The rules of jobs shared by several nodes (docs/cluster.md): who may claim what, when a job's
// owner counts as gone, what becomes of a job taken from a gone owner, and which writes are fenced.
// Pure: times are epoch ms, liveness of a local pid is asked by the caller.

/** A write of a job was refused: another node holds it under a newer epoch (or it ended). */
export class JobLeaseLostError extends Error {
  override name = 'JobLeaseLostError';
}

export type NodeRole = 'all' | 'api' | 'worker';

export const NODE_ROLES: readonly NodeRole[] = ['all', 'api', 'worker'];

/** Lease timings of a runner: a dead node's jobs are taken over within `leaseMs` + one sweep. */
export interface LeaseTimings {
  /** How long a claim holds without a heartbeat. */
  leaseMs: number;
  /** How often the owner renews its leases and its node row (also how often it sweeps). */
  heartbeatMs: number;
  /** How often queued jobs and waited-for jobs are looked at (NOTIFY wakes sooner on PostgreSQL). */
  pollMs: number;
  /** A node whose heartbeat is older than this is dead (listed no more, its row removed). */
  nodeDeadMs: number;
}

export const DEFAULT_LEASE_TIMINGS: LeaseTimings = {
  leaseMs: 5_000,
  heartbeatMs: 1_000,
  pollMs: 500,
  nodeDeadMs: 5_000,
};

/** Whether a node of this role claims queued jobs (`api` nodes only enqueue). */
export function claimsJobs(role: NodeRole): boolean {
  return role !== 'api';
}

/** The kinds this node has a free slot for, in name order: what its claim may take (oldest first). */
export function kindsWithFreeSlots(
  role: NodeRole,
  kinds: ReadonlyMap<string, { concurrency: number; running: number; claimable: boolean }>,
): string[] {
  if (!claimsJobs(role)) return [];
  return [...kinds.entries()]
    .filter(([, k]) => k.claimable && k.running < k.concurrency)
    .map(([name]) => name)
    .sort();
}

/** A running job's row as far as taking it over goes. */
export interface LeasedJob {
  owner_node: string | null;
  lease_until: number | null;
}

/** The owner's node row, when it still has one. */
export interface OwnerNode {
  host: string;
  pid: number;
}

/**
 * Why a running job may be taken from its owner now, or null while the owner holds it:
 * - `no_owner`: a row no node holds (left by a version without leases);
 * - `process_gone`: its owner ran on this host and that process no longer exists (a crash and a
 *   restart need not wait for the lease);
 * - `lease_expired`: its owner has not renewed the lease in time (dead, cut off or frozen).
 * A job this node runs itself is never taken (its heartbeat may be late behind a long transaction).
 */
export function takeOverReason(
  job: LeasedJob,
  now: number,
  self: { nodeId: string; host: string; runsIt: boolean },
  owner: OwnerNode | undefined,
  pidAlive: (pid: number) => boolean,
): 'no_owner' | 'process_gone' | 'lease_expired' | null {
  if (job.owner_node === null) return 'no_owner';
  if (job.owner_node === self.nodeId && self.runsIt) return null;
  if (job.lease_until === null || job.lease_until < now) return 'lease_expired';
  if (owner !== undefined && owner.host === self.host && !pidAlive(owner.pid)) return 'process_gone';
  return null;
}

/** What becomes of a job taken from a gone owner (or given up at a clean shutdown). */
export type Release = { action: 'requeue' } | { action: 'fail'; reason: string };

export const INTERRUPTED = 'interrupted: the server stopped while this job ran';

/**
 * A job goes back to the queue while it has attempts left and some node can run it again (a kind
 * with a handler: an import runs inside the request that brought it and cannot be run elsewhere);
 * else it ends failed "interrupted". A row that was running counts as one attempt even when it was
 * written by a version that did not count them.
 */
export function releaseDecision(
  job: { attempts: number },
  rerunnable: boolean,
  maxAttempts: number,
): Release {
  if (rerunnable && Math.max(job.attempts, 1) < maxAttempts) return { action: 'requeue' };
  return { action: 'fail', reason: INTERRUPTED };
}

/**
 * Whether a write a job makes may land: only the holder of the current epoch writes. The database
 * checks the same thing in the statement (`WHERE id = ? AND epoch = ?`); this is its table-tested
 * statement of the rule.
 */
export function writeAllowed(row: { epoch: number; status: string }, writerEpoch: number): boolean {
  return row.epoch === writerEpoch && (row.status === 'running' || row.status === 'queued');
}

/** A node counts as alive while its heartbeat is fresh. */
export function nodeAlive(
  heartbeatAt: number,
  now: number,
  timings: Pick<LeaseTimings, 'nodeDeadMs'>,
): boolean {
  return now - heartbeatAt <= timings.nodeDeadMs;
}
