// Issue 27 item 5: the wish list through the API on the engine under test (SQLite, or PostgreSQL with
// REELSHELF_TEST_DATABASE=postgres): add by title + year or by TMDb id (titled from the faked TMDb),
// 400/409s, removal, a barcode scan of a wished film moving it to owned in one transaction, and who
// may write.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { Wish, WishList } from '@reelshelf/contract';
import { ReelshelfClient } from '../../../client/src/index.ts';
import { WishRepository } from '../../src/repositories/wish.repository.ts';
import { BARCODES, type FakeProviders, startFakeProviders } from '../fakes/index.ts';
import { signInSession } from '../helpers/household.ts';
import { jsonBody, readJson, startTestServer, type TestServer } from '../helpers/test-server.ts';

let t: TestServer;
let fakes: FakeProviders;

const wish = (body: unknown) => t.api('/api/wishes', jsonBody('POST', body));
const list = async () => (await readJson<WishList>(await t.api('/api/wishes'))).items;

describe('wish list API', () => {
  before(async () => {
    fakes = await startFakeProviders();
    t = await startTestServer(fakes.env);
  });
  after(async () => {
    await t.close();
    await fakes.close();
  });
  beforeEach(() => fakes.reset());

  it('adds by title + year, lists by title, refuses a duplicate either way, removes', async () => {
    const heat = await readJson<Wish>(await wish({ title: 'Heat', year: 1995, note: 'the Mann one' }), 201);
    assert.equal(heat.title, 'Heat');
    assert.equal(heat.year, 1995);
    assert.equal(heat.tmdb_id, null);
    assert.equal(heat.note, 'the Mann one');
    const amelie = await readJson<Wish>(await wish({ title: 'Amélie', year: 2001 }), 201);
    // The same film, spelled otherwise: one wish (normalized title + year).
    const again = await readJson<{ error: string; wish_id: number }>(
      await wish({ title: 'heat', year: 1995 }),
      409,
    );
    assert.equal(again.error, 'already_wished');
    assert.equal(again.wish_id, heat.id);
    // Another year is another film.
    const remake = await readJson<Wish>(await wish({ title: 'Heat', year: 1986 }), 201);
    assert.deepEqual(
      (await list()).map((w) => [w.title, w.year]),
      [
        ['Amélie', 2001],
        ['Heat', 1986],
        ['Heat', 1995],
      ],
    );
    assert.equal((await t.api(`/api/wishes/${remake.id}`, { method: 'DELETE' })).status, 204);
    assert.equal((await t.api(`/api/wishes/${remake.id}`, { method: 'DELETE' })).status, 404);
    assert.equal((await t.api(`/api/wishes/${amelie.id}`, { method: 'DELETE' })).status, 204);
    assert.equal((await t.api(`/api/wishes/${heat.id}`, { method: 'DELETE' })).status, 204);
    assert.deepEqual(await list(), []);
  });

  it('400 without a title or tmdb_id; a tmdb_id alone is titled from TMDb; 409 by either identity', async () => {
    const none = await readJson<{ error: string }>(await wish({ year: 1999 }), 400);
    assert.equal(none.error, 'validation_failed');
    assert.equal((await wish({ title: '   ' })).status, 400);
    const matrix = await readJson<Wish>(await wish({ tmdb_id: 603 }), 201);
    assert.equal(matrix.title, 'The Matrix');
    assert.equal(matrix.year, 1999);
    assert.equal(matrix.tmdb_id, 603);
    assert.equal(
      (await readJson<{ error: string }>(await wish({ tmdb_id: 603, title: 'Matrix' }), 409)).error,
      'already_wished',
    );
    assert.equal(
      (await readJson<{ error: string }>(await wish({ title: 'Matrix, The', year: 1999 }), 409)).error,
      'already_wished',
    );
    const unknown = await readJson<{ error: string }>(await wish({ tmdb_id: 999_999 }), 400);
    assert.equal(unknown.error, 'validation_failed');
    fakes.tmdb.failNext('server_error', 10);
    const down = await readJson<{ error: string }>(await wish({ tmdb_id: 348 }), 502);
    assert.equal(down.error, 'upstream_unavailable');
    assert.deepEqual(
      (await list()).map((w) => w.tmdb_id),
      [603],
      'nothing added by the failures',
    );
    await t.api(`/api/wishes/${matrix.id}`, { method: 'DELETE' });
  });

  it('the unique indexes (migration 0020) decide: two adds of one film at once, one wish', async () => {
    const racing = await Promise.all([
      wish({ title: 'Koyaanisqatsi' }),
      wish({ title: 'KOYAANISQATSI' }),
      wish({ tmdb_id: 11314, title: 'Baraka', year: 1992 }),
      wish({ tmdb_id: 11314, title: 'Baraka (1992)', year: 1993 }),
    ]);
    assert.deepEqual(racing.map((r) => r.status).sort(), [201, 201, 409, 409]);
    // Past the service's check, straight at the table: no year counts as one year.
    const repo = new WishRepository(t.server.database.db);
    const row = { title: 'Koyaanisqatsi', normalized_title: 'koyaanisqatsi', year: null, tmdb_id: null };
    await assert.rejects(
      repo.insert({ ...row, note: null, created_at: 'x' }),
      /already_wished|wish list already/,
    );
    await assert.rejects(
      repo.insert({ ...row, normalized_title: 'other', tmdb_id: 11314, note: null, created_at: 'x' }),
      /wish list already/,
    );
    for (const w of await list()) await t.api(`/api/wishes/${w.id}`, { method: 'DELETE' });
  });

  it('409 already_owned for a film with a copy; a film with neither copy nor file may be wished', async () => {
    await readJson(
      await t.api(
        '/api/movies',
        jsonBody('POST', { title: 'Owned Film', year: 2010, physical_copies: [{ binder: 'W', slot: '1' }] }),
      ),
      201,
    );
    const owned = await readJson<{ error: string; movie_id: number }>(
      await wish({ title: 'Owned Film', year: 2010 }),
      409,
    );
    assert.equal(owned.error, 'already_owned');
    assert.ok(owned.movie_id > 0);
    await readJson(await t.api('/api/movies', jsonBody('POST', { title: 'Only Listed', year: 2011 })), 201);
    const listed = await readJson<Wish>(await wish({ title: 'Only Listed', year: 2011 }), 201);
    await t.api(`/api/wishes/${listed.id}`, { method: 'DELETE' });
  });

  it('a barcode scan of a wished film moves it from wish to owned (from_wish), in one transaction', async () => {
    const client = new ReelshelfClient({ baseUrl: t.url, token: t.token });
    const inception = await client.addWish({ title: 'Inception', year: 2010 });
    const alien = await client.addWish({ tmdb_id: 348 });
    assert.equal(alien.title, 'Alien');
    const scanned = await readJson<{ from_wish: boolean; movie: { id: number } }>(
      await t.api(`/api/barcode/${BARCODES.inceptionBluRay}`, jsonBody('POST', { binder: 'W', slot: '5' })),
      201,
    );
    assert.equal(scanned.from_wish, true);
    assert.deepEqual(
      (await client.wishes()).items.map((w) => w.id),
      [alien.id],
      'Inception left the wish list',
    );
    assert.notEqual(inception.id, alien.id);
    // A slot clash rolls the whole scan back: the wish stays.
    const clash = await t.api(
      `/api/barcode/${BARCODES.alienDvd}`,
      jsonBody('POST', { binder: 'W', slot: '5' }),
    );
    assert.equal(clash.status, 409);
    assert.deepEqual(
      (await client.wishes()).items.map((w) => w.id),
      [alien.id],
    );
    const ok = await readJson<{ from_wish: boolean }>(
      await t.api(`/api/barcode/${BARCODES.alienDvd}`, jsonBody('POST', { binder: 'W', slot: '6' })),
      201,
    );
    assert.equal(ok.from_wish, true);
    assert.deepEqual((await client.wishes()).items, []);
    const plain = await readJson<{ from_wish: boolean }>(
      await t.api(`/api/barcode/${BARCODES.dune4k}`, jsonBody('POST', { binder: 'W', slot: '7' })),
      201,
    );
    assert.equal(plain.from_wish, false);
    await client.removeWish(alien.id).then(
      () => assert.fail('already gone'),
      (err: unknown) => assert.match(String(err), /404|not_found|No wish/),
    );
  });

  it('everyone reads the list; a child may not add or remove (members and admins may)', async () => {
    const person = async (name: string, role: string) => {
      const user = await readJson<{ id: number }>(
        await t.api(
          '/api/users',
          jsonBody('POST', {
            name,
            role,
            password: `${name} password 123`,
            ...(role === 'child' ? { max_certification: 'PG', allow_unrated: true } : {}),
          }),
        ),
        201,
      );
      assert.ok(user.id > 0);
      // A browser session: its cookie, and the CSRF header every write carries.
      const { cookie, csrf } = await signInSession(t, name, `${name} password 123`);
      return { cookie, 'x-csrf-token': csrf, 'content-type': 'application/json' };
    };
    const kid = await person('Kid', 'child');
    const mem = await person('Mem', 'member');
    const post = (headers: Record<string, string>, body: unknown) =>
      fetch(`${t.url}/api/wishes`, { method: 'POST', headers, body: JSON.stringify(body) });
    const added = await readJson<Wish>(await post(mem, { title: 'Paddington 2', year: 2017 }), 201);
    assert.equal((await fetch(`${t.url}/api/wishes`, { headers: kid })).status, 200);
    assert.equal((await post(kid, { title: 'Paddington', year: 2014 })).status, 403);
    const del = ({ cookie, 'x-csrf-token': csrf }: Record<string, string>) =>
      fetch(`${t.url}/api/wishes/${added.id}`, {
        method: 'DELETE',
        headers: { cookie: cookie ?? '', 'x-csrf-token': csrf ?? '' },
      });
    assert.equal((await del(kid)).status, 403);
    assert.equal((await del(mem)).status, 204);
  });
});
