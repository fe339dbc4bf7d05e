import type { Kysely } from 'kysely';
import { type Dialect, timestamp } from './helpers.ts';

/**
 * Seek thumbnails (docs/trickplay.md "Making and keeping"): one row per media file, gone with it.
 * `state`/`job_id` are the current attempt; the layout columns, sizes and `generation` describe the
 * made set on disk (`trickplay/<file>/<generation>/`), kept while a remake runs and restored when it
 * is cancelled or interrupted. The source's size, mtime and fingerprint say whether the file changed.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('trickplay')
    .addColumn('media_file_id', 'integer', (c) =>
      c.primaryKey().references('media_files.id').onDelete('cascade'),
    )
    /** queued | running | ready | failed */
    .addColumn('state', 'text', (c) => c.notNull())
    /** The job of the current (or last) attempt. */
    .addColumn('job_id', 'integer')
    /** The job that made the set on disk (its folder name); null = no set. */
    .addColumn('generation', 'integer')
    /** keyframes | accurate */
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('interval_ms', 'integer')
    .addColumn('thumbnail_width', 'integer')
    .addColumn('thumbnail_height', 'integer')
    .addColumn('tile_width', 'integer')
    .addColumn('tile_height', 'integer')
    .addColumn('thumbnail_count', 'integer')
    /** JSON array of each sheet's bytes. */
    .addColumn('sheet_bytes_json', 'text')
    .addColumn('roku_tile_width', 'integer')
    .addColumn('roku_tile_height', 'integer')
    .addColumn('roku_sheet_bytes_json', 'text')
    .addColumn('bif_bytes', 'bigint')
    /** Why the last attempt failed (a person reads it). */
    .addColumn('reason', 'text')
    .addColumn('source_size_bytes', 'bigint', (c) => c.notNull())
    .addColumn('source_mtime_ms', 'bigint', (c) => c.notNull())
    .addColumn('source_fingerprint', 'text')
    .addColumn('made_at', timestamp)
    .addColumn('failed_at', timestamp)
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('updated_at', timestamp, (c) => c.notNull())
    .execute();
}
