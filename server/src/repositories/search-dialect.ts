import { type AliasedRawBuilder, type Kysely, PostgresAdapter, sql } from 'kysely';
import type { Database } from '../db/schema.ts';
import { ftsMatchExpression, tsQueryExpression } from '../domain/search-query.ts';

/** A movie a search finds, and how well: lower `rank` is a better match. */
export interface SearchHit {
  id: number;
  rank: number;
}

/**
 * The one place where searching the movie index differs between the engines (docs/database.md):
 * SQLite's FTS5 table (bm25) and PostgreSQL's tsvector table (ts_rank), each with the marks of
 * migration 0005 applied before a search. Both take the words of domain/search-query.ts's searchTerms
 * and answer the same movies (test/integration/search-parity.test.ts).
 */
export interface SearchDialect {
  readonly engine: 'sqlite' | 'postgres';
  /**
   * Brings the index up to date with the writes made since the last search (the rows of the movies
   * the triggers marked are rebuilt, in one statement); false when nothing was pending.
   */
  sync(db: Kysely<Database>): Promise<boolean>;
  /** The movies `words` (at least one) find, as a from-item `hit` of SearchHit rows. */
  hits(words: readonly string[]): AliasedRawBuilder<SearchHit, 'hit'>;
}

/**
 * bm25 over movie_search's columns (title, original title, cast, directors), lower is better. A word
 * found in the title counts 50 times one found in the cast: bm25's term part for it stays above the
 * most a single cast mention can reach, for any movie up to 16 times the average indexed length (a
 * title match ranks first even in a movie with a long cast list).
 */
export const sqliteSearch: SearchDialect = {
  engine: 'sqlite',
  async sync(db) {
    const mark = await db.selectFrom('movie_search_pending').select('movie_id').limit(1).executeTakeFirst();
    if (mark === undefined) return false;
    await db.insertInto('movie_search_sync').values({ run: 0 }).execute();
    return true;
  },
  hits(words) {
    return sql<SearchHit>`(SELECT rowid AS id, bm25(movie_search, 50.0, 40.0, 1.0, 5.0) AS rank
      FROM movie_search WHERE movie_search MATCH ${ftsMatchExpression(words)})`.as('hit');
  },
};

/**
 * ts_rank with the weights of the columns in bm25's proportions (tsvector weights: D cast 1,
 * C directors 5, B original title 40, A title 50; divided by 50), negated so that lower is better
 * as with bm25. Normalization 1 divides by 1 + log(the row's length), as bm25 favours the shorter
 * of two rows with the same hits. The query is parsed once (a from-item), not per row.
 */
export const postgresSearch: SearchDialect = {
  engine: 'postgres',
  async sync(db) {
    const mark = await db.selectFrom('movie_search_pending').select('movie_id').limit(1).executeTakeFirst();
    if (mark === undefined) return false;
    const { rows } = await sql<{ synced: boolean }>`SELECT reelshelf_sync_search() AS synced`.execute(db);
    return rows[0]?.synced === true;
  },
  hits(words) {
    return sql<SearchHit>`(SELECT s.movie_id AS id,
        -ts_rank('{0.02, 0.1, 0.8, 1.0}', s.document, q.query, 1)::float8 AS rank
      FROM movie_search s,
        to_tsquery('reelshelf_search', ${tsQueryExpression(words)}) AS q(query)
      WHERE s.document @@ q.query)`.as('hit');
  },
};

/** The dialect of the engine behind a Kysely instance (a transaction's too). */
export function searchDialectOf(db: Kysely<Database>): SearchDialect {
  return db.getExecutor().adapter instanceof PostgresAdapter ? postgresSearch : sqliteSearch;
}
