// Migration 0016 (the shared node state) on a database that already ran every earlier migration:
// Kysely's Migrator refuses a migration named below the last one a database ran, so the node state's
// tables must come after 0015 (they were 0012 on their branch, which such a database refused to open).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect, sql } from 'kysely';
import { openDatabase } from '../../src/db/database.ts';
import { migrationsFor } from '../../src/db/migrations/index.ts';
import type { Database } from '../../src/db/schema.ts';

const NODE_STATE = '0016-node-state';

describe('migration 0016: the node state on a database that ran every other migration', () => {
  const dir = mkdtempSync(join(tmpdir(), 'reelshelf-migrate-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('opens, and the node-state tables exist', async () => {
    const path = join(dir, 'reelshelf.db');
    const old = new Kysely<Database>({ dialect: new SqliteDialect({ database: new BetterSqlite3(path) }) });
    const migrator = new Migrator({
      db: old,
      // Every migration before the node state's: what main's databases ran (later ones, such as
      // 0017, came after it and run after it).
      provider: {
        getMigrations: async () =>
          Object.fromEntries(Object.entries(migrationsFor('sqlite')).filter(([name]) => name < NODE_STATE)),
      },
    });
    const before = await migrator.migrateToLatest();
    assert.equal(before.error, undefined);
    const earlier = Object.keys(migrationsFor('sqlite')).filter((name) => name < NODE_STATE);
    assert.equal(before.results?.at(-1)?.migrationName, earlier.at(-1));
    await old.destroy();

    const opened = await openDatabase(`sqlite:${path}`);
    try {
      const { rows } = await sql<{ name: string }>`
        SELECT name FROM sqlite_master WHERE type = 'table'
          AND name IN ('playback_stops', 'active_plays', 'auth_failures', 'node_leases') ORDER BY name`.execute(
        opened.db,
      );
      assert.deepEqual(
        rows.map((r) => r.name),
        ['active_plays', 'auth_failures', 'node_leases', 'playback_stops'],
      );
    } finally {
      await opened.close();
    }
  });
});
