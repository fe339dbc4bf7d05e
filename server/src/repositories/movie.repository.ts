import { type Selectable, sql } from 'kysely';
import type { Db } from '../db/database.ts';
import type { BindersTable, DiscEditionsTable, MoviesTable } from '../db/schema.ts';

export type MovieRow = Selectable<MoviesTable>;
export type EditionRow = Selectable<DiscEditionsTable>;
export type BinderRow = Selectable<BindersTable>;

export interface NewMovieRow {
  title: string;
  sort_title: string;
  normalized_title: string;
  original_title: string | null;
  year: number | null;
  overview: string | null;
  runtime_minutes: number | null;
  tmdb_id: number | null;
  imdb_id: string | null;
  has_digital_store_a: number;
  has_digital_store_b: number;
  watched: number;
  created_at: string;
  updated_at: string;
}

export type MoviePatchRow = Partial<Omit<NewMovieRow, 'created_at'>> & { updated_at: string };

export interface CopyDetailRow {
  id: number;
  movie_id: number;
  edition_id: number | null;
  binder: string | null;
  slot: string | null;
  format: string | null;
  edition_label: string | null;
  notes: string | null;
}

export interface MediaFileSummaryRow {
  id: number;
  movie_id: number | null;
  library_root_id: number;
  relative_path: string;
  size_bytes: number;
  status: string;
  analysis_status: string;
  edition_label: string | null;
}

/** Movie, binder, edition and copy rows: one query per method, no business rules. */
export class MovieRepository {
  constructor(private readonly db: Db) {}

  async insert(row: NewMovieRow): Promise<number> {
    const res = await this.db.insertInto('movies').values(row).returning('id').executeTakeFirstOrThrow();
    return res.id;
  }

  async getById(id: number): Promise<MovieRow | undefined> {
    return this.db.selectFrom('movies').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async getByTmdbId(tmdbId: number): Promise<MovieRow | undefined> {
    return this.db.selectFrom('movies').selectAll().where('tmdb_id', '=', tmdbId).executeTakeFirst();
  }

  async update(id: number, patch: MoviePatchRow): Promise<void> {
    await this.db.updateTable('movies').set(patch).where('id', '=', id).execute();
  }

  async delete(id: number): Promise<boolean> {
    const res = await this.db.deleteFrom('movies').where('id', '=', id).executeTakeFirst();
    return res.numDeletedRows > 0n;
  }

  /**
   * A page of movies ordered by sort title, optionally filtered by a normalised query that must
   * appear in the title (matched against normalized_title with LIKE, parameterised).
   */
  async list(
    query: string | null,
    limit: number,
    offset: number,
  ): Promise<{ rows: MovieRow[]; total: number }> {
    let base = this.db.selectFrom('movies');
    if (query !== null && query !== '') {
      const pattern = `%${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      base = base.where(sql<boolean>`normalized_title like ${pattern} escape '\\'`);
    }
    const rows = await base
      .selectAll()
      .orderBy('sort_title')
      .orderBy('id')
      .limit(limit)
      .offset(offset)
      .execute();
    const count = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return { rows, total: Number(count.n) };
  }

  async getOrCreateBinder(name: string, capacity: number, now: string): Promise<BinderRow> {
    const existing = await this.db
      .selectFrom('binders')
      .selectAll()
      .where('name', '=', name)
      .executeTakeFirst();
    if (existing !== undefined) return existing;
    return this.db
      .insertInto('binders')
      .values({ name, capacity, created_at: now })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  async isSlotTaken(binderId: number, slot: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('physical_copies')
      .select('id')
      .where('binder_id', '=', binderId)
      .where('slot', '=', slot)
      .executeTakeFirst();
    return row !== undefined;
  }

  async insertEdition(row: {
    movie_id: number;
    label: string | null;
    format: string | null;
    barcode: string | null;
    created_at: string;
  }): Promise<number> {
    const res = await this.db
      .insertInto('disc_editions')
      .values(row)
      .returning('id')
      .executeTakeFirstOrThrow();
    return res.id;
  }

  async insertCopy(row: {
    movie_id: number;
    edition_id: number | null;
    binder_id: number | null;
    slot: string | null;
    notes: string | null;
    created_at: string;
  }): Promise<number> {
    const res = await this.db
      .insertInto('physical_copies')
      .values(row)
      .returning('id')
      .executeTakeFirstOrThrow();
    return res.id;
  }

  async editionsOf(movieId: number): Promise<EditionRow[]> {
    return this.db
      .selectFrom('disc_editions')
      .selectAll()
      .where('movie_id', '=', movieId)
      .orderBy('id')
      .execute();
  }

  async copiesOf(movieId: number): Promise<CopyDetailRow[]> {
    return this.db
      .selectFrom('physical_copies as c')
      .leftJoin('binders as b', 'b.id', 'c.binder_id')
      .leftJoin('disc_editions as e', 'e.id', 'c.edition_id')
      .select([
        'c.id',
        'c.movie_id',
        'c.edition_id',
        'b.name as binder',
        'c.slot',
        'e.format',
        'e.label as edition_label',
        'c.notes',
      ])
      .where('c.movie_id', '=', movieId)
      .orderBy('c.id')
      .execute();
  }

  async ratingsOf(movieId: number) {
    return this.db
      .selectFrom('movie_ratings')
      .select(['source', 'value', 'fetched_at'])
      .where('movie_id', '=', movieId)
      .orderBy('source')
      .execute();
  }

  async creditsOf(movieId: number) {
    return this.db
      .selectFrom('person_movie as pm')
      .innerJoin('persons as p', 'p.id', 'pm.person_id')
      .select(['p.name', 'pm.role', 'pm.character', 'pm.job'])
      .where('pm.movie_id', '=', movieId)
      .orderBy('pm.role')
      .orderBy('pm.sort_order')
      .execute();
  }

  async studiosOf(movieId: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('movie_studio as ms')
      .innerJoin('studios as s', 's.id', 'ms.studio_id')
      .select('s.name')
      .where('ms.movie_id', '=', movieId)
      .orderBy('s.name')
      .execute();
    return rows.map((r) => r.name);
  }

  async mediaFilesOf(movieId: number): Promise<MediaFileSummaryRow[]> {
    return this.db
      .selectFrom('media_files')
      .select([
        'id',
        'movie_id',
        'library_root_id',
        'relative_path',
        'size_bytes',
        'status',
        'analysis_status',
        'edition_label',
      ])
      .where('movie_id', '=', movieId)
      .orderBy('id')
      .execute();
  }
}
