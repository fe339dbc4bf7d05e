import type { Selectable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { ArtifactsTable } from '../db/schema.ts';

export type ArtifactRow = Selectable<ArtifactsTable>;

/** The artifacts table: one query per method. */
export class ArtifactRepository {
  constructor(private readonly db: Db) {}

  async getByKey(key: string): Promise<ArtifactRow | undefined> {
    return this.db.selectFrom('artifacts').selectAll().where('artifact_key', '=', key).executeTakeFirst();
  }

  async getByJob(jobId: number): Promise<ArtifactRow | undefined> {
    return this.db.selectFrom('artifacts').selectAll().where('job_id', '=', jobId).executeTakeFirst();
  }

  /** Every artifact row of a file for a device (stale fingerprints included). */
  async listFor(mediaFileId: number, device: string): Promise<ArtifactRow[]> {
    return this.db
      .selectFrom('artifacts')
      .selectAll()
      .where('media_file_id', '=', mediaFileId)
      .where('device', '=', device)
      .execute();
  }

  async readyKeys(): Promise<{ media_file_id: number; device: string; source_fingerprint: string }[]> {
    return this.db
      .selectFrom('artifacts')
      .select(['media_file_id', 'device', 'source_fingerprint'])
      .where('status', '=', 'ready')
      .execute();
  }

  /** Creates the row for a build, or resets a previous failed/cancelled one with the same key. */
  async upsertBuilding(row: {
    artifact_key: string;
    media_file_id: number;
    device: string;
    source_fingerprint: string;
    plan_json: string;
    path: string;
    job_id: number;
    now: string;
  }): Promise<void> {
    const { now, ...rest } = row;
    await this.db
      .insertInto('artifacts')
      .values({ ...rest, status: 'building', size_bytes: 0, error: null, created_at: now, last_used_at: now })
      .onConflict((oc) =>
        oc.column('artifact_key').doUpdateSet({
          status: 'building',
          job_id: row.job_id,
          error: null,
          size_bytes: 0,
          plan_json: row.plan_json,
          path: row.path,
          completed_at: null,
          last_used_at: now,
        }),
      )
      .execute();
  }

  async setJob(key: string, jobId: number): Promise<void> {
    await this.db.updateTable('artifacts').set({ job_id: jobId }).where('artifact_key', '=', key).execute();
  }

  async finish(
    key: string,
    status: 'ready' | 'failed' | 'cancelled',
    fields: { size_bytes?: number; error?: string | null; now: string },
  ): Promise<void> {
    await this.db
      .updateTable('artifacts')
      .set({
        status,
        ...(fields.size_bytes === undefined ? {} : { size_bytes: fields.size_bytes }),
        error: fields.error ?? null,
        completed_at: fields.now,
      })
      .where('artifact_key', '=', key)
      .execute();
  }

  async touch(key: string, now: string): Promise<void> {
    await this.db
      .updateTable('artifacts')
      .set({ last_used_at: now })
      .where('artifact_key', '=', key)
      .execute();
  }

  /** Ready artifacts, least recently streamed first (for LRU eviction). */
  async readyByAge(): Promise<ArtifactRow[]> {
    return this.db
      .selectFrom('artifacts')
      .selectAll()
      .where('status', '=', 'ready')
      .orderBy('last_used_at')
      .orderBy('id')
      .execute();
  }

  /** Every artifact key, whatever its status (the files the artifacts area may hold). */
  async allKeys(): Promise<string[]> {
    return (await this.db.selectFrom('artifacts').select('artifact_key').execute()).map(
      (r) => r.artifact_key,
    );
  }

  async delete(key: string): Promise<void> {
    await this.db.deleteFrom('artifacts').where('artifact_key', '=', key).execute();
  }
}
