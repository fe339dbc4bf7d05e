import type { ServerResponse } from 'node:http';
import sharp from 'sharp';
import {
  type FakeControl,
  type Failure,
  type RecordedRequest,
  gatewayPage,
  matchKey,
  retryAfterHeader,
  sendHtml,
  sendJson,
  startFakeServer,
} from './fake-server.ts';
import { FAKE_KEYS, TMDB_IMAGE_FILES, TMDB_MOVIES, TMDB_TV, type TmdbRawMovie } from './fixtures.ts';

/**
 * A TMDb v3 fake (reference metadata.md §1, §1.8): `/3/search/movie`, `/3/movie/{id}` with
 * `append_to_response` nesting and image-language filtering, `/3/find/{id}`, `/3/configuration`,
 * both auth styles, TMDb's JSON error bodies; plus the image CDN under `/t/p/{size}{file_path}`
 * serving real JPEGs.
 */

export interface FakeTmdbOptions {
  /** v3 key accepted as `api_key` (default FAKE_KEYS.tmdbV3ApiKey). */
  apiKey?: string;
  /** Read token accepted as `Authorization: Bearer` (default FAKE_KEYS.tmdbReadToken). */
  readToken?: string;
  tv?: Record<string, unknown>[];
  /** Image file path → size/colour; JPEGs are generated with sharp at start. */
  imageFiles?: Record<string, { width: number; height: number; rgb: [number, number, number] }>;
}

export interface FakeTmdb extends FakeControl {
  /** …/3 — what REELSHELF_TMDB_BASE_URL takes. */
  baseUrl: string;
  /** …/t/p — what REELSHELF_TMDB_IMAGE_BASE_URL takes. */
  imageBaseUrl: string;
  apiKey: string;
  readToken: string;
  /** The JPEG bytes served for a file path (any size). */
  imageBytes(filePath: string): Buffer | undefined;
}

const SIZES = {
  backdrop_sizes: ['w300', 'w780', 'w1280', 'original'],
  logo_sizes: ['w45', 'w92', 'w154', 'w185', 'w300', 'w500', 'original'],
  poster_sizes: ['w92', 'w154', 'w185', 'w342', 'w500', 'w780', 'original'],
  profile_sizes: ['w45', 'w185', 'h632', 'original'],
  still_sizes: ['w92', 'w185', 'w300', 'original'],
};
const ALL_SIZES = new Set(Object.values(SIZES).flat());
const APPENDABLE = new Set(['credits', 'images', 'release_dates', 'external_ids']);

function tmdbError(res: ServerResponse, status: number, code: number, message: string, headers = {}): void {
  sendJson(res, status, { success: false, status_code: code, status_message: message }, headers);
}

const NOT_FOUND = 'The resource you requested could not be found.';
const INVALID_KEY = 'Invalid API key: You must be granted a valid key.';

