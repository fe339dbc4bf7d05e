import PQueue from 'p-queue';
import { type Clock, isoNow } from '../adapters/clock.ts';
import type { Db } from '../db/database.ts';
import type { JobKindName, JobProgress, JobView } from '@reelshelf/contract';
import { AppError, notFound } from '../errors.ts';
import { JobRepository, type JobRow, type JobStatus } from '../repositories/job.repository.ts';
import { jobProgress, jobView } from '../domain/job-progress.ts';

/** What a job handler gets: its payload, a cancellation signal and a progress reporter. */
export interface JobContext<P> {
  jobId: number;
  payload: P;
  signal: AbortSignal;
  /**
   * Persists progress (throttled: at most every 250 ms, and always when done reaches total). `done` is
   * clamped to [0, total], so readers always see `done <= total`.
   */
  progress(done: number, total: number): void;
  /** Persists an intermediate result (e.g. counts so far) for readers of the job. */
  report(result: unknown): Promise<void>;
}

export interface JobKind<P> {
  /** Jobs of this kind run at most this many at once (1 for heavy kinds on a 2-core machine). */
  concurrency: number;
  run(ctx: JobContext<P>): Promise<unknown>;
  /**
   * Called at start-up for a job that was running when the process died: remove its partial output.
   * The job is then marked failed with the reason "interrupted".
   */
  recover?(job: JobRow): Promise<void>;
}

/** Raised by a handler (or by the runner on abort) to end a job as cancelled. */
export class JobCancelledError extends Error {
  override name = 'JobCancelledError';
}

/** The abort reason used at shutdown: such a job ends failed ("interrupted"), not cancelled by a person. */
class ShutdownSignal extends Error {
  override name = 'ShutdownSignal';
}

const INTERRUPTED = 'interrupted: the server stopped while this job ran';

/** Progress is written at most this often (and always when done reaches total, and at the end). */
const PROGRESS_WRITE_MS = 250;
const DEFAULT_LIST_LIMIT = 50;
const MAX_LIST_LIMIT = 500;

interface Running {
  controller: AbortController;
  done: Promise<void>;
}

/**
 * A database-backed job runner: jobs are rows, one in-process queue per kind with its own
 * concurrency, dedupe keys that join a queued or running job instead of starting another, AbortSignal
 * cancellation, persisted progress, and recovery at start for jobs a dead process left behind.
 */
export class JobRunner {
  private readonly kinds = new Map<string, { kind: JobKind<never>; queue: PQueue }>();
  private readonly running = new Map<number, Running>();
  private readonly waiters = new Map<number, Promise<void>>();
  /**
   * The jobs of this process that have not finished, as readers see them, with their newest progress.
   * Readers of a running job are answered from here: an import holds the one SQLite connection for its
   * whole transaction, and its progress must be readable while it runs.
   */
  private readonly live = new Map<number, JobView>();
  private closed = false;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  register<P>(name: string, kind: JobKind<P>): void {
    this.kinds.set(name, {
      kind: kind as JobKind<never>,
      queue: new PQueue({ concurrency: kind.concurrency }),
    });
  }

  /** Marks what a previous process left running or queued as failed, after letting its kind clean up. */
  async recover(): Promise<number> {
    const repo = new JobRepository(this.db);
    const unfinished = await repo.listUnfinished();
    for (const job of unfinished) {
      const entry = this.kinds.get(job.kind);
      if (entry?.kind.recover !== undefined) await entry.kind.recover(job);
      const reason =
        job.status === 'running' ? INTERRUPTED : 'interrupted: the server stopped before this job ran';
      await repo.finish(job.id, 'failed', job.result_json, reason, isoNow(this.clock));
    }
    return unfinished.length;
  }

