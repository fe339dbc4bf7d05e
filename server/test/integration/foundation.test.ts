import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { CONTRACT_HASH } from '@reelshelf/contract';
import { contract, jsonBody, startTestServer, type TestServer } from '../helpers/test-server.ts';

async function movieCount(t: TestServer): Promise<number> {
  const res = await t.api('/api/movies?limit=500');
  const body = (await res.json()) as { total: number };
  return body.total;
}

async function expectApiError(res: Response, status: number, code: string): Promise<Record<string, unknown>> {
  assert.equal(res.status, status, `expected ${status} ${code}, got ${res.status}`);
  assert.match(res.headers.get('content-type') ?? '', /application\/json/);
  const body = (await res.json()) as Record<string, unknown>;
  assert.equal(body.error, code);
  assert.equal(typeof body.message, 'string');
  assert.ok(contract.is('apiError', body), 'body is an ApiError');
  assert.doesNotMatch(JSON.stringify(body), /at .*\.ts:\d+/, 'no stack trace');
  return body;
}

describe('foundation: server, auth, contract, movies, /library', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  it('GET /api/health answers without auth and names the contract', async () => {
    const res = await t.api('/api/health', { auth: false });
    assert.equal(res.status, 200);
    const body = (await res.json()) as Record<string, unknown>;
    assert.equal(body.status, 'ok');
    assert.equal(body.contract_version, '1.1.0');
    assert.equal(body.contract_hash, CONTRACT_HASH);
    assert.equal(typeof (body.ffmpeg as { available: boolean }).available, 'boolean');
    assert.ok(Array.isArray(body.warnings));
    assert.equal(res.headers.get('x-contract-version'), '1.1.0');
    assert.equal(res.headers.get('x-contract-hash'), CONTRACT_HASH);
  });

  it('GET /api/health says where the media tools are installed only to the admin', async () => {
    type Tools = Record<
      'ffmpeg' | 'ffprobe',
      { path: string | null; source: string | null; version: string | null }
    >;
    const anyone = (await (await t.api('/api/health', { auth: false })).json()) as Tools;
    const admin = (await (await t.api('/api/health')).json()) as Tools;
    for (const tool of ['ffmpeg', 'ffprobe'] as const) {
      assert.equal(anyone[tool].path, null, `${tool}: no install path for anyone`);
      assert.equal(anyone[tool].version, admin[tool].version, `${tool}: the version is public`);
      assert.equal(anyone[tool].source, admin[tool].source);
      assert.equal(typeof admin[tool].path, 'string', `${tool}: the admin sees the path`);
    }
    const wrong = (await (
      await t.api('/api/health', { auth: false, headers: { authorization: 'Bearer not-the-token-at-all' } })
    ).json()) as Tools;
    assert.equal(wrong.ffprobe.path, null, 'a wrong token is nobody');
  });

  it('GET /api/contract serves exactly the committed bundle', async () => {
    const res = await t.api('/api/contract', { auth: false });
    assert.equal(res.status, 200);
    const served = await res.json();
    const committed = JSON.parse(
      readFileSync(new URL('../../../contract/contract.bundle.json', import.meta.url), 'utf8'),
    );
    assert.deepEqual(served, committed);
  });

  it('GET /library without a token, or with a wrong one, is a 401 ApiError', async () => {
    await expectApiError(await t.api('/library', { auth: false }), 401, 'unauthorized');
    await expectApiError(
      await t.api('/library', { headers: { authorization: 'Bearer not-the-token' } }),
      401,
      'unauthorized',
    );
    await expectApiError(await t.api('/api/movies', { auth: false }), 401, 'unauthorized');
  });

  it('keeps the generated admin token in the data dir with mode 0600', () => {
    const file = `${t.dataDir}/api-token`;
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(readFileSync(file, 'utf8').trim(), t.token);
  });

  it('refuses a client whose X-Contract-Hash differs with 409 contract_mismatch', async () => {
    const res = await t.api('/library', { headers: { 'x-contract-hash': 'f'.repeat(64) } });
    const body = await expectApiError(res, 409, 'contract_mismatch');
    assert.equal(body.required, CONTRACT_HASH);
    const ok = await t.api('/library', { headers: { 'x-contract-hash': CONTRACT_HASH } });
    assert.equal(ok.status, 200);
  });

  it('creates, reads, lists, edits and deletes a movie', async () => {
    const created = await t.api(
      '/api/movies',
      jsonBody('POST', {
        title: 'Amélie',
        year: 2001,
        has_digital_store_a: true,
        physical_copies: [{ binder: 'A', slot: '3', format: 'DVD', edition: 'Special Edition' }],
      }),
    );
    assert.equal(created.status, 201);
    const movie = (await created.json()) as {
      id: number;
      title: string;
      physical_copies: unknown[];
      editions: unknown[];
    };
    assert.equal(movie.title, 'Amélie');
    assert.equal(movie.physical_copies.length, 1);
    assert.equal(movie.editions.length, 1);

    const got = (await (await t.api(`/api/movies/${movie.id}`)).json()) as { has_digital_store_a: boolean };
    assert.equal(got.has_digital_store_a, true);

    const found = (await (await t.api('/api/movies?q=amelie')).json()) as {
      items: { id: number }[];
      total: number;
    };
    assert.equal(found.total, 1);
    assert.equal(found.items[0]?.id, movie.id);

    const patched = await t.api(
      `/api/movies/${movie.id}`,
      jsonBody('PATCH', { year: 2002, has_digital_store_b: true }),
    );
    assert.equal(patched.status, 200);
    const patchedBody = (await patched.json()) as { year: number; has_digital_store_b: boolean };
    assert.equal(patchedBody.year, 2002);
    assert.equal(patchedBody.has_digital_store_b, true);

    assert.equal((await t.api(`/api/movies/${movie.id}`, { method: 'DELETE' })).status, 204);
    await expectApiError(await t.api(`/api/movies/${movie.id}`), 404, 'not_found');
  });

  it('refuses bad input with a 4xx ApiError and writes nothing', async () => {
    const before = await movieCount(t);
    const post = (body: string, type = 'application/json') =>
      t.api('/api/movies', { method: 'POST', headers: { 'content-type': type }, body });
    await expectApiError(await post(''), 400, 'validation_failed');
    await expectApiError(await post('{"title":'), 400, 'invalid_json');
    await expectApiError(await post('{}'), 400, 'validation_failed');
    await expectApiError(await post('{"title":""}'), 400, 'validation_failed');
    await expectApiError(await post('{"title":"   "}'), 400, 'validation_failed');
    await expectApiError(await post(JSON.stringify({ title: 'x'.repeat(501) })), 400, 'validation_failed');
    await expectApiError(await post('{"title":42}'), 400, 'validation_failed');
    await expectApiError(await post('{"title":"Alien","year":"1979"}'), 400, 'validation_failed');
    await expectApiError(await post('{"title":"Alien","year":1869}'), 400, 'validation_failed');
    await expectApiError(await post('{"title":"Alien","year":2101}'), 400, 'validation_failed');
    const unknownField = await expectApiError(
      await post('{"title":"Alien","rating":5}'),
      400,
      'validation_failed',
    );
    assert.equal(unknownField.field, 'rating');
    await expectApiError(await post('[1,2]'), 400, 'validation_failed');
    await expectApiError(await post('title=Alien', 'text/plain'), 415, 'unsupported_media_type');
    const huge = JSON.stringify({ title: 'Alien', overview: 'x'.repeat(30 * 1024 * 1024) });
    await expectApiError(await post(huge), 413, 'payload_too_large');
    await expectApiError(await t.api('/api/movies/999999'), 404, 'not_found');
    await expectApiError(await t.api('/api/movies/abc'), 400, 'validation_failed');
    await expectApiError(
      await t.api('/api/movies/999999', jsonBody('PATCH', { year: 2000 })),
      404,
      'not_found',
    );
    await expectApiError(await t.api('/api/movies/999999', { method: 'DELETE' }), 404, 'not_found');
    await expectApiError(await t.api('/api/movies?limit=0'), 400, 'validation_failed');
    const unknownRoute = await t.api('/api/no-such-route');
    await expectApiError(unknownRoute, 404, 'not_found');
    // a slot clash inside one request rolls the whole movie back
    await expectApiError(
      await post(
        JSON.stringify({
          title: 'Clash',
          physical_copies: [
            { binder: 'Z', slot: '1' },
            { binder: 'Z', slot: '1' },
          ],
        }),
      ),
      409,
      'slot_taken',
    );
    assert.equal(await movieCount(t), before, 'nothing was written');
    const health = await t.api('/api/health', { auth: false });
    assert.equal(health.status, 200, 'the server keeps serving');
  });

  it('GET /library lists every movie, validates against the contract, and marks discs on_disc', async () => {
    await t.api(
      '/api/movies',
      jsonBody('POST', {
        title: 'The Matrix',
        year: 1999,
        physical_copies: [{ binder: 'B', slot: '12', format: 'Blu-ray' }],
      }),
    );
    await t.api('/api/movies', jsonBody('POST', { title: 'Heat', year: 1995 }));
    for (const device of ['web', 'safari', 'tv', 'androidtv', 'roku', 'full']) {
      const res = await t.api(`/library?device=${device}`);
      assert.equal(res.status, 200);
      const body = await res.json();
      const check = contract.validate('libraryResponse', body);
      assert.ok(check.ok, check.ok ? '' : check.errors.join('\n'));
      if (!check.ok) continue;
      assert.equal(check.value.contract_version, '1.1.0');
      assert.equal(check.value.device, device);
      const matrix = check.value.items.find((i) => i.title === 'The Matrix');
      assert.equal(matrix?.badge, 'on_disc');
      assert.deepEqual(matrix?.physical_copies, [{ binder: 'B', slot: '12', format: 'Blu-ray' }]);
      assert.deepEqual(matrix?.editions, []);
      assert.match(check.value.health_summary ?? '', /^\d+ playable · \d+ need review · \d+ not playable$/);
    }
    const plain = (await (await t.api('/library')).json()) as { device: string };
    assert.equal(plain.device, 'web');
    const bad = await expectApiError(await t.api('/library?device=xbox'), 400, 'unknown_device');
    assert.match(String(bad.hint), /web, safari, tv, androidtv, roku, full/);
  });
});
