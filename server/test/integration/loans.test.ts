// Issue 27 item 4: loans through the API, on the engine under test (SQLite, or PostgreSQL with
// REELSHELF_TEST_DATABASE=postgres): lend and return with the history kept, overdue by the server's
// clock, one open loan per copy under racing lends, bad input, the viewer's content limit, and the
// loan shown on the binder slot, the library item, the library page's filter and the Jellyfin
// placeholder's overview (@jellyfin/sdk).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Api } from '@jellyfin/sdk/lib/api.js';
import { Jellyfin } from '@jellyfin/sdk/lib/jellyfin.js';
import { getLibraryApi } from '@jellyfin/sdk/lib/utils/api/library-api.js';
import type { LoanList, LoanView } from '@reelshelf/contract';
import { sql } from 'kysely';
import { ReelshelfClient } from '../../../client/src/index.ts';
import type { Clock } from '../../src/adapters/clock.ts';
import { testEngine } from '../helpers/test-database.ts';
import { childReadKey } from '../helpers/household.ts';
import { jsonBody, readJson, startTestServer, type TestServer } from '../helpers/test-server.ts';

let server: TestServer;
let now = new Date('2026-03-10T12:00:00.000Z');
const clock: Clock = { now: () => now };
/** Copy and movie ids by film letter. */
const copy: Record<string, number> = {};
const movie: Record<string, number> = {};

const lend = (copyId: number, body: unknown) =>
  server.api(`/api/physical-copies/${copyId}/loan`, jsonBody('POST', body));
const giveBack = (copyId: number) => server.api(`/api/physical-copies/${copyId}/loan`, { method: 'DELETE' });
const loans = async (query = '', auth?: string) =>
  (
    await readJson<LoanList>(
      await server.api(
        `/api/loans${query}`,
        auth === undefined ? {} : { headers: { authorization: `Bearer ${auth}` } },
      ),
    )
  ).items;

/**
 * Counts the statements that write physical_copies from now on (a trigger of the test's own): a lend
 * or a return must reach the listing through the loans table, not by writing the copy's row.
 */
async function countCopyWrites(t: TestServer): Promise<() => Promise<number>> {
  const db = t.server.database.db;
  await sql`create table if not exists test_copy_writes (n integer not null)`.execute(db);
  await sql`delete from test_copy_writes`.execute(db);
  if (testEngine === 'postgres') {
    await sql
      .raw(
        `create or replace function test_count_copy_writes() returns trigger language plpgsql as $fn$
      begin insert into test_copy_writes values (1); return null; end $fn$`,
      )
      .execute(db);
    await sql`drop trigger if exists test_count_copy_writes on physical_copies`.execute(db);
    await sql
      .raw(
        `create trigger test_count_copy_writes
      after insert or update or delete on physical_copies
      for each statement execute function test_count_copy_writes()`,
      )
      .execute(db);
  } else {
    for (const event of ['insert', 'update', 'delete']) {
      await sql
        .raw(
          `create trigger if not exists test_count_copy_writes_${event} after ${event} on physical_copies
        begin insert into test_copy_writes values (1); end`,
        )
        .execute(db);
    }
  }
  return async () => {
    const { rows } = await sql<{ n: number }>`select count(*) as n from test_copy_writes`.execute(db);
    return Number(rows[0]?.n ?? -1);
  };
}

