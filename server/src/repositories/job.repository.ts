import { type Selectable, sql } from 'kysely';
import type { Db } from '../db/database.ts';
import type { JobsTable } from '../db/schema.ts';
import { JobLeaseLostError } from '../domain/jobs/cluster-jobs.ts';

export type JobRow = Selectable<JobsTable>;
export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';

const ACTIVE: JobStatus[] = ['queued', 'running'];

/** Who writes: a job's writes are fenced by the epoch of the claim it runs under (docs/cluster.md). */
export interface Fence {
  id: number;
  epoch: number;
}

/**
 * The jobs table: one statement per method. Every write of a running job is fenced
 * (`WHERE id = ? AND epoch = ?`) and says whether it landed.
 */
export class JobRepository {
  constructor(
    private readonly db: Db,
    private readonly engine: 'sqlite' | 'postgres' = 'sqlite',
  ) {}

  /**
   * A queued job; with a dedupe key, nothing when an active job of the kind already has it (the
   * partial unique index, cluster-wide).
   * @returns the new id, or null when the key is taken
   */
  async insertQueued(row: {
    kind: string;
    dedupe_key: string | null;
    payload_json: string;
    created_at: string;
  }): Promise<number | null> {
    const res = await this.db
      .insertInto('jobs')
      .values({ ...row, status: 'queued', progress_done: 0, progress_total: 0 })
      .onConflict((oc) =>
        // The index's own predicate, in literals: both engines match a conflict target to a partial
        // index only by the same expression.
        oc
          .columns(['kind', 'dedupe_key'])
          .where(sql<boolean>`status IN ('queued', 'running')`)
          .doNothing(),
      )
      .returning('id')
      .executeTakeFirst();
    return res?.id ?? null;
  }

