import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import type {
  ImportInvalidError,
  ImportResult,
  LibraryResponse,
  MovieDetail,
  MovieList,
} from '@reelshelf/contract';
import { ReelshelfApiError, ReelshelfClient } from '../../../client/src/index.ts';
import { startFakeProviders } from '../fakes/index.ts';
import { makeFixture } from '../helpers/media.ts';
import { jsonBody, startTestServer, type TestServer } from '../helpers/test-server.ts';
import { testDatabaseEnv } from '../helpers/test-database.ts';

const run = promisify(execFile);
const REPO = new URL('../../../', import.meta.url).pathname;

function post(t: TestServer, body: string | Uint8Array, type: string, dryRun = false): Promise<Response> {
  return t.api(`/api/import${dryRun ? '?dry_run=true' : ''}`, {
    method: 'POST',
    headers: { 'content-type': type },
    body: typeof body === 'string' ? body : new Uint8Array(body),
  });
}

async function importCsv(t: TestServer, csv: string, dryRun = false): Promise<ImportResult> {
  const res = await post(t, csv, 'text/csv', dryRun);
  const body: unknown = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  return body as ImportResult;
}

async function refused(res: Response): Promise<ImportInvalidError> {
  assert.equal(res.status, 400);
  const body = (await res.json()) as ImportInvalidError;
  assert.equal(body.error, 'import_invalid');
  return body;
}

async function movieByTitle(t: TestServer, q: string): Promise<MovieDetail> {
  const list = (await (await t.api(`/api/movies?q=${encodeURIComponent(q)}`)).json()) as MovieList;
  assert.equal(list.items.length, 1, `one movie "${q}" (${list.items.map((m) => m.title).join(', ')})`);
  const id = list.items[0]?.id;
  return (await (await t.api(`/api/movies/${id}`)).json()) as MovieDetail;
}

async function wishTitles(t: TestServer): Promise<string[]> {
  const list = (await (await t.api('/api/wishes')).json()) as { items: { title: string; year: number }[] };
  return list.items.map((w) => `${w.title} (${w.year})`);
}

async function movieCount(t: TestServer): Promise<number> {
  return ((await (await t.api('/api/movies?limit=1')).json()) as MovieList).total;
}

async function exportText(t: TestServer, format: 'json' | 'csv'): Promise<Buffer> {
  const res = await t.api(`/api/export?format=${format}`);
  assert.equal(res.status, 200);
  return Buffer.from(await res.arrayBuffer());
}

const CLZ = [
  '"Index","Title","Release Year","Format","Edition","Barcode","IMDb Url","Storage Device","Storage Slot","Collection Status","Seen It","Director","Genre","Runtime","Notes"',
  '"1","The Matrix","1999","Blu-ray Disc","10th Anniversary Edition","085391163541","https://www.imdb.com/title/tt0133093/","Binder A","1","In Collection","Yes","Lana Wachowski","Action, Sci-Fi","136 min",""',
  '"2","Inception","2010","4K Ultra HD + Blu-ray","","883929014453","https://www.imdb.com/title/tt1375666/","Binder A","2","In Collection","No","Christopher Nolan","Action","148 min","Steelbook"',
  '"3","Léon","1994","DVD","Director\'s Cut","85392118823.0","http://www.imdb.com/title/tt0110413","Binder B","1","In Collection","","Luc Besson","Crime","133 min",""',
  '"4","Dune: Part Two","2024","4K Ultra HD","","","","","","Wish List","No","Denis Villeneuve","Sci-Fi","166 min",""',
  '"5","The Matrix","1999","DVD","","","https://www.imdb.com/title/tt0133093/","Binder B","2","In Collection","Yes","Lana Wachowski","Action","136 min",""',
  '',
].join('\r\n');

const LETTERBOXD = [
  'Date,Name,Year,Letterboxd URI,Rating,Rewatch,Tags,Watched Date',
  '2024-01-02,"Paris, Texas",1984,https://boxd.it/abc,4.5,,,2024-01-01',
  '2024-02-03,"Crouching Tiger, Hidden Dragon",2000,https://boxd.it/def,5,Yes,"wuxia, favourites",2024-02-02',
  '2024-03-04,Portrait of a Lady on Fire,2019,https://boxd.it/ghi,,,,',
  '',
].join('\n');

