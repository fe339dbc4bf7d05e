import { type Expression, type SqlBool, sql } from 'kysely';
import { insertRows } from '../db/bulk-insert.ts';
import type { Db } from '../db/database.ts';
import type { FilmKey, NewWish, WishRow } from '../domain/wishes.ts';
import { AppError } from '../errors.ts';
import { filmHasDisc, filmHasPresentFile } from './rip-queue.predicate.ts';
import { isUniqueViolation } from '../db/unique-violation.ts';

const COLUMNS = ['id', 'tmdb_id', 'title', 'year', 'normalized_title', 'note', 'created_at'] as const;

/**
 * domain/wishes.ts's wishMatchesFilm in SQL: movie `m` is the film of wish `w` (same TMDb id when both
 * have one, else the same normalized title and year).
 */
const MATCHES = sql<SqlBool>`(case when w.tmdb_id is not null and m.tmdb_id is not null
  then m.tmdb_id = w.tmdb_id
  else m.normalized_title = w.normalized_title and coalesce(m.year, 0) = coalesce(w.year, 0) end)`;

/**
 * MATCHES implies one of these (the same TMDb id, or the same normalized title): never a rule of
 * their own, they let a statement over many movies reach each wish's candidates by an equality the
 * engines index or hash (movies' tmdb_id and normalized_title indexes; a hashed semi-join on
 * PostgreSQL) instead of testing MATCHES on every wish and movie pair (a scan of 10,000 files against
 * 1,000 wishes). One statement each: an OR of the two is again a test of every pair on PostgreSQL.
 */
const CANDIDATES = [
  sql<SqlBool>`m.tmdb_id = w.tmdb_id`,
  sql<SqlBool>`m.normalized_title = w.normalized_title`,
] as const;

/**
 * Movie `m` is owned: a physical copy of it, or a file of it on disk (a missing file does not count):
 * the rip queue's two facts (rip-queue.predicate.ts), either one.
 */
const OWNED = sql<SqlBool>`(${filmHasDisc('m.id')} or ${filmHasPresentFile('m.id')})`;

/** The wish list (migration 0020; docs/collector.md "Wish list"). */
export class WishRepository {
  constructor(private readonly db: Db) {}

  /** Every wish, by title, year and TMDb id. */
  list(): Promise<WishRow[]> {
    return this.db
      .selectFrom('wishes')
      .select([...COLUMNS])
      .orderBy('normalized_title')
      .orderBy(sql`coalesce(year, 0)`)
      .orderBy(sql`coalesce(tmdb_id, 0)`)
      .orderBy('title')
      .execute();
  }

