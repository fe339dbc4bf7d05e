import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { DAY_MS, ProviderError } from '../../../src/providers/http.ts';
import { OmdbClient, classifyOmdbError, toScore } from '../../../src/providers/omdb/omdb.client.ts';
import { FAKE_KEYS, type FakeOmdb, startFakeOmdb } from '../../fakes/index.ts';
import { caught, clientDeps } from './helpers.ts';

describe('OMDb helpers', () => {
  it('toScore', () => {
    assert.equal(toScore('8.7/10'), 87);
    assert.equal(toScore('83%'), 83);
    assert.equal(toScore('73/100'), 73);
    assert.equal(toScore('N/A'), null);
  });
  it('classifyOmdbError reads the message, not the status', () => {
    assert.equal(classifyOmdbError('Request limit reached!', 401), 'quota');
    assert.equal(classifyOmdbError('Daily request limit reached!', 401), 'quota');
    assert.equal(classifyOmdbError('Invalid API key!', 401), 'unauthorized');
    assert.equal(classifyOmdbError('No API key provided.', 401), 'unauthorized');
    assert.equal(classifyOmdbError('Movie not found!', 200), 'not_found');
    assert.equal(classifyOmdbError('Incorrect IMDb ID.', 200), 'invalid_request');
    assert.equal(classifyOmdbError('Error getting data.', 200), 'unavailable');
  });
});

describe('OmdbClient against the OMDb fake', () => {
  let fake: FakeOmdb;
  before(async () => {
    fake = await startFakeOmdb();
  });
  after(() => fake.close());
  beforeEach(() => fake.reset());

  const make = (apiKey: string = FAKE_KEYS.omdbApiKey, extra: Record<string, unknown> = {}) => {
    const deps = clientDeps();
    return { client: new OmdbClient({ ...deps, baseUrl: fake.baseUrl, apiKey, ...extra }), deps };
  };

  it('ratings by IMDb id, request shape', async () => {
    const { client } = make();
    const r = await client.ratings('tt1375666');
    assert.deepEqual(r, {
      found: true,
      imdbId: 'tt1375666',
      title: 'Inception',
      year: 2010,
      imdbRating: 8.8,
      imdbVotes: 2_512_000,
      metascore: 74,
      ratings: [
        { source: 'Internet Movie Database', value: '8.8/10', score: 88 },
        { source: 'Rotten Tomatoes', value: '87%', score: 87 },
        { source: 'Metacritic', value: '74/100', score: 74 },
      ],
    });
    const req = fake.requests[0];
    assert.equal(req?.path, '/');
    assert.deepEqual(req?.query, { apikey: FAKE_KEYS.omdbApiKey, i: 'tt1375666', plot: 'short', r: 'json' });
  });

  it('"N/A" values are null, no ratings is an empty list', async () => {
    const { client } = make();
    const r = await client.ratings('tt0133093');
    assert.ok(r.found);
    assert.deepEqual([r.imdbRating, r.imdbVotes, r.metascore, r.ratings], [null, null, null, []]);
  });

  it('found ratings are cached: the second call makes no request', async () => {
    const { client, deps } = make();
    await client.ratings('tt0078748');
    deps.clock.advance(6 * DAY_MS);
    const again = await client.ratings('tt0078748');
    assert.ok(again.found);
    assert.equal(again.imdbRating, 8.5);
    assert.equal(fake.requests.length, 1);
  });

  it('"Movie not found!" (HTTP 200) → found false, cached as a negative', async () => {
    const { client, deps } = make();
    assert.deepEqual(await client.ratings('tt9999999'), { found: false });
    assert.deepEqual(await client.ratings('tt9999999'), { found: false });
    assert.equal(fake.requests.length, 1);
    deps.clock.advance(3 * DAY_MS + 1);
    await client.ratings('tt9999999');
    assert.equal(fake.requests.length, 2);
  });

  it('quota ("Request limit reached!", HTTP 401) → kind quota, nothing cached, no more calls today', async () => {
    const { client, deps } = make();
    fake.failNext('quota');
    const err = await caught(() => client.ratings('tt1375666'));
    assert.ok(err instanceof ProviderError);
    assert.equal(err.kind, 'quota');
    assert.equal(err.status, 401);
    assert.equal(deps.cache.size, 0);
    // The quota is per day: the client does not call again before midnight UTC …
    const blocked = await caught(() => client.ratings('tt0078748'));
    assert.ok(blocked instanceof ProviderError);
    assert.equal(blocked.kind, 'quota');
    assert.equal(fake.requests.length, 1);
    // … and does after it; the failure was not cached as "no rating".
    deps.clock.advance(DAY_MS);
    const r = await client.ratings('tt1375666');
    assert.ok(r.found);
    assert.equal(r.imdbRating, 8.8);
  });

  it('the fake counts a daily limit per key', async () => {
    const limited = await startFakeOmdb(undefined, { dailyLimit: 1 });
    try {
      const client = new OmdbClient({
        ...clientDeps(),
        baseUrl: limited.baseUrl,
        apiKey: FAKE_KEYS.omdbApiKey,
      });
      await client.ratings('tt1375666');
      const err = await caught(() => client.ratings('tt0078748'));
      assert.ok(err instanceof ProviderError);
      assert.equal(err.kind, 'quota');
    } finally {
      await limited.close();
    }
  });

  it('bad key ("Invalid API key!", HTTP 401) → unauthorized, key not in the error', async () => {
    const { client, deps } = make('wrongomdbkey');
    const err = await caught(() => client.ratings('tt1375666'));
    assert.ok(err instanceof ProviderError);
    assert.equal(err.kind, 'unauthorized');
    assert.match(err.message, /Invalid API key!/);
    assert.ok(!err.message.includes('wrongomdbkey'));
    assert.ok(!JSON.stringify(err).includes('wrongomdbkey'));
    assert.equal(deps.cache.size, 0);
  });

  it('"Error getting data." (HTTP 200) → unavailable, not cached', async () => {
    const { client, deps } = make();
    fake.failNext('unavailable');
    const err = await caught(() => client.ratings('tt1375666'));
    assert.ok(err instanceof ProviderError);
    assert.equal(err.kind, 'unavailable');
    assert.equal(deps.cache.size, 0);
  });

  it('5xx HTML on every attempt → unavailable after the retries', async () => {
    const { client, deps } = make();
    fake.failNext('server_error', 3);
    const err = await caught(() => client.ratings('tt1375666'));
    assert.ok(err instanceof ProviderError);
    assert.equal(err.kind, 'unavailable');
    assert.equal(fake.requests.length, 3);
    assert.equal(deps.waits.length, 2);
    assert.equal(deps.cache.size, 0);
  });

  it('a malformed id is refused locally', async () => {
    const { client } = make();
    const err = await caught(() => client.ratings('1375666'));
    assert.ok(err instanceof ProviderError);
    assert.equal(err.kind, 'invalid_request');
    assert.equal(fake.requests.length, 0);
  });
});
