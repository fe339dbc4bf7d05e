import type { Selectable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { TrickplayTable } from '../db/schema.ts';

export type TrickplayRow = Selectable<TrickplayTable>;

/** The file's content an attempt was made from (a changed file is made again). */
export interface TrickplaySourceFacts {
  source_size_bytes: number;
  source_mtime_ms: number;
  source_fingerprint: string | null;
}

/** What a finished set records. */
export interface TrickplayMadeColumns {
  generation: number;
  interval_ms: number;
  thumbnail_width: number;
  thumbnail_height: number;
  tile_width: number;
  tile_height: number;
  thumbnail_count: number;
  sheet_bytes_json: string;
  roku_tile_width: number;
  roku_tile_height: number;
  roku_sheet_bytes_json: string;
  bif_bytes: number;
  made_at: string;
}

/** A media file the scan knows, with its trickplay row's state (null: none), for queueing. */
export interface TrickplayCandidate {
  id: number;
  size_bytes: number;
  mtime_ms: number;
  fingerprint: string | null;
  capabilities_json: string | null;
  state: string | null;
  source_size_bytes: number | null;
  source_mtime_ms: number | null;
  source_fingerprint: string | null;
}

const NO_SET = {
  generation: null,
  interval_ms: null,
  thumbnail_width: null,
  thumbnail_height: null,
  tile_width: null,
  tile_height: null,
  thumbnail_count: null,
  sheet_bytes_json: null,
  roku_tile_width: null,
  roku_tile_height: null,
  roku_sheet_bytes_json: null,
  bif_bytes: null,
  made_at: null,
} as const;

/** The trickplay table: one query per method. */
export class TrickplayRepository {
  constructor(private readonly db: Db) {}

  async get(fileId: number): Promise<TrickplayRow | undefined> {
    return this.db.selectFrom('trickplay').selectAll().where('media_file_id', '=', fileId).executeTakeFirst();
  }

  async getMany(fileIds: readonly number[]): Promise<TrickplayRow[]> {
    if (fileIds.length === 0) return [];
    return this.db
      .selectFrom('trickplay')
      .selectAll()
      .where('media_file_id', 'in', [...fileIds])
      .execute();
  }

  /** Every row's file, set and attempt: what the start-up sweep keeps on disk. */
  async folders(): Promise<{ media_file_id: number; generation: number | null; job_id: number | null }[]> {
    return this.db.selectFrom('trickplay').select(['media_file_id', 'generation', 'job_id']).execute();
  }

  /**
   * A new attempt: the row is created, or its attempt replaced (a made set stays until the new one
   * is). The job may already have begun (it can start before this write): its row is then left as is.
   */
  async queue(
    fileId: number,
    jobId: number,
    mode: string,
    source: TrickplaySourceFacts,
    now: string,
  ): Promise<void> {
    await this.upsertAttempt(fileId, jobId, 'queued', mode, source, now);
  }

  /** The attempt's job runs: the row is created or taken over by it. */
  async begin(
    fileId: number,
    jobId: number,
    mode: string,
    source: TrickplaySourceFacts,
    now: string,
  ): Promise<void> {
    await this.upsertAttempt(fileId, jobId, 'running', mode, source, now);
  }

  /**
   * The row of an attempt: created, or taken over by it. Queued only takes over a row that another
   * job holds (a job's own running row is never set back to queued); running always does.
   */
  private async upsertAttempt(
    fileId: number,
    jobId: number,
    state: 'queued' | 'running',
    mode: string,
    source: TrickplaySourceFacts,
    now: string,
  ): Promise<void> {
    await this.db
      .insertInto('trickplay')
      .values({
        media_file_id: fileId,
        state,
        job_id: jobId,
        mode,
        ...source,
        ...NO_SET,
        reason: null,
        failed_at: null,
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) => {
        const update = oc
          .column('media_file_id')
          .doUpdateSet({ state, job_id: jobId, reason: null, updated_at: now });
        // IS DISTINCT FROM, not IS NOT: the same NULL-safe test on SQLite (3.39+), and the only one
        // PostgreSQL accepts with a value on its right.
        return state === 'queued' ? update.where('trickplay.job_id', 'is distinct from', jobId) : update;
      })
      .execute();
  }

  /** The new set is in place: recorded with the content it was made from. */
  async markReady(
    fileId: number,
    jobId: number,
    mode: string,
    made: TrickplayMadeColumns,
    source: TrickplaySourceFacts,
    now: string,
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('trickplay')
      .set({ state: 'ready', mode, ...made, ...source, reason: null, failed_at: null, updated_at: now })
      .where('media_file_id', '=', fileId)
      .where('job_id', '=', jobId)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** The attempt failed: its reason recorded, and no set (the old one described other content). */
  async markFailed(
    fileId: number,
    jobId: number,
    reason: string,
    source: TrickplaySourceFacts,
    now: string,
  ): Promise<void> {
    await this.db
      .updateTable('trickplay')
      .set({ state: 'failed', ...NO_SET, ...source, reason, failed_at: now, updated_at: now })
      .where('media_file_id', '=', fileId)
      .where('job_id', '=', jobId)
      .execute();
  }

  /**
   * The attempt ended without a result (cancelled, or the server stopped): a row with a made set is
   * ready again with it; a row without one goes (the next scan or start queues the file again).
   */
  async abandon(fileId: number, jobId: number, now: string): Promise<void> {
    await this.db
      .updateTable('trickplay')
      .set({ state: 'ready', updated_at: now })
      .where('media_file_id', '=', fileId)
      .where('job_id', '=', jobId)
      .where('generation', 'is not', null)
      .execute();
    await this.db
      .deleteFrom('trickplay')
      .where('media_file_id', '=', fileId)
      .where('job_id', '=', jobId)
      .where('generation', 'is', null)
      .where('state', 'in', ['queued', 'running'])
      .execute();
  }

  /** Present, analysed files with their trickplay state, for the queueing decision. */
  async candidates(): Promise<TrickplayCandidate[]> {
    return this.db
      .selectFrom('media_files as f')
      .leftJoin('trickplay as t', 't.media_file_id', 'f.id')
      .select([
        'f.id',
        'f.size_bytes',
        'f.mtime_ms',
        'f.fingerprint',
        'f.capabilities_json',
        't.state',
        't.source_size_bytes',
        't.source_mtime_ms',
        't.source_fingerprint',
      ])
      .where('f.status', '=', 'present')
      .where('f.analysis_status', '=', 'analyzed')
      .orderBy('f.id')
      .execute();
  }
}
