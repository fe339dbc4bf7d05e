import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { StagingMediaFilesTable } from '../db/schema.ts';

export type StagingRow = Selectable<StagingMediaFilesTable>;
export type NewStagingRow = Insertable<StagingMediaFilesTable>;

export interface KnownFileRow {
  id: number;
  relative_path: string;
  size_bytes: number;
  mtime_ms: number;
  fingerprint: string | null;
  status: string;
  analysis_status: string;
}

export interface MovieCandidateRow {
  id: number;
  tmdb_id: number | null;
  imdb_id: string | null;
  normalized_title: string;
  year: number | null;
}

/** Staging rows and the live-table writes of a scan's commit. */
export class ScanRepository {
  constructor(private readonly db: Db) {}

  async knownFiles(rootId: number): Promise<KnownFileRow[]> {
    const rows = await this.db
      .selectFrom('media_files')
      .select(['id', 'relative_path', 'size_bytes', 'mtime_ms', 'fingerprint', 'status', 'analysis_status'])
      .where('library_root_id', '=', rootId)
      .execute();
    return rows.map((r) => ({ ...r, size_bytes: Number(r.size_bytes), mtime_ms: Number(r.mtime_ms) }));
  }

  async insertStaging(rows: NewStagingRow[]): Promise<void> {
    if (rows.length === 0) return;
    for (let i = 0; i < rows.length; i += 200) {
      await this.db
        .insertInto('staging_media_files')
        .values(rows.slice(i, i + 200))
        .execute();
    }
  }

  async stagingOf(scanId: number): Promise<StagingRow[]> {
    return this.db
      .selectFrom('staging_media_files')
      .selectAll()
      .where('scan_id', '=', scanId)
      .orderBy('relative_path')
      .execute();
  }

  async deleteStaging(scanId: number): Promise<void> {
    await this.db.deleteFrom('staging_media_files').where('scan_id', '=', scanId).execute();
  }

  async movieCandidates(): Promise<MovieCandidateRow[]> {
    return this.db
      .selectFrom('movies')
      .select(['id', 'tmdb_id', 'imdb_id', 'normalized_title', 'year'])
      .execute();
  }
}
