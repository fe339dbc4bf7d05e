// The change triggers on PostgreSQL are installed once per version (db/postgres-change-capture.ts):
// every node and every test database (copied from a migrated template) opens a database whose
// triggers are already current, and reinstalling them all took a transaction of ~40 statements under
// an advisory lock on each open. A missing trigger (a migration rebuilt its table) or another
// version's comment installs them again. Runs on a PostgreSQL whatever engine the suite is on.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { openDatabase, type OpenedDatabase } from '../../src/db/database.ts';
import { installChangeCapture } from '../../src/db/postgres-change-capture.ts';
import { postgresForTests, type PostgresForTests } from '../helpers/postgres-cluster.ts';

describe('PostgreSQL change capture: installed once per version', () => {
  let cluster: PostgresForTests;
  let opened: OpenedDatabase;
  let db: Kysely<unknown>;
  let url: string;

  before(async () => {
    cluster = await postgresForTests();
    url = await cluster.createDatabase();
    opened = await openDatabase(url, { pool: 2 });
    db = opened.db as unknown as Kysely<unknown>;
  });
  after(async () => {
    await opened?.close();
    await cluster?.stop();
  });

  /** The functions' row versions: a CREATE OR REPLACE writes a new one. */
  async function functionVersions(): Promise<string> {
    const rows = await sql<{ v: string }>`
      select proname || ':' || xmin::text as v from pg_proc
      where proname like 'reelshelf%' order by proname`.execute(db);
    return rows.rows.map((r) => r.v).join(' ');
  }

  it('a database whose triggers are this version is left alone on open', async () => {
    const before = await functionVersions();
    assert.equal(await installChangeCapture(db), 'current');
    await (await openDatabase(url, { pool: 1 })).close();
    assert.equal(await functionVersions(), before, 'no function was replaced');
  });

  it('a trigger gone with its table (a migration rebuilt it) is installed again', async () => {
    await sql`drop trigger reelshelf_listing_update on movies`.execute(db);
    assert.equal(await installChangeCapture(db), 'installed');
    const back = await sql<{ n: number }>`
      select count(*)::int as n from pg_trigger where tgname = 'reelshelf_listing_update'
      and tgrelid = 'movies'::regclass`.execute(db);
    assert.equal(back.rows[0]?.n, 1);
    assert.equal(await installChangeCapture(db), 'current');
  });

  it("a database installed before loans were captured gets the loans' triggers on the next start", async () => {
    // As the release before left it: no loans function or triggers, and that version's comment.
    for (const event of ['insert', 'update', 'delete'])
      await sql.raw(`drop trigger reelshelf_listing_${event} on loans`).execute(db);
    await sql`drop function reelshelf_listing_loans()`.execute(db);
    await sql`comment on function reelshelf_notify_listing(bigint[], bigint[], bigint[]) is 'reelshelf change capture 0'`.execute(
      db,
    );
    await (await openDatabase(url, { pool: 1 })).close();
    const triggers = await sql<{ name: string }>`
      select tgname as name from pg_trigger where tgrelid = 'loans'::regclass and not tgisinternal
      order by tgname`.execute(db);
    assert.deepEqual(
      triggers.rows.map((r) => r.name),
      ['reelshelf_listing_delete', 'reelshelf_listing_insert', 'reelshelf_listing_update'],
    );
    assert.equal(await installChangeCapture(db), 'current');
  });

  it('triggers of another version are replaced', async () => {
    await sql`comment on function reelshelf_notify_listing(bigint[], bigint[], bigint[]) is 'reelshelf change capture 0'`.execute(
      db,
    );
    const before = await functionVersions();
    assert.equal(await installChangeCapture(db), 'installed');
    assert.notEqual(await functionVersions(), before);
    assert.equal(await installChangeCapture(db), 'current');
  });
});
