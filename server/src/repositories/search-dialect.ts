import { type AliasedRawBuilder, type Kysely, PostgresAdapter, type RawBuilder, sql } from 'kysely';
import type { Database } from '../db/schema.ts';
import { ftsMatchExpression, tsQueryExpression } from '../domain/search-query.ts';

/** A movie a search finds, and how well: lower `rank` is a better match. */
export interface SearchHit {
  id: number;
  rank: number;
}

/**
 * The one place where searching the movie index differs between the engines (docs/database.md):
 * SQLite's FTS5 table and PostgreSQL's tsvector table, both ranked by bm25, each with the marks
 * of migration 0005 applied before a search. Both take the words of domain/search-query.ts's
 * searchTerms and answer the same movies in the same order (test/integration/search-parity.test.ts).
 */
export interface SearchDialect {
  readonly engine: 'sqlite' | 'postgres';
  /**
   * Brings the index up to date with the writes made since the last search (the rows of the movies
   * the triggers marked are rebuilt, in one statement); false when nothing was pending.
   */
  sync(db: Kysely<Database>): Promise<boolean>;
  /**
   * The movies `words` (at least one) find, as a from-item `hit` of SearchHit rows; `ranked` false
   * when the rank is not read (counts, other orders): it is then 0, and not computed.
   */
  hits(words: readonly string[], ranked: boolean): AliasedRawBuilder<SearchHit, 'hit'>;
  /**
   * PostgreSQL: the ranked hits as a parenthesised query (for a CTE), so that a page of the best
   * matches joins only the rows that can be on it (MovieRepository's rankedPage); null on SQLite,
   * whose join costs no more than the ranking.
   */
  rankedHits(words: readonly string[]): RawBuilder<SearchHit> | null;
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
  hits(words, ranked) {
    const rank = ranked ? sql`bm25(movie_search, 50.0, 40.0, 1.0, 5.0)` : sql`0.0`;
    return sql<SearchHit>`(SELECT rowid AS id, ${rank} AS rank
      FROM movie_search WHERE movie_search MATCH ${ftsMatchExpression(words)})`.as('hit');
  },
  rankedHits() {
    return null;
  },
};

/**
 * FTS5's bm25 (sqlite.org/fts5.html#the_bm25_function; fts5_aux.c), computed on PostgreSQL, so the
 * order is SQLite's: for each word i, idf(i) = ln((N − n(i) + 0.5) / (n(i) + 0.5)) (at least 1e-6)
 * over the N rows and the n(i) rows it finds; f(i) = the weighted count of its hits in the row (a
 * word starting with it, each counted with its column's weight: title 50, original title 40,
 * directors 5, cast 1); the row's length D and the mean length avgdl in words; k1 = 1.2, b = 0.75;
 * rank = −Σ idf(i)·f(i)·(k1 + 1) / (f(i) + k1·(1 − b + b·D / avgdl)), summed in the words' order,
 * lower is better. In float8 throughout, as SQLite computes it in double.
 *
 * Each row's statistics are kept beside its tsvector (migration 0013): `lexemes` in byte order and
 * `lexeme_freqs`, a 0 and the running totals of their weighted counts. The lexemes starting with a
 * word's lexeme w are the run from the first one ≥ w to the last one ≤ w || U+10FFFF (no lexeme
 * holds U+10FFFF: the parser splits words at it), both found by binary search (width_bucket
 * counts the entries ≤ its operand), and f is the difference of the running totals at its ends:
 * a few array lookups a row, where unnesting the tsvector cost ~3× the time of the whole search.
 * N and the sum of the lengths come from movie_search_totals (kept by each sync).
 */
