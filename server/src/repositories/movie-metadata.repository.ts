import type { Db } from '../db/database.ts';
import { WishRepository } from './wish.repository.ts';

/** The fields of a movie a provider fills (TMDb details); `tmdb_id` left out keeps the current one. */
export interface MovieProviderFields {
  tmdb_id?: number;
  original_title: string | null;
  overview: string | null;
  tagline: string | null;
  runtime_minutes: number | null;
  year: number | null;
  imdb_id: string | null;
  genres_json: string;
  tmdb_collection_id: number | null;
  tmdb_collection_name: string | null;
  /** The certification in REELSHELF_CERTIFICATION_COUNTRY's system; absent: left as it is. */
  certification?: string | null;
  enriched_at: string;
  updated_at: string;
}

/** A person credited on a movie: cast (with a character) or crew (with a job and department). */
export interface MovieCredit {
  tmdbId: number;
  name: string;
  profilePath: string | null;
  role: 'cast' | 'crew';
  character: string | null;
  job: string | null;
  department: string | null;
  order: number;
}

/** A studio by its TMDb id. */
export interface MovieStudio {
  tmdbId: number;
  name: string;
}

/** A rating of one source (OMDb: "Internet Movie Database", "Rotten Tomatoes", …). */
export interface MovieRating {
  source: string;
  value: string;
}

/**
 * What providers tell of a movie, as enrichment stores it: its provider fields, its credits (persons
 * shared between movies by TMDb id), studios and ratings. Meant to run in one transaction (the
 * enrichment's UnitOfWork); the replace methods write a movie's whole set.
 */
export class MovieMetadataRepository {
  constructor(private readonly db: Db) {}

  /** Another movie that already holds this TMDb id (the column is unique). */
  async otherWithTmdbId(tmdbId: number, movieId: number): Promise<number | undefined> {
    const row = await this.db
      .selectFrom('movies')
      .select('id')
      .where('tmdb_id', '=', tmdbId)
      .where('id', '!=', movieId)
      .executeTakeFirst();
    return row?.id;
  }

  /** The year and IMDb id the movie has now (a provider fills them only when empty). */
  async yearAndImdbId(
    movieId: number,
  ): Promise<{ year: number | null; imdb_id: string | null; certification: string | null }> {
    return this.db
      .selectFrom('movies')
      .select(['year', 'imdb_id', 'certification'])
      .where('id', '=', movieId)
      .executeTakeFirstOrThrow();
  }

  async updateProviderFields(movieId: number, fields: MovieProviderFields): Promise<void> {
    await this.db.updateTable('movies').set(fields).where('id', '=', movieId).execute();
  }

  /**
   * Takes the movie's film off the wish list when it is owned (its TMDb id or year has just been
   * filled: an owned file or disc is now known to be a wished film); how many wishes it had.
   */
  fulfilWishes(movieId: number): Promise<number> {
    return new WishRepository(this.db).fulfil(movieId);
  }

  /** The movie's credits become `credits`; a person known by TMDb id is reused (its name updated). */
  async replaceCredits(movieId: number, credits: readonly MovieCredit[]): Promise<void> {
    await this.db.deleteFrom('person_movie').where('movie_id', '=', movieId).execute();
    for (const credit of credits) {
      const person = await this.db
        .insertInto('persons')
        .values({ tmdb_id: credit.tmdbId, name: credit.name, profile_path: credit.profilePath })
        .onConflict((oc) => oc.column('tmdb_id').doUpdateSet({ name: credit.name }))
        .returning('id')
        .executeTakeFirstOrThrow();
      await this.db
        .insertInto('person_movie')
        .values({
          person_id: person.id,
          movie_id: movieId,
          role: credit.role,
          character: credit.character,
          job: credit.job,
          department: credit.department,
          sort_order: credit.order,
        })
        .execute();
    }
  }

  /** The movie's studios become `studios`; a studio known by TMDb id is reused (its name updated). */
  async replaceStudios(movieId: number, studios: readonly MovieStudio[]): Promise<void> {
    await this.db.deleteFrom('movie_studio').where('movie_id', '=', movieId).execute();
    for (const studio of studios) {
      const row = await this.db
        .insertInto('studios')
        .values({ tmdb_id: studio.tmdbId, name: studio.name })
        .onConflict((oc) => oc.column('tmdb_id').doUpdateSet({ name: studio.name }))
        .returning('id')
        .executeTakeFirstOrThrow();
      await this.db
        .insertInto('movie_studio')
        .values({ movie_id: movieId, studio_id: row.id })
        .onConflict((oc) => oc.doNothing())
        .execute();
    }
  }

  /** The movie's ratings become `ratings`, all fetched at `fetchedAt`. */
  async replaceRatings(movieId: number, ratings: readonly MovieRating[], fetchedAt: string): Promise<void> {
    await this.db.deleteFrom('movie_ratings').where('movie_id', '=', movieId).execute();
    for (const r of ratings) {
      await this.db
        .insertInto('movie_ratings')
        .values({ movie_id: movieId, source: r.source, value: r.value, fetched_at: fetchedAt })
        .execute();
    }
  }
}
