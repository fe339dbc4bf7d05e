import type { Clock } from '../adapters/clock.ts';
import type { Config } from '../config.ts';
import type { ProviderCache } from '../repositories/provider-cache.repository.ts';
import type { ProviderClientOptions, ProviderLogger } from './http.ts';
import { OmdbClient } from './omdb/omdb.client.ts';
import { TmdbClient } from './tmdb/tmdb.client.ts';
import { UpcItemDbClient } from './upc/upcitemdb.client.ts';

export { ProviderError, type ProviderErrorKind, type ProviderClientOptions } from './http.ts';
export * from './omdb/omdb.client.ts';
export * from './tmdb/tmdb.client.ts';
export * from './upc/upcitemdb.client.ts';

export interface Providers {
  upc: UpcItemDbClient;
  /** null when REELSHELF_TMDB_API_KEY is unset (enrichment off). */
  tmdb: TmdbClient | null;
  /** null when REELSHELF_OMDB_API_KEY is unset (ratings off). */
  omdb: OmdbClient | null;
}

export interface ProviderDeps {
  cache: ProviderCache;
  clock: Clock;
  logger?: ProviderLogger;
  /** Shared overrides (fetch, timeouts, retries, sleep) for every client. */
  overrides?: Partial<Omit<ProviderClientOptions, 'baseUrl' | 'apiKey' | 'cache' | 'clock'>>;
}

/** The three clients as configured; a missing key turns its client off (null), which is not an error. */
export function createProviders(
  config: Pick<
    Config,
    'tmdbApiKey' | 'tmdbBaseUrl' | 'tmdbImageBaseUrl' | 'omdbApiKey' | 'omdbBaseUrl' | 'upcBaseUrl'
  >,
  deps: ProviderDeps,
): Providers {
  const shared = {
    cache: deps.cache,
    clock: deps.clock,
    ...(deps.logger === undefined ? {} : { logger: deps.logger }),
    ...deps.overrides,
  };
  return {
    upc: new UpcItemDbClient({ ...shared, baseUrl: config.upcBaseUrl }),
    tmdb:
      config.tmdbApiKey === null
        ? null
        : new TmdbClient({
            ...shared,
            baseUrl: config.tmdbBaseUrl,
            imageBaseUrl: config.tmdbImageBaseUrl,
            apiKey: config.tmdbApiKey,
          }),
    omdb:
      config.omdbApiKey === null
        ? null
        : new OmdbClient({ ...shared, baseUrl: config.omdbBaseUrl, apiKey: config.omdbApiKey }),
  };
}
