// What a job handler sees (docs/cluster.md): the context of one run, the kind it registers, and the
// reasons its signal is aborted with.
import type { JobRow } from '../repositories/job.repository.ts';

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

/** Raised by a handler (or by the runner on abort) to end a job as cancelled. */
export class JobCancelledError extends Error {
  override name = 'JobCancelledError';
}

/** The abort reason used at shutdown: the job is given back (queued again or failed "interrupted"). */
export class ShutdownSignal extends Error {
  override name = 'ShutdownSignal';
}
