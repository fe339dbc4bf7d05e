import type BetterSqlite3 from 'better-sqlite3';
import type { Kysely } from 'kysely';
import type { ChangeFeed } from './change-feed.ts';
import type { Database } from './schema.ts';

// What openDatabase hands out, apart from it: the engines' modules (sqlite-database.ts,
// postgres-database.ts), which database.ts loads on demand, import these without an import cycle.

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
