import { type Kysely, sql } from 'kysely';
import type { Dialect } from './helpers.ts';

/** The transaction-local setting an import sets (`set_config(…, true)`) to leave its marks. */
export const SEARCH_ROWS_SETTING = 'reelshelf.search_rows';
export const SEARCH_ROWS_AFTER_COMMIT = 'after-commit';

/**
 * PostgreSQL only. Migration 0015 builds the search rows of every movie a transaction marked when it
 * commits, so no search pays for them. An import of 10,000 movies spent ~300 ms of its answer there
 * (the rows, the GIN pending list, ANALYZE, a trigger firing per mark): work SQLite leaves to its
 * first search. A transaction that sets reelshelf.search_rows to 'after-commit' keeps its marks: the
 * importer builds them right after its commit, off the request (wiring/import-export.ts), and a
 * search in between finds the marks and builds them itself (the stale path every search has).
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql
    .raw(
      `CREATE OR REPLACE FUNCTION reelshelf_search_build_at_commit() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      IF current_setting('${SEARCH_ROWS_SETTING}', true) = '${SEARCH_ROWS_AFTER_COMMIT}' THEN
        RETURN NULL;
      END IF;
      IF EXISTS (SELECT 1 FROM movie_search_pending WHERE movie_id = NEW.movie_id) THEN
        PERFORM reelshelf_sync_search();
      END IF;
      RETURN NULL;
    END $fn$`,
    )
    .execute(db);
}
