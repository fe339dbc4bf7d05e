import { sql } from 'kysely';
import type { Db } from '../db/database.ts';

export interface LibraryMovieRow {
  id: number;
  title: string;
  year: number | null;
  overview: string | null;
  has_digital_store_a: number;
  has_digital_store_b: number;
  created_at: string;
}

export interface LibraryCopyRow {
  movie_id: number;
  edition_id: number | null;
  binder: string | null;
  slot: string | null;
  format: string | null;
}

export interface LibraryFileRow {
  id: number;
  movie_id: number | null;
  edition_id: number | null;
  root_path: string;
  relative_path: string;
  size_bytes: number;
  fingerprint: string | null;
  edition_label: string | null;
  status: string;
  analysis_status: string;
  capabilities_json: string | null;
  analysis_error: string | null;
  analyzed_size_bytes: number | null;
  analyzed_fingerprint: string | null;
  position_seconds: number | null;
  watched: number | null;
  /** The file's subtitle sidecars as a JSON array of subtitle_sidecars rows ('[]' without any). */
  sidecars_json: string;
}

export interface CreditNameRow {
  movie_id: number;
  name: string;
  role: string;
}

/**
 * Bulk reads behind GET /library: a handful of ordered queries over whole tables instead of one
 * query per movie, so 10,000 movies cost the same five round trips as ten.
 */
export class LibraryRepository {
  constructor(private readonly db: Db) {}

  /** All movies, or one (`movieId`): every read here takes the same optional filter. */
  async movies(movieId?: number): Promise<LibraryMovieRow[]> {
    return this.db
      .selectFrom('movies')
      .$if(movieId !== undefined, (q) => q.where('id', '=', movieId ?? 0))
      .select(['id', 'title', 'year', 'overview', 'has_digital_store_a', 'has_digital_store_b', 'created_at'])
      .orderBy('sort_title')
      .orderBy('id')
      .execute();
  }

  async copies(movieId?: number): Promise<LibraryCopyRow[]> {
    return this.db
      .selectFrom('physical_copies as c')
      .$if(movieId !== undefined, (q) => q.where('c.movie_id', '=', movieId ?? 0))
      .leftJoin('binders as b', 'b.id', 'c.binder_id')
      .leftJoin('disc_editions as e', 'e.id', 'c.edition_id')
      .select(['c.movie_id', 'c.edition_id', 'b.name as binder', 'c.slot', 'e.format'])
      .orderBy('c.movie_id')
      .orderBy('c.id')
      .execute();
  }

  async files(movieId?: number): Promise<LibraryFileRow[]> {
    return this.fileQuery()
      .$if(movieId !== undefined, (q) => q.where('f.movie_id', '=', movieId ?? 0))
      .orderBy('f.movie_id')
      .orderBy('f.id')
      .execute();
  }

  /** One file in the listing's shape (streaming and prewarm decide with the same rules). */
  async file(id: number): Promise<LibraryFileRow | undefined> {
    return this.fileQuery().where('f.id', '=', id).executeTakeFirst();
  }

  private fileQuery() {
    return this.db
      .selectFrom('media_files as f')
      .innerJoin('library_roots as r', 'r.id', 'f.library_root_id')
      .leftJoin('watch_state as w', 'w.media_file_id', 'f.id')
      .select([
        'f.id',
        'f.movie_id',
        'f.edition_id',
        'r.path as root_path',
        'f.relative_path',
        'f.size_bytes',
        'f.fingerprint',
        'f.edition_label',
        'f.status',
        'f.analysis_status',
        'f.capabilities_json',
        'f.analysis_error',
        'f.analyzed_size_bytes',
        'f.analyzed_fingerprint',
        'w.position_seconds',
        'w.watched',
        // One indexed lookup per file (unique media_file_id, relative_path): no sidecar, no cost.
        sql<string>`(select coalesce(json_group_array(json_object(
            'relative_path', s.relative_path, 'size_bytes', s.size_bytes, 'mtime_ms', s.mtime_ms,
            'format', s.format, 'kind', s.kind, 'language', s.language, 'title', s.title,
            'forced', s.forced, 'default', s."default", 'sdh', s.sdh)), '[]')
          from subtitle_sidecars s where s.media_file_id = f.id)`.as('sidecars_json'),
      ]);
  }

  async artwork(movieId?: number) {
    return this.db
      .selectFrom('movie_artwork_state')
      .selectAll()
      .$if(movieId !== undefined, (q) => q.where('movie_id', '=', movieId ?? 0))
      .execute();
  }

  /** Cast (in billing order) and directors, the names /library exposes for search. */
  async creditNames(movieId?: number): Promise<CreditNameRow[]> {
    return this.db
      .selectFrom('person_movie as pm')
      .$if(movieId !== undefined, (q) => q.where('pm.movie_id', '=', movieId ?? 0))
      .innerJoin('persons as p', 'p.id', 'pm.person_id')
      .select(['pm.movie_id', 'p.name', 'pm.role'])
      .where((eb) => eb.or([eb('pm.role', '=', 'cast'), eb('pm.job', '=', 'Director')]))
      .orderBy('pm.movie_id')
      .orderBy('pm.role')
      .orderBy('pm.sort_order')
      .execute();
  }
}
