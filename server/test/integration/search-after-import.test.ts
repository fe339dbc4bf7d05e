// An import's movies are searchable at once on both engines. On PostgreSQL the import leaves its
// search rows to be built right after its commit, off the request (migration 0018): a search in
// between finds the marks and builds them itself, and the marks are gone soon after either way.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { startTestServer } from '../helpers/test-server.ts';
import { testEngine } from '../helpers/test-database.ts';

const CSV = [
  'Title,Year,Format,Binder,Slot',
  'Zyxwv Heron Story,1987,DVD,Shelf Q,1',
  'Zyxwv Heron Returns,1991,Blu-ray,Shelf Q,2',
  'Another Film,2001,DVD,Shelf Q,3',
].join('\n');

describe('search right after an import', () => {
  it('finds the imported movies at once, and leaves no mark behind', async () => {
    const t = await startTestServer();
    try {
      const res = await t.api('/api/import', {
        method: 'POST',
        headers: { 'content-type': 'text/csv' },
        body: CSV,
      });
      assert.equal(res.status, 200, await res.text());
      // At once: on PostgreSQL, possibly before the rows built after the commit (the stale path).
      const found = await t.api('/api/movies?q=zyxwv%20heron');
      assert.equal(found.status, 200);
      const body = (await found.json()) as { items: { title: string }[]; total: number };
      assert.deepEqual(body.items.map((i) => i.title).sort(), ['Zyxwv Heron Returns', 'Zyxwv Heron Story']);
      assert.equal(body.total, 2);
      if (testEngine === 'postgres') {
        // The rows built after the commit: no mark is left (within a few seconds on a loaded machine).
        const db = t.server.database.db;
        const deadline = Date.now() + 10_000;
        let left = -1;
        while (Date.now() < deadline) {
          const { rows } = await sql<{
            n: number;
          }>`select count(*)::integer as n from movie_search_pending`.execute(db);
          left = rows[0]?.n ?? -1;
          if (left === 0) break;
          await new Promise((r) => setTimeout(r, 50));
        }
        assert.equal(left, 0, 'marks left after the import');
        const { rows } = await sql<{ n: number }>`select count(*)::integer as n from movie_search`.execute(
          db,
        );
        assert.equal(rows[0]?.n, 3, 'a search row for each imported movie');
      }
    } finally {
      await t.close();
    }
  });

  it('PostgreSQL: an import transaction leaves its marks at its commit; any other builds them there', async (ctx) => {
    if (testEngine !== 'postgres') {
      ctx.skip('SQLite builds the rows at the first search anyway');
      return;
    }
    const t = await startTestServer();
    try {
      const db = t.server.database.db;
      const marks = async () =>
        (await sql<{ n: number }>`select count(*)::integer as n from movie_search_pending`.execute(db))
          .rows[0]?.n;
      const insert = (title: string) =>
        sql`insert into movies (title, sort_title, normalized_title, created_at, updated_at)
          values (${title}, ${title}, ${title.toLowerCase()}, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')`;
      await db.transaction().execute(async (trx) => {
        await sql`select set_config('reelshelf.search_rows', 'after-commit', true)`.execute(trx);
        await insert('Left Marked').execute(trx);
      });
      assert.equal(await marks(), 1, 'the import-like transaction left its mark');
      await db.transaction().execute(async (trx) => {
        await insert('Built At Commit').execute(trx);
      });
      // The next transaction's commit builds every mark it sees (its own and the one left before).
      assert.equal(await marks(), 0);
    } finally {
      await t.close();
    }
  });
});
