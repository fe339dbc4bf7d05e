import PQueue from 'p-queue';
import { type Clock, isoNow } from '../adapters/clock.ts';
import { pidAlive } from '../adapters/local-processes.ts';
import type { Db } from '../db/database.ts';
import type { ChangeFeed } from '../db/change-feed.ts';
import type { JobKindName, JobProgress, JobView } from '@reelshelf/contract';
import { AppError, notFound } from '../errors.ts';
import { type Fence, JobRepository, type JobRow, type JobStatus } from '../repositories/job.repository.ts';
import { NodeRepository, type NodeRow } from '../repositories/node.repository.ts';
import { jobProgress, jobView } from '../domain/job-progress.ts';
import {
  DEFAULT_LEASE_TIMINGS,
  INTERRUPTED,
  JobLeaseLostError,
  type LeaseTimings,
  type NodeRole,
  claimsJobs,
  kindsWithFreeSlots,
  nodeAlive,
  releaseDecision,
  takeOverReason,
} from '../domain/jobs/cluster-jobs.ts';

/** What a job handler gets: its payload, a cancellation signal and a progress reporter. */
export interface JobContext<P> {
  jobId: number;
  /**
   * The fencing number of this run (docs/cluster.md "Fencing"): it goes up whenever another node
   * takes the job over. The runner fences its own writes (progress, report, the end) with it; a
   * kind that writes files or rows of its own should fence them with it too (name part files by it,
   * or write `WHERE job_id = ? AND epoch = ?`), so a run presumed dead cannot overwrite its successor.
   */
  epoch: number;
  payload: P;
  /** Aborted on cancel, on shutdown, and when this node lost the job's lease (another node took it). */
  signal: AbortSignal;
  /**
   * Persists progress (throttled: at most every 250 ms, and always when done reaches total). `done` is
   * clamped to [0, total], so readers always see `done <= total`.
   */
  progress(done: number, total: number): void;
  /** Persists an intermediate result (e.g. counts so far); throws JobLeaseLostError when refused. */
  report(result: unknown): Promise<void>;
}

export interface JobKind<P> {
  /** Jobs of this kind run at most this many at once on one node (1 for heavy kinds on a 2-core machine). */
  concurrency: number;
  run(ctx: JobContext<P>): Promise<unknown>;
  /**
   * Called for a job whose node died (its lease expired, or its process is gone) before the job is
   * queued again or failed "interrupted": remove its partial output. Runs on whichever node took the
   * job over, so it must not depend on the dead node's memory.
   */
  recover?(job: JobRow): Promise<void>;
}

/** This process as a node of the cluster (docs/cluster.md "Nodes"). */
export interface NodeIdentity {
  id: string;
  role: NodeRole;
  host: string;
  pid: number;
  version: string;
}

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

/** Raised by a handler (or by the runner on abort) to end a job as cancelled. */
export class JobCancelledError extends Error {
  override name = 'JobCancelledError';
}

/** The abort reason used at shutdown: the job is given back (queued again or failed "interrupted"). */
class ShutdownSignal extends Error {
  override name = 'ShutdownSignal';
}

/** Progress is written at most this often (and always when done reaches total, and at the end). */
const PROGRESS_WRITE_MS = 250;
const DEFAULT_LIST_LIMIT = 50;
const MAX_LIST_LIMIT = 500;

interface Registered {
  kind: JobKind<never>;
  /** False for kinds only ever run through track() (no node can run them from the queue). */
  claimable: boolean;
  running: number;
  /** track(): the runs of one name go one after another on this node. */
  local: PQueue;
}

/** A job this node holds: claimed from the queue or tracked. */
interface Held {
  fence: Fence;
  controller: AbortController;
  done: Promise<void>;
  /** As readers see it, with its newest progress (see `activeFromMemory`). */
  view: JobView;
}

interface Waiter {
  promise: Promise<void>;
  resolve: () => void;
}

