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
 * PostgreSQL: see postgresStatements (a tsvector per movie, kept by triggers as it is written).
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect === 'postgres') {
    await createUnaccent(db);
    for (const statement of postgresStatements()) await sql.raw(statement).execute(db);
    return;
  }
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

/** ASCII punctuation and symbols: FTS5's unicode61 separates words at each of them. */
const ASCII_SEPARATORS = `!"#$%&'()*+,-./:;<=>?@[\\]^_\`{|}~`;

/** The indexed credits of movie `m` whose role `where` selects, as one text ('; ' between names). */
function creditNames(where: string): string {
  return `(SELECT string_agg(p.name, '; ' ORDER BY pm.sort_order, pm.id)
      FROM person_movie pm JOIN persons p ON p.id = pm.person_id
      WHERE pm.movie_id = m.id AND ${where})`;
}

const CAST = `pm.role = 'cast'`;
const DIRECTOR = `pm.role <> 'cast' AND pm.job = 'Director'`;

/** SQL literal of a text (single quotes doubled). */
function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/**
 * `unaccent` is a trusted extension (PostgreSQL 13+): the database's owner may create it. Anyone
 * else needs it created once by a superuser; say so instead of PostgreSQL's bare "permission denied".
 */
async function createUnaccent(db: Kysely<unknown>): Promise<void> {
  try {
    await sql`CREATE EXTENSION IF NOT EXISTS unaccent`.execute(db);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `search needs PostgreSQL's unaccent extension (${reason}): connect as the database's owner (PostgreSQL 13 or newer), or have a superuser run CREATE EXTENSION unaccent in this database once`,
    );
  }
}

/**
 * The same index on PostgreSQL: `movie_search (movie_id, document tsvector)` with a GIN index, one
 * row per movie, and the same rules as the FTS5 triggers above for which writes change it.
 *
 * - Words: ASCII punctuation becomes spaces first (as unicode61 separates at it: `AC/DC` is `ac` and
 *   `dc`, never the parser's "file" token; `Gordon-Levitt` is two words), then the
 *   `reelshelf_search` configuration (a copy of `simple`, every token type through `unaccent`, then
 *   `simple`: accents and case folded, no stemming, no stop words). Weights: title A, original
 *   title B, directors C, cast D (the bm25 column weights' order; see the repository's rank).
 * - Kept synchronously, by statement triggers with transition tables: a statement's changed movies
 *   are rebuilt once, in the writer's transaction, so a search (on any node) reads the index alone
 *   and finds every committed write at once. Measured on an import of 10,000 movies with 110,000
 *   credits, one statement each (scripts in the pg-search report): ~XX s with the triggers against
 *   ~YY s without; a pending table (rebuilt by the next search, as on SQLite) costs ~ZZ s at write
 *   and moves the rebuild into a search. SQLite's reason for the pending table (FTS5 flushing its
 *   pending data at every rewrite of a row) has no counterpart in a GIN index, whose fast update
 *   list takes the rewrites.
 * - A rebuild locks the movies it rebuilds (`FOR NO KEY UPDATE`, as an UPDATE of them does) and
 *   then reads their credits with a fresh snapshot: two transactions writing the same movie's
 *   text at once (a rename and a new credit) rebuild one after the other, and the second sees the
 *   first's writes, where reading without the lock could keep the one that committed last and
 *   lose the other's.
 * - `reelshelf_rebuild_search()` rebuilds every row (after a bulk copy that bypassed triggers).
 */
