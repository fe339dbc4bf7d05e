import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compiledSelect } from '../../src/db/compiled-select.ts';
import { openTestDatabase } from '../helpers/test-database.ts';

const NOW = '2026-01-01T00:00:00.000Z';

describe('compiledSelect', () => {
  it('runs a kept SELECT with each call’s values, per database', async () => {
    const a = await openTestDatabase();
    const b = await openTestDatabase();
    try {
      for (const [opened, name] of [
        [a, 'a'],
        [b, 'b'],
      ] as const) {
        for (const path of ['/one', '/two']) {
          await opened.db
            .insertInto('library_roots')
            .values({ path: `${path}-${name}`, name, collection_id: null, created_at: NOW })
            .execute();
        }
      }
      const rootById = compiledSelect<{ path: string }>(
        (db) => db.selectFrom('library_roots').select('path').where('id', '=', 0),
        1,
      );
      assert.deepEqual(await rootById(a.db, [2]), [{ path: '/two-a' }]);
      assert.deepEqual(await rootById(a.db, [1]), [{ path: '/one-a' }]);
      assert.deepEqual(await rootById(b.db, [2]), [{ path: '/two-b' }], 'another database: its own');
      assert.deepEqual(await rootById(a.db, [9]), []);
      await assert.rejects(rootById(a.db, [1, 2]), /2 values for 1/);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('refuses a write (the listing’s observer would not see it run again) and a miscounted query', async () => {
    const opened = await openTestDatabase();
    try {
      const rename = compiledSelect(
        (db) => db.updateTable('library_roots').set({ name: 'x' }).where('id', '=', 0),
        1,
      );
      await assert.rejects(rename(opened.db, [1]), /not a SELECT/);
      const twoParameters = compiledSelect(
        (db) => db.selectFrom('library_roots').select('path').where('id', '=', 0).where('name', '=', ''),
        1,
      );
      await assert.rejects(twoParameters(opened.db, [1]), /2 parameters, expected 1/);
    } finally {
      await opened.close();
    }
  });
});
