import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EnrichmentService } from '../../../../src/services/metadata/enrichment.service.ts';
import type {
  MovieCandidate,
  MovieDetails,
  MovieMetadataPort,
  RatingsPort,
} from '../../../../src/services/metadata/provider-ports.ts';
import { FakeJobRunner } from '../../../fakes/fake-jobs.ts';
import { FakeMetadataTables } from '../../../fakes/metadata-repositories.ts';

// EnrichmentService on in-memory tables, an in-memory job runner and in-process provider ports (no
// database, no HTTP): how a movie is found at TMDb, what is written of it (fields, credits, studios,
// ratings, artwork to fetch) and what is kept, the OMDb quota stopping a batch, and a failed write
// leaving the movie as it was.

const NOW = '2026-02-03T04:05:06.000Z';

function details(tmdbId: number, title: string, overrides: Partial<MovieDetails> = {}): MovieDetails {
  return {
    tmdbId,
    title,
    originalTitle: title,
    year: 1995,
    overview: `${title}: an overview.`,
    tagline: 'A tagline.',
    runtimeMinutes: 170,
    genres: ['Crime', 'Drama'],
    imdbId: `tt${tmdbId}`,
    posterPath: `/${tmdbId}-poster.jpg`,
    backdropPath: `/${tmdbId}-backdrop.jpg`,
    collection: null,
    studios: [{ tmdbId: 1, name: 'Warner Bros.' }],
    cast: [
      { tmdbId: 100, name: 'Al Pacino', character: 'Vincent Hanna', order: 0, profilePath: '/al.jpg' },
      { tmdbId: 101, name: 'Robert De Niro', character: 'Neil McCauley', order: 1, profilePath: null },
    ],
    crew: [
      { tmdbId: 200, name: 'Michael Mann', job: 'Director', department: 'Directing' },
      { tmdbId: 201, name: 'Dante Spinotti', job: 'Director of Photography', department: 'Camera' },
      { tmdbId: 200, name: 'Michael Mann', job: 'Screenplay', department: 'Writing' },
    ],
    releases: [
      { country: 'US', type: 5, certification: '' },
      { country: 'US', type: 3, certification: 'R' },
      { country: 'GB', type: 3, certification: '15' },
    ],
    ...overrides,
  };
}

const HEAT = details(949, 'Heat');

function candidate(tmdbId: number, title: string, year: number): MovieCandidate {
  return { tmdb_id: tmdbId, title, original_title: title, year, poster_path: null, overview: null };
}

/** TMDb as a port: movies by id, an IMDb id index and a search answering from a list. */
class FakeTmdbPort implements MovieMetadataPort {
  readonly asked: string[] = [];
  failing = false;
  constructor(
    private readonly movies: MovieDetails[],
    private readonly search: MovieCandidate[] = [],
  ) {}

  async searchMovie(query: string, year?: number | null): Promise<MovieCandidate[]> {
    this.asked.push(`search ${query} ${year ?? ''}`.trim());
    return this.search.filter((c) => c.title === query);
  }

  async movieDetails(tmdbId: number): Promise<MovieDetails> {
    this.asked.push(`details ${tmdbId}`);
    if (this.failing)
      throw Object.assign(new Error('TMDb is down'), { provider: 'tmdb', kind: 'unavailable' });
    const found = this.movies.find((m) => m.tmdbId === tmdbId);
    if (found === undefined) throw new Error(`no TMDb movie ${tmdbId}`);
    return found;
  }

  async findByImdbId(imdbId: string): Promise<number | null> {
    this.asked.push(`find ${imdbId}`);
    return this.movies.find((m) => m.imdbId === imdbId)?.tmdbId ?? null;
  }
}

/** OMDb as a port: the same two ratings for every IMDb id, or a quota refusal. */
class FakeOmdbPort implements RatingsPort {
  readonly asked: string[] = [];
  quotaGone = false;

  async ratings(imdbId: string): Promise<{ source: string; value: string }[] | null> {
    this.asked.push(imdbId);
    if (this.quotaGone)
      throw Object.assign(new Error('Request limit reached!'), { provider: 'omdb', kind: 'quota' });
    return [
      { source: 'Internet Movie Database', value: '8.3/10' },
      { source: 'Rotten Tomatoes', value: '88%' },
    ];
  }
}