function postgresStatements(): string[] {
  return [
    `CREATE TEXT SEARCH CONFIGURATION reelshelf_search (COPY = simple)`,
    `ALTER TEXT SEARCH CONFIGURATION reelshelf_search ALTER MAPPING FOR
      asciiword, word, numword, asciihword, hword, numhword, hword_part, hword_asciipart,
      hword_numpart, int, uint, float, sfloat, version, email, url, host, url_path, file, tag,
      entity, protocol
      WITH unaccent, simple`,
    `CREATE FUNCTION reelshelf_search_words(text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
      AS $fn$ SELECT translate($1, ${literal(ASCII_SEPARATORS)}, ${literal(' '.repeat(ASCII_SEPARATORS.length))}) $fn$`,
    `CREATE FUNCTION reelshelf_search_document(title text, original_title text, cast_names text,
        director_names text) RETURNS tsvector LANGUAGE sql STABLE PARALLEL SAFE AS $fn$
      SELECT setweight(to_tsvector('reelshelf_search', reelshelf_search_words(coalesce(title, ''))), 'A')
        || setweight(to_tsvector('reelshelf_search', reelshelf_search_words(coalesce(original_title, ''))), 'B')
        || setweight(to_tsvector('reelshelf_search', reelshelf_search_words(coalesce(cast_names, ''))), 'D')
        || setweight(to_tsvector('reelshelf_search', reelshelf_search_words(coalesce(director_names, ''))), 'C') $fn$`,
    `CREATE TABLE movie_search (
      movie_id integer PRIMARY KEY REFERENCES movies (id) ON DELETE CASCADE,
      document tsvector NOT NULL
    )`,
    `CREATE INDEX movie_search_document ON movie_search USING gin (document)`,
    // The rows of the movies `ids` (those that still exist), rebuilt.
    `CREATE FUNCTION reelshelf_search_refresh(ids integer[]) RETURNS void LANGUAGE plpgsql AS $fn$
    BEGIN
      IF coalesce(cardinality(ids), 0) = 0 THEN RETURN; END IF;
      PERFORM 1 FROM movies WHERE id = ANY (ids) ORDER BY id FOR NO KEY UPDATE;
      INSERT INTO movie_search (movie_id, document)
        SELECT m.id, reelshelf_search_document(m.title, m.original_title,
          ${creditNames(CAST)}, ${creditNames(DIRECTOR)})
        FROM movies m WHERE m.id = ANY (ids)
        ON CONFLICT (movie_id) DO UPDATE SET document = excluded.document;
    END $fn$`,
    `CREATE FUNCTION reelshelf_rebuild_search() RETURNS bigint LANGUAGE plpgsql AS $fn$
    DECLARE n bigint;
    BEGIN
      -- Waits for the writers in flight (their triggers upsert rows) and holds off new ones.
      LOCK TABLE movie_search IN SHARE ROW EXCLUSIVE MODE;
      DELETE FROM movie_search;
      INSERT INTO movie_search (movie_id, document)
        SELECT m.id, reelshelf_search_document(m.title, m.original_title, c.names, d.names)
        FROM movies m
        LEFT JOIN (SELECT pm.movie_id, string_agg(p.name, '; ' ORDER BY pm.sort_order, pm.id) AS names
          FROM person_movie pm JOIN persons p ON p.id = pm.person_id WHERE ${CAST}
          GROUP BY pm.movie_id) c ON c.movie_id = m.id
        LEFT JOIN (SELECT pm.movie_id, string_agg(p.name, '; ' ORDER BY pm.sort_order, pm.id) AS names
          FROM person_movie pm JOIN persons p ON p.id = pm.person_id WHERE ${DIRECTOR}
          GROUP BY pm.movie_id) d ON d.movie_id = m.id;
      GET DIAGNOSTICS n = ROW_COUNT;
      RETURN n;
    END $fn$`,
    // A movie inserted, or its title or original title changed (a delete cascades).
    `CREATE FUNCTION reelshelf_search_movies() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM reelshelf_search_refresh(ARRAY(SELECT id FROM new_rows));
      ELSE
        PERFORM reelshelf_search_refresh(ARRAY(
          SELECT n.id FROM old_rows o JOIN new_rows n ON n.id = o.id
          WHERE o.title IS DISTINCT FROM n.title OR o.original_title IS DISTINCT FROM n.original_title));
      END IF;
      RETURN NULL;
    END $fn$`,
    // A cast or director credit added, removed or changed (also by cascade).
    `CREATE FUNCTION reelshelf_search_credits() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM reelshelf_search_refresh(ARRAY(
          SELECT DISTINCT movie_id FROM new_rows WHERE role = 'cast' OR job = 'Director'));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM reelshelf_search_refresh(ARRAY(
          SELECT DISTINCT movie_id FROM old_rows WHERE role = 'cast' OR job = 'Director'));
      ELSE
        PERFORM reelshelf_search_refresh(ARRAY(
          SELECT unnest(ARRAY[o.movie_id, n.movie_id])
          FROM old_rows o JOIN new_rows n ON n.id = o.id
          WHERE (o.person_id, o.movie_id, o.role, o.job) IS DISTINCT FROM (n.person_id, n.movie_id, n.role, n.job)
            AND (o.role = 'cast' OR o.job = 'Director' OR n.role = 'cast' OR n.job = 'Director')));
      END IF;
      RETURN NULL;
    END $fn$`,
    // A person renamed: every movie they are credited in.
    `CREATE FUNCTION reelshelf_search_persons() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      PERFORM reelshelf_search_refresh(ARRAY(
        SELECT DISTINCT pm.movie_id FROM old_rows o JOIN new_rows n ON n.id = o.id
        JOIN person_movie pm ON pm.person_id = n.id
        WHERE o.name IS DISTINCT FROM n.name));
      RETURN NULL;
    END $fn$`,
    `CREATE TRIGGER movie_search_movie_insert AFTER INSERT ON movies REFERENCING NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION reelshelf_search_movies()`,
    `CREATE TRIGGER movie_search_movie_update AFTER UPDATE ON movies
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION reelshelf_search_movies()`,
    `CREATE TRIGGER movie_search_credit_insert AFTER INSERT ON person_movie REFERENCING NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION reelshelf_search_credits()`,
    `CREATE TRIGGER movie_search_credit_delete AFTER DELETE ON person_movie REFERENCING OLD TABLE AS old_rows
      FOR EACH STATEMENT EXECUTE FUNCTION reelshelf_search_credits()`,
    `CREATE TRIGGER movie_search_credit_update AFTER UPDATE ON person_movie
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION reelshelf_search_credits()`,
    `CREATE TRIGGER movie_search_person_rename AFTER UPDATE ON persons
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION reelshelf_search_persons()`,
    // The movies already there.
    `SELECT reelshelf_rebuild_search()`,
  ];
}
