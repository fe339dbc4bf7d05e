/** The trickplay row as the reader and the job see it: the made set, the status, the source facts. */
import type { TrickplayLayout } from '../../domain/trickplay/geometry.ts';
import type { TrickplayRow, TrickplaySourceFacts } from '../../repositories/trickplay.repository.ts';
import type { TrickplayPayload } from './trickplay-set-maker.ts';
import type { TrickplayMade, TrickplayStatus } from './trickplay-ports.ts';

/**
 * The part folder of one run of a trickplay job: named by the job and its epoch (docs/cluster.md
 * "Fencing"), so a run presumed dead and the run that took the job over never write the same files.
 */
export function partOf(fileId: number, jobId: number, epoch: number): string {
  return `${fileId}/${jobId}.${epoch}.part`;
}

/**
 * The epoch of `folder` (a name inside a file's folder) when it is a part folder of job `jobId`, else
 * null; `<job>.part`, the name before part folders carried the epoch, counts as epoch 0.
 */
export function partEpoch(folder: string, jobId: number): number | null {
  const match = new RegExp(`^${jobId}\\.(?:(\\d+)\\.)?part$`).exec(folder);
  return match === null ? null : Number(match[1] ?? 0);
}

export function sourceFacts(file: {
  size_bytes: number;
  mtime_ms: number;
  fingerprint: string | null;
}): TrickplaySourceFacts {
  return {
    source_size_bytes: Number(file.size_bytes),
    source_mtime_ms: Number(file.mtime_ms),
    source_fingerprint: file.fingerprint,
  };
}

export function parsePayload(json: string): TrickplayPayload | null {
  try {
    const parsed = JSON.parse(json) as Partial<TrickplayPayload>;
    return typeof parsed.fileId === 'number'
      ? { fileId: parsed.fileId, mode: parsed.mode ?? 'keyframes' }
      : null;
  } catch {
    return null;
  }
}

function numbers(json: string | null): number[] | null {
  if (json === null) return null;
  try {
    const parsed: unknown = JSON.parse(json);
    return Array.isArray(parsed) && parsed.every((n) => typeof n === 'number') ? (parsed as number[]) : null;
  } catch {
    return null;
  }
}

/** The made set a row records (state ready with every column), else null. */
export function madeOf(row: TrickplayRow): TrickplayMade | null {
  const sheetBytes = numbers(row.sheet_bytes_json);
  const rokuBytes = numbers(row.roku_sheet_bytes_json);
  if (
    row.state !== 'ready' ||
    row.generation === null ||
    row.interval_ms === null ||
    row.thumbnail_width === null ||
    row.thumbnail_height === null ||
    row.tile_width === null ||
    row.tile_height === null ||
    row.thumbnail_count === null ||
    row.roku_tile_width === null ||
    row.roku_tile_height === null ||
    row.bif_bytes === null ||
    sheetBytes === null ||
    rokuBytes === null
  ) {
    return null;
  }
  const layout: TrickplayLayout = {
    intervalMs: row.interval_ms,
    thumbnailWidth: row.thumbnail_width,
    thumbnailHeight: row.thumbnail_height,
    tileWidth: row.tile_width,
    tileHeight: row.tile_height,
    thumbnailCount: row.thumbnail_count,
  };
  return {
    fileId: row.media_file_id,
    generation: row.generation,
    mode: row.mode === 'accurate' ? 'accurate' : 'keyframes',
    layout,
    sheetBytes,
    roku: {
      layout: { ...layout, tileWidth: row.roku_tile_width, tileHeight: row.roku_tile_height },
      sheetBytes: rokuBytes,
    },
    bifBytes: Number(row.bif_bytes),
    madeAt: row.made_at ?? row.updated_at,
  };
}

export function statusOf(row: TrickplayRow): TrickplayStatus {
  if ((row.state === 'queued' || row.state === 'running') && row.job_id !== null) {
    return { state: row.state, jobId: row.job_id };
  }
  if (row.state === 'failed') {
    return {
      state: 'failed',
      reason: row.reason ?? 'failed',
      jobId: row.job_id,
      failedAt: row.failed_at ?? row.updated_at,
    };
  }
  const made = madeOf(row);
  return made === null ? { state: 'none' } : { state: 'ready', made };
}
