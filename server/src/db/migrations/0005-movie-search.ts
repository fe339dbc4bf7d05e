import { type Kysely, sql } from 'kysely';
import type { Dialect } from './helpers.ts';

/** Inserts the `movie_search` rows of the movies `where` selects (`m` is movies). */
function insertRows(where: string): string {
  return `INSERT INTO movie_search (rowid, title, original_title, cast_names, director_names)
    SELECT m.id, m.title, m.original_title,
      (SELECT group_concat(p.name, '; ') FROM person_movie pm JOIN persons p ON p.id = pm.person_id
        WHERE pm.movie_id = m.id AND pm.role = 'cast'),
      (SELECT group_concat(p.name, '; ') FROM person_movie pm JOIN persons p ON p.id = pm.person_id
        WHERE pm.movie_id = m.id AND pm.role <> 'cast' AND pm.job = 'Director')
    FROM movies m ${where};`;
}

/**
 * Rebuilds the row of the movie `id` (an SQL expression) from its title, original title, cast and
 * directors (as /library names them: `role = 'cast'`; crew with `job = 'Director'`). Delete, then
 * insert: a movie that no longer exists is left without a row.
 */
function refresh(id: string): string {
  return `DELETE FROM movie_search WHERE rowid = ${id}; ${insertRows(`WHERE m.id = ${id}`)}`;
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
 *   only holds tokens, and a row is deleted by rowid alone, so every change rebuilds its movie's row.
 * - Triggers keep it current on every write, whoever makes it (the API, scans, imports, enrichment, a
 *   hand edit with the sqlite3 shell): a movie inserted, retitled or deleted; a cast or director
 *   credit added, changed or removed (also by cascade); a person renamed. Writes that leave the
 *   indexed text as it was (an upsert of the same name, a year edit) touch nothing.
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
    `CREATE TRIGGER movie_search_movie_insert AFTER INSERT ON movies BEGIN ${refresh('NEW.id')} END`,
    `CREATE TRIGGER movie_search_movie_update AFTER UPDATE OF title, original_title ON movies
      WHEN OLD.title IS NOT NEW.title OR OLD.original_title IS NOT NEW.original_title
      BEGIN ${refresh('NEW.id')} END`,
    `CREATE TRIGGER movie_search_movie_delete AFTER DELETE ON movies
      BEGIN DELETE FROM movie_search WHERE rowid = OLD.id; END`,
    `CREATE TRIGGER movie_search_credit_insert AFTER INSERT ON person_movie
      WHEN ${INDEXED_CREDIT('NEW')} BEGIN ${refresh('NEW.movie_id')} END`,
    `CREATE TRIGGER movie_search_credit_delete AFTER DELETE ON person_movie
      WHEN ${INDEXED_CREDIT('OLD')} BEGIN ${refresh('OLD.movie_id')} END`,
    `CREATE TRIGGER movie_search_credit_update AFTER UPDATE OF person_id, movie_id, role, job ON person_movie
      WHEN ${INDEXED_CREDIT('OLD')} OR ${INDEXED_CREDIT('NEW')}
      BEGIN ${refresh('OLD.movie_id')} ${refresh('NEW.movie_id')} END`,
    `CREATE TRIGGER movie_search_person_rename AFTER UPDATE OF name ON persons
      WHEN OLD.name IS NOT NEW.name
      BEGIN
        DELETE FROM movie_search WHERE rowid IN (SELECT movie_id FROM person_movie WHERE person_id = NEW.id);
        ${insertRows('WHERE m.id IN (SELECT movie_id FROM person_movie WHERE person_id = NEW.id)')}
      END`,
    // The movies already there.
    insertRows(''),
  ];
  for (const statement of statements) await sql.raw(statement).execute(db);
}
