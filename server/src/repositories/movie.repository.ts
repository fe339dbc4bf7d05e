import { type Expression, type RawBuilder, type Selectable, type SqlBool, sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { preparedMark } from '../db/prepared-statements.ts';
import type { CertificationFilter } from '../domain/people/visibility.ts';
import { type SearchDialect, searchDialectOf } from './search-dialect.ts';
import { movieVisible } from './visibility.repository.ts';
import { WishRepository } from './wish.repository.ts';
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

export type MoviePatchRow = Partial<Omit<NewMovieRow, 'created_at'>> & {
  updated_at: string;
  certification?: string | null;
};

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

/** Orders of a search's results: best match (bm25), sort title, newest year, newest movie. */
export type SearchOrder = 'relevance' | 'title' | 'year' | 'recent';

export interface SearchOptions {
  order?: SearchOrder;
  /** Only movies with a copy of this disc format. */
  format?: string;
  /** Only movies with a copy in this binder. */
  binder?: string;
  /** Only movies with a copy lent out (an open loan). */
  onLoan?: boolean;
  /** Only the movies a person's content limit lets through (VisibilityService.filter); null: all. */
  visible?: CertificationFilter | null;
}

/**
 * A search's column saying whether, in the snapshot it read, movies were marked whose index rows are
 * not rebuilt yet. A mark is written in the transaction of the write that makes it and taken in the
 * transaction that rebuilds the row, so when the snapshot holds none the index in it is current: the
 * caller rebuilds and searches again only when there were some (one round trip instead of a look
 * first).
 */
const STALE = sql<boolean>`exists (select 1 from movie_search_pending)`.as('stale');

/**
 * A page with no row carries no STALE, and marks read by a later statement would not tell whether
 * its snapshot had any: a sync committing in between (the one an import runs after its commit, or
 * another node's) deletes them and builds the rows the search missed, and an empty answer stood for
 * a movie just imported (CI, PostgreSQL). So an empty page always counts as stale: the caller syncs
 * (a one-row read when nothing is marked) and searches once more.
 */
const EMPTY_PAGE_STALE = true;

/** `where` condition: the movie (`movieId`, a column reference) has a copy with an open loan. */
function hasDiscOut(movieId: string): Expression<SqlBool> {
  return sql<SqlBool>`exists (select 1 from physical_copies c join loans l on l.physical_copy_id = c.id
    where c.movie_id = ${sql.ref(movieId)} and l.returned_at is null)`;
}

/** Movie, binder, edition and copy rows: one query per method, no business rules. */
export class MovieRepository {
  constructor(
    private readonly db: Db,
    /** How the movie index is searched on this database's engine (search-dialect.ts). */
    private readonly searchDialect: SearchDialect = searchDialectOf(db),
  ) {}

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

  /** A page of the movies `visible` lets through, ordered by sort title, and how many there are. */
  /** @param onLoan only the movies with a disc lent out (GET /api/movies?on_loan=true) */
  async list(
    limit: number,
    offset: number,
    visible: CertificationFilter | null,
    onLoan = false,
  ): Promise<{ rows: MovieRow[]; total: number }> {
    const rows = await this.db
      .selectFrom('movies')
      .selectAll()
      .where(movieVisible(visible, 'movies.certification'))
      .$if(onLoan, (q) => q.where(hasDiscOut('movies.id')))
      .orderBy('sort_title')
      .orderBy('id')
      .limit(limit)
      .offset(offset)
      .execute();
    const count = await this.db
      .selectFrom('movies')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where(movieVisible(visible, 'movies.certification'))
      .$if(onLoan, (q) => q.where(hasDiscOut('movies.id')))
      .executeTakeFirstOrThrow();
    return { rows, total: Number(count.n) };
  }

  /**
   * Brings the search index up to date with the writes made since the last search (SQLite: the
   * rows of the movies the triggers marked are rebuilt, in one statement); false when nothing was
   * pending.
   */
  async syncSearchIndex(): Promise<boolean> {
    return this.searchDialect.sync(this.db);
  }

  /**
   * A page of the movies `words` (domain/search-query.ts searchTerms, at least one) find, best
   * match first, and how many they find.
   */
  async search(
    words: readonly string[],
    limit: number,
    offset: number,
    visible: CertificationFilter | null,
    onLoan = false,
  ): Promise<{ rows: MovieRow[]; total: number; stale: boolean }> {
    if (visible === null && !onLoan) {
      const ranked = await this.rankedPage<MovieRow>(words, limit, offset, sql`m.*`);
      if (ranked !== null) {
        const first = ranked[0];
        if (first === undefined) {
          const total = offset === 0 ? 0 : await this.searchCount(words, { visible });
          return { rows: [], total, stale: EMPTY_PAGE_STALE };
        }
        return {
          rows: ranked.map(({ total: _total, stale: _stale, ...row }) => row),
          total: Number(first.total),
          stale: Boolean(first.stale),
        };
      }
    }
    // The page is ranked and counted on narrow rows (id, rank, sort title), then joined to its movies.
    const page = this.searchQuery(words, { visible, onLoan }, true)
      .select(['m.id', 'hit.rank', 'm.sort_title', sql<number>`count(*) over ()`.as('total'), STALE])
      .orderBy('hit.rank')
      .orderBy('m.sort_title')
      .orderBy('m.id')
      .limit(limit)
      .offset(offset);
    const found = await this.db
      .with('page', () => page)
      .selectFrom('page')
      .innerJoin('movies as m', 'm.id', 'page.id')
      .selectAll('m')
      .select(['page.total', 'page.stale'])
      .orderBy('page.rank')
      .orderBy('page.sort_title')
      .orderBy('page.id')
      .modifyEnd(preparedMark)
      .execute();
    const first = found[0];
    if (first === undefined) {
      const total = offset === 0 ? 0 : await this.searchCount(words, { visible, onLoan });
      return { rows: [], total, stale: EMPTY_PAGE_STALE };
    }
    return {
      rows: found.map(({ total: _total, stale: _stale, ...row }) => row),
      total: Number(first.total),
      stale: Boolean(first.stale),
    };
  }

  /**
   * The ids of one page of the movies `words` find (narrowed and ordered as `options` say) and how
   * many they find, in one query: the count is a window over the same rows, so the matches are
   * found, joined and ranked once, and only ids, ranks and sort titles go through the sort (the
   * rows of the page are read after). A page past the end counts on its own.
   */
  async searchPageIds(
    words: readonly string[],
    options: SearchOptions,
    limit: number,
    offset: number,
  ): Promise<{ ids: number[]; total: number; stale: boolean }> {
    const narrowed =
      (options.order ?? 'relevance') !== 'relevance' ||
      options.visible != null ||
      options.format !== undefined ||
      options.binder !== undefined ||
      options.onLoan === true;
    const ranked = narrowed ? null : await this.rankedPage<{ id: number }>(words, limit, offset, sql`m.id`);
    const rows =
      ranked ??
      (await this.orderedSearch(words, options)
        .select([sql<number>`count(*) over ()`.as('total'), STALE])
        .limit(limit)
        .offset(offset)
        .modifyEnd(preparedMark)
        .execute());
    const first = rows[0];
    if (first !== undefined) {
      return { ids: rows.map((r) => r.id), total: Number(first.total), stale: Boolean(first.stale) };
    }
    const total = offset === 0 ? 0 : await this.searchCount(words, options);
    return { ids: [], total, stale: EMPTY_PAGE_STALE };
  }

  /**
   * The ids of the movies `words` find, narrowed to those with a copy of a disc format or in a
   * binder, in an order; `limit` null for all of them.
   */
  async searchIds(
    words: readonly string[],
    options: SearchOptions,
    limit: number | null,
    offset: number,
  ): Promise<number[]> {
    const query = this.orderedSearch(words, options);
    const rows = await (limit === null ? query : query.limit(limit).offset(offset)).execute();
    return rows.map((r) => r.id);
  }

  /**
   * PostgreSQL, best match first, nobody's content limit and no narrowing: a page of `columns` of the
   * movies `words` find (best match, then sort title, then id, as searchQuery orders them), with how
   * many they find and STALE. The hits are ranked once (a CTE), the rank at the page's last place
   * found among them, and only the hits ranked up to it (ties included: the sort title decides among
   * them) joined to their movies, instead of every hit: on a broad word ("jo": 9,354 of 10,000
   * movies) joining and sorting them all cost more than ranking them. Every hit is a movie's (a
   * committed snapshot without marks holds no row of a deleted movie; with marks the caller syncs
   * and asks again), so counting the hits counts the movies. Null on SQLite (searchDialect.rankedHits).
   */
  private async rankedPage<T>(
    words: readonly string[],
    limit: number,
    offset: number,
    columns: RawBuilder<unknown>,
  ): Promise<(T & { total: number; stale: boolean })[] | null> {
    const hits = this.searchDialect.rankedHits(words);
    if (hits === null || limit < 1) return null;
    const { rows } = await sql<T & { total: number; stale: boolean }>`with hit as materialized ${hits},
      cut as (select rank from hit order by rank offset ${offset + limit - 1} limit 1)
      select ${columns}, (select count(*) from hit) as total,
        exists (select 1 from movie_search_pending) as stale
      from hit join movies m on m.id = hit.id
      where hit.rank <= coalesce((select rank from cut), 'infinity'::float8)
      order by hit.rank, m.sort_title, m.id
      limit ${limit} offset ${offset} ${preparedMark}`.execute(this.db);
    return rows;
  }

  /** The ids of the movies `words` find, narrowed and ordered as `options` say. */
  private orderedSearch(words: readonly string[], options: SearchOptions) {
    const order = options.order ?? 'relevance';
    let query = this.searchQuery(words, options, order === 'relevance').select('m.id');
    if (order === 'relevance') query = query.orderBy('hit.rank').orderBy('m.sort_title');
    else if (order === 'title') query = query.orderBy('m.sort_title');
    else if (order === 'year') {
      query = query
        .orderBy(sql`m.year is null`)
        .orderBy('m.year', 'desc')
        .orderBy('m.sort_title');
    }
    return query.orderBy('m.id', order === 'recent' ? 'desc' : 'asc');
  }

  /** How many movies `words` find (with searchIds' format and binder narrowing). */
  async searchCount(words: readonly string[], options: SearchOptions): Promise<number> {
    const row = await this.searchQuery(words, options, false)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .modifyEnd(preparedMark)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** The movies `words` find, narrowed as `options` say; `ranked`: whether `hit.rank` is read. */
  private searchQuery(words: readonly string[], options: SearchOptions, ranked: boolean) {
    const { format, binder } = options;
    return this.db
      .selectFrom(this.searchDialect.hits(words, ranked))
      .innerJoin('movies as m', 'm.id', 'hit.id')
      .where(movieVisible(options.visible ?? null, 'm.certification'))
      .$if(format !== undefined, (q) =>
        q.where(({ exists, selectFrom }) =>
          exists(
            selectFrom('physical_copies as c')
              .innerJoin('disc_editions as e', 'e.id', 'c.edition_id')
              .select('c.id')
              .whereRef('c.movie_id', '=', 'm.id')
              .where('e.format', '=', format ?? ''),
          ),
        ),
      )
      .$if(binder !== undefined, (q) =>
        q.where(({ exists, selectFrom }) =>
          exists(
            selectFrom('physical_copies as c')
              .innerJoin('binders as b', 'b.id', 'c.binder_id')
              .select('c.id')
              .whereRef('c.movie_id', '=', 'm.id')
              .where('b.name', '=', binder ?? ''),
          ),
        ),
      )
      .$if(options.onLoan === true, (q) => q.where(hasDiscOut('m.id')));
  }

  /**
   * What the /library page's filters offer, from the whole library without building it: the disc
   * formats and binder names of every copy, and how many items /library lists (movies, plus files
   * matched to none) to a person whose limit is `visible` (unmatched files are unrated).
   */
  async listingFacets(
    visible: CertificationFilter | null,
  ): Promise<{ formats: string[]; binders: string[]; items: number }> {
    const formats = await this.db
      .selectFrom('physical_copies as c')
      .innerJoin('disc_editions as e', 'e.id', 'c.edition_id')
      .select('e.format')
      .distinct()
      .where('e.format', 'is not', null)
      .where('e.format', '<>', '')
      .execute();
    const binders = await this.db
      .selectFrom('physical_copies as c')
      .innerJoin('binders as b', 'b.id', 'c.binder_id')
      .select('b.name')
      .distinct()
      .where('b.name', '<>', '')
      .execute();
    const counts = await this.db
      .selectNoFrom((eb) => [
        eb
          .selectFrom('movies')
          .select(eb.fn.countAll<number>().as('n'))
          .where(movieVisible(visible, 'movies.certification'))
          .as('movies'),
        eb
          .selectFrom('media_files')
          .select(eb.fn.countAll<number>().as('n'))
          .where('movie_id', 'is', null)
          .where(visible === null || visible.allowUnrated ? sql<boolean>`1 = 1` : sql<boolean>`0 = 1`)
          .as('files'),
      ])
      .executeTakeFirstOrThrow();
    return {
      formats: formats.flatMap((r) => (r.format === null ? [] : [r.format])),
      binders: binders.map((r) => r.name),
      items: Number(counts.movies ?? 0) + Number(counts.files ?? 0),
    };
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

  /** The slots of a binder that hold a copy (a copy with no slot holds none). */
  async slotsTaken(binderId: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('physical_copies')
      .select('slot')
      .where('binder_id', '=', binderId)
      .execute();
    return rows.flatMap((r) => (r.slot === null ? [] : [r.slot]));
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

  /** The edition that carries a barcode (normalised GTIN), with its movie. */
  async editionByBarcode(barcode: string): Promise<{ id: number; movie_id: number } | undefined> {
    return this.db
      .selectFrom('disc_editions')
      .select(['id', 'movie_id'])
      .where('barcode', '=', barcode)
      .executeTakeFirst();
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

  /**
   * Takes the movie's film off the wish list (it has just become owned: a copy was recorded in this
   * transaction); how many wishes it had.
   */
  fulfilWishes(movieId: number): Promise<number> {
    return new WishRepository(this.db).fulfil(movieId);
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
