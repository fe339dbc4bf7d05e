import type { Selectable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { LibraryRootsTable, MediaFilesTable } from '../db/schema.ts';

export type MediaFileRow = Selectable<MediaFilesTable>;
export type LibraryRootRow = Selectable<LibraryRootsTable>;

export interface NewMediaFile {
  library_root_id: number;
  relative_path: string;
  size_bytes: number;
  mtime_ms: number;
  fingerprint: string | null;
  movie_id: number | null;
  edition_label: string | null;
  created_at: string;
  updated_at: string;
}

export interface AnalysisResult {
  analysis_status: 'analyzed' | 'failed';
  capabilities_json: string | null;
  analysis_error: string | null;
  analyzed_size_bytes: number;
  analyzed_fingerprint: string | null;
  analyzed_at: string;
  updated_at: string;
}

/** media_files rows; one query per method. */
export class MediaFileRepository {
  constructor(private readonly db: Db) {}

  async insert(row: NewMediaFile): Promise<number> {
    const res = await this.db.insertInto('media_files').values(row).returning('id').executeTakeFirstOrThrow();
    return res.id;
  }

  async getById(id: number): Promise<MediaFileRow | undefined> {
    return this.db.selectFrom('media_files').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The file together with the absolute path of its root. */
  async getWithRoot(id: number): Promise<(MediaFileRow & { root_path: string }) | undefined> {
    return this.db
      .selectFrom('media_files as f')
      .innerJoin('library_roots as r', 'r.id', 'f.library_root_id')
      .selectAll('f')
      .select('r.path as root_path')
      .where('f.id', '=', id)
      .executeTakeFirst();
  }

  /** Present files that were never analysed, or whose size or fingerprint changed since. */
  async idsNeedingAnalysis(): Promise<number[]> {
    const rows = await this.db
      .selectFrom('media_files')
      .select('id')
      .where('status', '=', 'present')
      .where((eb) =>
        eb.or([
          eb('analysis_status', '=', 'not_analyzed'),
          eb('analyzed_size_bytes', 'is', null),
          eb('analyzed_size_bytes', '!=', eb.ref('size_bytes')),
        ]),
      )
      .orderBy('id')
      .execute();
    return rows.map((r) => r.id);
  }

  async saveAnalysis(id: number, result: AnalysisResult): Promise<void> {
    await this.db.updateTable('media_files').set(result).where('id', '=', id).execute();
  }

  async markMissing(id: number, now: string): Promise<void> {
    await this.db
      .updateTable('media_files')
      .set({ status: 'missing', missing_since: now, updated_at: now })
      .where('id', '=', id)
      .where('status', '!=', 'missing')
      .execute();
  }
}
