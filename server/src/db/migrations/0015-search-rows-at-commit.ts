import { type Kysely, sql } from 'kysely';
import type { Dialect } from './helpers.ts';

/**
 * PostgreSQL only (SQLite's FTS5 table is rebuilt by the first search, in ~130–260 ms for 10,000
 * movies): the movie_search rows of the movies a transaction marked are built when it commits, in
 * one set-wise statement, instead of by the first search after it (issue 26: PostgreSQL within 2× of
 * SQLite; the first search after a bulk load took 11–16× SQLite's, a search right after a PATCH 5–7×).
 *
 * - A deferred constraint trigger on movie_search_pending: at commit, the first mark of the
 *   transaction still there runs reelshelf_sync_search(), which builds the rows of every mark it
 *   sees (its own; another transaction's uncommitted marks are invisible to it) and deletes them;
 *   the transaction's other marks then find theirs gone and do nothing. So the marks of an import,
 *   a scan or a seed — many statements, the same movies again and again — still cost one build of
 *   each movie, and a committed write leaves no mark: a search needs no sync (the search's stale
 *   check and sync stay, for marks a `SET CONSTRAINTS ALL IMMEDIATE` left behind).
 * - Concurrency is the marks' (migration 0005): a movie's mark is unique, so a second transaction
 *   marking the same movie waits for the first to commit (its mark deleted), then marks it again and
 *   builds it at its own commit, reading the first one's writes.
 * - The rows are built from each credited person's name tokenized once (not each credit's: a name
 *   is in ~5 films), the per-credit vectors concatenated (`reelshelf_tsvector_agg`; words and counts
 *   are those of the joined names migration 0005 tokenized, positions may differ and are not read:
 *   no search uses phrases), and the rank statistics of migration 0013 computed by an inlinable SQL
 *   function in the tsvector's own (byte) order: 10,000 movies with 110,000 credits in ~0.8 s
 *   against ~2–6 s (measured on the shared 2-core test machine).
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  for (const statement of statements()) await sql.raw(statement).execute(db);
}

/** Rows a sync must have rewritten before it merges the GIN pending list and analyzes (as in 0013). */
const BULK_SYNC_ROWS = 1000;

