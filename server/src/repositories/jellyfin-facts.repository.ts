import type { Db } from '../db/database.ts';

/** What the Jellyfin DTOs say about a movie that `/library`'s items do not carry. */
export interface JellyfinMovieFactsRow {
  id: number;
  genres_json: string | null;
  certification: string | null;
  created_at: string;
}

/** A movie's TMDb collection ("The Dark Knight Collection"). */
export interface MovieCollectionRow {
  movie_id: number;
  collection_id: number;
  collection_name: string;
}

export interface JellyfinFileFactsRow {
  id: number;
  relative_path: string;
  size_bytes: number;
}

export interface JellyfinRatingRow {
  movie_id: number;
  source: string;
  value: string;
}

export interface JellyfinCreditRow {
  movie_id: number;
  person_id: number;
  name: string;
  role: string;
  character: string | null;
  job: string | null;
}

export interface JellyfinStudioRow {
  movie_id: number;
  studio_id: number;
  name: string;
}

/** Movie ids to read (null: every movie). */
export type FactsScope = readonly number[] | null;

/** Beyond this many ids a scope is read in slices (SQLite's bound-parameter limit). */
const SLICE = 900;

async function scoped<T>(
  scope: FactsScope,
  read: (ids: readonly number[] | null) => Promise<T[]>,
): Promise<T[]> {
  if (scope === null) return read(null);
  const out: T[] = [];
  for (let at = 0; at < scope.length; at += SLICE) out.push(...(await read(scope.slice(at, at + SLICE))));
  return out;
}

/**
 * Reads the movie and file facts of the Jellyfin facade's DTOs: one query per kind of fact for the
 * whole library (or the movies a change named), never one per item.
 */
export class JellyfinFactsRepository {
  constructor(private readonly db: Db) {}

  movieFacts(scope: FactsScope = null): Promise<JellyfinMovieFactsRow[]> {
    return scoped(scope, (ids) =>
      this.db
        .selectFrom('movies')
        .select(['id', 'genres_json', 'certification', 'created_at'])
        .$if(ids !== null, (q) => q.where('id', 'in', ids ?? []))
        .execute(),
    );
  }

  /** The movies that belong to a TMDb collection, with it (the DLNA tree's Collections). */
  async collections(scope: FactsScope = null): Promise<MovieCollectionRow[]> {
    const rows = await scoped(scope, (ids) =>
      this.db
        .selectFrom('movies')
        .select(['id', 'tmdb_collection_id', 'tmdb_collection_name'])
        .where('tmdb_collection_id', 'is not', null)
        .$if(ids !== null, (q) => q.where('id', 'in', ids ?? []))
        .execute(),
    );
    const out: MovieCollectionRow[] = [];
    for (const row of rows) {
      if (row.tmdb_collection_id === null) continue;
      out.push({
        movie_id: row.id,
        collection_id: row.tmdb_collection_id,
        // TMDb always names a collection; a missing name still lists the films together.
        collection_name: row.tmdb_collection_name ?? `Collection ${row.tmdb_collection_id}`,
      });
    }
    return out;
  }

  /** The files' facts (scope: file ids, null: every file). */
  fileFacts(scope: FactsScope = null): Promise<JellyfinFileFactsRow[]> {
    return scoped(scope, (ids) =>
      this.db
        .selectFrom('media_files')
        .select(['id', 'relative_path', 'size_bytes'])
        .$if(ids !== null, (q) => q.where('id', 'in', ids ?? []))
        .execute(),
    );
  }

  /** The ratings OMDb gave (IMDb's x/10, Rotten Tomatoes' %). */
  ratings(scope: FactsScope = null): Promise<JellyfinRatingRow[]> {
    return scoped(scope, (ids) =>
      this.db
        .selectFrom('movie_ratings')
        .select(['movie_id', 'source', 'value'])
        .$if(ids !== null, (q) => q.where('movie_id', 'in', ids ?? []))
        .execute(),
    );
  }

  /** Cast and crew in credit order. */
  credits(scope: FactsScope = null): Promise<JellyfinCreditRow[]> {
    return scoped(scope, (ids) =>
      this.db
        .selectFrom('person_movie as pm')
        .innerJoin('persons as p', 'p.id', 'pm.person_id')
        .select(['pm.movie_id', 'pm.person_id', 'p.name', 'pm.role', 'pm.character', 'pm.job'])
        .$if(ids !== null, (q) => q.where('pm.movie_id', 'in', ids ?? []))
        .orderBy('pm.movie_id')
        .orderBy('pm.role')
        .orderBy('pm.sort_order')
        .execute(),
    );
  }

  studios(scope: FactsScope = null): Promise<JellyfinStudioRow[]> {
    return scoped(scope, (ids) =>
      this.db
        .selectFrom('movie_studio as ms')
        .innerJoin('studios as s', 's.id', 'ms.studio_id')
        .select(['ms.movie_id', 'ms.studio_id', 's.name'])
        .$if(ids !== null, (q) => q.where('ms.movie_id', 'in', ids ?? []))
        .orderBy('ms.movie_id')
        .orderBy('s.name')
        .execute(),
    );
  }
}
