// Issue 27 item 1: binders through the API, on the engine under test (SQLite, or PostgreSQL with
// REELSHELF_TEST_DATABASE=postgres): pages of slots, moves (409 changing nothing), atomic swaps
// under racing requests, renames, and the viewer's content limit.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ReelshelfClient } from '../../../client/src/index.ts';
import { childReadKey } from '../helpers/household.ts';
import { jsonBody, readJson, startTestServer, type TestServer } from '../helpers/test-server.ts';

interface SlotJson {
  slot: string;
  copy: {
    id: number;
    movie_id: number;
    title: string;
    format: string | null;
    edition: string | null;
    on_loan: boolean;
  } | null;
}
interface BinderJson {
  name: string;
  slots_per_page: number;
  pages: { number: number; slots: SlotJson[] }[];
}

let server: TestServer;
/** Copy ids of binder A's discs, by slot number (1..20). */
const copyAt = new Map<number, number>();
let movieOf15 = 0;

async function binder(name: string, auth?: string): Promise<BinderJson> {
  const headers: Record<string, string> = auth === undefined ? {} : { authorization: `Bearer ${auth}` };
  return readJson<BinderJson>(await server.api(`/api/binders/${encodeURIComponent(name)}`, { headers }));
}

/** Every (binder, slot) of every copy: no place twice, every copy once. */
async function places(): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  const list = await readJson<{ items: { name: string }[] }>(await server.api('/api/binders'));
  for (const b of list.items) {
    for (const page of (await binder(b.name)).pages) {
      for (const s of page.slots) {
        if (s.copy === null) continue;
        assert.equal(out.has(s.copy.id), false, `copy ${s.copy.id} shown twice`);
        out.set(s.copy.id, `${b.name}/${s.slot}`);
      }
    }
  }
  return out;
}

