import { type Kysely, sql } from 'kysely';
import type { Dialect } from './helpers.ts';

/**
 * PostgreSQL only (SQLite's FTS5 keeps these itself): what bm25 reads of each movie_search row, kept
 * beside its tsvector, so a search ranks a row with a few array lookups instead of unnesting its
 * document (issue 26: search within 2× of SQLite; repositories/search-dialect.ts).
 *
 * - `lexemes`: the row's distinct lexemes in byte order (`COLLATE "C"`, the tsvector's own order);
 *   `lexeme_freqs`: a 0 and then the running total of their weighted hit counts (title 50, original
 *   title 40, directors 5, cast 1 a position, the weights of bm25's columns). The words starting with
 *   a prefix are one run of `lexemes` (found by binary search with width_bucket), and their weighted
 *   count is the difference of two running totals.
 * - `movie_search_totals`: the row count and the sum of token_count (bm25's N and mean length),
 *   adjusted by each sync instead of counted at each search.
 * - reelshelf_search_words: the same spaces for the same ASCII punctuation, by regexp_replace:
 *   translate() compares each character with the whole list (multibyte), ~8× slower on the cast
 *   lists a rebuild reads (350 against 43 ms of CPU for 10,000 of them).
 * - A sync that rewrote many rows (a first search after an import) merges the GIN index's pending
 *   list and analyzes the table: otherwise every search scans the pending list, and the planner,
 *   without statistics, reads the whole table for a rare word.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  for (const statement of statements()) await sql.raw(statement).execute(db);
}

/** Rows a sync must have rewritten before it merges the GIN pending list and analyzes. */
const BULK_SYNC_ROWS = 1000;

const CAST = `pm.role = 'cast'`;
const DIRECTOR = `pm.role <> 'cast' AND pm.job = 'Director'`;

/**
 * The movie_search rows of the movies `where(column)` selects (called with `m.id` and with the
 * credits' `pm.movie_id`): migration 0005's, with the rank statistics.
 */
function documentRows(where: (movie: string) => string): string {
  const names = (credit: string, alias: string) =>
    `LEFT JOIN (SELECT pm.movie_id, string_agg(p.name, '; ' ORDER BY pm.sort_order, pm.id) AS names
      FROM person_movie pm JOIN persons p ON p.id = pm.person_id
      WHERE ${credit} AND ${where('pm.movie_id')} GROUP BY pm.movie_id) ${alias} ON ${alias}.movie_id = m.id`;
  return `SELECT m.id, v.document, st.token_count, st.lexemes, st.lexeme_freqs
    FROM movies m ${names(CAST, 'c')} ${names(DIRECTOR, 'd')},
      LATERAL (SELECT reelshelf_search_document(m.title, m.original_title, c.names, d.names) AS document) v,
      LATERAL reelshelf_search_stats(v.document) st
    WHERE ${where('m.id')}`;
}

function statements(): string[] {
  return [
    `CREATE OR REPLACE FUNCTION reelshelf_search_words(text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
      AS $fn$ SELECT regexp_replace($1, '[\\x21-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7e]', ' ', 'g') $fn$`,
    // A document's length in words, its lexemes in byte order and the running totals of their
    // weighted hit counts (after a leading 0).
    `CREATE FUNCTION reelshelf_search_stats(document tsvector,
        OUT token_count integer, OUT lexemes text[], OUT lexeme_freqs integer[])
      LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
      SELECT coalesce(sum(z.positions), 0)::integer,
        coalesce(array_agg(z.lexeme ORDER BY z.lexeme COLLATE "C"), '{}'),
        array_prepend(0, coalesce(array_agg(z.running ORDER BY z.lexeme COLLATE "C"), '{}'))::integer[]
      FROM (
        SELECT u.lexeme, cardinality(u.positions) AS positions,
          sum((SELECT sum(CASE w WHEN 'A' THEN 50 WHEN 'B' THEN 40 WHEN 'C' THEN 5 ELSE 1 END)
            FROM unnest(u.weights) w)) OVER (ORDER BY u.lexeme COLLATE "C") AS running
        FROM unnest(document) u) z $fn$`,
    `ALTER TABLE movie_search ADD COLUMN lexemes text[] COLLATE "C", ADD COLUMN lexeme_freqs integer[]`,
    `UPDATE movie_search s SET (lexemes, lexeme_freqs) =
      (SELECT st.lexemes, st.lexeme_freqs FROM reelshelf_search_stats(s.document) st)`,
    `ALTER TABLE movie_search ALTER COLUMN lexemes SET NOT NULL, ALTER COLUMN lexeme_freqs SET NOT NULL`,
    `CREATE TABLE movie_search_totals (
      one boolean PRIMARY KEY DEFAULT true CHECK (one), rows bigint NOT NULL, tokens bigint NOT NULL)`,
    `INSERT INTO movie_search_totals (rows, tokens)
      SELECT count(*), coalesce(sum(token_count), 0) FROM movie_search`,
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
        ${documentRows((movie) => `${movie} = ANY (ids)`)}
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
    `CREATE OR REPLACE FUNCTION reelshelf_rebuild_search() RETURNS bigint LANGUAGE plpgsql AS $fn$
    DECLARE n bigint;
    BEGIN
      -- Waits for syncs in flight and holds off new ones until this one commits.
      LOCK TABLE movie_search, movie_search_pending, movie_search_totals IN SHARE ROW EXCLUSIVE MODE;
      DELETE FROM movie_search_pending;
      DELETE FROM movie_search;
      INSERT INTO movie_search (movie_id, document, token_count, lexemes, lexeme_freqs)
        ${documentRows(() => 'true')};
      GET DIAGNOSTICS n = ROW_COUNT;
      UPDATE movie_search_totals SET rows = n,
        tokens = (SELECT coalesce(sum(token_count), 0) FROM movie_search);
      PERFORM gin_clean_pending_list('movie_search_document');
      ANALYZE movie_search;
      RETURN n;
    END $fn$`,
  ];
}
