// A fencing unit of work whose process froze between two statements (frozenAfterMs): on PostgreSQL
// its session is ended, so the row lock it took no longer holds another node's write (a take-over)
// until the thaw; nothing of it lands. SQLite has one process: nothing to hold up.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { OpenedDatabase } from '../../../src/db/database.ts';
import { kyselyUnitOfWork } from '../../../src/repositories/unit-of-work.ts';
import { openTestDatabase } from '../../helpers/test-database.ts';
import { within } from '../../helpers/wait.ts';

function gate(): { open: () => void; opened: Promise<void> } {
  let open = (): void => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

describe('kyselyUnitOfWork frozenAfterMs', () => {
  let opened: OpenedDatabase;
  before(async () => {
    opened = await openTestDatabase();
  });
  after(() => opened.close());

  it('a frozen fencing transaction loses its session and its lock (PostgreSQL)', async (t) => {
    if (opened.engine !== 'postgres') {
      t.skip('SQLite has one process: no other node waits on its lock');
      return;
    }
    const { db } = opened;
    await db.insertInto('settings').values({ key: 'fence-probe', value: 'before' }).execute();
    const fenced = kyselyUnitOfWork(db, (trx) => trx, { frozenAfterMs: 500 });
    const locked = gate();
    const thaw = gate();
    const frozen = fenced
      .transaction(async (trx) => {
        await trx.updateTable('settings').set({ value: 'zombie' }).where('key', '=', 'fence-probe').execute();
        locked.open();
        await thaw.opened; // the process is stopped here, its row lock held
        await trx
          .updateTable('settings')
          .set({ value: 'zombie again' })
          .where('key', '=', 'fence-probe')
          .execute();
      })
      .then(
        () => null,
        (err: unknown) => err,
      );
    try {
      await within(locked.opened, 5_000, () => 'the frozen transaction to take its lock');
      const startedAt = Date.now();
      await within(
        db.updateTable('settings').set({ value: 'successor' }).where('key', '=', 'fence-probe').execute(),
        5_000,
        () => "another node's write, held behind the frozen transaction's lock",
      );
      t.diagnostic(`the other write waited ${Date.now() - startedAt} ms`);
    } finally {
      thaw.open();
    }
    assert.ok((await frozen) !== null, 'the thawed transaction fails');
    const row = await db
      .selectFrom('settings')
      .select('value')
      .where('key', '=', 'fence-probe')
      .executeTakeFirst();
    assert.equal(row?.value, 'successor', 'nothing of the frozen transaction landed');
  });
});
