// One run of a job this node holds (claimed from the queue or tracked): its context for the handler
// (throttled, ordered, fenced progress), and the fenced write of how it ended.
import { type Clock, isoNow } from '../adapters/clock.ts';
import type { JobProgress, JobView } from '@reelshelf/contract';
import type { Fence, JobRepository, JobRow } from '../repositories/job.repository.ts';
import { jobProgress, jobView } from '../domain/job-progress.ts';
import { JobLeaseLostError } from '../domain/jobs/cluster-jobs.ts';
import { type JobContext, JobCancelledError, ShutdownSignal } from './job-kind.ts';

/** Progress is written at most this often (and always when done reaches total, and at the end). */
const PROGRESS_WRITE_MS = 250;

/** A job this node holds: claimed from the queue or tracked. */
export interface Held {
  fence: Fence;
  controller: AbortController;
  done: Promise<void>;
  /** As readers see it, with its newest progress (answered from memory while this node runs it). */
  view: JobView;
}

/** The hold on a row just claimed or inserted; a cancel asked before the claim aborts it at once. */
export function holdRow(row: JobRow): Held {
  const held: Held = {
    fence: { id: row.id, epoch: row.epoch },
    controller: new AbortController(),
    done: Promise.resolve(),
    view: { ...jobView(row), progress: { done: 0, total: 0 } },
  };
  if (row.cancel_requested === 1) held.controller.abort(new JobCancelledError('cancelled'));
  return held;
}

export interface HeldRunDeps {
  repo: JobRepository;
  clock: Clock;
  /** A job given up at shutdown: queued again or failed "interrupted" (JobRunner.giveBack). */
  giveBack(row: JobRow, fence: Fence): Promise<void>;
}

/** Runs the handler of a held job and writes how it ended (fenced by the hold's epoch). */
export async function runHeld(
  deps: HeldRunDeps,
  row: JobRow,
  held: Held,
  run: (ctx: JobContext<unknown>) => Promise<unknown>,
): Promise<void> {
  const { repo, clock } = deps;
  const { fence, controller, view } = held;
  const lost = (): void => {
    if (!controller.signal.aborted) controller.abort(new JobLeaseLostError('lease lost'));
  };
  if (controller.signal.aborted) {
    await endHeld(deps, row, held, undefined, controller.signal.reason);
    return;
  }
  view.status = 'running';
  view.started_at ??= isoNow(clock);
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
        if (!(await repo.setProgress(fence, p.done, p.total))) lost();
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
      if (!(await repo.setResult(fence, JSON.stringify(result)))) {
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
  await endHeld(deps, row, held, error === null ? result : undefined, error ?? controller.signal.reason);
}

/** Writes how a held job ended (fenced): done, cancelled, failed, or given back at shutdown. */
async function endHeld(
  deps: HeldRunDeps,
  row: JobRow,
  held: Held,
  result: unknown,
  error: unknown,
): Promise<void> {
  const { fence, controller } = held;
  const reason: unknown = controller.signal.reason;
  const now = isoNow(deps.clock);
  if (reason instanceof JobLeaseLostError) return; // another node holds it: nothing of ours lands
  if (reason instanceof ShutdownSignal) {
    await deps.giveBack(row, fence);
    return;
  }
  const resultJson = result === undefined ? undefined : JSON.stringify(result);
  if (error === null || error === undefined) {
    await deps.repo.finish(
      fence,
      controller.signal.aborted ? 'cancelled' : 'succeeded',
      resultJson ?? null,
      null,
      now,
    );
  } else if (error instanceof JobCancelledError || controller.signal.aborted) {
    await deps.repo.finish(fence, 'cancelled', resultJson, null, now);
  } else {
    const message = error instanceof Error ? error.message : String(error);
    await deps.repo.finish(fence, 'failed', resultJson, message, now);
  }
}
