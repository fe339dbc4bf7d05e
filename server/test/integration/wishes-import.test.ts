// Issue 27 item 5: wishes from imports, on the engine under test — a Letterboxd watchlist.csv with
// ?into=wishes (matched on Name + Year), CLZ rows whose Collection Status is `Wish List` beside rows
// `In Collection`, dry runs that count what the write does, re-imports that create nothing, and a
// wished film imported as owned leaving the list.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { ImportResult } from '@reelshelf/contract';
import { ReelshelfClient } from '../../../client/src/index.ts';
import { jsonBody, startTestServer, type TestServer } from '../helpers/test-server.ts';

const WATCHLIST = [
  'Date,Name,Year,Letterboxd URI',
  '2024-01-02,"Paris, Texas",1984,https://boxd.it/2aHM',
  '2024-01-03,Stalker,1979,https://boxd.it/2bXy',
  '2024-01-04,"The ""Good"" Film",2020,https://boxd.it/3c',
  '2024-01-05,Heat,1995,https://boxd.it/4d',
  '',
].join('\n');

/** CLZ columns as a CLZ Movies export writes them (metadata.md §6.2), with the collection status. */
const CLZ = [
  '"Index","Title","Release Year","Format","Edition","Barcode","IMDb Url","Storage Device","Storage Slot","Collection Status","Seen It","Director","Genre","Runtime","Notes"',
  '"1","Heat","1995","Blu-ray Disc","","","","Binder A","1","In Collection","Yes","Michael Mann","Crime","170 min",""',
  '"2","Dune: Part Two","2024","4K Ultra HD","","","","","","Wish List","No","Denis Villeneuve","Sci-Fi","166 min",""',
  '"3","Alien","1979","DVD","","","","","","Wish List","No","Ridley Scott","Sci-Fi","117 min",""',
  '"4","Blade Runner","1982","HD-DVD","The Final Cut","","","","","On Order","","Ridley Scott","Sci-Fi","117 min",""',
  '',
].join('\r\n');

async function importCsv(t: TestServer, csv: string, query = ''): Promise<ImportResult> {
  const res = await t.api(`/api/import${query}`, {
    method: 'POST',
    headers: { 'content-type': 'text/csv' },
    body: csv,
  });
  const text = await res.text();
  assert.equal(res.status, 200, text);
  return JSON.parse(text) as ImportResult;
}

async function wishes(t: TestServer): Promise<string[]> {
  const list = (await (await t.api('/api/wishes')).json()) as {
    items: { title: string; year: number | null }[];
  };
  return list.items.map((w) => `${w.title} (${w.year ?? '?'})`);
}

async function movieCount(t: TestServer): Promise<number> {
  return ((await (await t.api('/api/movies?limit=1')).json()) as { total: number }).total;
}

