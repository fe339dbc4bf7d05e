// What readers ask of the jobs (GET /api/jobs, waiting for an end): answered from the database, with
// the jobs this node holds at their newest progress, and — on SQLite, where an import's transaction
// holds the one connection — active jobs from this node's memory.
import type { JobKindName, JobView } from '@reelshelf/contract';
import { notFound } from '../errors.ts';
import type { JobRepository, JobRow, JobStatus } from '../repositories/job.repository.ts';
import { jobView } from '../domain/job-progress.ts';
import type { Held } from './held-job.ts';

const DEFAULT_LIST_LIMIT = 50;
const MAX_LIST_LIMIT = 500;

interface Waiter {
  promise: Promise<void>;
  resolve: () => void;
}

function waiter(): Waiter {
  let resolve = (): void => undefined;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

function copyView(v: JobView): JobView {
  return { ...v, progress: { ...v.progress } };
}

/** The jobs as readers see them, and who waits for which to end. */
export class JobReads {
  /** Jobs enqueued here and not seen ended yet: `isActive` answers from here, `list` too on SQLite. */
  private readonly enqueuedHere = new Map<number, JobView>();
  private readonly waiters = new Map<number, Waiter>();

  constructor(
    private readonly repo: JobRepository,
    private readonly engine: 'sqlite' | 'postgres',
    /** The jobs this node holds (the runner's own map). */
    private readonly held: ReadonlyMap<number, Held>,
  ) {}

  /** A job this node just enqueued (queued, until a claim or its end is seen). */
  enqueued(id: number, kind: string, createdAt: string): void {
    this.enqueuedHere.set(id, {
      id,
      kind: kind as JobKindName,
      status: 'queued',
      progress: { done: 0, total: 0 },
      error: null,
      created_at: createdAt,
      started_at: null,
      finished_at: null,
    });
  }

  /** A job this node claimed: it is held now, no longer only enqueued. */
  claimed(id: number): void {
    this.enqueuedHere.delete(id);
  }

  /** Whether the job is held by this node, or was enqueued here and has not been seen ending. */
  isActive(id: number): boolean {
    return this.held.has(id) || this.enqueuedHere.has(id);
  }

  /** Resolves when the job has ended, whichever node ran it (at once when not active or `closed`). */
  async wait(id: number, closed: boolean): Promise<JobRow | undefined> {
    const mine = this.held.get(id);
    if (mine !== undefined) {
      await mine.done;
      return this.repo.getById(id);
    }
    const row = await this.repo.getById(id);
    if (row === undefined || (row.status !== 'queued' && row.status !== 'running') || closed) return row;
    let w = this.waiters.get(id);
    if (w === undefined) {
      w = waiter();
      this.waiters.set(id, w);
    }
    await w.promise;
    return this.repo.getById(id);
  }

  /** One job as GET /api/jobs/{id} shows it; 404 `not_found` when there is none. */
  async describe(id: number): Promise<JobView> {
    // A job this node runs is answered from memory: its newest progress, and (SQLite) an import
    // holds the one connection for its whole transaction while its progress must stay readable.
    const mine = this.held.get(id);
    if (mine !== undefined) return copyView(mine.view);
    const row = await this.repo.getById(id);
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
    if (this.engine === 'sqlite' && (filter.status === 'queued' || filter.status === 'running')) {
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

  /** Looks up which awaited or enqueued jobs (not held here) have ended, and resolves their waiters. */
  async checkWaiters(): Promise<void> {
    const ids = [...new Set([...this.waiters.keys(), ...this.enqueuedHere.keys()])].filter(
      (id) => !this.held.has(id),
    );
    if (ids.length === 0) return;
    this.sawEnded(await this.repo.finishedAmong(ids));
  }

  sawEnded(ids: number[]): void {
    for (const id of ids) {
      this.enqueuedHere.delete(id);
      this.waiters.get(id)?.resolve();
      this.waiters.delete(id);
    }
  }

  /** At shutdown: every waiter returns (the job's row as it is then). */
  releaseWaiters(): void {
    for (const w of this.waiters.values()) w.resolve();
    this.waiters.clear();
  }
}
