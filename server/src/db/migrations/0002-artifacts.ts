import type { Kysely } from 'kysely';
import { type Dialect, idColumn, timestamp } from './helpers.ts';

/** Playback artifacts (remuxed / converted MP4s), keyed by source fingerprint, device and plan. */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await idColumn(db.schema.createTable('artifacts'), dialect)
    .addColumn('artifact_key', 'text', (c) => c.notNull().unique())
    .addColumn('media_file_id', 'integer', (c) =>
      c.notNull().references('media_files.id').onDelete('cascade'),
    )
    .addColumn('device', 'text', (c) => c.notNull())
    .addColumn('source_fingerprint', 'text', (c) => c.notNull())
    .addColumn('plan_json', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    /** building | ready | failed | cancelled */
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('size_bytes', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('error', 'text')
    .addColumn('job_id', 'integer')
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('completed_at', timestamp)
    .addColumn('last_used_at', timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('artifacts_file_device')
    .on('artifacts')
    .columns(['media_file_id', 'device'])
    .execute();
  await db.schema.createIndex('artifacts_lru').on('artifacts').columns(['status', 'last_used_at']).execute();
}