  /** A job run at once by the node that inserts it (an import in its request): claimed from the start. */
  async insertRunning(row: {
    kind: string;
    payload_json: string;
    created_at: string;
    owner_node: string;
    lease_until: number;
  }): Promise<JobRow> {
    return this.db
      .insertInto('jobs')
      .values({
        ...row,
        dedupe_key: null,
        status: 'running',
        started_at: row.created_at,
        progress_done: 0,
        progress_total: 0,
        epoch: 1,
        attempts: 1,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /**
   * Claims the oldest queued job of these kinds for `owner`: running, leased until `leaseUntil`, epoch
   * and attempts up by one. One statement; on PostgreSQL the pick skips rows another node is claiming
   * (FOR UPDATE SKIP LOCKED), SQLite has one writer at a time and no such clause.
   */
  async claimNext(
    kinds: string[],
    owner: string,
    leaseUntil: number,
    now: string,
  ): Promise<JobRow | undefined> {
    if (kinds.length === 0) return undefined;
    let pick = this.db
      .selectFrom('jobs')
      .select('id')
      .where('status', '=', 'queued')
      .where('kind', 'in', kinds)
      .orderBy('id')
      .limit(1);
    if (this.engine === 'postgres') pick = pick.forUpdate().skipLocked();
    return this.db
      .updateTable('jobs')
      .set((eb) => ({
        status: 'running',
        owner_node: owner,
        lease_until: leaseUntil,
        started_at: now,
        epoch: eb('epoch', '+', 1),
        attempts: eb('attempts', '+', 1),
      }))
      .where('id', '=', pick)
      .where('status', '=', 'queued')
      .returningAll()
      .executeTakeFirst();
  }

  /**
   * Renews the leases `owner` holds; returns each still held (id, epoch, cancel asked) — a job
   * missing from the answer was taken over.
   */
  async renewLeases(
    owner: string,
    leaseUntil: number,
  ): Promise<{ id: number; epoch: number; cancel_requested: number }[]> {
    return this.db
      .updateTable('jobs')
      .set({ lease_until: leaseUntil })
      .where('owner_node', '=', owner)
      .where('status', '=', 'running')
      .returning(['id', 'epoch', 'cancel_requested'])
      .execute();
  }

  /**
   * Takes a running job over from a gone owner: `owner` holds it under a new epoch while it cleans
   * up. Only while the row is as the take-over was decided on: the epoch it was seen with (of two
   * nodes sweeping at once one wins) and the lease (an owner that renewed since is not gone; a
   * renewal keeps the epoch).
   */
  async takeOver(
    job: Fence & { lease_until: number | null },
    owner: string,
    leaseUntil: number,
  ): Promise<JobRow | undefined> {
    const seenLease = job.lease_until;
    return this.db
      .updateTable('jobs')
      .set((eb) => ({ owner_node: owner, lease_until: leaseUntil, epoch: eb('epoch', '+', 1) }))
      .where('id', '=', job.id)
      .where('epoch', '=', job.epoch)
      .where('status', '=', 'running')
      .where((eb) => (seenLease === null ? eb('lease_until', 'is', null) : eb('lease_until', '=', seenLease)))
      .returningAll()
      .executeTakeFirst();
  }

  /**
   * Inside a transaction that makes a job's result permanent (a scan's commit): throws
   * JobLeaseLostError unless the writer still holds the job, and (PostgreSQL) locks its row until the
   * commit, so no take-over can come between the check and the commit.
   */
  async assertHeld(job: Fence): Promise<void> {
    const res = await this.db
      .updateTable('jobs')
      .set((eb) => ({ epoch: eb.ref('epoch') }))
      .where('id', '=', job.id)
      .where('epoch', '=', job.epoch)
      .where('status', '=', 'running')
      .executeTakeFirst();
    if (res.numUpdatedRows === 0n) {
      throw new JobLeaseLostError(
        `job ${job.id}: epoch ${job.epoch} no longer holds it (another node took it over)`,
      );
    }
  }

  /** Puts a held job back in the queue for any node (fenced). */
  async requeue(job: Fence): Promise<boolean> {
    const res = await this.db
      .updateTable('jobs')
      .set({ status: 'queued', owner_node: null, lease_until: null, started_at: null })
      .where('id', '=', job.id)
      .where('epoch', '=', job.epoch)
      .where('status', '=', 'running')
      .executeTakeFirst();
    return res.numUpdatedRows > 0n;
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
      .where('status', 'in', ACTIVE)
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

  /** Fenced progress; false when the writer no longer holds the job. */
  async setProgress(job: Fence, done: number, total: number): Promise<boolean> {
    const res = await this.db
      .updateTable('jobs')
      .set({ progress_done: done, progress_total: total })
      .where('id', '=', job.id)
      .where('epoch', '=', job.epoch)
      .executeTakeFirst();
    return res.numUpdatedRows > 0n;
  }

  /** Fenced intermediate result; false when the writer no longer holds the job. */
  async setResult(job: Fence, resultJson: string): Promise<boolean> {
    const res = await this.db
      .updateTable('jobs')
      .set({ result_json: resultJson })
      .where('id', '=', job.id)
      .where('epoch', '=', job.epoch)
      .executeTakeFirst();
    return res.numUpdatedRows > 0n;
  }

  /**
   * Ends a job the writer holds (fenced; `resultJson` undefined keeps the stored result); false when
   * it no longer holds it.
   */
  async finish(
    job: Fence,
    status: JobStatus,
    resultJson: string | null | undefined,
    error: string | null,
    now: string,
  ): Promise<boolean> {
    const res = await this.db
      .updateTable('jobs')
      .set({
        status,
        error,
        finished_at: now,
        owner_node: null,
        lease_until: null,
        ...(resultJson === undefined ? {} : { result_json: resultJson }),
      })
      .where('id', '=', job.id)
      .where('epoch', '=', job.epoch)
      .where('status', 'in', ACTIVE)
      .executeTakeFirst();
    return res.numUpdatedRows > 0n;
  }

  /** Cancels a job no node has claimed yet; false when it is not queued (any more). */
  async cancelQueued(id: number, now: string): Promise<boolean> {
    const res = await this.db
      .updateTable('jobs')
      .set((eb) => ({ status: 'cancelled', finished_at: now, epoch: eb('epoch', '+', 1) }))
      .where('id', '=', id)
      .where('status', '=', 'queued')
      .executeTakeFirst();
    return res.numUpdatedRows > 0n;
  }

  /** Asks the owner of a running job to stop (its heartbeat sees it); false when it is not running. */
  async requestCancel(id: number): Promise<boolean> {
    const res = await this.db
      .updateTable('jobs')
      .set({ cancel_requested: 1 })
      .where('id', '=', id)
      .where('status', '=', 'running')
      .executeTakeFirst();
    return res.numUpdatedRows > 0n;
  }

  /** Which of these jobs have ended. */
  async finishedAmong(ids: number[]): Promise<number[]> {
    if (ids.length === 0) return [];
    const rows = await this.db
      .selectFrom('jobs')
      .select('id')
      .where('id', 'in', ids)
      .where('status', 'not in', ACTIVE)
      .execute();
    return rows.map((r) => r.id);
  }

  /** Every running job (the sweep judges their leases). */
  async listRunning(): Promise<JobRow[]> {
    return this.db.selectFrom('jobs').selectAll().where('status', '=', 'running').orderBy('id').execute();
  }

  /** The newest jobs first, optionally of one kind and/or in one status. */
  async list(filter: { kind?: string; status?: JobStatus; limit: number }): Promise<JobRow[]> {
    let query = this.db.selectFrom('jobs').selectAll();
    if (filter.kind !== undefined) query = query.where('kind', '=', filter.kind);
    if (filter.status !== undefined) query = query.where('status', '=', filter.status);
    return query.orderBy('id', 'desc').limit(filter.limit).execute();
  }
}
