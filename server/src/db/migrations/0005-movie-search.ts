import { type Kysely, sql } from 'kysely';
import type { Dialect } from './helpers.ts';

/**
 * Inserts the `movie_search` rows of the movies `where` selects (`m` is movies): title, original
 * title, cast and directors (as /library names them: `role = 'cast'`; crew with `job = 'Director'`).
 */
function insertRows(where: string): string {
  return `INSERT INTO movie_search (rowid, title, original_title, cast_names, director_names)
    SELECT m.id, m.title, m.original_title,
      (SELECT group_concat(p.name, '; ') FROM person_movie pm JOIN persons p ON p.id = pm.person_id
        WHERE pm.movie_id = m.id AND pm.role = 'cast'),
      (SELECT group_concat(p.name, '; ') FROM person_movie pm JOIN persons p ON p.id = pm.person_id
        WHERE pm.movie_id = m.id AND pm.role <> 'cast' AND pm.job = 'Director')
    FROM movies m ${where};`;
}

/** Marks the movie `id` (an SQL expression) as changed: its index row is rebuilt before the next search. */
function pending(id: string): string {
  // Not `INSERT OR IGNORE`: inside a trigger, the conflict clause of the statement that fired it
  // wins (an UPSERT's), so a second mark of the same movie failed the whole write.
  return `INSERT INTO movie_search_pending (movie_id)
    SELECT ${id} WHERE NOT EXISTS (SELECT 1 FROM movie_search_pending WHERE movie_id = ${id});`;
}

/** A credit the index holds: cast, or a director. */
const INDEXED_CREDIT = (row: 'NEW' | 'OLD') => `(${row}.role = 'cast' OR ${row}.job = 'Director')`;

/**
 * Full-text search over movies (GET /api/movies?q=, the /library page's search): an FTS5 table of
 * title, original title, cast names and director names, one row per movie (rowid = movies.id).
 *
 * - `unicode61 remove_diacritics 2`: case and accents folded, so "amelie" finds "Amélie" (also when
 *   the title is stored decomposed, as macOS file names are); `prefix='2 3'` keeps short prefix
 *   queries (`"inc"*`) fast.
 * - Contentless (`content=''`, `contentless_delete=1`): the text lives in movies/persons, the index
 *   only holds tokens, and a row is deleted by rowid alone.
 * - Triggers see every write, whoever makes it (the API, scans, imports, enrichment, a hand edit in
 *   the sqlite3 shell): a movie inserted, retitled or deleted; a cast or director credit added,
 *   changed or removed (also by cascade); a person renamed. Each marks the movies it touches in
 *   `movie_search_pending`; writes that leave the indexed text as it was (an upsert of the same
 *   name, a year edit) mark nothing.
 * - `INSERT INTO movie_search_sync VALUES (0)` rebuilds the rows of every pending movie and clears
 *   the marks, in one statement (so atomically); the search runs it first whenever a mark exists.
 *   Rebuilding at every write instead costs a flush of FTS5's pending data per credit (the same
 *   rowid written again): 57 µs a credit against 3 µs, 6 s more for an import of 110,000 credits,
 *   where one batched rebuild of all 10,000 movies takes ~130 ms (bench `search`).
 *
 * SQLite only: on PostgreSQL (not wired up yet) this index would be a tsvector with unaccent.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect !== 'sqlite') return;
  const statements = [
    `CREATE VIRTUAL TABLE movie_search USING fts5(
      title, original_title, cast_names, director_names,
      tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3',
      content = '', contentless_delete = 1
    )`,
    // Movies whose row is out of date (deleted movies included: their row goes).
    `CREATE TABLE movie_search_pending (movie_id INTEGER PRIMARY KEY)`,
    `CREATE TRIGGER movie_search_movie_insert AFTER INSERT ON movies BEGIN ${pending('NEW.id')} END`,
    `CREATE TRIGGER movie_search_movie_update AFTER UPDATE OF title, original_title ON movies
      WHEN OLD.title IS NOT NEW.title OR OLD.original_title IS NOT NEW.original_title
      BEGIN ${pending('NEW.id')} END`,
    `CREATE TRIGGER movie_search_movie_delete AFTER DELETE ON movies BEGIN ${pending('OLD.id')} END`,
    `CREATE TRIGGER movie_search_credit_insert AFTER INSERT ON person_movie
      WHEN ${INDEXED_CREDIT('NEW')} BEGIN ${pending('NEW.movie_id')} END`,
    `CREATE TRIGGER movie_search_credit_delete AFTER DELETE ON person_movie
      WHEN ${INDEXED_CREDIT('OLD')} BEGIN ${pending('OLD.movie_id')} END`,
    `CREATE TRIGGER movie_search_credit_update AFTER UPDATE OF person_id, movie_id, role, job ON person_movie
      WHEN ${INDEXED_CREDIT('OLD')} OR ${INDEXED_CREDIT('NEW')}
      BEGIN ${pending('OLD.movie_id')} ${pending('NEW.movie_id')} END`,
    `CREATE TRIGGER movie_search_person_rename AFTER UPDATE OF name ON persons
      WHEN OLD.name IS NOT NEW.name
      BEGIN
        INSERT INTO movie_search_pending (movie_id)
          SELECT DISTINCT movie_id FROM person_movie
          WHERE person_id = NEW.id AND movie_id NOT IN (SELECT movie_id FROM movie_search_pending);
      END`,
    // The rebuild, as a statement anyone can run: the rows of the pending movies go, those of the
    // pending movies that still exist come back (in rowid order: one FTS5 flush), the marks go.
    `CREATE VIEW movie_search_sync AS SELECT 0 AS run`,
    `CREATE TRIGGER movie_search_sync_run INSTEAD OF INSERT ON movie_search_sync
      BEGIN
        DELETE FROM movie_search WHERE rowid IN (SELECT movie_id FROM movie_search_pending);
        ${insertRows('WHERE m.id IN (SELECT movie_id FROM movie_search_pending) ORDER BY m.id')}
        DELETE FROM movie_search_pending;
      END`,
    // The movies already there.
    insertRows(''),
  ];
  for (const statement of statements) await sql.raw(statement).execute(db);
}
