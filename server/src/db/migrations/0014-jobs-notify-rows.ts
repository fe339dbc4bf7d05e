import { type Kysely, sql } from 'kysely';
import type { Dialect } from './helpers.ts';

/**
 * PostgreSQL only: the jobs trigger of migration 0009 fires per row, so only a statement that
 * enqueues, claims, cancels or ends a job announces it. As a statement trigger it fired for every
 * UPDATE naming `status`, rows or none: an idle node's claim that found nothing NOTIFYed, the NOTIFY
 * woke every runner (this one too), and each claimed again — ~90 empty claims a second per node,
 * for ever, taking CPU and pool connections from the requests (issue 26: the fixed cost of a
 * request on PostgreSQL). Notifications a transaction repeats are delivered once.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql.raw(`DROP TRIGGER reelshelf_jobs_notify ON jobs`).execute(db);
  await sql
    .raw(
      `CREATE TRIGGER reelshelf_jobs_notify AFTER INSERT OR UPDATE OF status, cancel_requested ON jobs
        FOR EACH ROW EXECUTE FUNCTION reelshelf_jobs_notify()`,
    )
    .execute(db);
}
