import type BetterSqlite3 from 'better-sqlite3';
import type { OpenedDatabase, OpenOptions } from './opened-database.ts';

export type { Db, OpenedDatabase, OpenOptions } from './opened-database.ts';

/**
 * Opens (creating if needed) the database and migrates it to the latest schema.
 * @param databaseUrl `sqlite:<path>`, `sqlite::memory:` or `postgres://…` (`postgresql://…`).
 */
export async function openDatabase(databaseUrl: string, options: OpenOptions = {}): Promise<OpenedDatabase> {
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) {
    const { openPostgresDatabase } = await import('./postgres-database.ts');
    return openPostgresDatabase(databaseUrl, options);
  }
  const { openSqliteDatabase } = await import('./sqlite-database.ts');
  return openSqliteDatabase(databaseUrl);
}

/** The raw SQLite handle of a database that must be SQLite (tests and benches that bypass Kysely). */
export function sqliteHandleOf(opened: OpenedDatabase): BetterSqlite3.Database {
  if (opened.sqlite === undefined) throw new Error(`this needs the SQLite engine, not ${opened.engine}`);
  return opened.sqlite;
}
