import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { SubtitleSidecarsTable } from '../db/schema.ts';

export type SubtitleSidecarRow = Selectable<SubtitleSidecarsTable>;
export type NewSubtitleSidecar = Insertable<SubtitleSidecarsTable>;

/** What the scan reads from a sidecar's name and stat; the rest of a row is bookkeeping. */
export type SidecarFields = Pick<
  SubtitleSidecarRow,
  'size_bytes' | 'mtime_ms' | 'format' | 'kind' | 'language' | 'title' | 'forced' | 'default' | 'sdh'
>;

function withNumbers(row: SubtitleSidecarRow): SubtitleSidecarRow {
  return { ...row, size_bytes: Number(row.size_bytes), mtime_ms: Number(row.mtime_ms) };
}

/** subtitle_sidecars rows: the subtitle files the scan found beside each media file. */
export class SubtitleSidecarRepository {
  constructor(private readonly db: Db) {}

  /** A media file's sidecars, by relative path. */
  async ofFile(mediaFileId: number): Promise<SubtitleSidecarRow[]> {
    const rows = await this.db
      .selectFrom('subtitle_sidecars')
      .selectAll()
      .where('media_file_id', '=', mediaFileId)
      .orderBy('relative_path')
      .execute();
    return rows.map(withNumbers);
  }

  /** Every sidecar of the media files of a library root (what a scan compares with what it found). */
  async ofRoot(rootId: number): Promise<SubtitleSidecarRow[]> {
    const rows = await this.db
      .selectFrom('subtitle_sidecars as s')
      .innerJoin('media_files as f', 'f.id', 's.media_file_id')
      .selectAll('s')
      .where('f.library_root_id', '=', rootId)
      .execute();
    return rows.map(withNumbers);
  }

  async insert(rows: NewSubtitleSidecar[]): Promise<void> {
    for (let i = 0; i < rows.length; i += 200) {
      await this.db
        .insertInto('subtitle_sidecars')
        .values(rows.slice(i, i + 200))
        .execute();
    }
  }

  async update(id: number, fields: SidecarFields, now: string): Promise<void> {
    await this.db
      .updateTable('subtitle_sidecars')
      .set({ ...fields, updated_at: now })
      .where('id', '=', id)
      .execute();
  }

  async delete(ids: number[]): Promise<void> {
    for (let i = 0; i < ids.length; i += 500) {
      await this.db
        .deleteFrom('subtitle_sidecars')
        .where('id', 'in', ids.slice(i, i + 500))
        .execute();
    }
  }
}
