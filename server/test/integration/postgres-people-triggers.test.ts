// The people change triggers on PostgreSQL (db/postgres-change-capture.ts): a person added or
// removed, a session revoked. Found by migrate-database, which removes the seeded admin and inserts
// the library's people: the trigger function tested `TG_OP = 'UPDATE' AND NOT EXISTS (… old_rows …
// new_rows …)` in one condition, which PL/pgSQL plans whole, so every INSERT into users and every
// DELETE from users, sessions or api_keys failed with "relation new_rows (old_rows) does not exist".
// Runs on a PostgreSQL whatever engine the suite is on (helpers/postgres-cluster.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openDatabase, type OpenedDatabase } from '../../src/db/database.ts';
import { postgresForTests, type PostgresForTests } from '../helpers/postgres-cluster.ts';

describe('PostgreSQL people triggers', () => {
  let cluster: PostgresForTests;
  let opened: OpenedDatabase;

  before(async () => {
    cluster = await postgresForTests();
    opened = await openDatabase(await cluster.createDatabase(), { pool: 2 });
  });
  after(async () => {
    await opened?.close();
    await cluster?.stop();
  });

  /** Resolves at the next people notification (NOTIFY heard by this process's listener). */
  function nextPeopleChange(): Promise<void> {
    return new Promise((resolve) => {
      let done = false;
      opened.changes.subscribePeople(() => {
        if (!done) {
          done = true;
          resolve();
        }
      });
    });
  }

  it('adds, changes and removes a person and their session, each write announced', async () => {
    const now = new Date().toISOString();
    const added = nextPeopleChange();
    const { id } = await opened.db
      .insertInto('users')
      .values({
        name: 'Anna',
        name_key: 'anna',
        role: 'member',
        allow_unrated: 1,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await added;
    await opened.db
      .insertInto('sessions')
      .values({ user_id: id, secret_hash: 'h1', kind: 'browser', created_at: now, last_seen_at: now })
      .execute();
    const revoked = nextPeopleChange();
    await opened.db.updateTable('sessions').set({ revoked_at: now }).where('user_id', '=', id).execute();
    await revoked;
    const sessionGone = nextPeopleChange();
    await opened.db.deleteFrom('sessions').where('user_id', '=', id).execute();
    await sessionGone;
    const removed = nextPeopleChange();
    await opened.db.deleteFrom('users').where('id', '=', id).execute();
    await removed;
    const left = await opened.db.selectFrom('users').select('name').execute();
    assert.deepEqual(
      left.map((u) => u.name),
      ['admin'],
    );
  });
});