  /**
   * Starts a job, or joins the queued/running one with the same dedupe key.
   * @returns the job id and whether it was newly created
   */
  async enqueue<P>(
    name: string,
    payload: P,
    dedupeKey: string | null = null,
  ): Promise<{ id: number; created: boolean }> {
    if (this.closed) throw new AppError('service_unavailable', { message: 'The server is shutting down.' });
    const entry = this.kinds.get(name);
    if (entry === undefined) throw new Error(`unknown job kind ${name}`);
    const repo = new JobRepository(this.db);
    if (dedupeKey !== null) {
      const active = await repo.findActive(name, dedupeKey);
      if (active !== undefined && this.running.has(active.id)) return { id: active.id, created: false };
    }
    const kind = entry.kind as JobKind<P>;
    const { id } = await this.start(name, payload, (ctx) => kind.run(ctx), dedupeKey);
    return { id, created: true };
  }

  /** Inserts the job row and queues `run` on the kind's queue (registered kinds; `track`'s own work). */
  private async start<P>(
    name: string,
    payload: P,
    run: (ctx: JobContext<P>) => Promise<unknown>,
    dedupeKey: string | null = null,
  ): Promise<{ id: number; done: Promise<void> }> {
    if (this.closed) throw new AppError('service_unavailable', { message: 'The server is shutting down.' });
    let entry = this.kinds.get(name);
    if (entry === undefined) {
      // A kind only ever run through track(): one at a time.
      entry = { kind: { concurrency: 1, run: async () => undefined }, queue: new PQueue({ concurrency: 1 }) };
      this.kinds.set(name, entry);
    }
    const id = await new JobRepository(this.db).insert({
      kind: name,
      dedupe_key: dedupeKey,
      payload_json: JSON.stringify(payload),
      created_at: isoNow(this.clock),
    });
    this.live.set(id, {
      id,
      kind: name as JobKindName,
      status: 'queued',
      progress: { done: 0, total: 0 },
      error: null,
      created_at: isoNow(this.clock),
      started_at: null,
      finished_at: null,
    });
    const controller = new AbortController();
    const done = entry.queue.add(() => this.execute(id, run, payload, controller)).then(() => undefined);
    this.running.set(id, { controller, done });
    this.waiters.set(id, done);
    done.finally(() => {
      this.running.delete(id);
      this.waiters.delete(id);
      this.live.delete(id);
    });
    return { id, done };
  }

  /**
   * Runs work the caller awaits itself (an import answered in its own request) as a job, so that it is
   * listed and reports progress like every other job. Jobs of one name run one after another (the
   * kind's concurrency); `run`'s value is returned to the caller and stored as the job's result, and
   * its error is rethrown after the job is marked failed.
   * @param onStart called with the job id once the row exists (before `run` starts)
   */
  async track<T>(
    name: string,
    summary: unknown,
    run: (ctx: JobContext<unknown>) => Promise<T>,
    onStart: (jobId: number) => void = () => undefined,
  ): Promise<T> {
    let outcome: { ok: true; value: T } | { ok: false; error: unknown } | null = null;
    const { id, done } = await this.start(name, summary, async (ctx: JobContext<unknown>) => {
      try {
        const value = await run(ctx);
        outcome = { ok: true, value };
        return value;
      } catch (error) {
        outcome = { ok: false, error };
        throw error;
      }
    });
    onStart(id);
    await done;
    const settled = outcome as { ok: true; value: T } | { ok: false; error: unknown } | null;
    if (settled === null) {
      throw new AppError('service_unavailable', { message: 'The server is shutting down.' });
    }
    if (!settled.ok) throw settled.error;
    return settled.value;
  }