const HAND_MADE = [
  'Title,Year,Format,Edition,Binder,Slot,Watched',
  '"Les Misérables",1998,DVD,"Édition ""collector"", 2 disques",Bïnder Ü,1,yes',
  '"Le Fabuleux Destin, d\'Amélie Poulain",2001,Blu-ray,"Line one',
  'line two",Bïnder Ü,2,x',
  'Señor Ñandú,1999,,,,,',
  '',
].join('\n');

describe('import and export over HTTP', () => {
  let t: TestServer;

  // Each test starts from an empty library and imports what it needs, so any one of them can run
  // alone (--test-name-pattern) or in any order.
  beforeEach(async () => {
    t = await startTestServer();
  });
  afterEach(async () => {
    await t.close();
  });

  it('imports a CLZ export: one movie per title, editions, copies in binder slots; wish-list rows are wishes', async () => {
    const dry = await importCsv(t, CLZ, true);
    assert.equal(dry.dry_run, true);
    assert.deepEqual(dry.created, { movies: 3, editions: 4, copies: 4 });
    assert.deepEqual(dry.wishes, { created: 1, unchanged: 0, owned: 0, fulfilled: 0 });
    assert.equal(await movieCount(t), 0, 'a dry run writes nothing');
    assert.deepEqual(await wishTitles(t), [], 'a dry run wishes nothing');

    const done = await importCsv(t, CLZ);
    assert.equal(done.dry_run, false);
    assert.deepEqual(done.created, { movies: 3, editions: 4, copies: 4 });
    assert.deepEqual(done.wishes, { created: 1, unchanged: 0, owned: 0, fulfilled: 0 });
    assert.equal(await movieCount(t), 3);
    assert.deepEqual(await wishTitles(t), ['Dune: Part Two (2024)'], 'a wish, not a movie');

    const matrix = await movieByTitle(t, 'matrix');
    assert.equal(matrix.year, 1999);
    assert.equal(matrix.imdb_id, 'tt0133093');
    assert.equal(matrix.watched, true);
    assert.deepEqual(matrix.editions.map((e) => [e.format, e.label, e.barcode]).sort(), [
      ['Blu-ray', '10th Anniversary Edition', '0085391163541'],
      ['DVD', null, null],
    ]);
    assert.deepEqual(matrix.physical_copies.map((c) => [c.binder, c.slot, c.format]).sort(), [
      ['Binder A', '1', 'Blu-ray'],
      ['Binder B', '2', 'DVD'],
    ]);
    const leon = await movieByTitle(t, 'leon');
    assert.equal(leon.title, 'Léon');
    assert.equal(leon.editions[0]?.barcode, '0085392118823');
    assert.equal(leon.editions[0]?.label, "Director's Cut");

    const library = (await (await t.api('/library')).json()) as LibraryResponse;
    const inception = library.items.find((i) => i.title === 'Inception');
    assert.deepEqual(inception?.physical_copies, [{ binder: 'Binder A', slot: '2', format: '4K UHD' }]);
    assert.equal(inception?.badge, 'on_disc');
  });

  it('re-importing the same file creates and changes nothing', async () => {
    assert.equal((await importCsv(t, CLZ)).created.movies, 3);
    const again = await importCsv(t, CLZ);
    assert.deepEqual(again.created, { movies: 0, editions: 0, copies: 0 });
    assert.deepEqual(again.updated, { movies: 0 });
    assert.deepEqual(again.unchanged, { movies: 3 });
    assert.deepEqual(again.wishes, { created: 0, unchanged: 1, owned: 0, fulfilled: 0 });
    assert.equal(await movieCount(t), 3);
    assert.deepEqual(await wishTitles(t), ['Dune: Part Two (2024)']);
  });

  it('imports a Letterboxd diary: movies without discs, watched from the watched date', async () => {
    const res = await importCsv(t, LETTERBOXD);
    assert.deepEqual(res.created, { movies: 3, editions: 0, copies: 0 });
    const tiger = await movieByTitle(t, 'crouching tiger');
    assert.equal(tiger.title, 'Crouching Tiger, Hidden Dragon');
    assert.equal(tiger.year, 2000);
    assert.equal(tiger.watched, true);
    assert.deepEqual(tiger.physical_copies, []);
    assert.equal((await movieByTitle(t, 'portrait of a lady')).watched, false);
    assert.deepEqual((await importCsv(t, LETTERBOXD)).created, { movies: 0, editions: 0, copies: 0 });
  });

  it('reads quotes, commas, line breaks and accents in a hand-made CSV', async () => {
    const res = await importCsv(t, HAND_MADE);
    assert.deepEqual(res.created, { movies: 3, editions: 2, copies: 2 });
    const amelie = await movieByTitle(t, 'fabuleux destin');
    assert.equal(amelie.title, "Le Fabuleux Destin, d'Amélie Poulain");
    assert.equal(amelie.watched, true);
    assert.deepEqual(amelie.editions[0]?.label, 'Line one line two');
    assert.deepEqual(
      amelie.physical_copies.map((c) => [c.binder, c.slot]),
      [['Bïnder Ü', '2']],
    );
    const collector = await movieByTitle(t, 'miserables');
    assert.equal(collector.title, 'Les Misérables');
    assert.equal(collector.editions[0]?.label, 'Édition "collector", 2 disques');
    assert.equal((await movieByTitle(t, 'senor nandu')).title, 'Señor Ñandú');
  });

  it('a file with one bad row writes nothing and names the row', async () => {
    const before = await movieCount(t);
    const csv =
      'Title,Year,Format,Binder,Slot\nGood One,2001,DVD,Z,1\nBad Year,19x9,DVD,Z,2\nGood Two,2002,,,\n';
    const body = await refused(await post(t, csv, 'text/csv'));
    assert.deepEqual(
      body.rows.map((r) => [r.row, r.field]),
      [[3, 'year']],
    );
    assert.match(body.rows[0]?.message ?? '', /19x9/);
    assert.equal(await movieCount(t), before);
    // The same holds in a dry run, and for a header without a title column.
    await refused(await post(t, csv, 'text/csv', true));
    const noTitle = await refused(await post(t, 'Year,Format\n1999,DVD\n', 'text/csv'));
    assert.equal(noTitle.rows[0]?.field, 'title');
  });

  it('a slot that holds another movie’s disc in the library is an error on that line', async () => {
    await importCsv(t, CLZ);
    const before = await movieCount(t);
    const csv =
      'Title,Year,Format,Binder,Slot\nFresh Movie,2020,DVD,Binder Z,9\nIntruder,2021,Blu-ray,Binder A,1\n';
    const body = await refused(await post(t, csv, 'text/csv'));
    assert.equal(body.rows.length, 1);
    assert.deepEqual([body.rows[0]?.row, body.rows[0]?.field], [3, 'slot']);
    assert.match(body.rows[0]?.message ?? '', /Matrix/);
    assert.equal(await movieCount(t), before);
  });

  it('accepts a multipart upload; refuses other content types with 415', async () => {
    const form = new FormData();
    form.append('file', new Blob(['Title,Year\nUploaded Movie,2011\n'], { type: 'text/csv' }), 'list.csv');
    const res = await t.api('/api/import?dry_run=true', { method: 'POST', body: form });
    assert.equal(res.status, 200);
    assert.deepEqual(((await res.json()) as ImportResult).created, { movies: 1, editions: 0, copies: 0 });
    const other = await post(t, 'Title\nX\n', 'text/plain');
    assert.equal(other.status, 415);
    assert.equal(((await other.json()) as { error: string }).error, 'unsupported_media_type');
  });

  it('a multipart upload of two files or too many fields is a 400 that says so, not "too large"', async () => {
    const before = await movieCount(t);
    const two = new FormData();
    two.append('file', new Blob(['Title,Year\nFirst,2011\n'], { type: 'text/csv' }), 'a.csv');
    two.append('file', new Blob(['Title,Year\nSecond,2012\n'], { type: 'text/csv' }), 'b.csv');
    const fields = new FormData();
    for (let i = 0; i < 12; i++) fields.append(`note${i}`, 'x');
    fields.append('file', new Blob(['Title,Year\nThird,2013\n'], { type: 'text/csv' }), 'c.csv');
    for (const [form, words] of [
      [two, /one file|more than one file/],
      [fields, /form fields/],
    ] as const) {
      const res = await t.api('/api/import', { method: 'POST', body: form });
      const body = (await res.json()) as { error: string; message: string; hint?: string };
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(body.error, 'validation_failed');
      assert.match(body.message, words);
      assert.ok(body.hint);
    }
    assert.equal(await movieCount(t), before, 'nothing written');
  });

  it('CSV export: attachment, BOM, formula cells escaped, and it imports back unchanged', async () => {
    await importCsv(t, CLZ);
    const created = await t.api('/api/movies', jsonBody('POST', { title: '=HYPERLINK("x")', year: 2005 }));
    assert.equal(created.status, 201);
    const res = await t.api('/api/export?format=csv');
    assert.equal(res.headers.get('content-type'), 'text/csv; charset=utf-8');
    assert.equal(res.headers.get('content-disposition'), 'attachment; filename="reelshelf-export.csv"');
    const bytes = Buffer.from(await res.arrayBuffer());
    assert.deepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf]);
    const text = bytes.toString('utf8');
    assert.ok(text.includes(`"'=HYPERLINK(""x"")",2005`), text.split('\r\n').slice(0, 3).join('\n'));
    assert.ok(text.includes('Binder A,1,'));
    const back = await post(t, bytes, 'text/csv');
    assert.equal(back.status, 200);
    const result = (await back.json()) as ImportResult;
    assert.deepEqual(result.created, { movies: 0, editions: 0, copies: 0 });
    assert.equal(result.updated.movies, 0);
    assert.equal((await movieByTitle(t, 'hyperlink')).title, '=HYPERLINK("x")');
  });

  it('the typed client imports CSV and JSON and exports', async () => {
    const client = new ReelshelfClient({ baseUrl: t.url, token: t.token });
    const dry = await client.importCsv(Buffer.from('Title,Year\nClient Movie,2012\n'), { dryRun: true });
    assert.deepEqual([dry.dry_run, dry.created.movies], [true, 1]);
    const csv = await client.export('csv');
    assert.ok(csv.startsWith('\uFEFFTitle,Year,'), 'the BOM is kept');
    const json = await client.export('json');
    const again = await client.importJson(json);
    assert.deepEqual(again.created, { movies: 0, editions: 0, copies: 0 });
    assert.equal((await client.importJson(JSON.parse(json), { dryRun: true })).updated.movies, 0);
    await assert.rejects(client.importCsv('Title,Year\nBroken,20x0\n'), (err: unknown) => {
      assert.ok(err instanceof ReelshelfApiError);
      assert.equal(err.code, 'import_invalid');
      assert.deepEqual((err.body as unknown as ImportInvalidError).rows[0]?.row, 2);
      return true;
    });
  });

  it('serves the import page and its script', async () => {
    const page = await t.api('/import', { headers: { accept: 'text/html' } });
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /<h1>Import and export<\/h1>/);
    assert.match(html, /href="\/import" aria-current="page"/);
    assert.match(html, /id="import-into-wishes" name="into_wishes" type="checkbox"/);
    assert.match(html, /href="\/api\/export\/letterboxd"/);
    const script = /src="(\/assets\/import\.js\?v=\w+)"/.exec(html)?.[1];
    assert.ok(script !== undefined);
    assert.equal((await t.api(script)).status, 200);
    const anonymous = await t.api('/import', { auth: false, redirect: 'manual' });
    assert.equal(anonymous.status, 303);
  });

  it('a 50 MB upload is refused with 413 payload_too_large and the server keeps serving', async () => {
    // (Every kind of oversized upload, sent in full by a plain client: upload-limits.test.ts.)
    const before = await movieCount(t);
    const big = Buffer.alloc(50 * 1024 * 1024, 0x61);
    const tooLarge = async (res: Response, what: string) => {
      const body = (await res.json()) as { error: string; hint?: string };
      assert.equal(res.status, 413, `${what}: ${JSON.stringify(body).slice(0, 300)}`);
      assert.equal(body.error, 'payload_too_large', what);
      assert.match(body.hint ?? '', /reelshelf import/, what);
    };
    for (const type of ['text/csv', 'application/json']) await tooLarge(await post(t, big, type), type);
    const form = new FormData();
    form.append('file', new Blob([big], { type: 'text/csv' }), 'big.csv');
    await tooLarge(await t.api('/api/import', { method: 'POST', body: form }), 'multipart');
    assert.equal(await movieCount(t), before, 'nothing written');
    assert.equal((await t.api('/api/health')).status, 200);
    assert.equal((await importCsv(t, 'Title\nAfter The Big One\n')).created.movies, 1);
  });
});

