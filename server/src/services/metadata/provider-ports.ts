import type { ReleaseCertification } from '../../domain/people/certification.ts';

/**
 * What the barcode and enrichment services need from the outside services, as small ports: the
 * provider clients implement them, and a disabled provider is simply absent (null).
 */

/** A failure of an external service, classified so the caller can decide (retry later, stop the batch…). */
export interface ProviderFailure {
  provider: string;
  kind:
    | 'unavailable'
    | 'rate_limited'
    | 'quota'
    | 'unauthorized'
    | 'not_found'
    | 'invalid_request'
    | 'bad_response';
  message: string;
}

export function isProviderFailure(err: unknown): err is ProviderFailure & Error {
  return (
    err instanceof Error &&
    typeof (err as Partial<ProviderFailure>).kind === 'string' &&
    typeof (err as Partial<ProviderFailure>).provider === 'string'
  );
}

export interface UpcProduct {
  title: string;
  category: string | null;
  brand: string | null;
  images: string[];
}

export interface UpcLookupPort {
  lookup(upc: string): Promise<{ found: true; product: UpcProduct } | { found: false }>;
}

export interface MovieCandidate {
  tmdb_id: number;
  title: string;
  original_title: string | null;
  year: number | null;
  poster_path: string | null;
  overview: string | null;
}

export interface CastCredit {
  tmdbId: number;
  name: string;
  character: string | null;
  order: number;
  profilePath: string | null;
}

export interface CrewCredit {
  tmdbId: number;
  name: string;
  job: string;
  department: string | null;
}

export interface MovieDetails {
  tmdbId: number;
  title: string;
  originalTitle: string | null;
  year: number | null;
  overview: string | null;
  tagline: string | null;
  runtimeMinutes: number | null;
  genres: string[];
  imdbId: string | null;
  posterPath: string | null;
  backdropPath: string | null;
  collection: { id: number; name: string } | null;
  studios: { tmdbId: number; name: string }[];
  cast: CastCredit[];
  crew: CrewCredit[];
  /** Every country's releases with their certifications (TMDb `release_dates`). */
  releases: ReleaseCertification[];
}

export interface MovieMetadataPort {
  searchMovie(query: string, year?: number | null): Promise<MovieCandidate[]>;
  movieDetails(tmdbId: number): Promise<MovieDetails>;
  /** The TMDb id of an IMDb id, or null. */
  findByImdbId(imdbId: string): Promise<number | null>;
}

export interface RatingsPort {
  /** Ratings per source ("Internet Movie Database", "Rotten Tomatoes", "Metacritic"), or null when unknown. */
  ratings(imdbId: string): Promise<{ source: string; value: string }[] | null>;
}
