import type { JobKindName, JobProgress, JobStatusName, JobView } from '@reelshelf/contract';
import type { JobRow } from '../repositories/job.repository.ts';

/**
 * A job's progress as readers see it: never more done than there is to do, never negative. A handler
 * that reports an estimate (a conversion's percent) may overshoot by a rounding; the reader never sees it.
 */
export function jobProgress(done: number, total: number): JobProgress {
  const safeTotal = Math.max(0, Math.floor(total));
  return { done: Math.min(Math.max(0, Math.floor(done)), safeTotal), total: safeTotal };
}

/** A jobs row as GET /api/jobs shows it: the same shape for every kind. */
export function jobView(row: JobRow): JobView {
  return {
    id: row.id,
    kind: row.kind as JobKindName,
    status: row.status as JobStatusName,
    progress: jobProgress(row.progress_done, row.progress_total),
    error: row.error,
    created_at: row.created_at,
    started_at: row.started_at,
    finished_at: row.finished_at,
  };
}