describe('JSON export → import into an empty library → export gives the same bytes', () => {
  let rich: TestServer;
  let empty: TestServer;
  let media: string;

  before(async () => {
    media = mkdtempSync(join(tmpdir(), 'reelshelf-ie-media-'));
    [rich, empty] = await Promise.all([startTestServer(), startTestServer()]);
    // Long enough that 42 s in is a place to resume (the resume rule: films of 5 minutes or more).
    await makeFixture('h264_aac_long.mp4', join(media, 'Heat (1995)', 'Heat (1995).mp4'), 400);
  });
  after(async () => {
    await Promise.all([rich.close(), empty.close()]);
    rmSync(media, { recursive: true, force: true });
  });

  it('builds a rich library, exports it, restores it elsewhere and exports the same bytes', async () => {
    const create = async (body: unknown) => {
      const res = await rich.api('/api/movies', jsonBody('POST', body));
      assert.equal(res.status, 201, await res.clone().text());
      return (await res.json()) as MovieDetail;
    };
    const heat = await create({
      title: 'Heat',
      year: 1995,
      tmdb_id: 949,
      imdb_id: 'tt0113277',
      overview: 'A group of high-end professional thieves…',
      runtime_minutes: 170,
      watched: true,
      has_digital_store_a: true,
      physical_copies: [
        {
          binder: 'Binder A',
          slot: '1',
          format: 'Blu-ray',
          edition: 'Director’s Definitive',
          barcode: '5039036003995',
        },
        { binder: 'Binder A', slot: '2', format: 'DVD' },
      ],
    });
    const solarisOnDisc = await create({
      title: 'Solaris',
      year: 1972,
      physical_copies: [{ binder: 'Binder B', slot: '10' }],
    });
    await create({ title: 'Solaris', year: 1972 });
    await create({ title: 'Amélie', year: 2001, original_title: 'Le Fabuleux Destin d’Amélie Poulain' });
    // The wish list (issue 27): a title with a comma, a note with quotes, a TMDb id, no year.
    for (const wish of [
      { title: 'Paris, Texas', year: 1984, note: 'the "restored" print' },
      { title: 'In the Mood for Love', year: 2000, tmdb_id: 843 },
      { title: 'Koyaanisqatsi' },
    ]) {
      const res = await rich.api('/api/wishes', jsonBody('POST', wish));
      assert.equal(res.status, 201, await res.clone().text());
    }
    // A binder drawn with 12 sleeves a page (issue 27): its setting is part of the library.
    const perPage = await rich.api('/api/binders/Binder%20B', jsonBody('PATCH', { slots_per_page: 12 }));
    assert.equal(perPage.status, 200, await perPage.text());

    // What enrichment and the artwork job would have stored, written straight to the database.
    const db = rich.server.database.db;
    await db
      .updateTable('movies')
      .set({
        tagline: 'A Los Angeles crime saga',
        genres_json: JSON.stringify(['Crime', 'Drama', 'Action']),
        tmdb_collection_id: 12345,
        tmdb_collection_name: 'Heat Collection',
      })
      .where('id', '=', heat.id)
      .execute();
    await db
      .insertInto('movie_ratings')
      .values([
        { movie_id: heat.id, source: 'Internet Movie Database', value: '8.3/10', fetched_at: 'x' },
        { movie_id: heat.id, source: 'Rotten Tomatoes', value: '88%', fetched_at: 'x' },
      ])
      .execute();
    const people = ['Al Pacino', 'Robert De Niro', 'Val Kilmer', 'Michael Mann'];
    const ids: number[] = [];
    for (const name of people) {
      ids.push(
        (await db.insertInto('persons').values({ name }).returning('id').executeTakeFirstOrThrow()).id,
      );
    }
    await db
      .insertInto('person_movie')
      .values([
        // Billing order is sort_order, not insertion order.
        { person_id: ids[1] ?? 0, movie_id: heat.id, role: 'cast', sort_order: 1 },
        { person_id: ids[0] ?? 0, movie_id: heat.id, role: 'cast', sort_order: 0 },
        { person_id: ids[2] ?? 0, movie_id: heat.id, role: 'cast', sort_order: 2 },
        { person_id: ids[3] ?? 0, movie_id: heat.id, role: 'crew', job: 'Director', sort_order: 0 },
      ])
      .execute();
    const studio = await db
      .insertInto('studios')
      .values({ tmdb_id: 508, name: 'Regency Enterprises' })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db.insertInto('movie_studio').values({ movie_id: heat.id, studio_id: studio.id }).execute();
    await db
      .insertInto('movie_artwork_state')
      .values({
        movie_id: heat.id,
        poster_state: 'ready',
        poster_source: 'tmdb:/heatposter.jpg',
        poster_path: '/somewhere/poster.jpg',
        backdrop_state: 'none',
        backdrop_source: null,
        backdrop_path: null,
      })
      .execute();
    await db.insertInto('binders').values({ name: 'Empty Binder', capacity: 50, created_at: 'x' }).execute();
    await db.insertInto('collections').values({ name: 'Unused collection', created_at: 'x' }).execute();
    await db
      .updateTable('physical_copies')
      .set({ notes: 'signed sleeve' })
      .where('movie_id', '=', heat.id)
      .where('slot', '=', '2')
      .execute();

    // A library root with a scanned file, and watch progress on it.
    const root = await rich.api('/api/library-roots', jsonBody('POST', { path: media, collection: 'Films' }));
    assert.equal(root.status, 201);
    const rootId = ((await root.json()) as { id: number }).id;
    const scan = await rich.api(`/api/library-roots/${rootId}/scan?wait=true`, { method: 'POST' });
    assert.equal(((await scan.json()) as { status: string }).status, 'committed');
    const scanned = (await (await rich.api(`/api/movies/${heat.id}`)).json()) as MovieDetail;
    const file = scanned.media_files[0];
    assert.ok(file !== undefined, 'the scan put the file on the existing movie');
    const progress = await rich.api(
      `/api/media-file/${file.id}/progress`,
      jsonBody('PUT', { position_seconds: 42.7, watched: false }),
    );
    assert.equal(progress.status, 200);

    // Loans (issue 27): Heat's Blu-ray lent and returned, then lent again (out now); Solaris's disc
    // lent and returned (history only). Their times are the library's data, not the export's.
    const loan = async (copyId: number | undefined, method: 'POST' | 'DELETE', body?: unknown) => {
      const res = await rich.api(
        `/api/physical-copies/${copyId}/loan`,
        body === undefined ? { method } : jsonBody(method, body),
      );
      assert.equal(res.status, method === 'POST' ? 201 : 200, await res.text());
    };
    const bluRay = heat.physical_copies.find((c) => c.slot === '1')?.id;
    const solaris = solarisOnDisc.physical_copies[0]?.id;
    await loan(bluRay, 'POST', { to: 'Neil', due: '2026-03-20' });
    await loan(bluRay, 'DELETE');
    await loan(bluRay, 'POST', { to: 'Vincent' });
    await loan(solaris, 'POST', { to: 'Chris', due: '2026-01-02' });
    await loan(solaris, 'DELETE');

    const first = await exportText(rich, 'json');
    const doc = JSON.parse(first.toString('utf8')) as {
      movies: { title: string; cast: string[]; media_files: unknown[] }[];
      binders: unknown[];
      wishes: unknown[];
    };
    assert.deepEqual(doc.wishes, [
      { title: 'In the Mood for Love', year: 2000, tmdb_id: 843, note: null },
      { title: 'Koyaanisqatsi', year: null, tmdb_id: null, note: null },
      { title: 'Paris, Texas', year: 1984, tmdb_id: null, note: 'the "restored" print' },
    ]);
    assert.equal(
      (await exportText(empty, 'json')).toString('utf8').includes('"wishes"'),
      false,
      'a library without wishes exports no wishes key (older exports keep their bytes)',
    );
    const heatDoc = doc.movies.find((m) => m.title === 'Heat');
    assert.deepEqual(heatDoc?.cast, ['Al Pacino', 'Robert De Niro', 'Val Kilmer']);
    assert.deepEqual(heatDoc?.media_files, [
      {
        root: media,
        relative_path: join('Heat (1995)', 'Heat (1995).mp4'),
        fingerprint: (
          await rich.server.database.db
            .selectFrom('media_files')
            .select('fingerprint')
            .executeTakeFirstOrThrow()
        ).fingerprint,
        size_bytes: file.size_bytes,
        edition_label: null,
        edition_index: null,
        watch: { position_seconds: 42, watched: false },
      },
    ]);
    // The only times in the document are the loans' own (when a disc went out and came back).
    const loanTimes = /"(lent_at|returned_at)": "\d{4}-\d\d-\d\dT[^"]*"/g;
    assert.equal(first.toString('utf8').match(loanTimes)?.length, 5, 'three lends, two returns');
    assert.ok(
      !/"(movie_id|edition_id|created_at|updated_at|fetched_at|enriched_at)"|\d{4}-\d\d-\d\dT/.test(
        first.toString('utf8').replace(loanTimes, ''),
      ),
      'no database ids or timestamps',
    );

    // Into the empty server: a dry run first (nothing written), then the import.
    const dry = await post(empty, first, 'application/json', true);
    assert.equal(dry.status, 200);
    const dryResult = (await dry.json()) as ImportResult;
    assert.deepEqual(dryResult.created, { movies: 4, editions: 2, copies: 3 });
    assert.deepEqual(dryResult.wishes, { created: 3, unchanged: 0, owned: 0, fulfilled: 0 });
    assert.equal(await movieCount(empty), 0);
    const restored = await post(empty, first, 'application/json');
    const result = (await restored.json()) as ImportResult;
    assert.equal(restored.status, 200, JSON.stringify(result));
    assert.deepEqual(result.created, { movies: 4, editions: 2, copies: 3 });
    assert.deepEqual(result.wishes, { created: 3, unchanged: 0, owned: 0, fulfilled: 0 });
    assert.deepEqual(result.warnings, []);

    const second = await exportText(empty, 'json');
    assert.equal(second.toString('utf8'), first.toString('utf8'));
    assert.ok(second.equals(first), 'byte-identical');
    const binders = (await (await empty.api('/api/binders')).json()) as { items: unknown[] };
    assert.deepEqual(binders.items, [
      { name: 'Binder A', copies: 2, slots_per_page: 8 },
      { name: 'Binder B', copies: 1, slots_per_page: 12 },
      { name: 'Empty Binder', copies: 0, slots_per_page: 8 },
    ]);
    const out = (await (await empty.api('/api/loans?history=true')).json()) as {
      items: {
        title: string;
        slot: string | null;
        to: string;
        due: string | null;
        returned_at: string | null;
      }[];
    };
    assert.deepEqual(
      out.items.map((l) => [l.title, l.slot, l.to, l.due, l.returned_at === null]),
      [
        ['Heat', '1', 'Neil', '2026-03-20', false],
        ['Heat', '1', 'Vincent', null, true],
        ['Solaris', '10', 'Chris', '2026-01-02', false],
      ],
    );
    const restoredHeat = await movieByTitle(empty, 'heat');
    assert.equal(restoredHeat.media_files[0]?.status, 'present');
    assert.equal(restoredHeat.media_files[0]?.analysis_status, 'not_analyzed');
    assert.deepEqual(restoredHeat.directors, ['Michael Mann']);
    assert.equal((await exportText(empty, 'csv')).equals(await exportText(rich, 'csv')), true);

    // Importing the export again, into either library, changes nothing.
    for (const t of [empty, rich]) {
      const res = await post(t, first, 'application/json');
      const again = (await res.json()) as ImportResult;
      assert.equal(res.status, 200, JSON.stringify(again));
      assert.deepEqual(again.created, { movies: 0, editions: 0, copies: 0 });
      assert.deepEqual([again.updated.movies, again.unchanged.movies], [0, 4]);
      assert.deepEqual(again.wishes, { created: 0, unchanged: 3, owned: 0, fulfilled: 0 });
      assert.ok((await exportText(t, 'json')).equals(first));
    }
  });

  it('a JSON item with problems is refused with its item number and path', async () => {
    const doc = {
      format_version: 1,
      movies: [{ title: 'Fine' }, { title: 'Broken', year: 'soon', editions: [{ copies: [{ slot: '3' }] }] }],
    };
    const body = await refused(await empty.api('/api/import', jsonBody('POST', doc)));
    assert.deepEqual(body.rows.map((r) => [r.row, r.field]).sort(), [
      [2, 'editions/0/copies/0/slot'],
      [2, 'year'],
    ]);
  });
});

