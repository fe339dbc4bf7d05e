import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { StagingMediaFilesTable } from '../db/schema.ts';
import { WishRepository } from './wish.repository.ts';

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

/** What a commit writes of a staged file's analysis (nothing when the staged row keeps the stored one). */
export interface ScannedAnalysis {
  analysis_status?: string;
  capabilities_json?: string | null;
  analysis_error?: string | null;
  analyzed_size_bytes?: number | null;
  analyzed_fingerprint?: string | null;
  analyzed_at?: string | null;
}

/** A changed or moved file as the commit leaves it: present, at this path, with this size and content. */
export interface ScannedFileUpdate extends ScannedAnalysis {
  relative_path: string;
  size_bytes: number;
  mtime_ms: number;
  fingerprint: string | null;
  updated_at: string;
}

/** A new file as the commit inserts it. */
export interface NewScannedFile extends ScannedAnalysis {
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

/** A movie a scan creates for files no movie matched (enrichment fills in the rest). */
export interface NewScannedMovie {
  title: string;
  sort_title: string;
  normalized_title: string;
  year: number | null;
  tmdb_id: number | null;
  imdb_id: string | null;
  created_at: string;
  updated_at: string;
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

  /** A known file seen again (changed, moved or back from missing): present, with what the scan read. */
  async updateScannedFile(id: number, values: ScannedFileUpdate): Promise<void> {
    await this.db
      .updateTable('media_files')
      .set({ ...values, status: 'present', missing_since: null })
      .where('id', '=', id)
      .execute();
  }

  async insertScannedFile(row: NewScannedFile): Promise<void> {
    await this.db
      .insertInto('media_files')
      .values({ ...row, status: 'present' })
      .execute();
  }

  async insertMovie(row: NewScannedMovie): Promise<number> {
    const res = await this.db
      .insertInto('movies')
      .values({ ...row, original_title: null, overview: null, runtime_minutes: null })
      .returning('id')
      .executeTakeFirstOrThrow();
    return res.id;
  }

  /**
   * Takes off the wish list the films this commit made owned: the movies its new files went to and
   * those of the known files it saw present again (a file back from missing); how many wishes went.
   */
  async fulfilWishes(movieIds: readonly number[], fileIds: readonly number[]): Promise<number> {
    const wishes = new WishRepository(this.db);
    return (await wishes.fulfilMovies(movieIds)) + (await wishes.fulfilMoviesOfFiles(fileIds));
  }

  async movieCandidates(): Promise<MovieCandidateRow[]> {
    return this.db
      .selectFrom('movies')
      .select(['id', 'tmdb_id', 'imdb_id', 'normalized_title', 'year'])
      .execute();
  }
}