export async function startFakeTmdb(
  movies: TmdbRawMovie[] = TMDB_MOVIES,
  options: FakeTmdbOptions = {},
): Promise<FakeTmdb> {
  const apiKey = options.apiKey ?? FAKE_KEYS.tmdbV3ApiKey;
  const readToken = options.readToken ?? FAKE_KEYS.tmdbReadToken;
  const tv = options.tv ?? TMDB_TV;
  const images = new Map<string, Buffer>();
  for (const [path, spec] of Object.entries(options.imageFiles ?? TMDB_IMAGE_FILES)) {
    const [r, g, b] = spec.rgb;
    images.set(
      path,
      await sharp({
        create: { width: spec.width, height: spec.height, channels: 3, background: { r, g, b } },
      })
        .jpeg({ quality: 80 })
        .toBuffer(),
    );
  }
  let origin = '';

  const authorized = (req: RecordedRequest): boolean =>
    req.query.api_key === apiKey || req.headers.authorization === `Bearer ${readToken}`;

  const handler = (req: RecordedRequest, res: ServerResponse): void => {
    const image = /^\/t\/p\/([a-z0-9]+)(\/[^/]+)$/.exec(req.path);
    if (image !== null) {
      const bytes = images.get(image[2] ?? '');
      if (bytes === undefined || !ALL_SIZES.has(image[1] ?? '')) {
        sendHtml(res, 404, '<html><body>Not Found</body></html>');
        return;
      }
      res.writeHead(200, {
        'Content-Type': 'image/jpeg',
        'Content-Length': String(bytes.length),
        'Cache-Control': 'public, max-age=31536000',
      });
      res.end(bytes);
      return;
    }
    if (!req.path.startsWith('/3/')) return tmdbError(res, 404, 34, NOT_FOUND);
    if (!authorized(req)) return tmdbError(res, 401, 7, INVALID_KEY);
    const path = req.path.slice(2);
    const language = req.query.language ?? 'en-US';

    if (path === '/configuration') {
      return sendJson(res, 200, {
        images: { base_url: `${origin}/t/p/`, secure_base_url: `${origin}/t/p/`, ...SIZES },
        change_keys: ['adult', 'air_date', 'also_known_as', 'title'],
      });
    }
    if (path === '/search/movie') {
      const query = matchKey(req.query.query ?? '');
      if (query === '') return sendJson(res, 200, { page: 1, results: [], total_pages: 1, total_results: 0 });
      const page = Number(req.query.page ?? '1');
      if (!Number.isInteger(page) || page < 1 || page > 500) {
        return tmdbError(
          res,
          400,
          22,
          'Invalid page: Pages start at 1 and max at 500. They are expected to be an integer.',
        );
      }
      const primary = req.query.primary_release_year;
      const anyYear = req.query.year;
      const results = movies.filter((m) => {
        const titles = [m.title, String(m.original_title ?? '')].map(matchKey);
        if (!titles.some((t) => t.includes(query))) return false;
        const year = String(m.release_date ?? '').slice(0, 4);
        if (primary !== undefined && year !== primary) return false;
        if (anyYear !== undefined && year !== anyYear && !releaseYears(m).has(anyYear)) return false;
        return true;
      });
      return sendJson(res, 200, {
        page,
        results: page === 1 ? results.map(searchShape) : [],
        total_pages: 1,
        total_results: results.length,
      });
    }
    const movie = /^\/movie\/(\d+)$/.exec(path);
    if (movie !== null) {
      const found = movies.find((m) => m.id === Number(movie[1]));
      if (found === undefined) return tmdbError(res, 404, 34, NOT_FOUND);
      const append = (req.query.append_to_response ?? '').split(',').filter((s) => s !== '');
      if (append.length > 20) {
        return tmdbError(
          res,
          400,
          27,
          'Too many append to response objects: The maximum number of remote calls is 20.',
        );
      }
      return sendJson(res, 200, detailsShape(found, append, language, req.query.include_image_language));
    }
    const find = /^\/find\/([^/]+)$/.exec(path);
    if (find !== null) {
      if (req.query.external_source === undefined) return tmdbError(res, 400, 47, 'The input is not valid.');
      const externalId = decodeURIComponent(find[1] ?? '');
      const byImdb = req.query.external_source === 'imdb_id';
      return sendJson(res, 200, {
        movie_results: byImdb ? movies.filter((m) => m.imdb_id === externalId).map(searchShape) : [],
        person_results: [],
        tv_results: byImdb
          ? tv.filter((t) => t.imdb_id === externalId).map(({ imdb_id: _, ...rest }) => rest)
          : [],
        tv_episode_results: [],
        tv_season_results: [],
      });
    }
    return tmdbError(res, 404, 34, NOT_FOUND);
  };

  const renderFailure = (failure: Failure, _req: RecordedRequest, res: ServerResponse): void => {
    switch (failure.kind) {
      case 'rate_limited':
      case 'quota':
        return tmdbError(
          res,
          429,
          25,
          'Your request count (#) is over the allowed limit of (40).',
          retryAfterHeader(failure.options),
        );
      case 'server_error': {
        const status = failure.options.status ?? 500;
        return sendHtml(res, status, gatewayPage(status));
      }
      case 'unavailable':
        return tmdbError(
          res,
          failure.options.status ?? 503,
          9,
          'Service offline: This service is temporarily offline, try again later.',
        );
      case 'invalid_key':
        return tmdbError(res, 401, 7, INVALID_KEY);
      case 'html_200':
        return sendHtml(res, 200, '<html><body>Please sign in to the network</body></html>');
      case 'hang':
        return;
    }
  };

  const control = await startFakeServer(handler, renderFailure);
  origin = control.origin;
  return {
    ...control,
    baseUrl: `${origin}/3`,
    imageBaseUrl: `${origin}/t/p`,
    apiKey,
    readToken,
    imageBytes: (filePath) => images.get(filePath),
  };
}

const SEARCH_FIELDS = [
  'adult',
  'backdrop_path',
  'id',
  'original_language',
  'original_title',
  'overview',
  'popularity',
  'poster_path',
  'release_date',
  'title',
  'video',
  'vote_average',
  'vote_count',
];

function searchShape(m: TmdbRawMovie): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of SEARCH_FIELDS) out[k] = m[k] ?? (k === 'release_date' ? '' : null);
  out.genre_ids = Array.isArray(m.genres)
    ? m.genres.map((g: unknown) => (typeof g === 'object' && g !== null && 'id' in g ? g.id : null))
    : [];
  return out;
}

function releaseYears(m: TmdbRawMovie): Set<string> {
  const years = new Set<string>();
  const rd = m.release_dates as { results?: { release_dates?: { release_date?: string }[] }[] } | undefined;
  for (const country of rd?.results ?? []) {
    for (const d of country.release_dates ?? [])
      if (d.release_date !== undefined) years.add(d.release_date.slice(0, 4));
  }
  return years;
}

function detailsShape(
  m: TmdbRawMovie,
  append: string[],
  language: string,
  includeImageLanguage: string | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(m)) if (!APPENDABLE.has(k)) out[k] = v;
  for (const name of append) {
    if (!APPENDABLE.has(name)) continue; // TMDb ignores unknown appends
    const value = m[name];
    if (name === 'images') {
      const wanted = new Set(
        (includeImageLanguage ?? language.split('-')[0] ?? 'en')
          .split(',')
          .map((s) => (s === 'null' ? null : s)),
      );
      wanted.add(language.split('-')[0] ?? 'en');
      const sets = (value ?? {}) as Record<string, { iso_639_1: string | null }[]>;
      const filtered: Record<string, unknown[]> = {};
      for (const [kind, list] of Object.entries(sets))
        filtered[kind] = list.filter((i) => wanted.has(i.iso_639_1));
      out.images = filtered;
    } else {
      out[name] = value ?? {};
    }
  }
  return out;
}
