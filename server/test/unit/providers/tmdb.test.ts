import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import sharp from 'sharp';
import { DAY_MS, ProviderError } from '../../../src/providers/http.ts';
import { TmdbClient, directorsOf, isTmdbV3ApiKey } from '../../../src/providers/tmdb/tmdb.client.ts';
import { FAKE_KEYS, type FakeTmdb, startFakeTmdb } from '../../fakes/index.ts';
import { caught, clientDeps } from './helpers.ts';

describe('TmdbClient against the TMDb fake', () => {
  let fake: FakeTmdb;
  before(async () => {
    fake = await startFakeTmdb();
  });
  after(() => fake.close());
  beforeEach(() => fake.reset());

  const make = (apiKey: string = FAKE_KEYS.tmdbV3ApiKey, extra: Record<string, unknown> = {}) => {
    const deps = clientDeps();
    const client = new TmdbClient({
      ...deps,
      baseUrl: fake.baseUrl,
      imageBaseUrl: fake.imageBaseUrl,
      apiKey,
      ...extra,
    });
    return { client, deps };
  };

  it('tells the two credential kinds apart', () => {
    assert.equal(isTmdbV3ApiKey(FAKE_KEYS.tmdbV3ApiKey), true);
    assert.equal(isTmdbV3ApiKey(FAKE_KEYS.tmdbReadToken), false);
  });

  it('v3 key → api_key query, no Authorization header', async () => {
    const { client } = make(FAKE_KEYS.tmdbV3ApiKey);
    const page = await client.searchMovie('Inception', 2010);
    assert.equal(page.results[0]?.id, 27205);
    const req = fake.requests[0];
    assert.equal(req?.query.api_key, FAKE_KEYS.tmdbV3ApiKey);
    assert.equal(req?.headers.authorization, undefined);
  });

  it('read token → Authorization: Bearer, no api_key', async () => {
    const { client } = make(FAKE_KEYS.tmdbReadToken);
    const page = await client.searchMovie('Inception', 2010);
    assert.equal(page.results[0]?.id, 27205);
    const req = fake.requests[0];
    assert.equal(req?.headers.authorization, `Bearer ${FAKE_KEYS.tmdbReadToken}`);
    assert.equal(req?.query.api_key, undefined);
  });

  it('search sends query, primary_release_year, language, page and include_adult', async () => {
    const { client } = make();
    const page = await client.searchMovie('  the   matrix ', 1999);
    assert.deepEqual(fake.requests[0]?.query, {
      query: 'the matrix',
      include_adult: 'false',
      language: 'en-US',
      page: '1',
      primary_release_year: '1999',
      api_key: FAKE_KEYS.tmdbV3ApiKey,
    });
    assert.deepEqual(page.results[0], {
      id: 603,
      title: 'The Matrix',
      originalTitle: 'The Matrix',
      releaseDate: '1999-03-31',
      year: 1999,
      overview: 'Set in the 22nd century, The Matrix tells the story of a computer hacker…',
      posterPath: null,
      backdropPath: null,
      originalLanguage: 'en',
      popularity: 80.1,
    });
    await client.searchMovie('Dune', 2022, { yearParam: 'year' });
    assert.equal(fake.requests[1]?.query.year, '2022');
  });

  it('no match is an empty page', async () => {
    const { client } = make();
    const page = await client.searchMovie('Inception', 1980);
    assert.deepEqual(page, { page: 1, totalPages: 1, totalResults: 0, results: [] });
  });

  it('movieDetails: one call with append_to_response, validated and typed', async () => {
    const { client } = make();
    const m = await client.movieDetails(27205);
    const q = fake.requests[0]?.query;
    assert.equal(fake.requests[0]?.path, '/3/movie/27205');
    assert.equal(q?.append_to_response, 'credits,images,release_dates,external_ids');
    assert.equal(q?.include_image_language, 'en,null');
    assert.equal(m.title, 'Inception');
    assert.equal(m.originalTitle, 'Inception');
    assert.equal(m.year, 2010);
    assert.equal(m.runtime, 148);
    assert.equal(m.imdbId, 'tt1375666');
    assert.equal(m.posterPath, '/inception-poster.jpg');
    assert.equal(m.backdropPath, '/inception-backdrop.jpg');
    assert.equal(m.collection, null);
    assert.deepEqual(
      m.genres.map((g) => g.name),
      ['Action', 'Science Fiction', 'Adventure'],
    );
    assert.deepEqual(
      m.productionCompanies.map((c) => c.name),
      ['Legendary Pictures', 'Syncopy', 'Warner Bros. Pictures'],
    );
    assert.deepEqual(m.credits.cast[0], {
      id: 6193,
      name: 'Leonardo DiCaprio',
      character: 'Dom Cobb',
      order: 0,
      profilePath: '/leo.jpg',
    });
    assert.deepEqual(
      m.credits.cast.map((c) => c.order),
      [0, 1, 2, 3],
    );
    assert.deepEqual(
      directorsOf(m).map((d) => [d.id, d.name, d.department]),
      [[525, 'Christopher Nolan', 'Directing']],
    );
    assert.ok(m.credits.crew.some((c) => c.job === 'Original Music Composer' && c.name === 'Hans Zimmer'));
    // include_image_language=en,null: the French poster is filtered out, the textless one kept
    assert.deepEqual(
      m.images.posters.map((p) => p.filePath),
      ['/inception-poster.jpg', '/inception-poster-textless.jpg'],
    );
    assert.equal(m.images.backdrops[0]?.language, null);
    assert.deepEqual(
      m.releaseDates.filter((d) => d.type === 5).map((d) => [d.country, d.date]),
      [['US', '2010-12-07T00:00:00.000Z']],
    );
    assert.deepEqual(m.externalIds, { imdbId: 'tt1375666', wikidataId: 'Q25188' });
  });

  it('collection, runtime 0 → null, missing images', async () => {
    const { client } = make();
    const dune = await client.movieDetails(438631);
    assert.deepEqual(dune.collection, {
      id: 726871,
      name: 'Dune Collection',
      posterPath: '/dune-collection-poster.jpg',
      backdropPath: null,
    });
    const matrix = await client.movieDetails(603);
    assert.equal(matrix.runtime, null);
    assert.equal(matrix.posterPath, null);
    assert.equal(matrix.tagline, null);
  });

  it('details are cached for 7 days: second call makes no request', async () => {
    const { client, deps } = make();
    await client.movieDetails(348);
    deps.clock.advance(7 * DAY_MS - 1000);
    const again = await client.movieDetails(348);
    assert.equal(again.title, 'Alien');
    assert.equal(directorsOf(again)[0]?.name, 'Ridley Scott');
    assert.equal(fake.requests.length, 1);
    deps.clock.advance(2000);
    await client.movieDetails(348);
    assert.equal(fake.requests.length, 2);
  });

  it('unknown id → not_found (HTTP 404, status_code 34), nothing cached', async () => {
    const { client, deps } = make();
    const err = await caught(() => client.movieDetails(999999));
    assert.ok(err instanceof ProviderError);
    assert.equal(err.kind, 'not_found');
    assert.equal(err.status, 404);
    assert.equal(err.code, '34');
    assert.equal(deps.cache.size, 0);
  });

  it('wrong key → unauthorized (HTTP 401, status_code 7); neither key style leaks', async () => {
    for (const bad of ['0123456789abcdef0123456789abcdef', 'eyJhbGciOiJIUzI1NiJ9.wrong.token']) {
      const { client } = make(bad);
      const err = await caught(() => client.movieDetails(27205));
      assert.ok(err instanceof ProviderError);
      assert.equal(err.kind, 'unauthorized');
      assert.equal(err.code, '7');
      assert.match(err.message, /Invalid API key/);
      assert.ok(!err.message.includes(bad));
      assert.ok(!JSON.stringify(err).includes(bad));
      assert.ok(!String(err.stack).includes(bad));
    }
  });

  it('429 then success: retried after Retry-After (injected sleep)', async () => {
    const { client, deps } = make();
    fake.failNext('rate_limited', 1, { retryAfter: '3' });
    const m = await client.movieDetails(27205);
    assert.equal(m.id, 27205);
    assert.deepEqual(deps.waits, [3000]);
    assert.equal(fake.requests.length, 2);
  });

  it('429 without Retry-After: exponential backoff', async () => {
    const { client, deps } = make();
    fake.failNext('rate_limited', 2, { retryAfter: null });
    await client.searchMovie('Alien');
    assert.equal(deps.waits.length, 2);
    assert.ok((deps.waits[1] ?? 0) > (deps.waits[0] ?? 0));
  });

  it('5xx HTML on every attempt → unavailable after the retries, nothing cached', async () => {
    const { client, deps } = make();
    fake.failNext('server_error', 3);
    const err = await caught(() => client.movieDetails(27205));
    assert.ok(err instanceof ProviderError);
    assert.equal(err.kind, 'unavailable');
    assert.equal(err.status, 500);
    assert.match(err.message, /HTML/);
    assert.equal(fake.requests.length, 3);
    assert.equal(deps.cache.size, 0);
  });

  it('503 "service offline" then success', async () => {
    const { client } = make();
    fake.failNext('unavailable', 1);
    const page = await client.searchMovie('Dune');
    assert.equal(page.results[0]?.id, 438631);
  });

  it('a hang is cut by the timeout → unavailable', async () => {
    const { client } = make(FAKE_KEYS.tmdbV3ApiKey, { timeoutMs: 150, maxRetries: 0 });
    fake.failNext('hang');
    const err = await caught(() => client.configuration());
    assert.ok(err instanceof ProviderError);
    assert.equal(err.kind, 'unavailable');
    assert.match(err.message, /timed out/);
  });

  it('findByImdbId: movies, and TV results reported', async () => {
    const { client } = make();
    const hit = await client.findByImdbId('tt1375666');
    assert.deepEqual(
      hit.movies.map((m) => m.id),
      [27205],
    );
    assert.deepEqual(fake.requests[0]?.query.external_source, 'imdb_id');
    const tv = await client.findByImdbId('tt0903747');
    assert.deepEqual(tv, {
      movies: [],
      tv: [{ id: 1396, name: 'Breaking Bad', firstAirDate: '2008-01-20' }],
    });
    const none = await client.findByImdbId('tt9999999');
    assert.deepEqual(none, { movies: [], tv: [] });
    await assert.rejects(
      client.findByImdbId('nm0000001'),
      (e: unknown) => e instanceof ProviderError && e.kind === 'invalid_request',
    );
  });

  it('configuration is cached for a day', async () => {
    const { client, deps } = make();
    const conf = await client.configuration();
    assert.equal(conf.images.secureBaseUrl, `${fake.imageBaseUrl}/`);
    assert.ok(conf.images.posterSizes.includes('w500'));
    deps.clock.advance(DAY_MS - 1);
    await client.configuration();
    assert.equal(fake.requests.length, 1);
    deps.clock.advance(2);
    await client.configuration();
    assert.equal(fake.requests.length, 2);
  });

  it('images: URL from the image base, a real JPEG downloaded', async () => {
    const { client } = make();
    assert.equal(client.imageUrl('original', '/poster1.jpg'), `${fake.imageBaseUrl}/original/poster1.jpg`);
    const img = await client.fetchImage('w500', '/inception-poster.jpg');
    assert.equal(img.contentType, 'image/jpeg');
    const meta = await sharp(img.bytes).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ['jpeg', 20, 30]);
    const missing = await caught(() => client.fetchImage('original', '/nope.jpg'));
    assert.ok(missing instanceof ProviderError);
    assert.equal(missing.kind, 'not_found');
    assert.throws(() => client.imageUrl('original', '/../../etc/passwd'), ProviderError);
  });

  it('a 200 HTML page is a bad_response', async () => {
    const { client } = make();
    fake.failNext('html_200');
    const err = await caught(() => client.searchMovie('Alien'));
    assert.ok(err instanceof ProviderError);
    assert.equal(err.kind, 'bad_response');
  });
});
