import type { Db } from '../db/database.ts';
import type {
  ArtworkRow,
  BinderRow,
  CopyLoanRow,
  CopyRow,
  CreditRow,
  EditionRow,
  LibraryReads,
  MediaFileRow,
  MovieRow,
  RootRow,
  WatchRow,
} from '../domain/import-export/library-rows.ts';

/**
 * Whole-library reads for import (the snapshot a plan is made against) and export (the document).
 * Every list is in a stable order (ids, or billing order for credits).
 */
export class ImportExportRepository implements LibraryReads {
  constructor(private readonly db: Db) {}

  movies(): Promise<MovieRow[]> {
    return this.db.selectFrom('movies').selectAll().orderBy('id').execute();
  }

  editions(): Promise<EditionRow[]> {
    return this.db.selectFrom('disc_editions').selectAll().orderBy('id').execute();
  }

  copies(): Promise<CopyRow[]> {
    return this.db
      .selectFrom('physical_copies as c')
      .leftJoin('binders as b', 'b.id', 'c.binder_id')
      .select(['c.id', 'c.movie_id', 'c.edition_id', 'b.name as binder', 'c.slot', 'c.notes'])
      .orderBy('c.id')
      .execute();
  }

  loans(): Promise<CopyLoanRow[]> {
    return this.db
      .selectFrom('loans')
      .select(['physical_copy_id', 'borrower as to', 'lent_at', 'due', 'returned_at'])
      .orderBy('id')
      .execute();
  }

  binders(): Promise<BinderRow[]> {
    return this.db.selectFrom('binders').selectAll().orderBy('id').execute();
  }

  collections(): Promise<{ id: number; name: string }[]> {
    return this.db.selectFrom('collections').select(['id', 'name']).orderBy('id').execute();
  }

  roots(): Promise<RootRow[]> {
    return this.db
      .selectFrom('library_roots as r')
      .leftJoin('collections as c', 'c.id', 'r.collection_id')
      .select(['r.id', 'r.path', 'r.name', 'c.name as collection'])
      .orderBy('r.id')
      .execute();
  }

  async mediaFiles(): Promise<MediaFileRow[]> {
    const rows = await this.db
      .selectFrom('media_files as f')
      .innerJoin('library_roots as r', 'r.id', 'f.library_root_id')
      .select([
        'f.id',
        'f.movie_id',
        'f.edition_id',
        'r.path as root_path',
        'f.relative_path',
        'f.fingerprint',
        'f.size_bytes',
        'f.edition_label',
      ])
      .orderBy('f.id')
      .execute();
    return rows.map((r) => ({ ...r, size_bytes: Number(r.size_bytes) }));
  }

  /** One person's watch state (null: the first admin's, as the CLI exports and imports). */
  watchStates(userId: number | null): Promise<WatchRow[]> {
    return this.db
      .selectFrom('watch_state')
      .select(['media_file_id', 'movie_id', 'position_seconds', 'watched', 'updated_at'])
      .$if(userId !== null, (q) => q.where('user_id', '=', userId ?? 0))
      .$if(userId === null, (q) =>
        q.where('user_id', '=', (eb) =>
          eb
            .selectFrom('users')
            .select((u) => u.fn.min('id').as('id'))
            .where('role', '=', 'admin'),
        ),
      )
      .execute();
  }

  ratings(): Promise<{ movie_id: number; source: string; value: string }[]> {
    return this.db
      .selectFrom('movie_ratings')
      .select(['movie_id', 'source', 'value'])
      .orderBy('movie_id')
      .orderBy('source')
      .execute();
  }

  /** Cast and directors in billing order (person_movie.sort_order, then insertion). */
  async credits(): Promise<CreditRow[]> {
    const rows = await this.db
      .selectFrom('person_movie as pm')
      .innerJoin('persons as p', 'p.id', 'pm.person_id')
      .select(['pm.movie_id', 'p.name', 'pm.role'])
      .where((eb) => eb.or([eb('pm.role', '=', 'cast'), eb('pm.job', '=', 'Director')]))
      .orderBy('pm.movie_id')
      .orderBy('pm.sort_order')
      .orderBy('pm.id')
      .execute();
    return rows.map((r) => ({
      movie_id: r.movie_id,
      name: r.name,
      kind: r.role === 'cast' ? 'cast' : 'director',
    }));
  }

  movieStudios(): Promise<{ movie_id: number; name: string }[]> {
    return this.db
      .selectFrom('movie_studio as ms')
      .innerJoin('studios as s', 's.id', 'ms.studio_id')
      .select(['ms.movie_id', 's.name'])
      .orderBy('ms.movie_id')
      .orderBy('s.name')
      .execute();
  }

  /** Every person (first id per name wins when a name is shared). */
  persons(): Promise<{ id: number; name: string }[]> {
    return this.db.selectFrom('persons').select(['id', 'name']).orderBy('id').execute();
  }

  studios(): Promise<{ id: number; name: string }[]> {
    return this.db.selectFrom('studios').select(['id', 'name']).orderBy('id').execute();
  }

  artwork(): Promise<ArtworkRow[]> {
    return this.db.selectFrom('movie_artwork_state').selectAll().execute();
  }
}
