import PQueue from 'p-queue';
import { type Clock, isoNow } from '../adapters/clock.ts';
import { pidAlive } from '../adapters/local-processes.ts';
import type { Db } from '../db/database.ts';
import type { ChangeFeed } from '../db/change-feed.ts';
import type { JobKindName, JobView } from '@reelshelf/contract';
import { AppError } from '../errors.ts';
import { type Fence, JobRepository, type JobRow, type JobStatus } from '../repositories/job.repository.ts';
import { NodeRepository, type NodeRow } from '../repositories/node.repository.ts';
import {
  DEFAULT_LEASE_TIMINGS,
  INTERRUPTED,
  JobLeaseLostError,
  type LeaseTimings,
  claimsJobs,
  kindsWithFreeSlots,
  releaseDecision,
} from '../domain/jobs/cluster-jobs.ts';
import { type Held, holdRow, runHeld } from './held-job.ts';
import { type JobContext, JobCancelledError, type JobKind, ShutdownSignal } from './job-kind.ts';
import { JobReads } from './job-reads.ts';
import { NodeHeartbeat, type NodeIdentity } from './node-heartbeat.ts';

export interface JobRunnerOptions {
  /** The engine: PostgreSQL's claim skips rows being claimed; SQLite answers active jobs from memory. */
  engine: 'sqlite' | 'postgres';
  /** Where other nodes' enqueues, cancels and ends are heard (a hint: the runner polls as well). */
  feed?: ChangeFeed;
  timings?: Partial<LeaseTimings>;
  /**
   * Claims a job gets before a take-over fails it "interrupted" instead of queueing it again
   * (docs/cluster.md: 1 on SQLite, whose one node restarting means the job was interrupted; 3 on
   * PostgreSQL, where another node goes on with it).
   */
  maxAttempts: number;
  /** Whether a process of this host is alive (the fast path after a crash on the same machine). */
  pidAlive: (pid: number) => boolean;
}

interface Registered {
  kind: JobKind<never>;
  /** False for kinds only ever run through track() (no node can run them from the queue). */
  claimable: boolean;
  running: number;
  /** track(): the runs of one name go one after another on this node. */
  local: PQueue;
}

/**
 * Jobs shared by the nodes of one database (docs/cluster.md): jobs are rows; a node with a free slot
 * for a kind claims the oldest queued job of it for a short lease, renews its leases with its
 * heartbeat (node-heartbeat.ts), and fences every write with the claim's epoch (held-job.ts); any node
 * takes over a job whose owner is gone (its `recover` cleans up, then the job is queued again or
 * failed). Dedupe keys are unique among active jobs cluster-wide; cancel, wait, describe and list
 * read the database (job-reads.ts).
 */
export class JobRunner {
  private readonly kinds = new Map<string, Registered>();
  private readonly held = new Map<number, Held>();
  private readonly timings: LeaseTimings;
  private readonly repo: JobRepository;
  private readonly reads: JobReads;
  private readonly heartbeat: NodeHeartbeat;
  private node: NodeIdentity | null = null;
  private started = false;
  private closed = false;
  private timers: NodeJS.Timeout[] = [];
  private unsubscribe: () => void = () => undefined;
  private waking: Promise<void> | null = null;
  private wakeAgain = false;
  private extraLoad: () => Record<string, unknown> = () => ({});

  constructor(
    db: Db,
    private readonly clock: Clock,
    private readonly options: JobRunnerOptions = {
      engine: 'sqlite',
      maxAttempts: 1,
      pidAlive: () => true,
    },
  ) {
    this.timings = { ...DEFAULT_LEASE_TIMINGS, ...options.timings };
    this.repo = new JobRepository(db, options.engine);
    this.reads = new JobReads(this.repo, options.engine, this.held);
    this.heartbeat = new NodeHeartbeat({
      repo: this.repo,
      nodes: new NodeRepository(db),
      clock,
      timings: this.timings,
      pidAlive: options.pidAlive,
      held: this.held,
      load: () => this.loadJson(),
      closed: () => this.closed,
      giveBack: (row, fence, ownerDied) => this.giveBack(row, fence, ownerDied),
    });
  }

