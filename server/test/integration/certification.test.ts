// movies.certification over real HTTP and SQLite: filled by enrichment from the fake TMDb's
// release_dates (TMDb's wire format), set and cleared by hand with PATCH /api/movies/{id}, refused
// with the country's list when it is not one of its certifications.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { MovieDetail } from '@reelshelf/contract';
import { type FakeProviders, startFakeProviders } from '../fakes/index.ts';
import { jsonBody, startTestServer, type TestServer } from '../helpers/test-server.ts';

describe('movie certifications', () => {
  let fakes: FakeProviders;
  let t: TestServer;

  before(async () => {
    fakes = await startFakeProviders();
    t = await startTestServer(fakes.env);
  });
  after(async () => {
    await t?.close();
    await fakes?.close();
  });

  async function create(title: string, tmdbId: number | null): Promise<number> {
    const res = await t.api('/api/movies', jsonBody('POST', { title, tmdb_id: tmdbId }));
    assert.equal(res.status, 201);
    return ((await res.json()) as MovieDetail).id;
  }
  const detail = async (id: number) => (await (await t.api(`/api/movies/${id}`)).json()) as MovieDetail;

  it("enrichment takes the US theatrical certification from TMDb's release_dates", async () => {
    const inception = await create('Inception', 27205);
    const alien = await create('Alien', 348);
    assert.equal((await detail(inception)).certification, null, 'unrated until enriched');
    assert.equal(await t.server.services.enrichment.enrich(inception), 'enriched');
    assert.equal(await t.server.services.enrichment.enrich(alien), 'enriched');
    assert.equal((await detail(inception)).certification, 'PG-13');
    assert.equal((await detail(alien)).certification, 'R');
  });

  it('PATCH sets it (written as the system writes it), null clears it, enrichment then fills it again', async () => {
    const id = await create('Dune', 438631);
    const set = await t.api(`/api/movies/${id}`, jsonBody('PATCH', { certification: 'pg' }));
    assert.equal(set.status, 200);
    assert.equal(((await set.json()) as MovieDetail).certification, 'PG');
    await t.server.services.enrichment.enrich(id);
    assert.equal((await detail(id)).certification, 'PG', 'a hand-set certification survives enrichment');
    const cleared = await t.api(`/api/movies/${id}`, jsonBody('PATCH', { certification: null }));
    assert.equal(((await cleared.json()) as MovieDetail).certification, null);
    await t.server.services.enrichment.enrich(id);
    assert.equal((await detail(id)).certification, 'PG-13');
  });

  it('refuses a name the country does not know: 400 with the list, nothing written', async () => {
    const id = await create('Heat', null);
    await t.api(`/api/movies/${id}`, jsonBody('PATCH', { certification: 'R' }));
    const before = await detail(id);
    for (const bad of ['12A', 'XXX', '', 'R18+']) {
      const res = await t.api(
        `/api/movies/${id}`,
        jsonBody('PATCH', { certification: bad, title: 'Changed' }),
      );
      assert.equal(res.status, 400, bad);
      const body = (await res.json()) as { error: string; field: string; hint: string };
      assert.equal(body.error, 'validation_failed');
      assert.equal(body.field, 'certification');
      assert.match(body.hint, /G, .*PG, .*PG-13.*R.*NC-17/);
    }
    const wrongType = await t.api(`/api/movies/${id}`, jsonBody('PATCH', { certification: 13 }));
    assert.equal(wrongType.status, 400);
    assert.deepEqual(await detail(id), before, 'nothing was written');
  });
});
