import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { normalizeBarcode } from '../../../src/domain/barcode.ts';
import { cleanDiscTitle } from '../../../src/domain/disc-title.ts';
import { DAY_MS, ProviderError } from '../../../src/providers/http.ts';
import { UpcItemDbClient } from '../../../src/providers/upc/upcitemdb.client.ts';
import { BARCODES, FAKE_KEYS, type FakeUpc, startFakeUpc } from '../../fakes/index.ts';
import { caught, clientDeps } from './helpers.ts';

describe('UpcItemDbClient against the UPCitemdb fake', () => {
  let fake: FakeUpc;
  before(async () => {
    fake = await startFakeUpc();
  });
  after(() => fake.close());
  beforeEach(() => fake.reset());

  const make = (extra: Record<string, unknown> = {}) => {
    const deps = clientDeps();
    return { client: new UpcItemDbClient({ ...deps, baseUrl: fake.baseUrl, ...extra }), deps };
  };

  it('finds the Inception Blu-ray and returns a title that cleans to "Inception"', async () => {
    const { client } = make();
    const code = normalizeBarcode(BARCODES.inceptionBluRay);
    assert.ok(code.ok);
    const res = await client.lookup(code.upc);
    assert.ok(res.found);
    assert.deepEqual(res.product, {
      title: 'Inception (Blu-ray) [Blu-ray]',
      brand: 'Warner Home Video',
      category: 'Media > DVDs & Videos',
      description: 'Dom Cobb is a skilled thief, the absolute best in the dangerous art of extraction.',
      ean: '0883929106646',
      upc: '883929106646',
      images: ['https://images.example.invalid/inception.jpg'],
    });
    const clean = cleanDiscTitle(res.product.title, res.product.category ?? undefined);
    assert.deepEqual([clean.title, clean.format, clean.looksLikeMovie], ['Inception', 'Blu-ray', true]);
    const req = fake.requests[0];
    assert.equal(req?.path, '/prod/trial/lookup');
    assert.deepEqual(req?.query, { upc: '883929106646' });
  });

  it('also finds a product by its 13-digit EAN; keeps only http(s) image URLs', async () => {
    const { client } = make();
    const res = await client.lookup(`0${BARCODES.dune4k}`);
    assert.ok(res.found);
    assert.equal(res.product.title, 'Dune (4K Ultra HD + Blu-ray + Digital)');
    assert.deepEqual(res.product.images, ['https://images.example.invalid/dune-4k.jpg']);
  });

  it('a hit is cached forever: the second call makes no request', async () => {
    const { client, deps } = make();
    await client.lookup(BARCODES.alienDvd);
    deps.clock.advance(3650 * DAY_MS);
    const again = await client.lookup(BARCODES.alienDvd);
    assert.ok(again.found);
    assert.equal(again.product.title, 'Alien (Special Edition) [DVD]');
    assert.equal(fake.requests.length, 1);
  });

  it('a miss (200 with no items) is cached for 3 days', async () => {
    const { client, deps } = make();
    assert.deepEqual(await client.lookup(BARCODES.unknown), { found: false });
    deps.clock.advance(3 * DAY_MS - 1000);
    assert.deepEqual(await client.lookup(BARCODES.unknown), { found: false });
    assert.equal(fake.requests.length, 1);
    deps.clock.advance(2000);
    assert.deepEqual(await client.lookup(BARCODES.unknown), { found: false });
    assert.equal(fake.requests.length, 2);
  });

  it('a 404 NOT_FOUND is a miss too', async () => {
    const fake404 = await startFakeUpc(undefined, { notFound: '404' });
    try {
      const deps = clientDeps();
      const client = new UpcItemDbClient({ ...deps, baseUrl: fake404.baseUrl });
      assert.deepEqual(await client.lookup(BARCODES.unknown), { found: false });
      assert.equal(deps.cache.size, 1);
    } finally {
      await fake404.close();
    }
  });

  it('INVALID_UPC → invalid_request, not cached', async () => {
    const { client, deps } = make();
    const err = await caught(() => client.lookup(BARCODES.badCheckDigit));
    assert.ok(err instanceof ProviderError);
    assert.equal(err.kind, 'invalid_request');
    assert.equal(err.code, 'INVALID_UPC');
    assert.equal(err.status, 400);
    assert.equal(deps.cache.size, 0);
  });

  it('a malformed code is refused without calling the service', async () => {
    const { client } = make();
    const err = await caught(() => client.lookup('12ab'));
    assert.ok(err instanceof ProviderError);
    assert.equal(err.kind, 'invalid_request');
    assert.equal(fake.requests.length, 0);
  });

  it('EXCEED_LIMIT (Retry-After 25173) → rate_limited at once, no retry, nothing cached', async () => {
    const { client, deps } = make();
    fake.failNext('quota');
    const err = await caught(() => client.lookup(BARCODES.inceptionBluRay));
    assert.ok(err instanceof ProviderError);
    assert.equal(err.kind, 'rate_limited');
    assert.equal(err.code, 'EXCEED_LIMIT');
    assert.equal(err.retryAfterMs, 25_173_000);
    assert.equal(fake.requests.length, 1);
    assert.deepEqual(deps.waits, []);
    assert.equal(deps.cache.size, 0);
  });

  it('TOO_FAST with a short Retry-After is waited out and retried', async () => {
    const { client, deps } = make();
    fake.failNext('rate_limited', 1, { retryAfter: '2' });
    const res = await client.lookup(BARCODES.inceptionBluRay);
    assert.ok(res.found);
    assert.deepEqual(deps.waits, [2000]);
    assert.equal(fake.requests.length, 2);
  });

  it('TOO_FAST on every attempt → rate_limited', async () => {
    const { client } = make();
    fake.failNext('rate_limited', 3, { retryAfter: '1' });
    const err = await caught(() => client.lookup(BARCODES.inceptionBluRay));
    assert.ok(err instanceof ProviderError);
    assert.equal(err.kind, 'rate_limited');
    assert.equal(err.code, 'TOO_FAST');
  });

  it('a 502 HTML gateway page on every attempt → unavailable after the retries', async () => {
    const { client, deps } = make();
    fake.failNext('server_error', 3);
    const err = await caught(() => client.lookup(BARCODES.inceptionBluRay));
    assert.ok(err instanceof ProviderError);
    assert.equal(err.kind, 'unavailable');
    assert.equal(err.status, 502);
    assert.equal(fake.requests.length, 3);
    assert.equal(deps.waits.length, 2);
    assert.equal(deps.cache.size, 0);
  });

  it('an HTML page with HTTP 200 → bad_response', async () => {
    const { client } = make();
    fake.failNext('html_200');
    const err = await caught(() => client.lookup(BARCODES.inceptionBluRay));
    assert.ok(err instanceof ProviderError);
    assert.equal(err.kind, 'bad_response');
  });

  it('the paid endpoint gets user_key + key_type headers, and the key stays out of errors', async () => {
    const deps = clientDeps();
    const paid = new UpcItemDbClient({ ...deps, baseUrl: fake.paidBaseUrl, apiKey: FAKE_KEYS.upcUserKey });
    const res = await paid.lookup(BARCODES.inceptionBluRay);
    assert.ok(res.found);
    assert.equal(fake.requests[0]?.headers.user_key, FAKE_KEYS.upcUserKey);
    assert.equal(fake.requests[0]?.headers.key_type, '3scale');

    const wrong = new UpcItemDbClient({ ...clientDeps(), baseUrl: fake.paidBaseUrl, apiKey: 'wrongkey-123' });
    const err = await caught(() => wrong.lookup(BARCODES.alienDvd));
    assert.ok(err instanceof ProviderError);
    assert.equal(err.kind, 'unauthorized');
    assert.ok(!err.message.includes('wrongkey-123'));
  });

  it('every answer carries the rate-limit headers', async () => {
    const res = await fetch(`${fake.baseUrl}/lookup?upc=${BARCODES.unknown}`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-ratelimit-limit'), '100');
    assert.ok(res.headers.get('x-ratelimit-remaining') !== null);
    assert.ok(res.headers.get('x-ratelimit-reset') !== null);
    assert.deepEqual(await res.json(), { code: 'OK', total: 0, offset: 0, items: [] });
  });

  it('the fake spends its daily quota like the real one', async () => {
    const small = await startFakeUpc(undefined, { dailyLimit: 1 });
    try {
      const client = new UpcItemDbClient({ ...clientDeps(), baseUrl: small.baseUrl });
      await client.lookup(BARCODES.unknown);
      const err = await caught(() => client.lookup(BARCODES.alienDvd));
      assert.ok(err instanceof ProviderError);
      assert.equal(err.kind, 'rate_limited');
    } finally {
      await small.close();
    }
  });
});
