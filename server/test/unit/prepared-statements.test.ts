import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import {
  PREPARED_MARK,
  PREPARED_PER_CONNECTION,
  type Prepared,
  preparedMark,
  statementFor,
  statementName,
} from '../../src/db/prepared-statements.ts';
import { openTestDatabase, testEngine } from '../helpers/test-database.ts';

const MARKED = `select 1 ${PREPARED_MARK}`;

describe('statementFor (which statements run by name on PostgreSQL)', () => {
  const fresh = (names: string[] = [], refused: string[] = []): Prepared => ({
    names: new Set(names),
    refused: new Set(refused),
  });
  const full = fresh(Array.from({ length: PREPARED_PER_CONNECTION }, (_, i) => `rs_${i}`));
  const cases: { name: string; text: string; prepared: Prepared; named: boolean }[] = [
    { name: 'unmarked: unnamed', text: 'select 1', prepared: fresh(), named: false },
    {
      name: 'the mark inside, not at the end',
      text: `select 1 ${PREPARED_MARK} limit 1`,
      prepared: fresh(),
      named: false,
    },
    { name: 'marked: named', text: MARKED, prepared: fresh(), named: true },
    { name: 'marked, connection full: unnamed', text: MARKED, prepared: full, named: false },
    {
      name: 'marked, full, but this one is kept: named',
      text: MARKED,
      prepared: fresh([...full.names, statementName(MARKED)]),
      named: true,
    },
    {
      name: 'marked, refused after a migration: unnamed',
      text: MARKED,
      prepared: fresh([statementName(MARKED)], [statementName(MARKED)]),
      named: false,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = statementFor(c.text, c.prepared);
      assert.equal(got !== null, c.named);
      if (got !== null) assert.equal(got.name, statementName(c.text));
    });
  }

  it('names a text the same way every time, and two texts apart', () => {
    assert.equal(statementName(MARKED), statementName(`select 1 ${PREPARED_MARK}`));
    assert.notEqual(statementName(MARKED), statementName(`select 2 ${PREPARED_MARK}`));
    assert.match(statementName(MARKED), /^rs_[0-9a-f]{24}$/);
  });
});

describe('named statements on the engine under test', () => {
  it('runs a marked statement with each call’s values (by name on PostgreSQL, once per connection)', async () => {
    const opened = await openTestDatabase();
    try {
      const read = (n: number) =>
        sql<{ n: number }>`select cast(${n} as integer) + 1 as n ${preparedMark}`.execute(opened.db);
      for (const n of [1, 2, 3, 4, 5, 6, 7]) assert.deepEqual((await read(n)).rows, [{ n: n + 1 }]);
      if (testEngine === 'postgres') {
        // Every pooled connection that ran it holds it under the one name; none holds another.
        await opened.db.transaction().execute(async (tx) => {
          await sql`select cast(${1} as integer) + 1 as n ${preparedMark}`.execute(tx);
          const kept = await sql<{ name: string }>`select name from pg_prepared_statements`.execute(tx);
          const text = `select cast($1 as integer) + 1 as n ${PREPARED_MARK}`;
          assert.deepEqual(
            kept.rows.map((r) => r.name),
            [statementName(text)],
          );
        });
      }
    } finally {
      await opened.close();
    }
  });

  it('runs a kept statement again after a migration changed the columns under it', async () => {
    const opened = await openTestDatabase();
    try {
      await sql`create table prepared_probe (a integer)`.execute(opened.db);
      await sql`insert into prepared_probe (a) values (1)`.execute(opened.db);
      const read = () =>
        sql<Record<string, number>>`select * from prepared_probe ${preparedMark}`.execute(opened.db);
      // Pool of 4: run it often enough that every connection holds it and has its generic plan.
      for (let i = 0; i < 12; i++) assert.deepEqual((await read()).rows, [{ a: 1 }]);
      // Another node's migration (a rolling upgrade): PostgreSQL refuses the kept plan ("cached plan
      // must not change result type"); the statement runs unnamed instead.
      await sql`alter table prepared_probe add column b integer default 2`.execute(opened.db);
      for (let i = 0; i < 12; i++) assert.deepEqual((await read()).rows, [{ a: 1, b: 2 }]);
    } finally {
      await opened.close();
    }
  });
});
