import { type Clock, isoNow } from '../../adapters/clock.ts';
import { certificationFromReleases } from '../../domain/people/certification.ts';
import { normalizeTitle } from '../../domain/titles.ts';
import type { JobContext, JobRunner } from '../../jobs/job-runner.ts';
import type { ArtworkRepository } from '../../repositories/artwork.repository.ts';
import type { MovieCredit, MovieMetadataRepository } from '../../repositories/movie-metadata.repository.ts';
import type { MovieRepository } from '../../repositories/movie.repository.ts';
import type { UnitOfWork } from '../../repositories/unit-of-work.ts';
import {
  isProviderFailure,
  type MovieDetails,
  type MovieMetadataPort,
  type RatingsPort,
} from './provider-ports.ts';

/** Crew jobs kept beside the cast (directors are what /library searches; writers help people). */
const CREW_JOBS = new Set(['Director', 'Screenplay', 'Writer']);
const MAX_CAST = 25;

/** Shared by the movies of one batch: once OMDb says its quota is gone, the batch stops asking. */
export interface EnrichmentBatch {
  ratingsStopped: boolean;
  warnings: string[];
}

export interface EnrichmentReport {
  movies: number;
  enriched: number;
  not_found: number;
  failed: number;
  ratings_stopped: boolean;
  warnings: string[];
}

interface EnrichPayload {
  movieIds: number[];
}

/** What enrichment writes of one movie, in one transaction. */
export interface EnrichmentRepositories {
  metadata: Pick<
    MovieMetadataRepository,
    | 'otherWithTmdbId'
    | 'yearAndImdbId'
    | 'updateProviderFields'
    | 'fulfilWishes'
    | 'replaceCredits'
    | 'replaceStudios'
    | 'replaceRatings'
  >;
  artwork: Pick<ArtworkRepository, 'get' | 'setImage'>;
}

export type EnrichmentJobs = Pick<JobRunner, 'register' | 'enqueue' | 'wait'>;

/**
 * Fills movie records from TMDb (overview, year, runtime, genres, ids, cast, directors, studios,
 * collection, artwork paths) and OMDb (ratings per source). A movie is found by its TMDb id, its
 * IMDb id, or its title and year.
 */
export class EnrichmentService {
  constructor(
    /** The movie as it is before enrichment (its ids, title and year find it at the providers). */
    private readonly movies: Pick<MovieRepository, 'getById'>,
    /** What enrichment stores of one movie: provider fields, credits, studios, ratings, artwork state. */
    private readonly store: UnitOfWork<EnrichmentRepositories>,
    private readonly jobs: EnrichmentJobs,
    private readonly clock: Clock,
    private readonly metadata: MovieMetadataPort | null,
    private readonly ratings: RatingsPort | null,
    /** REELSHELF_CERTIFICATION_COUNTRY: whose certification a film gets from its releases. */
    private readonly certificationCountry = 'US',
  ) {
    jobs.register<EnrichPayload>('enrich', { concurrency: 1, run: (ctx) => this.run(ctx) });
  }

  get enabled(): boolean {
    return this.metadata !== null || this.ratings !== null;
  }

  /** Queues movies for enrichment in the background (scans, imports); null when enrichment is off. */
  async queue(movieIds: number[]): Promise<number | null> {
    if (!this.enabled || movieIds.length === 0) return null;
    return (await this.jobs.enqueue<EnrichPayload>('enrich', { movieIds })).id;
  }

  async waitReport(jobId: number): Promise<EnrichmentReport | null> {
    const job = await this.jobs.wait(jobId);
    return job?.result_json == null ? null : (JSON.parse(job.result_json) as EnrichmentReport);
  }

  private async run(ctx: JobContext<EnrichPayload>): Promise<EnrichmentReport> {
    const batch: EnrichmentBatch = { ratingsStopped: false, warnings: [] };
    const report: EnrichmentReport = {
      movies: ctx.payload.movieIds.length,
      enriched: 0,
      not_found: 0,
      failed: 0,
      ratings_stopped: false,
      warnings: [],
    };
    let done = 0;
    for (const id of ctx.payload.movieIds) {
      if (ctx.signal.aborted) break;
      const outcome = await this.enrich(id, batch);
      if (outcome === 'enriched') report.enriched++;
      else if (outcome === 'not_found') report.not_found++;
      else report.failed++;
      ctx.progress(++done, ctx.payload.movieIds.length);
    }
    report.ratings_stopped = batch.ratingsStopped;
    report.warnings = batch.warnings.slice(0, 50);
    return report;
  }