describe('wishes from imports', () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer();
  });
  afterEach(async () => {
    await t.close();
  });

  it('a Letterboxd watchlist.csv with ?into=wishes: every row a wish (dry run first), nothing twice', async () => {
    const dry = await importCsv(t, WATCHLIST, '?into=wishes&dry_run=true');
    assert.deepEqual(dry.created, { movies: 0, editions: 0, copies: 0 });
    assert.deepEqual(dry.wishes, { created: 4, unchanged: 0, owned: 0, fulfilled: 0 });
    assert.deepEqual(await wishes(t), []);

    const done = await importCsv(t, WATCHLIST, '?into=wishes');
    assert.deepEqual(done.created, { movies: 0, editions: 0, copies: 0 });
    assert.deepEqual(done.wishes, { created: 4, unchanged: 0, owned: 0, fulfilled: 0 });
    assert.equal(await movieCount(t), 0, 'wishes, not movies');
    assert.deepEqual(await wishes(t), [
      'The "Good" Film (2020)',
      'Heat (1995)',
      'Paris, Texas (1984)',
      'Stalker (1979)',
    ]);

    const client = new ReelshelfClient({ baseUrl: t.url, token: t.token });
    const again = await client.importCsv(WATCHLIST, { into: 'wishes' });
    assert.deepEqual(again.wishes, { created: 0, unchanged: 4, owned: 0, fulfilled: 0 });
    assert.equal((await wishes(t)).length, 4);
  });

  it('a CLZ export: Wish List rows become wishes, In Collection rows discs; owned films are not wished', async () => {
    const done = await importCsv(t, CLZ);
    assert.deepEqual(done.created, { movies: 1, editions: 1, copies: 1 });
    assert.deepEqual(done.wishes, { created: 2, unchanged: 0, owned: 0, fulfilled: 0 });
    assert.deepEqual(await wishes(t), ['Alien (1979)', 'Dune: Part Two (2024)']);
    assert.ok(
      done.warnings.some((w) => w.includes('On Order')),
      'on order: skipped, as before',
    );

    // The watchlist names Heat, which the library owns now: not wished, said in a warning.
    const list = await importCsv(t, WATCHLIST, '?into=wishes');
    assert.deepEqual(list.wishes, { created: 3, unchanged: 0, owned: 1, fulfilled: 0 });
    assert.ok(
      list.warnings.some((w) => /films the library owns.*row 5/.test(w)),
      list.warnings.join('\n'),
    );
    assert.equal((await wishes(t)).includes('Heat (1995)'), false);
  });

  it('a wished film imported as owned leaves the wish list, in the import transaction', async () => {
    await importCsv(t, WATCHLIST, '?into=wishes');
    const owned = [
      'Title,Year,Format,Binder,Slot',
      'Stalker,1979,Blu-ray,B,1',
      'Solaris,1972,DVD,B,2',
      '',
    ].join('\n');
    const dry = await importCsv(t, owned, '?dry_run=true');
    assert.deepEqual(dry.wishes, { created: 0, unchanged: 0, owned: 0, fulfilled: 1 });
    assert.equal((await wishes(t)).length, 4, 'a dry run fulfils nothing');
    const done = await importCsv(t, owned);
    assert.deepEqual(done.created, { movies: 2, editions: 2, copies: 2 });
    assert.deepEqual(done.wishes, { created: 0, unchanged: 0, owned: 0, fulfilled: 1 });
    assert.equal((await wishes(t)).includes('Stalker (1979)'), false);
    // A film imported without a disc or a file is not owned: its wish stays.
    const listed = await importCsv(t, 'Title,Year\nHeat,1995\n');
    assert.equal(listed.wishes, undefined, 'nothing about wishes to report');
    assert.equal((await wishes(t)).includes('Heat (1995)'), true);
  });

  it('a bad wish row refuses the whole file; into=wishes takes no JSON', async () => {
    const bad = await t.api('/api/import?into=wishes', {
      method: 'POST',
      headers: { 'content-type': 'text/csv' },
      body: 'Date,Name,Year,Letterboxd URI\n2024-01-01,Good,1999,x\n2024-01-01,Bad,12,x\n',
    });
    assert.equal(bad.status, 400);
    const body = (await bad.json()) as { error: string; rows: { row: number; field: string }[] };
    assert.equal(body.error, 'import_invalid');
    assert.deepEqual(
      body.rows.map((r) => [r.row, r.field]),
      [[3, 'year']],
    );
    assert.deepEqual(await wishes(t), []);
    const json = await t.api('/api/import?into=wishes', jsonBody('POST', { format_version: 1, movies: [] }));
    assert.equal(json.status, 400);
    // An uploaded file whose type says nothing, but whose text is a JSON export: refused the same,
    // and nothing of it written (it once went in as a library import, wishes ignored).
    const exported = JSON.stringify({ format_version: 1, movies: [{ title: 'Uploaded Json', year: 2001 }] });
    const form = new FormData();
    form.append('file', new Blob([exported], { type: 'application/octet-stream' }), 'library-export');
    const before = await movieCount(t);
    const upload = await t.api('/api/import?into=wishes', { method: 'POST', body: form });
    assert.equal(upload.status, 400);
    const refusal = (await upload.json()) as { error: string; field: string; message: string };
    assert.equal(refusal.error, 'validation_failed');
    assert.equal(refusal.field, 'into');
    assert.equal(await movieCount(t), before);
    assert.deepEqual(await wishes(t), []);
  });
});