  private async execute<P>(
    id: number,
    run: (ctx: JobContext<P>) => Promise<unknown>,
    payload: P,
    controller: AbortController,
  ): Promise<void> {
    const repo = new JobRepository(this.db);
    if (controller.signal.aborted) {
      const shutdown = controller.signal.reason instanceof ShutdownSignal;
      await repo.finish(
        id,
        shutdown ? 'failed' : 'cancelled',
        null,
        shutdown ? INTERRUPTED : null,
        isoNow(this.clock),
      );
      return;
    }
    const startedAt = isoNow(this.clock);
    await repo.markRunning(id, startedAt);
    const view = this.live.get(id);
    if (view !== undefined) Object.assign(view, { status: 'running', started_at: startedAt });
    let last = 0;
    let pending: JobProgress | null = null;
    // Writes are chained so that an older value can never land after a newer one (a pool may reorder).
    let writing: Promise<void> = Promise.resolve();
    const flush = (): Promise<void> => {
      if (pending === null) return writing;
      const p = pending;
      pending = null;
      last = Date.now();
      writing = writing.then(() => repo.setProgress(id, p.done, p.total)).catch(() => undefined);
      return writing;
    };
    const ctx: JobContext<P> = {
      jobId: id,
      payload,
      signal: controller.signal,
      progress: (done, total) => {
        pending = jobProgress(done, total);
        if (view !== undefined) view.progress = pending;
        if (Date.now() - last >= PROGRESS_WRITE_MS || pending.done === pending.total) void flush();
      },
      report: (result) => repo.setResult(id, JSON.stringify(result)),
    };
    try {
      const result = await run(ctx);
      await flush();
      const resultJson = result === undefined ? null : JSON.stringify(result);
      if (controller.signal.reason instanceof ShutdownSignal) {
        await repo.finish(id, 'failed', resultJson, INTERRUPTED, isoNow(this.clock));
        return;
      }
      const status = controller.signal.aborted ? 'cancelled' : 'succeeded';
      await repo.finish(id, status, resultJson, null, isoNow(this.clock));
    } catch (err) {
      await flush();
      const current = await repo.getById(id);
      if (controller.signal.reason instanceof ShutdownSignal) {
        await repo.finish(id, 'failed', current?.result_json ?? null, INTERRUPTED, isoNow(this.clock));
      } else if (err instanceof JobCancelledError || controller.signal.aborted) {
        await repo.finish(id, 'cancelled', current?.result_json ?? null, null, isoNow(this.clock));
      } else {
        const message = err instanceof Error ? err.message : String(err);
        await repo.finish(id, 'failed', current?.result_json ?? null, message, isoNow(this.clock));
      }
    }
  }

  /** Asks a queued or running job to stop; true when it was active. */
  cancel(id: number): boolean {
    const running = this.running.get(id);
    if (running === undefined) return false;
    running.controller.abort(new JobCancelledError('cancelled'));
    return true;
  }

  isActive(id: number): boolean {
    return this.running.has(id);
  }

  /** Resolves when the job has finished (immediately when it is not active in this process). */
  async wait(id: number): Promise<JobRow | undefined> {
    await this.waiters.get(id);
    return new JobRepository(this.db).getById(id);
  }

  async get(id: number): Promise<JobRow | undefined> {
    return new JobRepository(this.db).getById(id);
  }

  /** One job as GET /api/jobs/{id} shows it; 404 `not_found` when there is none. */
  async describe(id: number): Promise<JobView> {
    const live = this.live.get(id);
    if (live !== undefined) return { ...live, progress: { ...live.progress } };
    const row = await this.get(id);
    if (row === undefined) throw notFound('job', id);
    return jobView(row);
  }

  /**
   * The newest jobs first (GET /api/jobs), optionally of one kind and/or in one status. Queued and
   * running jobs are this server's own, answered from memory with their newest progress (so a page can
   * follow an import whose transaction holds the database); finished ones come from the database.
   */
  async list(filter: { kind?: JobKindName; status?: JobStatus; limit?: number } = {}): Promise<JobView[]> {
    const limit = Math.min(Math.max(1, filter.limit ?? DEFAULT_LIST_LIMIT), MAX_LIST_LIMIT);
    if (filter.status === 'queued' || filter.status === 'running') {
      return [...this.live.values()]
        .filter((v) => v.status === filter.status && (filter.kind === undefined || v.kind === filter.kind))
        .sort((a, b) => b.id - a.id)
        .slice(0, limit)
        .map((v) => ({ ...v, progress: { ...v.progress } }));
    }
    const rows = await new JobRepository(this.db).list({ ...filter, limit });
    return rows.map((row) => {
      const live = this.live.get(row.id);
      return live === undefined ? jobView(row) : { ...live, progress: { ...live.progress } };
    });
  }

  /** Cancels everything and waits for handlers to return (shutdown). */
  async close(): Promise<void> {
    this.closed = true;
    for (const r of this.running.values()) r.controller.abort(new ShutdownSignal('server shutting down'));
    await Promise.allSettled([...this.running.values()].map((r) => r.done));
  }
}
