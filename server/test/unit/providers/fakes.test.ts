import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { normalizeBarcode } from '../../../src/domain/barcode.ts';
import { BARCODES, type FakeProviders, UPC_PRODUCTS, startFakeProviders } from '../../fakes/index.ts';

/** The fakes themselves speak the wire formats of metadata.md (checked with plain fetch). */
describe('startFakeProviders', () => {
  let fakes: FakeProviders;
  before(async () => {
    fakes = await startFakeProviders();
  });
  after(() => fakes.close());

  it('base URLs have the real services’ shapes, all on 127.0.0.1', () => {
    const { urls } = fakes;
    assert.match(urls.tmdbBaseUrl, /^http:\/\/127\.0\.0\.1:\d+\/3$/);
    assert.match(urls.tmdbImageBaseUrl, /^http:\/\/127\.0\.0\.1:\d+\/t\/p$/);
    assert.match(urls.upcBaseUrl, /^http:\/\/127\.0\.0\.1:\d+\/prod\/trial$/);
    assert.match(urls.omdbBaseUrl, /^http:\/\/127\.0\.0\.1:\d+\/$/);
    assert.equal(fakes.env.REELSHELF_TMDB_BASE_URL, urls.tmdbBaseUrl);
    assert.equal(fakes.env.REELSHELF_OMDB_API_KEY, fakes.keys.omdbApiKey);
  });

  it('fixture barcodes are valid and distinct products', () => {
    for (const code of Object.values(BARCODES)) {
      const r = normalizeBarcode(code);
      assert.equal(r.ok, code !== BARCODES.badCheckDigit, code);
    }
    assert.equal(Object.keys(UPC_PRODUCTS).length, 3);
  });

  it('TMDb: JSON content type, error bodies with status_code', async () => {
    const noKey = await fetch(`${fakes.urls.tmdbBaseUrl}/movie/27205`);
    assert.equal(noKey.status, 401);
    assert.match(noKey.headers.get('content-type') ?? '', /^application\/json/);
    assert.deepEqual(await noKey.json(), {
      success: false,
      status_code: 7,
      status_message: 'Invalid API key: You must be granted a valid key.',
    });
    const missing = await fetch(`${fakes.urls.tmdbBaseUrl}/movie/1?api_key=${fakes.keys.tmdbV3ApiKey}`);
    assert.equal(missing.status, 404);
    assert.equal(((await missing.json()) as { status_code: number }).status_code, 34);
  });

  it('TMDb: appended objects are nested under their own keys, only when asked', async () => {
    const key = fakes.keys.tmdbV3ApiKey;
    const plain = (await (
      await fetch(`${fakes.urls.tmdbBaseUrl}/movie/27205?api_key=${key}`)
    ).json()) as Record<string, unknown>;
    assert.equal(plain.credits, undefined);
    assert.equal(plain.imdb_id, 'tt1375666');
    const full = (await (
      await fetch(
        `${fakes.urls.tmdbBaseUrl}/movie/27205?api_key=${key}&append_to_response=credits,external_ids,bogus`,
      )
    ).json()) as Record<string, unknown>;
    assert.ok(typeof full.credits === 'object');
    assert.ok(typeof full.external_ids === 'object');
    assert.equal(full.images, undefined);
    assert.equal(full.bogus, undefined);
    const tooMany = await fetch(
      `${fakes.urls.tmdbBaseUrl}/movie/27205?api_key=${key}&append_to_response=${Array(21).fill('credits').join(',')}`,
    );
    assert.equal(tooMany.status, 400);
  });

  it('TMDb: 429 carries Retry-After and status_code 25', async () => {
    fakes.tmdb.failNext('rate_limited', 1, { retryAfter: '1' });
    const res = await fetch(`${fakes.urls.tmdbBaseUrl}/configuration?api_key=${fakes.keys.tmdbV3ApiKey}`);
    assert.equal(res.status, 429);
    assert.equal(res.headers.get('retry-after'), '1');
    assert.equal(((await res.json()) as { status_code: number }).status_code, 25);
  });

  it('TMDb images: a JPEG under /t/p/{size}{file_path}', async () => {
    const res = await fetch(`${fakes.urls.tmdbImageBaseUrl}/original/poster1.jpg`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'image/jpeg');
    const bytes = Buffer.from(await res.arrayBuffer());
    assert.deepEqual([...bytes.subarray(0, 3)], [0xff, 0xd8, 0xff]);
    assert.equal((await fetch(`${fakes.urls.tmdbImageBaseUrl}/w9999/poster1.jpg`)).status, 404);
  });

  it('OMDb: no key / not found / incorrect id, with their HTTP statuses', async () => {
    const noKey = await fetch(`${fakes.urls.omdbBaseUrl}?i=tt1375666`);
    assert.equal(noKey.status, 401);
    assert.deepEqual(await noKey.json(), { Response: 'False', Error: 'No API key provided.' });
    const k = fakes.keys.omdbApiKey;
    const notFound = await fetch(`${fakes.urls.omdbBaseUrl}?apikey=${k}&i=tt0000001`);
    assert.equal(notFound.status, 200);
    assert.deepEqual(await notFound.json(), { Response: 'False', Error: 'Movie not found!' });
    const bad = await fetch(`${fakes.urls.omdbBaseUrl}?apikey=${k}&i=abc`);
    assert.deepEqual(await bad.json(), { Response: 'False', Error: 'Incorrect IMDb ID.' });
    const byTitle = (await (
      await fetch(`${fakes.urls.omdbBaseUrl}?apikey=${k}&t=alien&y=1979`)
    ).json()) as Record<string, unknown>;
    assert.equal(byTitle.imdbID, 'tt0078748');
    assert.equal(typeof byTitle.imdbRating, 'string');
  });

  it('UPC: INVALID_UPC and INVALID_QUERY bodies', async () => {
    const bad = await fetch(`${fakes.urls.upcBaseUrl}/lookup?upc=${BARCODES.badCheckDigit}`);
    assert.equal(bad.status, 400);
    assert.deepEqual(await bad.json(), { code: 'INVALID_UPC', message: 'Not a valid UPC code.' });
    const none = await fetch(`${fakes.urls.upcBaseUrl}/lookup`);
    assert.equal(none.status, 400);
    assert.equal(((await none.json()) as { code: string }).code, 'INVALID_QUERY');
  });

  it('records every request, and reset() forgets them', async () => {
    fakes.reset();
    await fetch(`${fakes.urls.upcBaseUrl}/lookup?upc=${BARCODES.unknown}`);
    assert.equal(fakes.upc.requestsTo('/prod/trial/lookup').length, 1);
    assert.equal(fakes.tmdb.requests.length, 0);
    fakes.reset();
    assert.equal(fakes.upc.requests.length, 0);
  });
});