  byId(id: number): Promise<WishRow | undefined> {
    return this.db
      .selectFrom('wishes')
      .select([...COLUMNS])
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** The wish that is this film already (same TMDb id, or same normalized title and year). */
  same(key: FilmKey): Promise<WishRow | undefined> {
    return this.db
      .selectFrom('wishes')
      .select([...COLUMNS])
      .where((eb) => {
        const byTitle: Expression<SqlBool> = eb.and([
          eb('normalized_title', '=', key.normalized_title),
          eb(sql`coalesce(year, 0)`, '=', key.year ?? 0),
        ]);
        return key.tmdb_id === null ? byTitle : eb.or([eb('tmdb_id', '=', key.tmdb_id), byTitle]);
      })
      .orderBy('id')
      .executeTakeFirst();
  }

  /** An owned movie that is this film (domain/wishes.ts wishMatchesFilm), if any. */
  async ownedMovie(key: FilmKey): Promise<{ id: number; title: string } | undefined> {
    const row = await sql<{ id: number; title: string }>`
      select m.id, m.title from (select cast(${key.tmdb_id} as integer) as tmdb_id,
        cast(${key.normalized_title} as text) as normalized_title, cast(${key.year} as integer) as year) w
      join movies m on ${MATCHES} where ${OWNED} order by m.id limit 1`.execute(this.db);
    return row.rows[0];
  }

  /** Every owned film (an import's plan matches its wish rows against them). */
  ownedFilms(): Promise<FilmKey[]> {
    return this.db
      .selectFrom('movies as m')
      .select(['m.tmdb_id', 'm.normalized_title', 'm.year'])
      .where(OWNED)
      .execute();
  }

  /** 409 `already_wished` when another writer added the same film first (the unique indexes decide). */
  async insert(row: NewWish): Promise<WishRow> {
    try {
      return await this.db
        .insertInto('wishes')
        .values(row)
        .returning([...COLUMNS])
        .executeTakeFirstOrThrow();
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      throw new AppError('already_wished', { message: `${row.title} is on the wish list already.` });
    }
  }

  /** Many wishes, 500 a statement (an import: its plan left out the ones already wished). */
  async insertMany(rows: readonly NewWish[]): Promise<void> {
    for (let i = 0; i < rows.length; i += 500) {
      await insertRows(this.db, 'wishes', rows.slice(i, i + 500)).execute();
    }
  }

  async delete(id: number): Promise<boolean> {
    const out = await this.db.deleteFrom('wishes').where('id', '=', id).executeTakeFirst();
    return Number(out.numDeletedRows) > 0;
  }

  async deleteIds(ids: readonly number[]): Promise<void> {
    for (let i = 0; i < ids.length; i += 500) {
      await this.db
        .deleteFrom('wishes')
        .where('id', 'in', ids.slice(i, i + 500))
        .execute();
    }
  }

  /**
   * Deletes the wishes of this movie's film when the movie is owned (MATCHES and OWNED, both read in
   * the caller's transaction); how many there were. Every write that can make a film owned calls it
   * after the write (docs/collector.md "Wish list"): a copy, a file found present, a movie's identity
   * set or changed; a movie that is still not owned fulfils nothing.
   */
  fulfil(movieId: number): Promise<number> {
    return this.fulfilMovies([movieId]);
  }

  /** {@link fulfil} for many movies (a scan's), 500 ids a statement. */
  async fulfilMovies(movieIds: readonly number[]): Promise<number> {
    const ids = [...new Set(movieIds)];
    if (ids.length === 0 || !(await this.anyWishes())) return 0;
    let deleted = 0;
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      deleted += await this.fulfilWhere(sql<SqlBool>`m.id in (${sql.join(chunk)})`);
    }
    return deleted;
  }

  /** {@link fulfil} for the movies of these media files (a scan saw them present again), 500 a statement. */
  async fulfilMoviesOfFiles(fileIds: readonly number[]): Promise<number> {
    const ids = [...new Set(fileIds)];
    if (ids.length === 0 || !(await this.anyWishes())) return 0;
    let deleted = 0;
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      deleted += await this.fulfilWhere(
        sql<SqlBool>`m.id in (select mf.movie_id from media_files mf where mf.id in (${sql.join(chunk)}))`,
      );
    }
    return deleted;
  }

  /**
   * Whether the list holds any wish: most libraries keep none, and a scan's commit then skips its
   * statements over every movie it touched (tens of ms on PostgreSQL for 10,000 files).
   */
  private async anyWishes(): Promise<boolean> {
    const row = await this.db.selectFrom('wishes').select('id').limit(1).executeTakeFirst();
    return row !== undefined;
  }

  /** Deletes every wish whose film is an owned movie `m` that `picked` selects (the one rule: MATCHES). */
  private async fulfilWhere(picked: Expression<SqlBool>): Promise<number> {
    let deleted = 0;
    for (const candidate of CANDIDATES) {
      const out = await this.db
        .deleteFrom('wishes as w')
        .where(({ exists, selectFrom }) =>
          exists(
            selectFrom('movies as m')
              .select(sql`1`.as('one'))
              .where(candidate)
              .where(picked)
              .where(MATCHES)
              .where(OWNED),
          ),
        )
        .executeTakeFirst();
      deleted += Number(out.numDeletedRows);
    }
    return deleted;
  }
}
