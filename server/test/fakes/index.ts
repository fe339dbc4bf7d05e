import { type FakeOmdb, type FakeOmdbOptions, startFakeOmdb } from './fake-omdb.ts';
import { type FakeTmdb, type FakeTmdbOptions, startFakeTmdb } from './fake-tmdb.ts';
import { type FakeUpc, type FakeUpcOptions, startFakeUpc } from './fake-upc.ts';
import {
  OMDB_MOVIES,
  type OmdbRecord,
  TMDB_MOVIES,
  type TmdbRawMovie,
  UPC_PRODUCTS,
  type UpcItem,
} from './fixtures.ts';

export * from './fake-omdb.ts';
export * from './fake-server.ts';
export * from './fake-tmdb.ts';
export * from './fake-upc.ts';
export * from './fixtures.ts';

export interface FakeProviders {
  upc: FakeUpc;
  tmdb: FakeTmdb;
  omdb: FakeOmdb;
  urls: { upcBaseUrl: string; tmdbBaseUrl: string; tmdbImageBaseUrl: string; omdbBaseUrl: string };
  keys: { tmdbV3ApiKey: string; tmdbReadToken: string; omdbApiKey: string };
  /** The REELSHELF_* variables that point a server at these fakes (TMDb via the v3 key). */
  env: Record<string, string>;
  /** Forgets recorded requests and pending failures on all three. */
  reset(): void;
  close(): Promise<void>;
}

export interface FakeProvidersOptions {
  upcProducts?: Record<string, UpcItem>;
  upc?: FakeUpcOptions;
  tmdbMovies?: TmdbRawMovie[];
  tmdb?: FakeTmdbOptions;
  omdbRatings?: OmdbRecord[];
  omdb?: FakeOmdbOptions;
}

/** UPCitemdb, TMDb (+ images) and OMDb fakes on 127.0.0.1, each on its own random port. */
export async function startFakeProviders(options: FakeProvidersOptions = {}): Promise<FakeProviders> {
  const [upc, tmdb, omdb] = await Promise.all([
    startFakeUpc(options.upcProducts ?? UPC_PRODUCTS, options.upc),
    startFakeTmdb(options.tmdbMovies ?? TMDB_MOVIES, options.tmdb),
    startFakeOmdb(options.omdbRatings ?? OMDB_MOVIES, options.omdb),
  ]);
  const urls = {
    upcBaseUrl: upc.baseUrl,
    tmdbBaseUrl: tmdb.baseUrl,
    tmdbImageBaseUrl: tmdb.imageBaseUrl,
    omdbBaseUrl: omdb.baseUrl,
  };
  const keys = { tmdbV3ApiKey: tmdb.apiKey, tmdbReadToken: tmdb.readToken, omdbApiKey: omdb.apiKey };
  return {
    upc,
    tmdb,
    omdb,
    urls,
    keys,
    env: {
      REELSHELF_UPC_BASE_URL: urls.upcBaseUrl,
      REELSHELF_TMDB_BASE_URL: urls.tmdbBaseUrl,
      REELSHELF_TMDB_IMAGE_BASE_URL: urls.tmdbImageBaseUrl,
      REELSHELF_TMDB_API_KEY: keys.tmdbV3ApiKey,
      REELSHELF_OMDB_BASE_URL: urls.omdbBaseUrl,
      REELSHELF_OMDB_API_KEY: keys.omdbApiKey,
    },
    reset() {
      upc.reset();
      tmdb.reset();
      omdb.reset();
    },
    async close() {
      await Promise.all([upc.close(), tmdb.close(), omdb.close()]);
    },
  };
}