describe('binders API', () => {
  before(async () => {
    server = await startTestServer();
    for (let i = 1; i <= 20; i++) {
      const made = await readJson<{ id: number; physical_copies: { id: number }[] }>(
        await server.api(
          '/api/movies',
          jsonBody('POST', {
            title: `Binder Film ${String(i).padStart(2, '0')}`,
            year: 2000 + i,
            physical_copies: [{ binder: 'A', slot: String(i), format: 'Blu-ray', edition: `Edition ${i}` }],
          }),
        ),
        201,
      );
      copyAt.set(i, made.physical_copies[0]?.id ?? 0);
      if (i === 15) movieOf15 = made.id;
    }
  });
  after(() => server.close());

  it('a binder of 20 discs in slots 1..20 shows 3 pages of 8 with 4 empty slots', async () => {
    const a = await binder('A');
    assert.equal(a.slots_per_page, 8);
    assert.deepEqual(
      a.pages.map((p) => [p.number, p.slots.length]),
      [
        [1, 8],
        [2, 8],
        [3, 8],
      ],
    );
    const slots = a.pages.flatMap((p) => p.slots);
    assert.equal(slots.filter((s) => s.copy === null).length, 4);
    assert.deepEqual(slots[2], {
      slot: '3',
      copy: {
        id: copyAt.get(3),
        movie_id: slots[2]?.copy?.movie_id,
        title: 'Binder Film 03',
        format: 'Blu-ray',
        edition: 'Edition 3',
        on_loan: false,
      },
    });
    const list = await readJson<{ items: unknown[] }>(await server.api('/api/binders'));
    assert.deepEqual(list.items, [{ name: 'A', copies: 20, slots_per_page: 8 }]);
  });

  it('a move to a taken slot is a 409 naming the holder, and changes nothing', async () => {
    const before = await places();
    const res = await server.api(
      `/api/physical-copies/${copyAt.get(1)}`,
      jsonBody('PATCH', { binder: 'A', slot: '2' }),
    );
    const body = await readJson<{ error: string; message: string; hint: string }>(res, 409);
    assert.equal(body.error, 'slot_taken');
    assert.match(body.message, /Binder Film 02/);
    assert.match(body.message, new RegExp(`copy ${copyAt.get(2)}\\b`));
    // A taken slot in a binder that does not exist yet cannot happen; a new binder the move would
    // have made is rolled back with it: try a refused move into an existing binder only.
    assert.deepEqual(await places(), before);
    const list = await readJson<{ items: { name: string }[] }>(await server.api('/api/binders'));
    assert.deepEqual(
      list.items.map((b) => b.name),
      ['A'],
    );
  });

  it('a move to a free slot of a new binder creates it; moving back restores the page', async () => {
    const id = copyAt.get(20) ?? 0;
    const moved = await readJson(
      await server.api(`/api/physical-copies/${id}`, jsonBody('PATCH', { binder: 'B', slot: '1' })),
    );
    assert.deepEqual(moved, { id, binder: 'B', slot: '1' });
    assert.equal((await binder('A')).pages.length, 3); // 19 is the highest now: still 3 pages
    assert.equal((await binder('B')).pages[0]?.slots[0]?.copy?.id, id);
    // A named slot comes after the numbered pages, on a page of its own (docs/collector.md).
    const other = copyAt.get(19) ?? 0;
    await readJson(
      await server.api(
        `/api/physical-copies/${other}`,
        jsonBody('PATCH', { binder: 'B', slot: 'Front pocket' }),
      ),
    );
    assert.deepEqual(
      (await binder('B')).pages.map((p) => [p.number, p.slots.map((x) => x.slot).join(',')]),
      [
        [1, '1,2,3,4,5,6,7,8'],
        [2, 'Front pocket'],
      ],
    );
    await readJson(
      await server.api(`/api/physical-copies/${other}`, jsonBody('PATCH', { binder: 'A', slot: '19' })),
    );
    await readJson(
      await server.api(`/api/physical-copies/${id}`, jsonBody('PATCH', { binder: 'A', slot: '20' })),
    );
    assert.equal((await places()).get(id), 'A/20');
  });

  it('a swap exchanges two places in one request', async () => {
    const [a, b] = [copyAt.get(4) ?? 0, copyAt.get(5) ?? 0];
    const swapped = await readJson(await server.api('/api/physical-copies/swap', jsonBody('POST', { a, b })));
    assert.deepEqual(swapped, {
      items: [
        { id: a, binder: 'A', slot: '5' },
        { id: b, binder: 'A', slot: '4' },
      ],
    });
    const now = await places();
    assert.equal(now.get(a), 'A/5');
    assert.equal(now.get(b), 'A/4');
    await readJson(await server.api('/api/physical-copies/swap', jsonBody('POST', { a, b })));
    await readJson(await server.api('/api/physical-copies/swap', jsonBody('POST', { a, b: a })), 400);
    await readJson(await server.api('/api/physical-copies/swap', jsonBody('POST', { a, b: 987654 })), 404);
  });

  it('racing swaps and moves leave every disc in exactly one slot, no slot twice', async () => {
    const ids = [...copyAt.values()];
    const requests: Promise<Response>[] = [];
    for (let round = 0; round < 60; round++) {
      const a = ids[(round * 7) % ids.length] ?? 0;
      const b = ids[(round * 7 + 3) % ids.length] ?? 0;
      requests.push(server.api('/api/physical-copies/swap', jsonBody('POST', { a, b })));
      if (round % 3 === 0) {
        // Many copies race for the same free slots: at most one may win each.
        requests.push(
          server.api(
            `/api/physical-copies/${a}`,
            jsonBody('PATCH', { binder: 'A', slot: String(21 + (round % 2)) }),
          ),
        );
      }
    }
    const statuses = await Promise.all(requests.map(async (r) => (await r).status));
    for (const s of statuses) assert.ok(s === 200 || s === 409, `status ${s}`);
    const now = await places();
    assert.equal(now.size, 20, 'every copy is in a slot');
    assert.equal(new Set(now.values()).size, 20, 'no slot holds two copies');
  });

  it('rename: 409 when the name is taken; slots per page redraw the pages', async () => {
    await readJson(await server.api('/api/binders/B', jsonBody('PATCH', { name: 'A' })), 409);
    const renamed = await readJson(
      await server.api('/api/binders/B', jsonBody('PATCH', { name: 'Shelf two' })),
    );
    assert.deepEqual(renamed, { name: 'Shelf two', copies: 0, slots_per_page: 8 });
    await readJson(await server.api('/api/binders/B'), 404);
    await readJson(await server.api('/api/binders/A', jsonBody('PATCH', { slots_per_page: 0 })), 400);
    await readJson(await server.api('/api/binders/A', jsonBody('PATCH', { slots_per_page: 10 })));
    const a = await binder('A');
    assert.equal(a.slots_per_page, 10);
    assert.ok(a.pages.every((p) => p.slots.length === 10));
    await readJson(await server.api('/api/binders/A', jsonBody('PATCH', { slots_per_page: 8 })));
  });

  it('the typed client reads, moves, swaps and renames', async () => {
    const client = new ReelshelfClient({ baseUrl: server.url, token: server.token });
    assert.deepEqual(
      (await client.binders()).items.map((b) => b.name),
      ['A', 'Shelf two'],
    );
    const a = await client.binder('A');
    assert.equal(a.pages.length, 3);
    const [x, y] = [copyAt.get(1) ?? 0, copyAt.get(2) ?? 0];
    const placeOf = async (id: number) => (await places()).get(id);
    const [px, py] = [await placeOf(x), await placeOf(y)];
    await client.swapCopies(x, y);
    assert.deepEqual([await placeOf(x), await placeOf(y)], [py, px]);
    await client.swapCopies(x, y);
    const moved = await client.moveCopy(x, 'Shelf two', '7');
    assert.deepEqual(moved, { id: x, binder: 'Shelf two', slot: '7' });
    const [b, s] = (px ?? '').split('/');
    await client.moveCopy(x, b ?? '', s ?? '');
    assert.deepEqual(await client.updateBinder('Shelf two', { slots_per_page: 4 }), {
      name: 'Shelf two',
      copies: 0,
      slots_per_page: 4,
    });
  });

  it('a person with a content limit sees a hidden film’s slot as empty, and cannot move or rename', async () => {
    await readJson(await server.api(`/api/movies/${movieOf15}`, jsonBody('PATCH', { certification: 'R' })));
    const { key } = await childReadKey(server, 'Kid', 'binders');
    const seen = await binder('A', key);
    const slots = seen.pages.flatMap((p) => p.slots);
    assert.equal(seen.pages.length, 3);
    assert.equal(JSON.stringify(seen).includes('Binder Film 15'), false);
    assert.equal(slots.filter((s) => s.copy === null).length, 5);
    const list = await readJson<{ items: { copies: number }[] }>(
      await server.api('/api/binders', { headers: { authorization: `Bearer ${key}` } }),
    );
    assert.equal(list.items.find((b) => b !== undefined)?.copies, 19);
    const asKid = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const move = await server.api(`/api/physical-copies/${copyAt.get(1)}`, {
      method: 'PATCH',
      headers: asKid,
      body: JSON.stringify({ binder: 'A', slot: '30' }),
    });
    assert.equal(move.status, 403);
    const rename = await server.api('/api/binders/A', {
      method: 'PATCH',
      headers: asKid,
      body: JSON.stringify({ name: 'Z' }),
    });
    assert.equal(rename.status, 403);
  });
});