describe('loans API', () => {
  before(async () => {
    server = await startTestServer({}, { clock });
    for (const [key, slot, format] of [
      ['A', '1', 'Blu-ray'],
      ['B', '2', 'DVD'],
      ['C', '3', '4K UHD'],
    ] as const) {
      const made = await readJson<{ id: number; physical_copies: { id: number }[] }>(
        await server.api(
          '/api/movies',
          jsonBody('POST', {
            title: `Loan Film ${key}`,
            year: 2001,
            physical_copies: [{ binder: 'L', slot, format }],
          }),
        ),
        201,
      );
      copy[key] = made.physical_copies[0]?.id ?? 0;
      movie[key] = made.id;
    }
  });
  after(() => server.close());

  it('lends a copy (201), shows it on the binder slot and the library item, and refuses a second lend naming who has it', async () => {
    const made = await readJson<LoanView>(await lend(copy.A ?? 0, { to: '  Sam  ', due: '2026-03-20' }), 201);
    assert.deepEqual(made, {
      id: made.id,
      copy_id: copy.A,
      movie_id: movie.A,
      title: 'Loan Film A',
      format: 'Blu-ray',
      binder: 'L',
      slot: '1',
      to: 'Sam',
      lent_at: '2026-03-10T12:00:00.000Z',
      due: '2026-03-20',
      returned_at: null,
      overdue: false,
    });
    assert.deepEqual(await loans(), [made]);

    const binder = await readJson<{
      pages: { slots: { slot: string; copy: { on_loan: boolean } | null }[] }[];
    }>(await server.api('/api/binders/L'));
    const slots = binder.pages.flatMap((p) => p.slots);
    assert.deepEqual(
      slots.slice(0, 3).map((s) => [s.slot, s.copy?.on_loan]),
      [
        ['1', true],
        ['2', false],
        ['3', false],
      ],
    );

    const library = await readJson<{ items: { movie_id: number; physical_copies?: unknown[] }[] }>(
      await server.api('/library', { headers: { accept: 'application/json' } }),
    );
    const copies = (id: number | undefined) => library.items.find((i) => i.movie_id === id)?.physical_copies;
    assert.deepEqual(copies(movie.A), [
      {
        binder: 'L',
        slot: '1',
        format: 'Blu-ray',
        loan: { to: 'Sam', lent_at: '2026-03-10T12:00:00.000Z', due: '2026-03-20' },
      },
    ]);
    assert.deepEqual(copies(movie.B), [{ binder: 'L', slot: '2', format: 'DVD' }], 'no loan: no key');

    const again = await readJson<{ error: string; message: string; hint: string; loan: { to: string } }>(
      await lend(copy.A ?? 0, { to: 'Alex' }),
      409,
    );
    assert.equal(again.error, 'already_on_loan');
    assert.match(again.message, /Loan Film A .*on loan to Sam since 2026-03-10, due back 2026-03-20/);
    assert.equal(again.loan.to, 'Sam');
    assert.equal((await loans()).length, 1, 'the refused lend changed nothing');
  });

  it('bad input is a 400 (or 413 for a body far too big), an unknown copy 404, a return of a copy at home 409', async () => {
    const id = copy.B ?? 0;
    for (const body of [
      {},
      { to: '' },
      { to: '   ' },
      { to: 'x'.repeat(201) },
      { to: 7 },
      { to: 'Sam', due: 'tomorrow' },
      { to: 'Sam', due: '2026-02-30' },
      { to: 'Sam', due: '2026-3-1' },
      { to: 'Sam', extra: true },
    ]) {
      const res = await readJson<{ error: string }>(await lend(id, body), 400);
      assert.equal(res.error, 'validation_failed', JSON.stringify(body));
    }
    const huge = await readJson<{ error: string }>(
      await lend(id, { to: 'Sam', note: 'x'.repeat(10_000) }),
      413,
    );
    assert.equal(huge.error, 'payload_too_large');
    assert.equal(
      (await readJson<{ error: string }>(await lend(987654, { to: 'Sam' }), 404)).error,
      'not_found',
    );
    assert.equal((await readJson<{ error: string }>(await giveBack(987654), 404)).error, 'not_found');
    const home = await readJson<{ error: string; message: string }>(await giveBack(id), 409);
    assert.equal(home.error, 'not_on_loan');
    assert.equal((await loans()).length, 1);
  });

  it('overdue is judged by the server clock: late the day after the due day', async () => {
    await readJson(await lend(copy.B ?? 0, { to: 'Robin', due: '2026-03-12' }), 201);
    assert.deepEqual(
      (await loans()).map((l) => [l.title, l.overdue]),
      [
        ['Loan Film A', false],
        ['Loan Film B', false],
      ],
    );
    now = new Date('2026-03-12T23:59:00.000Z');
    assert.deepEqual(await loans('?overdue=true'), []);
    now = new Date('2026-03-13T00:00:00.000Z');
    assert.deepEqual(
      (await loans('?overdue=true')).map((l) => [l.title, l.to, l.overdue]),
      [['Loan Film B', 'Robin', true]],
    );
    await readJson(await server.api('/api/loans?overdue=maybe'), 400);
  });

  it('a return closes the loan (200) and keeps it as history; the copy can be lent again', async () => {
    const closed = await readJson<LoanView>(await giveBack(copy.B ?? 0));
    assert.equal(closed.returned_at, '2026-03-13T00:00:00.000Z');
    assert.equal(closed.overdue, false, 'a returned disc is not overdue');
    assert.deepEqual(
      (await loans()).map((l) => l.title),
      ['Loan Film A'],
    );
    const history = await loans('?history=true');
    assert.deepEqual(
      history.map((l) => [l.title, l.to, l.returned_at]),
      [
        ['Loan Film A', 'Sam', null],
        ['Loan Film B', 'Robin', '2026-03-13T00:00:00.000Z'],
      ],
    );
    now = new Date('2026-03-14T09:00:00.000Z');
    await readJson(await lend(copy.B ?? 0, { to: 'Kim', due: null }), 201);
    assert.deepEqual(
      (await loans('?history=1'))
        .filter((l) => l.copy_id === copy.B)
        .map((l) => [l.to, l.returned_at === null]),
      [
        ['Robin', false],
        ['Kim', true],
      ],
    );
    await readJson(await giveBack(copy.B ?? 0));
  });

  it('racing lends of one copy: exactly one 201, every other a 409', async () => {
    const statuses = await Promise.all(
      Array.from({ length: 24 }, async (_, i) => (await lend(copy.C ?? 0, { to: `Racer ${i}` })).status),
    );
    assert.equal(statuses.filter((s) => s === 201).length, 1, statuses.join(','));
    assert.equal(statuses.filter((s) => s === 409).length, 23, statuses.join(','));
    assert.equal((await loans()).filter((l) => l.copy_id === copy.C).length, 1);
    await readJson(await giveBack(copy.C ?? 0));
  });

  it('the kept /library listing follows lends and returns at once, its ETag moving, with no write to the copy', async () => {
    const copyWrites = await countCopyWrites(server);
    let etag = '';
    /** The listing's loan of B, asked with the last ETag: null when the answer is a 304. */
    const listed = async () => {
      const res = await server.api('/library', {
        headers: { accept: 'application/json', ...(etag === '' ? {} : { 'if-none-match': etag }) },
      });
      if (res.status === 304) return null;
      assert.equal(res.status, 200);
      etag = res.headers.get('etag') ?? '';
      const body = (await res.json()) as {
        items: { movie_id: number; physical_copies?: { loan?: { to: string } }[] }[];
      };
      return { to: body.items.find((i) => i.movie_id === movie.B)?.physical_copies?.[0]?.loan?.to ?? '' };
    };
    assert.deepEqual(await listed(), { to: '' }, 'built and kept with B at home');
    assert.equal(await listed(), null, 'kept: 304 while nothing changes');
    await readJson(await lend(copy.B ?? 0, { to: 'Cache Reader' }), 201);
    assert.deepEqual(await listed(), { to: 'Cache Reader' }, 'the lend moved the ETag');
    await readJson(await giveBack(copy.B ?? 0));
    assert.deepEqual(await listed(), { to: '' }, 'the return moved it again');
    assert.equal(await copyWrites(), 0, 'the loans table tells the listing by itself');
  });

  it('the database itself keeps one open loan per copy (the partial unique index), however it is written', async () => {
    const db = server.server.database.db;
    const row = (to: string, returned: string | null) => ({
      physical_copy_id: copy.C ?? 0,
      borrower: to,
      lent_at: '2026-03-01T00:00:00.000Z',
      due: null,
      returned_at: returned,
      created_at: '2026-03-01T00:00:00.000Z',
    });
    await db.insertInto('loans').values(row('Direct one', null)).execute();
    await assert.rejects(db.insertInto('loans').values(row('Direct two', null)).execute(), (err: unknown) => {
      const code = (err as { code?: string }).code;
      return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === '23505';
    });
    // Returned loans are history: any number of them.
    await db
      .insertInto('loans')
      .values([row('Old one', '2026-03-02T00:00:00.000Z'), row('Old two', '2026-03-03T00:00:00.000Z')])
      .execute();
    await db
      .deleteFrom('loans')
      .where('physical_copy_id', '=', copy.C ?? 0)
      .execute();
  });

  it('the library page filters on discs on loan (and a search does too)', async () => {
    const page = async (query: string) => {
      const res = await server.api(`/library${query}`, { headers: { accept: 'text/html' } });
      assert.equal(res.status, 200);
      return res.text();
    };
    const all = await page('');
    assert.match(all, /<select id="on_loan" name="on_loan">/);
    const out = await page('?on_loan=1');
    assert.match(out, /Loan Film A/);
    assert.doesNotMatch(out, /Loan Film B|Loan Film C/);
    const searched = await page('?q=loan&on_loan=1');
    assert.match(searched, /Loan Film A/);
    assert.doesNotMatch(searched, /Loan Film B|Loan Film C/);
  });

  it('GET /api/movies?on_loan=true lists only the movies with a disc out, with or without a search', async () => {
    const titles = async (query: string) =>
      (
        await readJson<{ items: { title: string }[]; total: number }>(await server.api(`/api/movies${query}`))
      ).items.map((m) => m.title);
    assert.deepEqual(await titles('?on_loan=true'), ['Loan Film A']);
    assert.deepEqual(await titles('?q=loan&on_loan=true'), ['Loan Film A']);
    assert.equal((await titles('?on_loan=false')).length, 3);
    await readJson(await server.api('/api/movies?on_loan=maybe'), 400);
    const client = new ReelshelfClient({ baseUrl: server.url, token: server.token });
    assert.equal((await client.listMovies({ on_loan: true })).total, 1);
  });

  it('the Jellyfin placeholder of a disc-only film says who has the disc (@jellyfin/sdk)', async () => {
    await readJson(
      await server.api(
        '/api/users',
        jsonBody('POST', { name: 'anna', password: 'correct horse battery', role: 'member' }),
      ),
      201,
    );
    const jellyfin = new Jellyfin({
      clientInfo: { name: 'Findroid', version: '0.15.0' },
      deviceInfo: { name: 'Living room Shield', id: 'loans-1' },
    });
    const api: Api = jellyfin.createApi(`${server.url}/jellyfin`);
    await api.authenticateUserByName('anna', 'correct horse battery');
    // The SDK's 1.0.0 library API carries getItems (typed by hand: docs/jellyfin.md "SDK types").
    const library = getLibraryApi(api);
    const items = library as unknown as {
      getItems(
        r: Record<string, unknown>,
      ): Promise<{ data: { Items?: { Name?: string; Overview?: string }[] } }>;
    };
    const { data } = await items.getItems({ recursive: true, fields: ['Overview'] });
    const overview = (name: string) => data.Items?.find((i) => i.Name === name)?.Overview;
    assert.equal(
      overview('Loan Film A'),
      'On disc: Blu-ray, binder L, slot 1. On loan to Sam since 2026-03-10 (due 2026-03-20).',
    );
    assert.equal(overview('Loan Film B'), 'On disc: DVD, binder L, slot 2.');
  });

  it('a person with a content limit sees no loan of a hidden film, and cannot lend or return', async () => {
    await readJson(await server.api(`/api/movies/${movie.C}`, jsonBody('PATCH', { certification: 'R' })));
    await readJson(await lend(copy.C ?? 0, { to: 'Secret' }), 201);
    const { key } = await childReadKey(server, 'Kid', 'loans');
    assert.deepEqual(
      (await loans('', key)).map((l) => l.title),
      ['Loan Film A'],
    );
    assert.equal((await loans('', server.token)).length, 2);
    const asKid = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const lent = await server.api(`/api/physical-copies/${copy.B}/loan`, {
      method: 'POST',
      headers: asKid,
      body: JSON.stringify({ to: 'Me' }),
    });
    assert.equal(lent.status, 403);
    const back = await server.api(`/api/physical-copies/${copy.A}/loan`, {
      method: 'DELETE',
      headers: asKid,
    });
    assert.equal(back.status, 403);
    await readJson(await giveBack(copy.C ?? 0));
  });

  it('the typed client lends, lists and returns', async () => {
    const client = new ReelshelfClient({ baseUrl: server.url, token: server.token });
    const made = await client.lendCopy(copy.B ?? 0, { to: 'Client', due: '2026-04-01' });
    assert.equal(made.to, 'Client');
    assert.deepEqual(
      (await client.loans()).items.map((l) => l.to),
      ['Sam', 'Client'],
    );
    const back = await client.returnCopy(copy.B ?? 0);
    assert.equal(back.returned_at !== null, true);
    const history = (await client.loans({ history: true })).items;
    assert.ok(history.length >= 5);
    // The history keeps the loan just returned, as returned (not only some five rows).
    assert.deepEqual(
      history.filter((l) => l.id === made.id).map((l) => [l.to, l.returned_at]),
      [['Client', back.returned_at]],
    );
  });

  // Last: it adds a film and loans the cases above do not expect.
  it('an import adds loans the kept listing shows at once (no write to the copy), and says when it leaves out an open loan of a disc that is out', async () => {
    type ExportLoan = { to: string; lent_at: string; due: string | null; returned_at: string | null };
    type ExportCopy = { slot: string | null; loans?: ExportLoan[] };
    type ExportDoc = {
      movies: { title: string; copies: ExportCopy[]; editions: { copies: ExportCopy[] }[] }[];
    };
    const doc = await readJson<ExportDoc>(await server.api('/api/export?format=json'));
    const copyIn = (title: string): ExportCopy => {
      const m = doc.movies.find((x) => x.title === title);
      const found = [...(m?.copies ?? []), ...(m?.editions ?? []).flatMap((e) => e.copies)][0];
      assert.ok(found, title);
      return found;
    };
    const open = (to: string, day: string): ExportLoan => ({
      to,
      lent_at: `2026-03-${day}T10:00:00.000Z`,
      due: null,
      returned_at: null,
    });
    // A is out to Sam (since the first case): the file says Alex has it. B is home: the file lends it.
    copyIn('Loan Film A').loans = [open('Alex', '01')];
    const b = copyIn('Loan Film B');
    b.loans = [...(b.loans ?? []), open('Imported', '20')];
    const warning =
      `Loan Film A (2001), copy ${copy.A} (binder "L", slot 1): the loan to Alex since 2026-03-01 is not ` +
      'imported: the disc is on loan to Sam since 2026-03-10 (one loan at a time)';

    const copyWrites = await countCopyWrites(server);
    const library = (etag = '') =>
      server.api('/library', {
        headers: { accept: 'application/json', ...(etag === '' ? {} : { 'if-none-match': etag }) },
      });
    const before = (await library()).headers.get('etag') ?? '';
    const dry = await readJson<{ warnings: string[] }>(
      await server.api('/api/import?dry_run=true', jsonBody('POST', doc)),
    );
    assert.deepEqual(dry.warnings, [warning], 'a dry run says so too');
    assert.equal((await library(before)).status, 304, 'a dry run writes nothing');

    const done = await readJson<{ warnings: string[] }>(
      await server.api('/api/import', jsonBody('POST', doc)),
    );
    assert.deepEqual(done.warnings, [warning]);
    const res = await library(before);
    assert.equal(res.status, 200, 'the import moved the ETag');
    const body = (await res.json()) as {
      items: { movie_id: number; physical_copies?: { loan?: { to: string } }[] }[];
    };
    const loanOf = (id: number | undefined) =>
      body.items.find((i) => i.movie_id === id)?.physical_copies?.[0]?.loan?.to;
    assert.equal(loanOf(movie.B), 'Imported');
    assert.equal(loanOf(movie.A), 'Sam', 'the disc out stays with who has it');
    assert.equal(await copyWrites(), 0, 'merged loans tell the listing by themselves');
    assert.deepEqual(
      (await loans('?history=true')).filter((l) => l.copy_id === copy.A).map((l) => l.to),
      ['Sam'],
      'Alex is not recorded',
    );

    // A new copy with its loan (ImportWriter.insertLentCopy).
    const etag = (await library()).headers.get('etag') ?? '';
    const lentCopy = {
      format_version: 1,
      movies: [
        {
          title: 'Loan Film D',
          year: 2001,
          copies: [{ binder: 'L', slot: '4', notes: null, loans: [open('Dee', '21')] }],
        },
      ],
    };
    assert.deepEqual(
      (await readJson<{ warnings: string[] }>(await server.api('/api/import', jsonBody('POST', lentCopy))))
        .warnings,
      [],
    );
    const after = await library(etag);
    assert.equal(after.status, 200);
    const listed = (await after.json()) as {
      items: { title: string; physical_copies?: { loan?: { to: string } }[] }[];
    };
    assert.equal(listed.items.find((i) => i.title === 'Loan Film D')?.physical_copies?.[0]?.loan?.to, 'Dee');
  });
});
