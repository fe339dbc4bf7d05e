import type { Kysely } from 'kysely';
import { type Dialect, idColumn, timestamp } from './helpers.ts';

/**
 * Subtitle files beside a media file (sidecars), found by the scan with their video and read from
 * their names (docs/naming.md, "Subtitles"). A new, changed or removed sidecar is picked up by the
 * next scan without analysing the video again; the file's contents are read only when it is served.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await idColumn(db.schema.createTable('subtitle_sidecars'), dialect)
    .addColumn('media_file_id', 'integer', (c) =>
      c.notNull().references('media_files.id').onDelete('cascade'),
    )
    /** Relative to the library root, like media files (`Heat (1995)/Heat (1995).en.srt`; VobSub: the `.idx`). */
    .addColumn('relative_path', 'text', (c) => c.notNull())
    /** VobSub: of the `.idx` and its `.sub` together (the later mtime), so a change of either is seen. */
    .addColumn('size_bytes', 'bigint', (c) => c.notNull())
    .addColumn('mtime_ms', 'bigint', (c) => c.notNull())
    /** srt | ass | ssa | webvtt | microdvd | vobsub | pgs */
    .addColumn('format', 'text', (c) => c.notNull())
    /** text | image */
    .addColumn('kind', 'text', (c) => c.notNull())
    /** ISO 639-2/B (eng, fre, ger) */
    .addColumn('language', 'text')
    .addColumn('title', 'text')
    .addColumn('forced', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('default', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('sdh', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('updated_at', timestamp, (c) => c.notNull())
    .addUniqueConstraint('subtitle_sidecars_file_path', ['media_file_id', 'relative_path'])
    .execute();
}