describe('imported movies are enriched when a provider is configured', () => {
  it('queues the new movies: TMDb fills the overview and ids in the background', async () => {
    const fakes = await startFakeProviders();
    const t = await startTestServer(fakes.env);
    try {
      const res = await importCsv(t, 'Title,Year,Format\nAlien,1979,DVD\n');
      assert.equal(res.created.movies, 1);
      // Enrichment runs in the background: wait for it to be done, not for a fixed time (a busy
      // machine takes longer); the deadline only stops a hang.
      let alien = await movieByTitle(t, 'alien');
      const deadline = Date.now() + 60_000;
      while (alien.enriched_at === null) {
        assert.ok(Date.now() < deadline, 'the imported movie was enriched within a minute');
        await new Promise((r) => setTimeout(r, 50));
        alien = await movieByTitle(t, 'alien');
      }
      assert.equal(alien.tmdb_id, 348);
      assert.notEqual(alien.overview, null);
      // Re-importing after enrichment still changes nothing (the file's values agree or are empty).
      const again = await importCsv(t, 'Title,Year,Format\nAlien,1979,DVD\n');
      assert.deepEqual([again.created.movies, again.updated.movies, again.unchanged.movies], [0, 0, 1]);
    } finally {
      await t.close();
      await fakes.close();
    }
  });
});

