import type { Selectable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { JobsTable } from '../db/schema.ts';

export type JobRow = Selectable<JobsTable>;
export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';

/** The jobs table: one query per method. */
export class JobRepository {
  constructor(private readonly db: Db) {}

  async insert(row: {
    kind: string;
    dedupe_key: string | null;
    payload_json: string;
    created_at: string;
  }): Promise<number> {
    const res = await this.db
      .insertInto('jobs')
      .values({ ...row, status: 'queued', progress_done: 0, progress_total: 0 })
      .returning('id')
      .executeTakeFirstOrThrow();
    return res.id;
  }

  async getById(id: number): Promise<JobRow | undefined> {
    return this.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The queued or running job with this dedupe key, if any. */
  async findActive(kind: string, dedupeKey: string): Promise<JobRow | undefined> {
    return this.db
      .selectFrom('jobs')
      .selectAll()
      .where('kind', '=', kind)
      .where('dedupe_key', '=', dedupeKey)
      .where('status', 'in', ['queued', 'running'])
      .orderBy('id', 'desc')
      .executeTakeFirst();
  }

  /** The newest job of a kind with this dedupe key, whatever its state. */
  async findLatest(kind: string, dedupeKey: string): Promise<JobRow | undefined> {
    return this.db
      .selectFrom('jobs')
      .selectAll()
      .where('kind', '=', kind)
      .where('dedupe_key', '=', dedupeKey)
      .orderBy('id', 'desc')
      .executeTakeFirst();
  }

  async markRunning(id: number, now: string): Promise<void> {
    await this.db
      .updateTable('jobs')
      .set({ status: 'running', started_at: now })
      .where('id', '=', id)
      .execute();
  }

  async setProgress(id: number, done: number, total: number): Promise<void> {
    await this.db
      .updateTable('jobs')
      .set({ progress_done: done, progress_total: total })
      .where('id', '=', id)
      .execute();
  }

  async setResult(id: number, resultJson: string): Promise<void> {
    await this.db.updateTable('jobs').set({ result_json: resultJson }).where('id', '=', id).execute();
  }

  async finish(
    id: number,
    status: JobStatus,
    resultJson: string | null,
    error: string | null,
    now: string,
  ): Promise<void> {
    await this.db
      .updateTable('jobs')
      .set({ status, result_json: resultJson, error, finished_at: now })
      .where('id', '=', id)
      .execute();
  }

  /** The newest jobs first, optionally of one kind and/or in one status. */
  async list(filter: { kind?: string; status?: JobStatus; limit: number }): Promise<JobRow[]> {
    let query = this.db.selectFrom('jobs').selectAll();
    if (filter.kind !== undefined) query = query.where('kind', '=', filter.kind);
    if (filter.status !== undefined) query = query.where('status', '=', filter.status);
    return query.orderBy('id', 'desc').limit(filter.limit).execute();
  }

  /** Jobs that were queued or running when the process stopped. */
  async listUnfinished(): Promise<JobRow[]> {
    return this.db
      .selectFrom('jobs')
      .selectAll()
      .where('status', 'in', ['queued', 'running'])
      .orderBy('id')
      .execute();
  }
}
