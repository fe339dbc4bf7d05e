import { type Kysely, sql } from 'kysely';
import { type Dialect, timestamp } from './helpers.ts';

/** The channel the jobs trigger NOTIFYs on PostgreSQL (postgres-change-feed.ts LISTENs to it). */
export const JOBS_CHANNEL = 'reelshelf_jobs';

/**
 * Jobs shared by several nodes (docs/cluster.md): a job is claimed by one node for a short lease
 * (`owner_node`, `lease_until` in epoch ms, renewed by the owner's heartbeat); `epoch` goes up at every
 * claim or take-over and fences the job's writes (`WHERE id = ? AND epoch = ?`), so a node presumed
 * dead cannot overwrite its successor's state; `cancel_requested` is how any node asks the owner to
 * stop; `attempts` counts claims. One active job per (kind, dedupe key) cluster-wide is the partial
 * unique index. `nodes` lists the live processes: role, host, pid, heartbeat and load.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema.alterTable('jobs').addColumn('owner_node', 'text').execute();
  await db.schema.alterTable('jobs').addColumn('lease_until', 'bigint').execute();
  await db.schema
    .alterTable('jobs')
    .addColumn('epoch', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('jobs')
    .addColumn('cancel_requested', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('jobs')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  // Two processes of an older version could each have queued the same key (their dedupe was in
  // memory): all but the newest such job end, so that the unique index below can exist.
  await sql`UPDATE jobs SET status = 'failed', error = 'superseded: the same job was queued twice'
    WHERE status IN ('queued', 'running') AND dedupe_key IS NOT NULL
      AND id NOT IN (SELECT max(id) FROM jobs WHERE status IN ('queued', 'running')
                     AND dedupe_key IS NOT NULL GROUP BY kind, dedupe_key)`.execute(db);
  await db.schema
    .createIndex('jobs_one_active_per_key')
    .on('jobs')
    .columns(['kind', 'dedupe_key'])
    .unique()
    .where(sql.ref('status'), 'in', [sql.lit('queued'), sql.lit('running')])
    .execute();
  await db.schema.createIndex('jobs_claim').on('jobs').columns(['status', 'kind', 'id']).execute();

  await db.schema
    .createTable('nodes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    /** all | api | worker */
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('host', 'text', (c) => c.notNull())
    .addColumn('pid', 'integer', (c) => c.notNull())
    .addColumn('started_at', timestamp, (c) => c.notNull())
    /** Epoch ms of the last heartbeat: older than a few seconds = dead. */
    .addColumn('heartbeat_at', 'bigint', (c) => c.notNull())
    /** JSON: running jobs per kind, conversion slots in use/limit. */
    .addColumn('load_json', 'text', (c) => c.notNull())
    .addColumn('version', 'text', (c) => c.notNull())
    .execute();

  if (dialect === 'postgres') {
    // Enqueues, cancels and ends wake the other nodes at once (polling is the fallback): a statement
    // trigger on the columns that say so; progress and lease renewals do not touch them.
    await sql
      .raw(
        `CREATE FUNCTION reelshelf_jobs_notify() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN PERFORM pg_notify('${JOBS_CHANNEL}', ''); RETURN NULL; END $$;
         CREATE TRIGGER reelshelf_jobs_notify AFTER INSERT OR UPDATE OF status, cancel_requested ON jobs
         FOR EACH STATEMENT EXECUTE FUNCTION reelshelf_jobs_notify();`,
      )
      .execute(db);
  }
}
