// Migration 0006 (issue 22): a library kept before people existed keeps its watch state, now the
// first admin's, and that admin signs in with the admin token (no password yet).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect, sql } from 'kysely';
import { type Db, openDatabase } from '../../src/db/database.ts';
import type { Database } from '../../src/db/schema.ts';
import { migrationsFor } from '../../src/db/migrations/index.ts';
import { registerFiles } from '../helpers/library-fixtures.ts';

describe('migration 0006: a household over a library kept before people', () => {
  const dir = mkdtempSync(join(tmpdir(), 'reelshelf-migrate-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('moves every watch state to the first admin, who has no password; the old key is gone', async () => {
    const path = join(dir, 'reelshelf.db');
    writeFileSync(join(dir, 'a.mkv'), 'not really a film');
    writeFileSync(join(dir, 'b.mkv'), 'nor this');
    // The database as the previous release left it: migrated up to 0005, with state on two files.
    const old = new Kysely<Database>({ dialect: new SqliteDialect({ database: new BetterSqlite3(path) }) });
    const migrator = new Migrator({
      db: old,
      provider: { getMigrations: async () => migrationsFor('sqlite') },
    });
    const to5 = await migrator.migrateTo('0005-movie-search');
    assert.equal(to5.error, undefined);
    const ids = await registerFiles(old as unknown as Db, dir, {
      a: join(dir, 'a.mkv'),
      b: join(dir, 'b.mkv'),
    });
    const at = '2026-01-02T03:04:05.000Z';
    for (const [name, position, watched] of [
      ['a', 1234, 0],
      ['b', 0, 1],
    ] as const) {
      await sql`INSERT INTO watch_state (media_file_id, movie_id, position_seconds, watched, updated_at)
                VALUES (${ids[name]?.fileId}, ${ids[name]?.movieId}, ${position}, ${watched}, ${at})`.execute(
        old,
      );
    }
    await old.destroy();

    const opened = await openDatabase(`sqlite:${path}`);
    try {
      const users = await opened.db.selectFrom('users').selectAll().execute();
      assert.equal(users.length, 1);
      const admin = users[0];
      assert.equal(admin?.name, 'admin');
      assert.equal(admin?.role, 'admin');
      assert.equal(admin?.password_hash, null, 'signs in with the admin token until a password is set');
      const states = await opened.db
        .selectFrom('watch_state')
        .select(['user_id', 'media_file_id', 'position_seconds', 'watched', 'updated_at'])
        .orderBy('media_file_id')
        .execute();
      assert.deepEqual(states, [
        {
          user_id: admin?.id,
          media_file_id: ids.a?.fileId,
          position_seconds: 1234,
          watched: 0,
          updated_at: at,
        },
        { user_id: admin?.id, media_file_id: ids.b?.fileId, position_seconds: 0, watched: 1, updated_at: at },
      ]);
      // Another person may now keep state on the same file: the key is (person, file).
      const now = new Date().toISOString();
      const kid = await opened.db
        .insertInto('users')
        .values({
          name: 'Kid',
          name_key: 'kid',
          password_hash: null,
          role: 'child',
          max_certification: 'G',
          allow_unrated: 0,
          pin_hash: null,
          pin_locked_until: null,
          created_at: now,
          updated_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await opened.db
        .insertInto('watch_state')
        .values({
          user_id: kid.id,
          media_file_id: ids.a?.fileId ?? 0,
          movie_id: null,
          position_seconds: 5,
          watched: 0,
          updated_at: now,
        })
        .execute();
      assert.equal((await opened.db.selectFrom('watch_state').select('user_id').execute()).length, 3);
    } finally {
      await opened.close();
    }
  });
});
