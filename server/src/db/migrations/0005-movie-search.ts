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

/** Marks the movies a query selects (`movie_id`s) as changed, once each (PostgreSQL). */
function mark(select: string): string {
  return `INSERT INTO movie_search_pending (movie_id) ${select} ON CONFLICT DO NOTHING;`;
}

/**
 * The movie_search rows of the movies `where(column)` selects (called with `m.id` and with the
 * credits' `pm.movie_id`), credits gathered per movie in one pass (PostgreSQL).
 */
function documentRows(where: (movie: string) => string): string {
  const names = (credit: string, alias: string) =>
    `LEFT JOIN (SELECT pm.movie_id, string_agg(p.name, '; ' ORDER BY pm.sort_order, pm.id) AS names
      FROM person_movie pm JOIN persons p ON p.id = pm.person_id
      WHERE ${credit} AND ${where('pm.movie_id')} GROUP BY pm.movie_id) ${alias} ON ${alias}.movie_id = m.id`;
  return `SELECT m.id, v.document,
      (SELECT coalesce(sum(cardinality(u.positions)), 0) FROM unnest(v.document) u)
    FROM movies m ${names(CAST, 'c')} ${names(DIRECTOR, 'd')},
      LATERAL (SELECT reelshelf_search_document(m.title, m.original_title, c.names, d.names) AS document) v
    WHERE ${where('m.id')}`;
}

/**
 * The same index on PostgreSQL: `movie_search (movie_id, document tsvector)` with a GIN index, one
 * row per movie, the same pending marks and the same rules as the FTS5 triggers above for which
 * writes mark a movie.
 *
 * - Words: ASCII punctuation becomes spaces first (as unicode61 separates at it: `AC/DC` is `ac` and
 *   `dc`, never the parser's "file" token; `Gordon-Levitt` is two words), then the
 *   `reelshelf_search` configuration (a copy of `simple`, every token type through `unaccent`, then
 *   `simple`: accents and case folded, no stemming, no stop words). Weights: title A, original
 *   title B, directors C, cast D (the bm25 column weights' order; see search-dialect.ts's rank).
 * - Marks, not rows, at write time, as on SQLite: statement triggers (transition tables) mark the
 *   movies a statement changed in `movie_search_pending`, and `reelshelf_sync_search()` rebuilds
 *   the marked rows before a search. Measured by importing movies and their credits one statement
 *   each in one transaction (PostgreSQL 15 on the shared 2-core test machine, so noisy; runs
 *   interleaved): rebuilding the statement's movies' rows at once cost 4.4–4.7 ms a credit against
 *   0.46–0.91 ms without any index triggers, and 0.52–0.59 ms with marks (1,000 movies, 11,000
 *   credits); at 10,000 movies and 110,000 credits, 2.8 ms against 0.49 ms and 0.50 ms (312 s
 *   against 54 s), and the first search after it rebuilds the 10,000 marked rows in ~3 s. Each
 *   credit rewrites its movie's row, and every row version puts the movie's ~25 words into the
 *   GIN index again; marks write one small row per movie.
 * - Concurrency (several nodes, one database): a sync takes the marks in id order (`FOR UPDATE`),
 *   deletes them and then reads the movies with a fresh snapshot, all in one transaction. A second
 *   sync waits for the first's marks and returns after it committed, so a search on any node sees
 *   every write committed before it began; a write that marks a movie while a sync holds its mark
 *   waits for that sync, and its mark stays for the next one. No foreign key ties a row to its
 *   movie (a deleted movie is marked and its row goes at the next sync; searches join movies), so a
 *   writer never locks index rows a sync is rewriting.
 * - `reelshelf_rebuild_search()` rebuilds every row and clears the marks (after a bulk copy that
 *   bypassed the triggers).
 */