function statements(): string[] {
  return [
    // tsvector || tsvector as an aggregate (positions of each input after the previous one's).
    `CREATE AGGREGATE reelshelf_tsvector_agg(tsvector) (SFUNC = tsvector_concat, STYPE = tsvector)`,
    // Migration 0013's statistics (length in words, lexemes in byte order, a 0 and the running
    // totals of their weighted counts), without sorting: unnest and tsvector_to_array give the
    // lexemes in the tsvector's order, which is byte order. RETURNS TABLE so the planner inlines it.
    `CREATE FUNCTION reelshelf_search_row_stats(document tsvector)
      RETURNS TABLE (token_count integer, lexemes text[], lexeme_freqs integer[])
      LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
      SELECT coalesce(sum(z.positions), 0)::integer, tsvector_to_array(document),
        array_prepend(0, coalesce(array_agg(z.running ORDER BY z.i), '{}'))::integer[]
      FROM (
        SELECT u.i, cardinality(u.positions) AS positions,
          sum(cardinality(u.positions) + 49 * cardinality(array_positions(u.weights, 'A'))
            + 39 * cardinality(array_positions(u.weights, 'B'))
            + 4 * cardinality(array_positions(u.weights, 'C'))) OVER (ORDER BY u.i) AS running
        FROM unnest(document) WITH ORDINALITY u(lexeme, positions, weights, i)) z $fn$`,
    // The movie_search rows of the movies in ids (those still there).
    `CREATE FUNCTION reelshelf_search_rows(ids integer[])
      RETURNS TABLE (movie_id integer, document tsvector, token_count integer, lexemes text[],
        lexeme_freqs integer[])
      LANGUAGE sql STABLE AS $fn$
      WITH credit AS (
        SELECT pm.movie_id, pm.person_id, pm.role = 'cast' AS is_cast FROM person_movie pm
        WHERE pm.movie_id = ANY (ids) AND (pm.role = 'cast' OR pm.job = 'Director')),
      person_words AS MATERIALIZED (
        SELECT p.id, to_tsvector('reelshelf_search', reelshelf_search_words(p.name)) AS words
        FROM persons p WHERE p.id IN (SELECT person_id FROM credit)),
      credit_words AS (
        SELECT c.movie_id,
          reelshelf_tsvector_agg(w.words) FILTER (WHERE c.is_cast) AS cast_words,
          reelshelf_tsvector_agg(w.words) FILTER (WHERE NOT c.is_cast) AS director_words
        FROM credit c JOIN person_words w ON w.id = c.person_id GROUP BY c.movie_id)
      SELECT m.id, d.document, st.token_count, st.lexemes, st.lexeme_freqs
      FROM movies m LEFT JOIN credit_words cw ON cw.movie_id = m.id,
        LATERAL (SELECT
          setweight(to_tsvector('reelshelf_search', reelshelf_search_words(coalesce(m.title, ''))), 'A')
          || setweight(to_tsvector('reelshelf_search', reelshelf_search_words(coalesce(m.original_title, ''))), 'B')
          || setweight(coalesce(cw.cast_words, ''), 'D')
          || setweight(coalesce(cw.director_words, ''), 'C') AS document) d,
        LATERAL reelshelf_search_row_stats(d.document) st
      WHERE m.id = ANY (ids) $fn$`,
    `CREATE OR REPLACE FUNCTION reelshelf_sync_search() RETURNS boolean LANGUAGE plpgsql AS $fn$
    DECLARE ids integer[]; before_rows bigint; before_tokens bigint; after_rows bigint; after_tokens bigint;
    BEGIN
      WITH taken AS (
        DELETE FROM movie_search_pending WHERE movie_id IN (
          SELECT movie_id FROM movie_search_pending ORDER BY movie_id FOR UPDATE)
        RETURNING movie_id)
      SELECT array_agg(movie_id) INTO ids FROM taken;
      IF ids IS NULL THEN RETURN false; END IF;
      SELECT count(*), coalesce(sum(token_count), 0) INTO before_rows, before_tokens
        FROM movie_search WHERE movie_id = ANY (ids);
      DELETE FROM movie_search s WHERE s.movie_id = ANY (ids)
        AND NOT EXISTS (SELECT 1 FROM movies m WHERE m.id = s.movie_id);
      INSERT INTO movie_search (movie_id, document, token_count, lexemes, lexeme_freqs)
        SELECT * FROM reelshelf_search_rows(ids)
        ON CONFLICT (movie_id) DO UPDATE
          SET document = excluded.document, token_count = excluded.token_count,
            lexemes = excluded.lexemes, lexeme_freqs = excluded.lexeme_freqs;
      SELECT count(*), coalesce(sum(token_count), 0) INTO after_rows, after_tokens
        FROM movie_search WHERE movie_id = ANY (ids);
      UPDATE movie_search_totals SET rows = rows + after_rows - before_rows,
        tokens = tokens + after_tokens - before_tokens;
      IF cardinality(ids) >= ${BULK_SYNC_ROWS} THEN
        PERFORM gin_clean_pending_list('movie_search_document');
        ANALYZE movie_search;
      END IF;
      RETURN true;
    END $fn$`,
    // Planned for each call's ids (one movie after a PATCH, every movie after an import: a generic
    // plan fits neither), with room to aggregate 100,000 credits in memory.
    `ALTER FUNCTION reelshelf_sync_search() SET plan_cache_mode = force_custom_plan SET work_mem = '64MB'`,
    `CREATE OR REPLACE FUNCTION reelshelf_rebuild_search() RETURNS bigint LANGUAGE plpgsql AS $fn$
    DECLARE n bigint;
    BEGIN
      -- Waits for syncs in flight and holds off new ones until this one commits.
      LOCK TABLE movie_search, movie_search_pending, movie_search_totals IN SHARE ROW EXCLUSIVE MODE;
      DELETE FROM movie_search_pending;
      DELETE FROM movie_search;
      INSERT INTO movie_search (movie_id, document, token_count, lexemes, lexeme_freqs)
        SELECT * FROM reelshelf_search_rows(ARRAY(SELECT id FROM movies));
      GET DIAGNOSTICS n = ROW_COUNT;
      UPDATE movie_search_totals SET rows = n,
        tokens = (SELECT coalesce(sum(token_count), 0) FROM movie_search);
      PERFORM gin_clean_pending_list('movie_search_document');
      ANALYZE movie_search;
      RETURN n;
    END $fn$`,
    `ALTER FUNCTION reelshelf_rebuild_search() SET work_mem = '64MB'`,
    `DROP FUNCTION reelshelf_search_stats(tsvector)`,
    // At commit: the first of the transaction's marks still there builds them all.
    `CREATE FUNCTION reelshelf_search_build_at_commit() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      IF EXISTS (SELECT 1 FROM movie_search_pending WHERE movie_id = NEW.movie_id) THEN
        PERFORM reelshelf_sync_search();
      END IF;
      RETURN NULL;
    END $fn$`,
    `CREATE CONSTRAINT TRIGGER movie_search_build_at_commit AFTER INSERT ON movie_search_pending
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION reelshelf_search_build_at_commit()`,
    // Marks left by writes before this migration.
    `SELECT reelshelf_sync_search()`,
  ];
}
