import { type Kysely, sql } from 'kysely';
import type { Dialect } from './helpers.ts';

/** The channel the HLS triggers NOTIFY on PostgreSQL (payload: the presentation key). */
export const HLS_CHANNEL = 'reelshelf_hls';

/**
 * HLS conversions shared by several nodes (docs/cluster.md "HLS across nodes"). `hls_runs`: one row
 * per presentation, who converts it (`owner_node` for a lease `lease_until`, epoch ms, renewed by the
 * owner's heartbeat; `epoch` goes up at every claim and fences the owner's writes), where its ffmpeg
 * started (`start_index`) and how far it got (`next_index`), where players want it (`wanted_index`;
 * `wanted_seq` moves at every seek so the owner hears it), whether a node asked for a run nobody holds
 * (`asked`), whether a prewarm keeps it going (`pinned`), when a player last asked anything of it
 * (`last_request_at`, the idle stop) and why its last run failed. `hls_segments`: every finished
 * segment (`idx`, the init section as -1) as its owner announced it, under the epoch it was made in
 * and the file name it has in the presentation's folder (names carry the epoch: a run presumed dead
 * never overwrites its successor's files). Nodes serve what this table says, never a folder listing.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('hls_runs')
    .addColumn('presentation_key', 'text', (c) => c.primaryKey())
    .addColumn('file_id', 'integer', (c) => c.notNull())
    .addColumn('device', 'text', (c) => c.notNull())
    .addColumn('burn', 'integer')
    .addColumn('for_prewarm', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('owner_node', 'text')
    .addColumn('epoch', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lease_until', 'bigint')
    .addColumn('start_index', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_index', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('wanted_index', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('wanted_seq', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('asked', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('pinned', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_request_at', 'bigint', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('hls_runs_owner').on('hls_runs').column('owner_node').execute();
  await db.schema
    .createTable('hls_segments')
    .addColumn('presentation_key', 'text', (c) => c.notNull())
    .addColumn('rendition', 'text', (c) => c.notNull())
    .addColumn('idx', 'integer', (c) => c.notNull())
    .addColumn('epoch', 'integer', (c) => c.notNull())
    .addColumn('bytes', 'integer', (c) => c.notNull())
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('hls_segments_pk', ['presentation_key', 'rendition', 'idx'])
    .execute();

  if (dialect === 'postgres') {
    // A segment announced, a seek asked, a run claimed, asked for or given back wakes the nodes at
    // once (each also polls): the key as payload, so a node looks only at what it plays. Lease
    // renewals and progress do not touch the columns named here.
    await sql
      .raw(
        `CREATE FUNCTION reelshelf_hls_notify() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN PERFORM pg_notify('${HLS_CHANNEL}', NEW.presentation_key); RETURN NULL; END $$;
         CREATE TRIGGER reelshelf_hls_segments_notify AFTER INSERT ON hls_segments
         FOR EACH ROW EXECUTE FUNCTION reelshelf_hls_notify();
         CREATE TRIGGER reelshelf_hls_runs_notify AFTER INSERT OR UPDATE OF owner_node, epoch, wanted_seq, asked, pinned, error ON hls_runs
         FOR EACH ROW EXECUTE FUNCTION reelshelf_hls_notify();`,
      )
      .execute(db);
  }
}
