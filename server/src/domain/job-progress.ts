import type { JobKindName, JobProgress, JobStatusName, JobView } from '@reelshelf/contract';

/**
 * A job's progress as readers see it: never more done than there is to do, never negative. A handler
 * that reports an estimate (a conversion's percent) may overshoot by a rounding; the reader never sees it.
 */
export function jobProgress(done: number, total: number): JobProgress {
  const safeTotal = Math.max(0, Math.floor(total));
  return { done: Math.min(Math.max(0, Math.floor(done)), safeTotal), total: safeTotal };
}

/** The fields of a stored job that readers see (a jobs row has these and more: payload, result). */
export interface JobRecord {
  id: number;
  kind: string;
  status: string;
  progress_done: number;
  progress_total: number;
  error: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

/** A stored job as GET /api/jobs shows it: the same shape for every kind. */
export function jobView(row: JobRecord): JobView {
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