function postgresStatements(): string[] {
  const indexed = (row: string) => `(${row}.role = 'cast' OR ${row}.job = 'Director')`;
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
    // token_count: the row's words, all columns (FTS5's row size, bm25's document length).
    `CREATE TABLE movie_search (
      movie_id integer PRIMARY KEY, document tsvector NOT NULL, token_count integer NOT NULL)`,
    `CREATE INDEX movie_search_document ON movie_search USING gin (document)`,
    `CREATE TABLE movie_search_pending (movie_id integer PRIMARY KEY)`,
    // Applies the marks; false when there were none.
    `CREATE FUNCTION reelshelf_sync_search() RETURNS boolean LANGUAGE plpgsql AS $fn$
    DECLARE ids integer[];
    BEGIN
      WITH taken AS (
        DELETE FROM movie_search_pending WHERE movie_id IN (
          SELECT movie_id FROM movie_search_pending ORDER BY movie_id FOR UPDATE)
        RETURNING movie_id)
      SELECT array_agg(movie_id) INTO ids FROM taken;
      IF ids IS NULL THEN RETURN false; END IF;
      DELETE FROM movie_search s WHERE s.movie_id = ANY (ids)
        AND NOT EXISTS (SELECT 1 FROM movies m WHERE m.id = s.movie_id);
      INSERT INTO movie_search (movie_id, document, token_count)
        ${documentRows((movie) => `${movie} = ANY (ids)`)}
        ON CONFLICT (movie_id) DO UPDATE
          SET document = excluded.document, token_count = excluded.token_count;
      RETURN true;
    END $fn$`,
    `CREATE FUNCTION reelshelf_rebuild_search() RETURNS bigint LANGUAGE plpgsql AS $fn$
    DECLARE n bigint;
    BEGIN
      -- Waits for syncs in flight and holds off new ones until this one commits.
      LOCK TABLE movie_search, movie_search_pending IN SHARE ROW EXCLUSIVE MODE;
      DELETE FROM movie_search_pending;
      DELETE FROM movie_search;
      INSERT INTO movie_search (movie_id, document, token_count) ${documentRows(() => 'true')};
      GET DIAGNOSTICS n = ROW_COUNT;
      RETURN n;
    END $fn$`,
    // A movie inserted, retitled (title or original title) or deleted.
    `CREATE FUNCTION reelshelf_search_movies() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      IF TG_OP = 'INSERT' THEN ${mark('SELECT id FROM new_rows')}
      ELSIF TG_OP = 'DELETE' THEN ${mark('SELECT id FROM old_rows')}
      ELSE ${mark(`SELECT n.id FROM old_rows o JOIN new_rows n ON n.id = o.id
          WHERE o.title IS DISTINCT FROM n.title OR o.original_title IS DISTINCT FROM n.original_title`)}
      END IF;
      RETURN NULL;
    END $fn$`,
    // A cast or director credit added, removed or changed (also by cascade).
    `CREATE FUNCTION reelshelf_search_credits() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      IF TG_OP = 'INSERT' THEN ${mark(`SELECT DISTINCT movie_id FROM new_rows n WHERE ${indexed('n')}`)}
      ELSIF TG_OP = 'DELETE' THEN ${mark(`SELECT DISTINCT movie_id FROM old_rows o WHERE ${indexed('o')}`)}
      ELSE ${mark(`SELECT DISTINCT unnest(ARRAY[o.movie_id, n.movie_id])
          FROM old_rows o JOIN new_rows n ON n.id = o.id
          WHERE (o.person_id, o.movie_id, o.role, o.job) IS DISTINCT FROM (n.person_id, n.movie_id, n.role, n.job)
            AND (${indexed('o')} OR ${indexed('n')})`)}
      END IF;
      RETURN NULL;
    END $fn$`,
    // A person renamed: every movie they are credited in.
    `CREATE FUNCTION reelshelf_search_persons() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      ${mark(`SELECT DISTINCT pm.movie_id FROM old_rows o JOIN new_rows n ON n.id = o.id
        JOIN person_movie pm ON pm.person_id = n.id
        WHERE o.name IS DISTINCT FROM n.name`)}
      RETURN NULL;
    END $fn$`,
    ...[
      ['movie_search_movie_insert', 'INSERT', 'movies', 'reelshelf_search_movies'],
      ['movie_search_movie_update', 'UPDATE', 'movies', 'reelshelf_search_movies'],
      ['movie_search_movie_delete', 'DELETE', 'movies', 'reelshelf_search_movies'],
      ['movie_search_credit_insert', 'INSERT', 'person_movie', 'reelshelf_search_credits'],
      ['movie_search_credit_delete', 'DELETE', 'person_movie', 'reelshelf_search_credits'],
      ['movie_search_credit_update', 'UPDATE', 'person_movie', 'reelshelf_search_credits'],
      ['movie_search_person_rename', 'UPDATE', 'persons', 'reelshelf_search_persons'],
    ].map(([name, event, table, fn]) => {
      const tables =
        event === 'INSERT'
          ? 'NEW TABLE AS new_rows'
          : event === 'DELETE'
            ? 'OLD TABLE AS old_rows'
            : 'OLD TABLE AS old_rows NEW TABLE AS new_rows';
      return `CREATE TRIGGER ${name} AFTER ${event} ON ${table} REFERENCING ${tables}
        FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`;
    }),
    // The movies already there.
    `SELECT reelshelf_rebuild_search()`,
  ];
}