  /** Enriches one movie now; failures become warnings in the batch, never exceptions. */
  async enrich(
    movieId: number,
    batch: EnrichmentBatch = { ratingsStopped: false, warnings: [] },
  ): Promise<'enriched' | 'not_found' | 'failed'> {
    const movie = await this.movies.getById(movieId);
    if (movie === undefined) return 'not_found';
    let details: MovieDetails | null = null;
    if (this.metadata !== null) {
      try {
        const tmdbId = movie.tmdb_id ?? (await this.findTmdbId(movie.imdb_id, movie.title, movie.year));
        if (tmdbId !== null) details = await this.metadata.movieDetails(tmdbId);
      } catch (err) {
        batch.warnings.push(`TMDb, movie ${movieId}: ${err instanceof Error ? err.message : String(err)}`);
        return 'failed';
      }
    }
    const imdbId = movie.imdb_id ?? details?.imdbId ?? null;
    let ratings: { source: string; value: string }[] | null = null;
    if (this.ratings !== null && imdbId !== null && !batch.ratingsStopped) {
      try {
        ratings = await this.ratings.ratings(imdbId);
      } catch (err) {
        if (isProviderFailure(err) && (err.kind === 'quota' || err.kind === 'unauthorized')) {
          batch.ratingsStopped = true;
          batch.warnings.push(
            `OMDb ${err.kind === 'quota' ? 'quota reached' : 'key refused'}: ratings stop for this batch.`,
          );
        } else {
          batch.warnings.push(`OMDb, movie ${movieId}: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
    }
    if (details === null && ratings === null) return this.metadata === null ? 'failed' : 'not_found';
    await this.save(movieId, movie.tmdb_id, details, ratings);
    return 'enriched';
  }

  private async findTmdbId(
    imdbId: string | null,
    title: string,
    year: number | null,
  ): Promise<number | null> {
    if (this.metadata === null) return null;
    if (imdbId !== null) {
      const found = await this.metadata.findByImdbId(imdbId);
      if (found !== null) return found;
    }
    const results = await this.metadata.searchMovie(title, year);
    const key = normalizeTitle(title);
    const exact = results.find((r) => normalizeTitle(r.title) === key && (year === null || r.year === year));
    if (exact !== undefined) return exact.tmdb_id;
    const sameTitle = results.filter(
      (r) => normalizeTitle(r.title) === key || normalizeTitle(r.original_title ?? '') === key,
    );
    return sameTitle.length === 1 ? (sameTitle[0]?.tmdb_id ?? null) : null;
  }

  private async save(
    movieId: number,
    currentTmdbId: number | null,
    details: MovieDetails | null,
    ratings: { source: string; value: string }[] | null,
  ): Promise<void> {
    const now = isoNow(this.clock);
    await this.store.transaction(async ({ metadata, artwork }) => {
      if (details !== null) {
        // A TMDb id another movie already holds is not taken (the column is unique): the rest is.
        const clash =
          currentTmdbId === null ? await metadata.otherWithTmdbId(details.tmdbId, movieId) : undefined;
        const current = await metadata.yearAndImdbId(movieId);
        await metadata.updateProviderFields(movieId, {
          ...(clash === undefined ? { tmdb_id: details.tmdbId } : {}),
          original_title: details.originalTitle,
          overview: details.overview,
          tagline: details.tagline,
          runtime_minutes: details.runtimeMinutes,
          year: current.year ?? details.year,
          imdb_id: current.imdb_id ?? details.imdbId,
          // A certification set by hand (PATCH /api/movies/{id}) is kept, as the year is.
          certification:
            current.certification ?? certificationFromReleases(this.certificationCountry, details.releases),
          genres_json: JSON.stringify(details.genres),
          tmdb_collection_id: details.collection?.id ?? null,
          tmdb_collection_name: details.collection?.name ?? null,
          enriched_at: now,
          updated_at: now,
        });
        // Identified: a file a scan named "alien.mkv" is TMDb's Alien (1979) now, and the wish of
        // that film ends with this write when the movie is owned (docs/collector.md "Wish list").
        await metadata.fulfilWishes(movieId);
        await metadata.replaceCredits(movieId, credits(details));
        await metadata.replaceStudios(movieId, details.studios);
        const existing = await artwork.get(movieId);
        for (const [kind, path] of [
          ['poster', details.posterPath],
          ['backdrop', details.backdropPath],
        ] as const) {
          if (path === null) continue;
          const source = `tmdb:${path}`;
          const current =
            existing === undefined
              ? null
              : kind === 'poster'
                ? existing.poster_source
                : existing.backdrop_source;
          if (current === source || current === 'local') continue;
          await artwork.setImage(
            movieId,
            kind,
            { state: 'pending', source, path: null },
            existing?.fetched_at ?? null,
            null,
          );
        }
      }
      if (ratings !== null) await metadata.replaceRatings(movieId, ratings, now);
    });
  }
}

/** The credits kept of a movie: the first MAX_CAST of the cast, then the crew of CREW_JOBS in order. */
function credits(details: MovieDetails): MovieCredit[] {
  return [
    ...details.cast
      .slice(0, MAX_CAST)
      .map((c) => ({ ...c, role: 'cast' as const, job: null, department: null })),
    ...details.crew
      .filter((c) => CREW_JOBS.has(c.job))
      .map((c, i) => ({
        tmdbId: c.tmdbId,
        name: c.name,
        character: null,
        order: i,
        profilePath: null,
        role: 'crew' as const,
        job: c.job,
        department: c.department,
      })),
  ];
}
