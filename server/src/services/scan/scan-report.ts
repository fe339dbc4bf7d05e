/**
 * @module services/scan/scan-report
 * A scan as its job row stores it (payload, result) and as GET /api/scans/{id} answers it.
 */
import type { ScanCounts, ScanReport } from '@reelshelf/contract';
import type { JobRow } from '../../repositories/job.repository.ts';

export interface ScanPayload {
  rootId: number;
}

export interface ScanResult {
  root_id: number;
  counts: ScanCounts;
  errors: { path: string; error: string }[];
}

export const EMPTY_COUNTS: ScanCounts = {
  found: 0,
  new: 0,
  changed: 0,
  moved: 0,
  unchanged: 0,
  missing: 0,
  errors: 0,
};

function parseResult(json: string | null): Partial<ScanResult> {
  if (json === null) return {};
  try {
    return JSON.parse(json) as Partial<ScanResult>;
  } catch {
    return {};
  }
}

export function toReport(job: JobRow): ScanReport {
  const result = parseResult(job.result_json);
  const payload = parseResult(job.payload_json) as Partial<ScanPayload>;
  const status =
    job.status === 'succeeded'
      ? 'committed'
      : job.status === 'failed' || job.status === 'cancelled'
        ? job.status
        : 'running';
  const report: ScanReport = {
    id: job.id,
    root_id: result.root_id ?? payload.rootId ?? 0,
    status,
    progress: { done: job.progress_done, total: job.progress_total },
    counts: { ...EMPTY_COUNTS, ...result.counts },
    errors: result.errors ?? [],
  };
  if (job.error !== null) report.message = job.error;
  return report;
}
