// PREPARED (db/prepared-statements.ts): on PostgreSQL a text starting with the mark runs as a named
// statement of the connection, other texts as unnamed ones; on SQLite the mark is a comment.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { OpenedDatabase } from '../../src/db/database.ts';
import { PREPARED, preparedName } from '../../src/db/prepared-statements.ts';
import { openTestDatabase } from '../helpers/test-database.ts';

describe('prepared statements', () => {
  let opened: OpenedDatabase;
  before(async () => {
    opened = await openTestDatabase();
  });
  after(() => opened.close());

  it('answers a marked text like an unmarked one, again and again, with new values', async () => {
    const { db } = opened;
    for (let i = 0; i < 8; i++) {
      const marked = await sql<{
        x: number;
      }>`${sql.raw(PREPARED)}select cast(${i} as integer) + 1 as x`.execute(db);
      const plain = await sql<{ x: number }>`select cast(${i} as integer) + 1 as x`.execute(db);
      assert.deepEqual(marked.rows, [{ x: i + 1 }]);
      assert.deepEqual(marked.rows, plain.rows);
    }
  });

  it('keeps a marked text prepared on its connection, and no other (PostgreSQL)', async (t) => {
    if (opened.engine !== 'postgres') {
      t.skip('SQLite: the mark is a comment; its statement cache keeps every text prepared');
      return;
    }
    const marked = (n: number) =>
      sql<{ x: number }>`${sql.raw(PREPARED)}select cast(${n} as integer) * 2 as x`;
    const other = (n: number) => sql<{ x: number }>`select cast(${n} as integer) * 3 as x`;
    // One transaction: one connection, whose prepared statements pg_prepared_statements lists.
    const { names, text, otherText } = await opened.db.transaction().execute(async (trx) => {
      assert.deepEqual((await marked(1).execute(trx)).rows, [{ x: 2 }]);
      assert.deepEqual((await marked(2).execute(trx)).rows, [{ x: 4 }]);
      assert.deepEqual((await other(3).execute(trx)).rows, [{ x: 9 }]);
      const rows = await sql<{
        name: string;
        statement: string;
      }>`select name, statement from pg_prepared_statements`.execute(trx);
      return { names: rows.rows, text: marked(0).compile(trx).sql, otherText: other(0).compile(trx).sql };
    });
    assert.ok(
      names.some((n) => n.name === preparedName(text) && n.statement === text),
      JSON.stringify(names),
    );
    assert.ok(!names.some((n) => n.statement === otherText), 'an unmarked text is not kept');
  });
});
