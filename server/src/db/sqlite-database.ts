import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import { type ChangeFeed, registerChangeFeed } from './change-feed.ts';
import type { OpenedDatabase } from './opened-database.ts';
import { ListingWriteObserver } from './listing-writes.ts';
import { migrationsFor } from './migrations/index.ts';
import { PeopleWriteObserver } from './people-writes.ts';
import { withStatementCache } from './statement-cache.ts';
import type { Database } from './schema.ts';

/**
 * Opens (creating if needed) the SQLite database, turns on WAL and foreign keys, and migrates it.
 * @param databaseUrl `sqlite:<path>` or `sqlite::memory:`.
 */
export async function openSqliteDatabase(databaseUrl: string): Promise<OpenedDatabase> {
  const file = databaseUrl.replace(/^sqlite:/, '');
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const sqlite = new BetterSqlite3(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  // Every write through Kysely is seen by the listing cache (GET /library), whoever makes it.
  const statements = new Map<string, BetterSqlite3.Statement>();
  const listingWrites = new ListingWriteObserver(
    (text, params) => {
      let statement = statements.get(text);
      if (statement === undefined) {
        statement = sqlite.prepare(text);
        statements.set(text, statement);
      }
      return statement.all(...params) as Record<string, unknown>[];
    },
    // Changes committed by another connection (the CLI writing while the server runs); asked on
    // every GET /library, so prepared once.
    (() => {
      const dataVersion = sqlite.prepare('PRAGMA data_version').pluck();
      return () => Number(dataVersion.get());
    })(),
  );
  // Every write to users, sessions and api_keys through Kysely ends what authentication keeps.
  const peopleWrites = new PeopleWriteObserver();
  const db = new Kysely<Database>({
    dialect: new SqliteDialect({ database: withStatementCache(sqlite) }),
    plugins: [listingWrites, peopleWrites],
  });
  ListingWriteObserver.register(db, listingWrites);
  PeopleWriteObserver.register(db, peopleWrites);
  // This process's writes are seen statement by statement as they run: nothing to catch up on.
  const changes: ChangeFeed = {
    engine: 'sqlite',
    subscribe: (listener) => listingWrites.subscribe(listener),
    subscribePeople: (listener) => peopleWrites.subscribe(listener),
    // One process: its runner wakes itself; another process's jobs (the CLI) are found by polling.
    subscribeJobs: () => () => undefined,
    // One node: the services keep their copies of shared state as they write it.
    subscribeState: () => () => undefined,
    // One node: its HLS runs and waiting requests meet in memory.
    subscribeHls: () => () => undefined,
    externalVersion: () => listingWrites.externalVersion(),
    catchUp: () => Promise.resolve(),
  };
  registerChangeFeed(db, changes);
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrationsFor('sqlite') },
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error !== undefined || failed !== undefined) {
    await db.destroy();
    const reason = error instanceof Error ? error.message : String(error ?? failed?.migrationName);
    throw new Error(`database migration failed: ${reason}`);
  }
  let closed = false;
  return {
    db,
    engine: 'sqlite',
    changes,
    sqlite,
    async close() {
      if (closed) return;
      closed = true;
      await db.destroy();
    },
  };
}