  /**
   * The runner of a database: SQLite has one node, so a job its restart interrupted ends
   * "interrupted" (docs/api.md); on PostgreSQL another node goes on with it (docs/cluster.md).
   */
  static onDatabase(db: Db, clock: Clock, feed: ChangeFeed | undefined): JobRunner {
    const engine = feed?.engine ?? 'sqlite';
    return new JobRunner(db, clock, {
      engine,
      ...(feed === undefined ? {} : { feed }),
      maxAttempts: engine === 'postgres' ? 3 : 1,
      pidAlive,
    });
  }

  register<P>(name: string, kind: JobKind<P>): void {
    this.kinds.set(name, {
      kind: kind as JobKind<never>,
      claimable: true,
      running: 0,
      local: new PQueue({ concurrency: kind.concurrency }),
    });
  }

  /** Adds to the load this node publishes in its heartbeat (conversion slots in use and their limit). */
  reportLoad(load: () => Record<string, unknown>): void {
    this.extraLoad = load;
  }

  /** This node's id (null before start). */
  get nodeId(): string | null {
    return this.node?.id ?? null;
  }

  /**
   * Joins the cluster: registers the node, takes over what gone nodes left (at once for a process of
   * this host that no longer exists: a restart after a crash), then heartbeats, claims and sweeps.
   */
  async start(node: NodeIdentity): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.node = node;
    await this.heartbeat.join(node);
    const every = (ms: number, tick: () => void): void => {
      const timer = setInterval(tick, ms);
      timer.unref();
      this.timers.push(timer);
    };
    every(this.timings.heartbeatMs, () => this.heartbeat.tick());
    every(this.timings.pollMs, () => this.wake());
    this.unsubscribe = this.options.feed?.subscribeJobs(() => this.wake()) ?? (() => undefined);
    this.wake();
  }

  /** The live nodes, oldest first (health, the admin page). */
  async liveNodes(): Promise<NodeRow[]> {
    return this.heartbeat.liveNodes();
  }

  /**
   * The live nodes as the last heartbeat read them (at most a second old), without a query: what
   * /api/health shows, so it answers while an import's transaction holds SQLite's one connection.
   */
  knownLiveNodes(): NodeRow[] {
    return this.heartbeat.knownLiveNodes();
  }

  /** Whether no other live node shares this database (then this node may tidy what only rows name). */
  async alone(): Promise<boolean> {
    return (await this.liveNodes()).every((n) => n.id === this.node?.id);
  }

  /**
   * Starts a job, or joins the queued/running one with the same dedupe key (cluster-wide).
   * @returns the job id and whether it was newly created
   */
  async enqueue<P>(
    name: string,
    payload: P,
    dedupeKey: string | null = null,
  ): Promise<{ id: number; created: boolean }> {
    this.refuseWhenClosed();
    if (this.kinds.get(name)?.claimable !== true) throw new Error(`unknown job kind ${name}`);
    const createdAt = isoNow(this.clock);
    // The key is taken by an active job → join it; it may end between the insert and the read: retry.
    for (let attempt = 0; ; attempt += 1) {
      const id = await this.repo.insertQueued({
        kind: name,
        dedupe_key: dedupeKey,
        payload_json: JSON.stringify(payload),
        created_at: createdAt,
      });
      if (id !== null) {
        this.reads.enqueued(id, name, createdAt);
        this.wake();
        return { id, created: true };
      }
      const active = dedupeKey === null ? undefined : await this.repo.findActive(name, dedupeKey);
      if (active !== undefined) return { id: active.id, created: false };
      if (attempt >= 3) throw new Error(`job ${name} ${dedupeKey ?? ''}: the dedupe key kept changing hands`);
    }
  }

  /**
   * Runs work the caller awaits itself (an import answered in its own request) as a job of this node,
   * so that it is listed and reports progress like every other job (its row fenced and leased like a
   * claimed one; no other node can run it, so a take-over fails it). Jobs of one name run one after
   * another on this node; `run`'s value is returned to the caller and stored as the job's result, and
   * its error is rethrown after the job is marked failed.
   * @param onStart called with the job id once the row exists (before `run` starts)
   */
  async track<T>(
    name: string,
    summary: unknown,
    run: (ctx: JobContext<unknown>) => Promise<T>,
    onStart: (jobId: number) => void = () => undefined,
  ): Promise<T> {
    this.refuseWhenClosed();
    const node = this.requireNode();
    let entry = this.kinds.get(name);
    if (entry === undefined) {
      entry = {
        kind: { concurrency: 1, run: async () => undefined },
        claimable: false,
        running: 0,
        local: new PQueue({ concurrency: 1 }),
      };
      this.kinds.set(name, entry);
    }
    const row = await this.repo.insertRunning({
      kind: name,
      payload_json: JSON.stringify(summary),
      created_at: isoNow(this.clock),
      owner_node: node.id,
      lease_until: this.leaseUntil(),
    });
    let outcome: { ok: true; value: T } | { ok: false; error: unknown } | null = null;
    const held = this.hold(row);
    const local = entry.local;
    const done = local
      .add(() =>
        this.execute(row, held, async (ctx: JobContext<unknown>) => {
          try {
            const value = await run(ctx);
            outcome = { ok: true, value };
            return value;
          } catch (error) {
            outcome = { ok: false, error };
            throw error;
          }
        }),
      )
      .then(() => undefined);
    held.done = done;
    onStart(row.id);
    await done;
    const settled = outcome as { ok: true; value: T } | { ok: false; error: unknown } | null;
    if (settled === null) {
      throw new AppError('service_unavailable', { message: 'The server is shutting down.' });
    }
    if (!settled.ok) throw settled.error;
    return settled.value;
  }

  /** Asks a queued or running job to stop, whichever node runs it; true when it was active. */
  async cancel(id: number): Promise<boolean> {
    const mine = this.held.get(id);
    if (mine !== undefined) {
      mine.controller.abort(new JobCancelledError('cancelled'));
      return true;
    }
    if (await this.repo.cancelQueued(id, isoNow(this.clock))) {
      this.reads.sawEnded([id]);
      return true;
    }
    return this.repo.requestCancel(id);
  }

  /** Whether the job is held by this node, or was enqueued here and has not been seen ending. */
  isActive(id: number): boolean {
    return this.reads.isActive(id);
  }

  /** Resolves when the job has ended, whichever node ran it (at once when it is not active). */
  async wait(id: number): Promise<JobRow | undefined> {
    return this.reads.wait(id, this.closed);
  }

  async get(id: number): Promise<JobRow | undefined> {
    return this.repo.getById(id);
  }

  /** One job as GET /api/jobs/{id} shows it; 404 `not_found` when there is none. */
  async describe(id: number): Promise<JobView> {
    return this.reads.describe(id);
  }

  /** The newest jobs first (GET /api/jobs), optionally of one kind and/or in one status. */
  async list(filter: { kind?: JobKindName; status?: JobStatus; limit?: number } = {}): Promise<JobView[]> {
    return this.reads.list(filter);
  }

  /**
   * Leaves the cluster: stops claiming, gives back every job held (queued again for another node,
   * or failed "interrupted" when no attempt is left), waits for the handlers, removes the node row.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    this.unsubscribe();
    // No claim or take-over is under way once these settle: what is held now is all there is.
    await this.waking;
    await this.heartbeat.settled();
    for (const h of this.held.values()) h.controller.abort(new ShutdownSignal('server shutting down'));
    await Promise.allSettled([...this.held.values()].map((h) => h.done));
    this.reads.releaseWaiters();
    await this.heartbeat.leave();
  }

  // ── Claiming and running ──────────────────────────────────────────────────────────────────────

  /** Looks now: claims what fits, resolves waiters of ended jobs, sees cancels (coalesced). */
  private wake(): void {
    if (!this.started || this.closed) return;
    if (this.waking !== null) {
      this.wakeAgain = true;
      return;
    }
    this.waking = (async () => {
      do {
        this.wakeAgain = false;
        await this.claimWhatFits();
        await this.reads.checkWaiters();
      } while (this.wakeAgain && !this.closed);
    })()
      .catch(() => undefined)
      .finally(() => {
        this.waking = null;
      });
  }

  private async claimWhatFits(): Promise<void> {
    const node = this.node;
    if (node === null || !claimsJobs(node.role)) return;
    for (;;) {
      if (this.closed) return;
      const slots = new Map(
        [...this.kinds].map(([name, k]) => [
          name,
          { concurrency: k.kind.concurrency, running: k.running, claimable: k.claimable },
        ]),
      );
      const kinds = kindsWithFreeSlots(node.role, slots);
      if (kinds.length === 0) return;
      const row = await this.repo.claimNext(kinds, node.id, this.leaseUntil(), isoNow(this.clock));
      if (row === undefined) return;
      const entry = this.kinds.get(row.kind);
      if (entry === undefined) return;
      this.reads.claimed(row.id);
      // This node ran the job before, lost its lease and claims it again: the old run stops.
      this.held.get(row.id)?.controller.abort(new JobLeaseLostError('lease lost'));
      const held = this.hold(row);
      const kind = entry.kind as JobKind<unknown>;
      held.done = this.execute(row, held, (ctx) => kind.run(ctx));
    }
  }

  private hold(row: JobRow): Held {
    const held = holdRow(row);
    this.held.set(row.id, held);
    return held;
  }

  private async execute(
    row: JobRow,
    held: Held,
    run: (ctx: JobContext<unknown>) => Promise<unknown>,
  ): Promise<void> {
    const entry = this.kinds.get(row.kind);
    if (entry !== undefined) entry.running += 1;
    try {
      await runHeld(
        {
          repo: this.repo,
          clock: this.clock,
          giveBack: (r, fence) => this.giveBack(r, fence, false),
        },
        row,
        held,
        run,
      );
    } catch (err) {
      // The database failed under the runner itself (not the handler): the end is written if it can
      // be; if not, the lease runs out and a node takes the job over. Never an unhandled rejection.
      const message = err instanceof Error ? err.message : String(err);
      await this.repo.finish(held.fence, 'failed', undefined, message, isoNow(this.clock)).catch(() => false);
    } finally {
      if (entry !== undefined) entry.running -= 1;
      if (this.held.get(row.id) === held) this.held.delete(row.id);
      this.reads.sawEnded([row.id]);
      this.wake();
    }
  }

  /**
   * A job this node holds and will not finish (its owner is gone, or this node stops): queued again
   * while attempts are left and a node can run it, else failed "interrupted". `recover` first cleans
   * what a dead run left — not at a clean shutdown that fails the job, whose handler already did.
   */
  private async giveBack(row: JobRow, fence: Fence, ownerDied: boolean): Promise<void> {
    const entry = this.kinds.get(row.kind);
    const decision = releaseDecision(row, entry?.claimable === true, this.options.maxAttempts);
    if (ownerDied || decision.action === 'requeue') {
      await entry?.kind.recover?.({ ...row, epoch: fence.epoch }).catch(() => undefined);
    }
    if (decision.action === 'requeue') await this.repo.requeue(fence);
    else await this.repo.finish(fence, 'failed', undefined, decision.reason, isoNow(this.clock));
  }

  // ── Small parts ───────────────────────────────────────────────────────────────────────────────

  private leaseUntil(): number {
    return this.clock.now().getTime() + this.timings.leaseMs;
  }

  private refuseWhenClosed(): void {
    if (this.closed) throw new AppError('service_unavailable', { message: 'The server is shutting down.' });
  }

  private requireNode(): NodeIdentity {
    if (this.node === null) throw new Error('the job runner has not started (JobRunner.start)');
    return this.node;
  }

  private loadJson(): string {
    const jobs: Record<string, number> = {};
    for (const [name, k] of this.kinds) if (k.running > 0) jobs[name] = k.running;
    return JSON.stringify({ jobs, ...this.extraLoad() });
  }
}

export { INTERRUPTED, JobCancelledError, JobLeaseLostError };
export type { JobContext, JobKind, NodeIdentity };
