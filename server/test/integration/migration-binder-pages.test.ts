// Migration 0017 (binders drawn as pages) on a database with binders made before it: every existing
// binder gets 8 slots per page, and the column refuses null.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect, sql } from 'kysely';
import { openDatabase } from '../../src/db/database.ts';
import { migrationsFor } from '../../src/db/migrations/index.ts';

const BINDER_PAGES = '0017-binder-pages';

describe('migration 0017: binders get slots per page', () => {
  const dir = mkdtempSync(join(tmpdir(), 'reelshelf-migrate-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('gives existing binders 8 slots per page', async () => {
    const path = join(dir, 'reelshelf.db');
    const old = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new BetterSqlite3(path) }) });
    const migrator = new Migrator({
      db: old,
      provider: {
        getMigrations: async () =>
          Object.fromEntries(Object.entries(migrationsFor('sqlite')).filter(([name]) => name < BINDER_PAGES)),
      },
    });
    assert.equal((await migrator.migrateToLatest()).error, undefined);
    await sql`INSERT INTO binders (name, capacity, created_at) VALUES ('A', 100, '2026-01-01T00:00:00.000Z')`.execute(
      old,
    );
    await old.destroy();

    const opened = await openDatabase(`sqlite:${path}`);
    try {
      const rows = await opened.db.selectFrom('binders').select(['name', 'slots_per_page']).execute();
      assert.deepEqual(rows, [{ name: 'A', slots_per_page: 8 }]);
      await assert.rejects(sql`UPDATE binders SET slots_per_page = NULL`.execute(opened.db), /NOT NULL/);
    } finally {
      await opened.close();
    }
  });
});
