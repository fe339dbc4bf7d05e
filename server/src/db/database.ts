import type BetterSqlite3 from 'better-sqlite3';
import type { Kysely } from 'kysely';
import type { ChangeFeed } from './change-feed.ts';
import type { Database } from './schema.ts';

export type Db = Kysely<Database>;

export interface OpenedDatabase {
  db: Db;
  engine: 'sqlite' | 'postgres';
  /** Every write, this process's and (PostgreSQL) every other node's: what the caches follow. */
  changes: ChangeFeed;
  /** SQLite only: the raw handle (tests that read or write behind Kysely's back). */
  sqlite?: BetterSqlite3.Database;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** PostgreSQL: the most connections this process holds (REELSHELF_DATABASE_POOL). */
  pool?: number;
}

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