function service(
  tables: FakeMetadataTables,
  tmdb: FakeTmdbPort | null,
  omdb: FakeOmdbPort | null,
  country = 'US',
) {
  const jobs = new FakeJobRunner();
  const clock = { now: () => new Date(NOW) };
  const enrichment = new EnrichmentService(
    tables,
    tables.enrichmentStore(),
    jobs,
    clock,
    tmdb,
    omdb,
    country,
  );
  return { enrichment, jobs };
}

describe('EnrichmentService with fake repositories', () => {
  it("takes the certification of the configured country's theatrical release, and keeps one set by hand", async () => {
    const tables = new FakeMetadataTables();
    const us = tables.addMovie({ title: 'Heat', tmdb_id: 949 });
    await service(tables, new FakeTmdbPort([HEAT]), null).enrichment.enrich(us.id);
    assert.equal(tables.movie(us.id)?.certification, 'R');

    const gbTables = new FakeMetadataTables();
    const gb = gbTables.addMovie({ title: 'Heat', tmdb_id: 949 });
    await service(gbTables, new FakeTmdbPort([HEAT]), null, 'GB').enrichment.enrich(gb.id);
    assert.equal(gbTables.movie(gb.id)?.certification, '15');

    const byHand = tables.addMovie({ title: 'Heat again', tmdb_id: 950 });
    const row = tables.movie(byHand.id);
    if (row !== undefined) row.certification = 'PG-13';
    await service(tables, new FakeTmdbPort([details(950, 'Heat again')]), null).enrichment.enrich(byHand.id);
    assert.equal(tables.movie(byHand.id)?.certification, 'PG-13', 'a hand-set certification is kept');

    const none = tables.addMovie({ title: 'Unrated', tmdb_id: 951 });
    await service(
      tables,
      new FakeTmdbPort([details(951, 'Unrated', { releases: [] })]),
      null,
    ).enrichment.enrich(none.id);
    assert.equal(tables.movie(none.id)?.certification, null);
  });

  it('fills a movie known by TMDb id: fields, credits, studios, ratings and the artwork to fetch', async () => {
    const tables = new FakeMetadataTables();
    const movie = tables.addMovie({ title: 'Heat', tmdb_id: 949 });
    const tmdb = new FakeTmdbPort([HEAT]);
    const omdb = new FakeOmdbPort();
    const { enrichment } = service(tables, tmdb, omdb);
    assert.equal(await enrichment.enrich(movie.id), 'enriched');
    assert.deepEqual(tmdb.asked, ['details 949']);
    assert.deepEqual(omdb.asked, ['tt949']);
    const after = tables.movie(movie.id);
    assert.equal(after?.overview, 'Heat: an overview.');
    assert.equal(after?.tagline, 'A tagline.');
    assert.equal(after?.runtime_minutes, 170);
    assert.equal(after?.year, 1995);
    assert.equal(after?.imdb_id, 'tt949');
    assert.equal(after?.genres_json, '["Crime","Drama"]');
    assert.equal(after?.enriched_at, NOW);
    assert.deepEqual(tables.creditsOf(movie.id), [
      'Al Pacino (cast: Vincent Hanna)',
      'Robert De Niro (cast: Neil McCauley)',
      'Michael Mann (crew: Director)',
      'Michael Mann (crew: Screenplay)',
    ]);
    assert.equal(tables.t.persons.length, 3, 'one person per TMDb id, credited twice');
    assert.deepEqual(tables.studiosOf(movie.id), ['Warner Bros.']);
    assert.deepEqual(tables.ratingsOf(movie.id), ['Internet Movie Database=8.3/10', 'Rotten Tomatoes=88%']);
    assert.deepEqual(await tables.get(movie.id), {
      movie_id: movie.id,
      poster_state: 'pending',
      poster_source: 'tmdb:/949-poster.jpg',
      poster_path: null,
      backdrop_state: 'pending',
      backdrop_source: 'tmdb:/949-backdrop.jpg',
      backdrop_path: null,
      fetched_at: null,
      error: null,
    });
  });

  it('keeps what was there: a year and an IMDb id already set, a local poster, artwork already from the same source', async () => {
    const tables = new FakeMetadataTables();
    const movie = tables.addMovie({ title: 'Heat', tmdb_id: 949, year: 1996, imdb_id: 'tt0113277' });
    await tables.setImage(
      movie.id,
      'poster',
      { state: 'ready', source: 'local', path: '/m/poster.jpg' },
      NOW,
      null,
    );
    await tables.setImage(
      movie.id,
      'backdrop',
      { state: 'ready', source: 'tmdb:/949-backdrop.jpg', path: '/a/b.jpg' },
      NOW,
      null,
    );
    const before = await tables.get(movie.id);
    const { enrichment } = service(tables, new FakeTmdbPort([HEAT]), null);
    assert.equal(await enrichment.enrich(movie.id), 'enriched');
    assert.deepEqual([tables.movie(movie.id)?.year, tables.movie(movie.id)?.imdb_id], [1996, 'tt0113277']);
    assert.deepEqual(await tables.get(movie.id), before);
  });

  it('finds a movie with no TMDb id by its IMDb id, else by title and year; an unclear search is not_found', async () => {
    const tables = new FakeMetadataTables();
    const byImdb = tables.addMovie({ title: 'Heat', imdb_id: 'tt949' });
    const alien = details(348, 'Alien', { year: 1979, imdbId: 'tt0078748' });
    const byTitle = tables.addMovie({ title: 'Alien', year: 1979 });
    // Two Dunes, neither of 2000: no exact match and no single title match.
    const unclear = tables.addMovie({ title: 'Dune', year: 2000 });
    const tmdb = new FakeTmdbPort(
      [HEAT, alien],
      [candidate(348, 'Alien', 1979), candidate(438631, 'Dune', 2021), candidate(841, 'Dune', 1984)],
    );
    const { enrichment } = service(tables, tmdb, null);
    assert.equal(await enrichment.enrich(byImdb.id), 'enriched');
    assert.equal(tables.movie(byImdb.id)?.tmdb_id, 949);
    assert.equal(await enrichment.enrich(byTitle.id), 'enriched');
    assert.equal(tables.movie(byTitle.id)?.tmdb_id, 348);
    assert.equal(await enrichment.enrich(unclear.id), 'not_found');
    assert.equal(tables.movie(unclear.id)?.enriched_at, null);
    assert.deepEqual(tmdb.asked, [
      'find tt949',
      'details 949',
      'search Alien 1979',
      'details 348',
      'search Dune 2000',
    ]);
    assert.equal(await enrichment.enrich(9999), 'not_found', 'a movie that is not there');
  });

  it('a TMDb id another movie already holds is not taken; the rest is filled', async () => {
    const tables = new FakeMetadataTables();
    const holder = tables.addMovie({ title: 'Heat', tmdb_id: 949 });
    const copy = tables.addMovie({ title: 'Heat', year: 1995 });
    const tmdb = new FakeTmdbPort([HEAT], [candidate(949, 'Heat', 1995)]);
    const { enrichment } = service(tables, tmdb, null);
    assert.equal(await enrichment.enrich(copy.id), 'enriched');
    assert.equal(tables.movie(copy.id)?.tmdb_id, null);
    assert.equal(tables.movie(copy.id)?.overview, 'Heat: an overview.');
    assert.equal(tables.movie(holder.id)?.tmdb_id, 949);
  });

  it('enriching again replaces credits, studios and ratings; a person is renamed, not duplicated', async () => {
    const tables = new FakeMetadataTables();
    const movie = tables.addMovie({ title: 'Heat', tmdb_id: 949 });
    const tmdb = new FakeTmdbPort([HEAT]);
    const { enrichment } = service(tables, tmdb, new FakeOmdbPort());
    await enrichment.enrich(movie.id);
    const renamed = details(949, 'Heat', {
      cast: [{ tmdbId: 100, name: 'Alfredo Pacino', character: 'Hanna', order: 0, profilePath: null }],
      crew: [],
      studios: [{ tmdbId: 2, name: 'Regency' }],
    });
    const again = service(tables, new FakeTmdbPort([renamed]), null);
    assert.equal(await again.enrichment.enrich(movie.id), 'enriched');
    assert.deepEqual(tables.creditsOf(movie.id), ['Alfredo Pacino (cast: Hanna)']);
    assert.equal(tables.t.persons.filter((p) => p.tmdb_id === 100).length, 1);
    assert.deepEqual(tables.studiosOf(movie.id), ['Regency']);
    assert.equal(tables.ratingsOf(movie.id).length, 2, 'no ratings asked: the ones there stay');
  });

  it('keeps the first 25 of the cast and only directors and writers of the crew', async () => {
    const tables = new FakeMetadataTables();
    const movie = tables.addMovie({ title: 'Heat', tmdb_id: 949 });
    const cast = Array.from({ length: 30 }, (_, i) => ({
      tmdbId: 1000 + i,
      name: `Actor ${i}`,
      character: null,
      order: i,
      profilePath: null,
    }));
    const crew = ['Director', 'Writer', 'Producer', 'Screenplay', 'Editor'].map((job, i) => ({
      tmdbId: 2000 + i,
      name: `Crew ${i}`,
      job,
      department: null,
    }));
    const { enrichment } = service(tables, new FakeTmdbPort([details(949, 'Heat', { cast, crew })]), null);
    await enrichment.enrich(movie.id);
    const credits = tables.t.credits.filter((c) => c.movie_id === movie.id);
    assert.equal(credits.filter((c) => c.role === 'cast').length, 25);
    assert.deepEqual(
      credits.filter((c) => c.role === 'crew').map((c) => [c.job, c.sort_order]),
      [
        ['Director', 0],
        ['Writer', 1],
        ['Screenplay', 2],
      ],
    );
  });

  it('a batch: the OMDb quota stops the ratings for the rest of it, TMDb goes on; the report counts', async () => {
    const tables = new FakeMetadataTables();
    const ids = [949, 950, 951].map((id) => tables.addMovie({ title: `Film ${id}`, tmdb_id: id }).id);
    const omdb = new FakeOmdbPort();
    omdb.quotaGone = true;
    const tmdb = new FakeTmdbPort([949, 950, 951].map((id) => details(id, `Film ${id}`)));
    const { enrichment } = service(tables, tmdb, omdb);
    const jobId = await enrichment.queue(ids);
    assert.ok(jobId !== null);
    const report = await enrichment.waitReport(jobId);
    assert.deepEqual(report, {
      movies: 3,
      enriched: 3,
      not_found: 0,
      failed: 0,
      ratings_stopped: true,
      warnings: ['OMDb quota reached: ratings stop for this batch.'],
    });
    assert.equal(omdb.asked.length, 1, 'one refused request, then the batch stopped asking');
    assert.equal(tables.t.ratings.length, 0);
  });

  it('TMDb failing is a warning and "failed", nothing written; with no provider, nothing is queued', async () => {
    const tables = new FakeMetadataTables();
    const movie = tables.addMovie({ title: 'Heat', tmdb_id: 949 });
    const tmdb = new FakeTmdbPort([HEAT]);
    tmdb.failing = true;
    const { enrichment } = service(tables, tmdb, new FakeOmdbPort());
    const batch = { ratingsStopped: false, warnings: [] };
    assert.equal(await enrichment.enrich(movie.id, batch), 'failed');
    assert.deepEqual(batch.warnings, [`TMDb, movie ${movie.id}: TMDb is down`]);
    assert.equal(tables.movie(movie.id)?.enriched_at, null);
    const off = service(tables, null, null).enrichment;
    assert.equal(off.enabled, false);
    assert.equal(await off.queue([movie.id]), null);
  });

  it('a write that fails rolls the whole movie back: fields, credits, studios, artwork', async () => {
    class RatingsWriteFails extends FakeMetadataTables {
      override async replaceRatings(): Promise<void> {
        throw new Error('disk I/O error');
      }
    }
    const tables = new RatingsWriteFails();
    const movie = tables.addMovie({ title: 'Heat', tmdb_id: 949 });
    const { enrichment } = service(tables, new FakeTmdbPort([HEAT]), new FakeOmdbPort());
    await assert.rejects(enrichment.enrich(movie.id), /disk I\/O error/);
    assert.equal(tables.movie(movie.id)?.overview, null);
    assert.deepEqual(tables.creditsOf(movie.id), []);
    assert.deepEqual(tables.studiosOf(movie.id), []);
    assert.equal(await tables.get(movie.id), undefined);
  });
});