function waiter(): Waiter {
  let resolve = (): void => undefined;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * Jobs shared by the nodes of one database (docs/cluster.md): jobs are rows; a node with a free slot
 * for a kind claims the oldest queued job of it for a short lease, renews its leases with its
 * heartbeat, and fences every write with the claim's epoch; any node takes over a job whose owner is
 * gone (its `recover` cleans up, then the job is queued again or failed). Dedupe keys are unique among
 * active jobs cluster-wide; cancel, wait, describe and list read the database.
 */
export class JobRunner {
  private readonly kinds = new Map<string, Registered>();
  private readonly held = new Map<number, Held>();
  /** Jobs enqueued here and not seen ended yet: `isActive` answers from here, `list` too on SQLite. */
  private readonly enqueuedHere = new Map<number, JobView>();
  private readonly waiters = new Map<number, Waiter>();
  private readonly timings: LeaseTimings;
  private readonly repo: JobRepository;
  private readonly nodes: NodeRepository;
  private node: NodeIdentity | null = null;
  private started = false;
  private closed = false;
  private timers: NodeJS.Timeout[] = [];
  private unsubscribe: () => void = () => undefined;
  /** Every node row the last heartbeat read (knownLiveNodes). */
  private lastNodes: NodeRow[] = [];
  private heartbeating: Promise<void> | null = null;
  private waking: Promise<void> | null = null;
  private wakeAgain = false;
  private extraLoad: () => Record<string, unknown> = () => ({});

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly options: JobRunnerOptions = {
      engine: 'sqlite',
      maxAttempts: 1,
      pidAlive: () => true,
    },
  ) {
    this.timings = { ...DEFAULT_LEASE_TIMINGS, ...options.timings };
    this.repo = new JobRepository(db, options.engine);
    this.nodes = new NodeRepository(db);
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
    await this.nodes.register(this.nodeRow(node));
    await this.sweep();
    const every = (ms: number, tick: () => void): void => {
      const timer = setInterval(tick, ms);
      timer.unref();
      this.timers.push(timer);
    };
    every(this.timings.heartbeatMs, () => void this.heartbeat());
    every(this.timings.pollMs, () => this.wake());
    this.unsubscribe = this.options.feed?.subscribeJobs(() => this.wake()) ?? (() => undefined);
    this.wake();
  }

  /** The live nodes, oldest first (health, the admin page). */
  async liveNodes(): Promise<NodeRow[]> {
    const now = this.now();
    return (await this.nodes.list()).filter((n) => nodeAlive(n.heartbeat_at, now, this.timings));
  }

  /**
   * The live nodes as the last heartbeat read them (at most a second old), without a query: what
   * /api/health shows, so it answers while an import's transaction holds SQLite's one connection.
   */
  knownLiveNodes(): NodeRow[] {
    const now = this.now();
    return this.lastNodes.filter((n) => nodeAlive(n.heartbeat_at, now, this.timings));
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
        this.enqueuedHere.set(id, this.queuedView(id, name, createdAt));
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
      this.sawEnded([id]);
      return true;
    }
    return this.repo.requestCancel(id);
  }

  /** Whether the job is held by this node, or was enqueued here and has not been seen ending. */
  isActive(id: number): boolean {
    return this.held.has(id) || this.enqueuedHere.has(id);
  }

  /** Resolves when the job has ended, whichever node ran it (at once when it is not active). */
  async wait(id: number): Promise<JobRow | undefined> {
    const mine = this.held.get(id);
    if (mine !== undefined) {
      await mine.done;
      return this.repo.getById(id);
    }
    const row = await this.repo.getById(id);
    if (row === undefined || (row.status !== 'queued' && row.status !== 'running') || this.closed) return row;
    let w = this.waiters.get(id);
    if (w === undefined) {
      w = waiter();
      this.waiters.set(id, w);
    }
    await w.promise;
    return this.repo.getById(id);
  }

  async get(id: number): Promise<JobRow | undefined> {
    return this.repo.getById(id);
  }

  /** One job as GET /api/jobs/{id} shows it; 404 `not_found` when there is none. */
  async describe(id: number): Promise<JobView> {
    // A job this node runs is answered from memory: its newest progress, and (SQLite) an import
    // holds the one connection for its whole transaction while its progress must stay readable.
    const mine = this.held.get(id);
    if (mine !== undefined) return copyView(mine.view);
    const row = await this.get(id);
    if (row === undefined) throw notFound('job', id);
    return jobView(row);
  }

  /**
   * The newest jobs first (GET /api/jobs), optionally of one kind and/or in one status. From the
   * database, with this node's running jobs at their newest progress. On SQLite, queued and running
   * jobs are answered from memory (one serving process; an import's transaction holds the one
   * connection and its progress must stay readable meanwhile).
   */
  async list(filter: { kind?: JobKindName; status?: JobStatus; limit?: number } = {}): Promise<JobView[]> {
    const limit = Math.min(Math.max(1, filter.limit ?? DEFAULT_LIST_LIMIT), MAX_LIST_LIMIT);
    const views = new Map<number, JobView>(this.enqueuedHere);
    for (const [id, h] of this.held) views.set(id, h.view);
    if (this.options.engine === 'sqlite' && (filter.status === 'queued' || filter.status === 'running')) {
      return [...views.values()]
        .filter((v) => v.status === filter.status && (filter.kind === undefined || v.kind === filter.kind))
        .sort((a, b) => b.id - a.id)
        .slice(0, limit)
        .map(copyView);
    }
    const rows = await this.repo.list({ ...filter, limit });
    return rows.map((row) => {
      const mine = this.held.get(row.id)?.view;
      return mine === undefined ? jobView(row) : copyView(mine);
    });
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
    await this.heartbeating;
    for (const h of this.held.values()) h.controller.abort(new ShutdownSignal('server shutting down'));
    await Promise.allSettled([...this.held.values()].map((h) => h.done));
    for (const w of this.waiters.values()) w.resolve();
    this.waiters.clear();
    if (this.node !== null) await this.nodes.remove(this.node.id).catch(() => undefined);
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
        await this.checkWaiters();
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
      this.enqueuedHere.delete(row.id);
      // This node ran the job before, lost its lease and claims it again: the old run stops.
      this.held.get(row.id)?.controller.abort(new JobLeaseLostError('lease lost'));
      const held = this.hold(row);
      const kind = entry.kind as JobKind<unknown>;
      held.done = this.execute(row, held, (ctx) => kind.run(ctx));
    }
  }

  private hold(row: JobRow): Held {
    const held: Held = {
      fence: { id: row.id, epoch: row.epoch },
      controller: new AbortController(),
      done: Promise.resolve(),
      view: { ...jobView(row), progress: { done: 0, total: 0 } },
    };
    this.held.set(row.id, held);
    if (row.cancel_requested === 1) held.controller.abort(new JobCancelledError('cancelled'));
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
      await this.runHeld(row, held, run);
    } catch (err) {
      // The database failed under the runner itself (not the handler): the end is written if it can
      // be; if not, the lease runs out and a node takes the job over. Never an unhandled rejection.
      const message = err instanceof Error ? err.message : String(err);
      await this.repo.finish(held.fence, 'failed', undefined, message, isoNow(this.clock)).catch(() => false);
    } finally {
      if (entry !== undefined) entry.running -= 1;
      if (this.held.get(row.id) === held) this.held.delete(row.id);
      this.sawEnded([row.id]);
      this.wake();
    }
  }

  private async runHeld(
    row: JobRow,
    held: Held,
    run: (ctx: JobContext<unknown>) => Promise<unknown>,
  ): Promise<void> {
    const { fence, controller, view } = held;
    const lost = (): void => {
      if (!controller.signal.aborted) controller.abort(new JobLeaseLostError('lease lost'));
    };
    if (controller.signal.aborted) {
      await this.end(row, held, undefined, controller.signal.reason);
      return;
    }
    view.status = 'running';
    view.started_at ??= isoNow(this.clock);
    let last = 0;
    let pending: JobProgress | null = null;
    // Writes are chained so that an older value can never land after a newer one (a pool may reorder).
    let writing: Promise<void> = Promise.resolve();
    const flush = (): Promise<void> => {
      if (pending === null) return writing;
      const p = pending;
      pending = null;
      last = Date.now();
      writing = writing
        .then(async () => {
          if (!(await this.repo.setProgress(fence, p.done, p.total))) lost();
        })
        .catch(() => undefined);
      return writing;
    };
    const ctx: JobContext<unknown> = {
      jobId: row.id,
      epoch: fence.epoch,
      payload: JSON.parse(row.payload_json) as unknown,
      signal: controller.signal,
      progress: (done, total) => {
        pending = jobProgress(done, total);
        view.progress = pending;
        if (Date.now() - last >= PROGRESS_WRITE_MS || pending.done === pending.total) void flush();
      },
      report: async (result) => {
        if (!(await this.repo.setResult(fence, JSON.stringify(result)))) {
          lost();
          throw new JobLeaseLostError(`job ${row.id}: another node holds it now`);
        }
      },
    };
    let result: unknown;
    let error: unknown = null;
    try {
      result = await run(ctx);
    } catch (err) {
      error = err ?? new Error('failed');
    }
    await flush();
    await this.end(row, held, error === null ? result : undefined, error ?? controller.signal.reason);
  }

  /** Writes how a held job ended (fenced): done, cancelled, failed, or given back at shutdown. */
  private async end(row: JobRow, held: Held, result: unknown, error: unknown): Promise<void> {
    const { fence, controller } = held;
    const reason: unknown = controller.signal.reason;
    const now = isoNow(this.clock);
    if (reason instanceof JobLeaseLostError) return; // another node holds it: nothing of ours lands
    if (reason instanceof ShutdownSignal) {
      await this.giveBack(row, fence, false);
      return;
    }
    const resultJson = result === undefined ? undefined : JSON.stringify(result);
    if (error === null || error === undefined) {
      await this.repo.finish(
        fence,
        controller.signal.aborted ? 'cancelled' : 'succeeded',
        resultJson ?? null,
        null,
        now,
      );
    } else if (error instanceof JobCancelledError || controller.signal.aborted) {
      await this.repo.finish(fence, 'cancelled', resultJson, null, now);
    } else {
      const message = error instanceof Error ? error.message : String(error);
      await this.repo.finish(fence, 'failed', resultJson, message, now);
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

  // ── Heartbeat, leases, take-overs ─────────────────────────────────────────────────────────────

  private heartbeat(): void {
    if (this.heartbeating !== null || this.closed) return;
    this.heartbeating = (async () => {
      await this.renew();
      await this.beat();
      await this.sweep();
    })()
      .catch(() => undefined)
      .finally(() => {
        this.heartbeating = null;
      });
  }

  /** Renews this node's leases; a job taken over meanwhile stops, a cancel asked elsewhere lands. */
  private async renew(): Promise<void> {
    const node = this.node;
    if (node === null) return;
    const still = new Map((await this.repo.renewLeases(node.id, this.leaseUntil())).map((r) => [r.id, r]));
    for (const [id, h] of this.held) {
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
    const load = this.loadJson();
    // Counted dead while it could not write (a long stall): it says it is back.
    if (!(await this.nodes.beat(node.id, this.now(), load))) await this.nodes.register(this.nodeRow(node));
    await this.nodes.removeSilentSince(this.now() - 3 * this.timings.nodeDeadMs);
  }

  /** Takes over the running jobs whose owner is gone (any node does this; one wins each job). */
  private async sweep(): Promise<void> {
    const node = this.node;
    if (node === null || this.closed) return;
    const [running, nodes] = await Promise.all([this.repo.listRunning(), this.nodes.list()]);
    this.lastNodes = nodes;
    const byId = new Map(nodes.map((n) => [n.id, n]));
    const now = this.now();
    for (const row of running) {
      const reason = takeOverReason(
        row,
        now,
        { nodeId: node.id, host: node.host, runsIt: this.held.has(row.id) },
        row.owner_node === null ? undefined : byId.get(row.owner_node),
        this.options.pidAlive,
      );
      if (reason === null) continue;
      const taken = await this.repo.takeOver(row, node.id, this.leaseUntil());
      if (taken === undefined) continue; // another node was first
      await this.giveBack(taken, taken, true);
    }
  }

  private async checkWaiters(): Promise<void> {
    const ids = [...new Set([...this.waiters.keys(), ...this.enqueuedHere.keys()])].filter(
      (id) => !this.held.has(id),
    );
    if (ids.length === 0) return;
    this.sawEnded(await this.repo.finishedAmong(ids));
  }

  private sawEnded(ids: number[]): void {
    for (const id of ids) {
      this.enqueuedHere.delete(id);
      this.waiters.get(id)?.resolve();
      this.waiters.delete(id);
    }
  }

  // ── Small parts ───────────────────────────────────────────────────────────────────────────────

  private now(): number {
    return this.clock.now().getTime();
  }

  private leaseUntil(): number {
    return this.now() + this.timings.leaseMs;
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

  private nodeRow(node: NodeIdentity): NodeRow {
    return {
      id: node.id,
      role: node.role,
      host: node.host,
      pid: node.pid,
      version: node.version,
      started_at: isoNow(this.clock),
      heartbeat_at: this.now(),
      load_json: this.loadJson(),
    };
  }

  private queuedView(id: number, kind: string, createdAt: string): JobView {
    return {
      id,
      kind: kind as JobKindName,
      status: 'queued',
      progress: { done: 0, total: 0 },
      error: null,
      created_at: createdAt,
      started_at: null,
      finished_at: null,
    };
  }
}

function copyView(v: JobView): JobView {
  return { ...v, progress: { ...v.progress } };
}

export { INTERRUPTED, JobLeaseLostError };