const POSTGRES_BM25 = (words: readonly string[]) => {
  // One word: the rows it finds are the rows the search finds, so n is counted over them (a window)
  // instead of by a second scan of the index.
  const single = words.length === 1;
  // One row of scalar subqueries (each computed once): every word's first lexeme and, for several
  // words, how many rows each finds. MATERIALIZED, so the planner neither repeats them at each use
  // nor guesses row counts.
  const terms = words.map((word, i) => {
    const [l, n] = ['l', 'n'].map((c) => sql.raw(`${c}${i}`));
    const lexeme = sql`(SELECT u.lexeme FROM unnest(to_tsvector('reelshelf_search', reelshelf_search_words(${word}::text))) u
          ORDER BY u.positions[1] LIMIT 1) COLLATE "C" AS ${l}`;
    if (single) return lexeme;
    return sql`${lexeme}, (SELECT count(*)::float8 FROM movie_search s
          WHERE s.document @@ to_tsquery('reelshelf_search', ${tsQueryExpression([word])}::text)) AS ${n}`;
  });
  // f of each word in each row found: computed once a row, in the subquery (OFFSET 0 keeps it from
  // being merged into the outer query, which would compute f at each use, and, for one word, keep
  // the whole rows, tsvector and arrays, in the window's buffer instead of these few numbers).
  const freqs = words.map((_, i) => {
    const [l, u, f] = [sql.raw(`q.l${i}`), sql.raw(`q.u${i}`), sql.raw(`f${i}`)];
    const below = sql`width_bucket(${l}, s.lexemes)`;
    return sql`coalesce((s.lexeme_freqs[width_bucket(${u}, s.lexemes) + 1]
      - s.lexeme_freqs[${below} + 1 - CASE WHEN s.lexemes[${below}] = ${l} THEN 1 ELSE 0 END])::float8, 0) AS ${f}`;
  });
  const scores = words.map((_, i) => {
    const [n, f] = [single ? sql`x.n` : sql.raw(`q.n${i}`), sql.raw(`x.f${i}`)];
    const raw = sql`greatest(ln((q.rows - ${n} + 0.5) / (${n} + 0.5)), 0)::float8`;
    return sql`CASE WHEN ${raw} <= 0 THEN 1e-6 ELSE ${raw} END * (${f} * 2.2)
      / (${f} + 1.2 * (0.25 + 0.75 * x.token_count / (q.tokens / q.rows)))`;
  });
  return sql<SearchHit>`(
  WITH q AS MATERIALIZED (
    SELECT totals.rows, totals.tokens, t.*, ${sql.join(words.map((_, i) => sql.raw(`t.l${i} || chr(1114111) AS u${i}`)))}
    FROM (SELECT rows::float8 AS rows, tokens::float8 AS tokens FROM movie_search_totals LIMIT 1) totals,
      (SELECT ${sql.join(terms)}) t)
  SELECT x.id, -(${sql.join(scores, sql` + `)})::float8 AS rank
  FROM (
    SELECT y.*${single ? sql`, count(*) OVER ()::float8 AS n` : sql``} FROM (
      SELECT s.movie_id AS id, s.token_count, ${sql.join(freqs)}
      FROM movie_search s, q
      WHERE s.document @@ to_tsquery('reelshelf_search', ${tsQueryExpression(words)})
      OFFSET 0) y) x, q
)`;
};

export const postgresSearch: SearchDialect = {
  engine: 'postgres',
  async sync(db) {
    const mark = await db.selectFrom('movie_search_pending').select('movie_id').limit(1).executeTakeFirst();
    if (mark === undefined) return false;
    const { rows } = await sql<{ synced: boolean }>`SELECT reelshelf_sync_search() AS synced`.execute(db);
    return rows[0]?.synced === true;
  },
  hits(words, ranked) {
    if (ranked) return POSTGRES_BM25(words).as('hit');
    return sql<SearchHit>`(SELECT movie_id AS id, 0.0::float8 AS rank FROM movie_search
      WHERE document @@ to_tsquery('reelshelf_search', ${tsQueryExpression(words)}))`.as('hit');
  },
  rankedHits(words) {
    return POSTGRES_BM25(words);
  },
};

/** The dialect of the engine behind a Kysely instance (a transaction's too). */
export function searchDialectOf(db: Kysely<Database>): SearchDialect {
  return db.getExecutor().adapter instanceof PostgresAdapter ? postgresSearch : sqliteSearch;
}