describe('reelshelf import (CLI)', () => {
  it('checks a CSV with --dry-run through the same service, writing nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'reelshelf-cli-'));
    try {
      const file = join(dir, 'collection.csv');
      writeFileSync(file, 'Title,Year,Format,Binder,Slot\nHeat,1995,DVD,A,1\nAlien,1979,Blu-ray,A,2\n');
      const env = {
        ...process.env,
        REELSHELF_DATA_DIR: join(dir, 'data'),
        ...testDatabaseEnv(join(dir, 'data')),
        REELSHELF_LOG_LEVEL: 'silent',
      };
      const dry = await run(process.execPath, ['bin/reelshelf.mjs', 'import', file, '--dry-run'], {
        cwd: REPO,
        env,
      });
      assert.match(dry.stdout, /dry run \(nothing written\): would create 2 movies, 2 editions, 2 copies/);
      const exported = await run(process.execPath, ['bin/reelshelf.mjs', 'export', '--format', 'json'], {
        cwd: REPO,
        env,
      });
      assert.deepEqual((JSON.parse(exported.stdout) as { movies: unknown[] }).movies, []);
      writeFileSync(file, 'Title,Year\nHeat,199\n');
      const bad = await run(process.execPath, ['bin/reelshelf.mjs', 'import', file], { cwd: REPO, env }).then(
        () => assert.fail('a bad file exits non-zero'),
        (err: { code: number; stdout: string }) => err,
      );
      assert.equal(bad.code, 1);
      assert.match(bad.stdout, /line 2 · year/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
