import type { Kysely } from 'kysely';
import { type Dialect, timestamp } from './helpers.ts';

/**
 * The keyframe times of a media file's video (HLS cuts copied video at them), kept with the
 * analysis: read once from the container's index (or a packet scan), valid while the file's
 * content (`source_key` = fingerprint, else size) is the same.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('keyframe_indexes')
    .addColumn('media_file_id', 'integer', (c) =>
      c.primaryKey().references('media_files.id').onDelete('cascade'),
    )
    .addColumn('source_key', 'text', (c) => c.notNull())
    /** mkv_cues | mp4_stss | … | ffprobe_packets */
    .addColumn('source', 'text', (c) => c.notNull())
    /** JSON array of microsecond integers, delta-encoded (a 2-hour all-intra film: 170,000 entries). */
    .addColumn('times_json', 'text', (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute();
}
