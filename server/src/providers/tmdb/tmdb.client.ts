import {
  DAY_MS,
  ProviderCacheAccess,
  type ProviderClientOptions,
  type ProviderError,
  ProviderHttp,
  type JsonResult,
  joinUrl,
} from '../http.ts';
import { type JsonObject, id, isObject, num, obj, objects, str, strings, yearOf } from '../json.ts';

/**
 * TMDb API v3 (reference metadata.md §1): search, details with credits/images/release dates/external
 * ids in one call, find by IMDb id, configuration, and image download. The cache keeps TMDb's own
 * bodies; every read (fresh or cached) goes through the same validation and returns camelCased
 * results. Image paths are TMDb `file_path`s ("/abc.jpg"), never full URLs.
 */

export interface TmdbMovieSummary {
  id: number;
  title: string;
  originalTitle: string | null;
  /** "YYYY-MM-DD" or null (TMDb sends "" when unknown). */
  releaseDate: string | null;
  year: number | null;
  overview: string | null;
  posterPath: string | null;
  backdropPath: string | null;
  originalLanguage: string | null;
  popularity: number | null;
}

export interface TmdbSearchPage {
  page: number;
  totalPages: number;
  totalResults: number;
  results: TmdbMovieSummary[];
}

export interface TmdbGenre {
  id: number;
  name: string;
}

export interface TmdbCollectionRef {
  id: number;
  name: string;
  posterPath: string | null;
  backdropPath: string | null;
}

export interface TmdbCompany {
  id: number;
  name: string;
  logoPath: string | null;
  originCountry: string | null;
}

export interface TmdbCastMember {
  id: number;
  name: string;
  character: string | null;
  /** 0 = top billing. */
  order: number;
  profilePath: string | null;
}

export interface TmdbCrewMember {
  id: number;
  name: string;
  job: string;
  department: string;
  profilePath: string | null;
}

export interface TmdbImage {
  filePath: string;
  width: number | null;
  height: number | null;
  /** ISO 639-1, or null for language-less images (most backdrops). */
  language: string | null;
  voteAverage: number | null;
}

export interface TmdbReleaseDate {
  country: string;
  /** 1 premiere, 2 theatrical (limited), 3 theatrical, 4 digital, 5 physical, 6 TV. */
  type: number;
  /** Full ISO timestamp. */
  date: string;
  certification: string | null;
  note: string | null;
}

export interface TmdbMovieDetails extends TmdbMovieSummary {
  /** Minutes; null when TMDb has 0 or nothing. */
  runtime: number | null;
  tagline: string | null;
  status: string | null;
  genres: TmdbGenre[];
  imdbId: string | null;
  collection: TmdbCollectionRef | null;
  productionCompanies: TmdbCompany[];
  credits: { cast: TmdbCastMember[]; crew: TmdbCrewMember[] };
  images: { posters: TmdbImage[]; backdrops: TmdbImage[]; logos: TmdbImage[] };
  releaseDates: TmdbReleaseDate[];
  externalIds: { imdbId: string | null; wikidataId: string | null };
}

export interface TmdbTvRef {
  id: number;
  name: string;
  firstAirDate: string | null;
}

export interface TmdbFindResult {
  movies: TmdbMovieSummary[];
  /** The IMDb id may name a TV show or miniseries: reported, not dropped. */
  tv: TmdbTvRef[];
}

export interface TmdbConfiguration {
  images: {
    baseUrl: string | null;
    secureBaseUrl: string | null;
    posterSizes: string[];
    backdropSizes: string[];
    logoSizes: string[];
    profileSizes: string[];
    stillSizes: string[];
  };
}

export interface TmdbImageFile {
  contentType: string;
  bytes: Buffer;
}

export interface TmdbClientOptions extends ProviderClientOptions {
  /** v3 API key (32 hex → `api_key` query) or API read access token (→ `Authorization: Bearer`). */
  apiKey: string;
  /** Image base, e.g. https://image.tmdb.org/t/p (the client appends `/{size}{file_path}`). */
  imageBaseUrl?: string;
  /** Default en-US. */
  language?: string;
}

export interface TmdbSearchOptions {
  /** Which year filter: `primary_release_year` (default, only the primary release) or `year` (any release). */
  yearParam?: 'primary_release_year' | 'year';
  page?: number;
}

export const TMDB_PROVIDER = 'tmdb';
const DETAILS_TTL_MS = 7 * DAY_MS;
const SEARCH_TTL_MS = DAY_MS;
const FIND_TTL_MS = 7 * DAY_MS;
const CONFIGURATION_TTL_MS = DAY_MS;
const IMDB_ID = /^tt\d{7,10}$/;
const FILE_PATH = /^\/[A-Za-z0-9._-]+$/;
const MAX_IMAGE_BYTES = 25 * 1024 * 1024;

/** A 32-hex secret is a v3 API key (query parameter); anything else is a read token (Bearer). */
export function isTmdbV3ApiKey(key: string): boolean {
  return /^[0-9a-f]{32}$/i.test(key);
}

export class TmdbClient {
  private readonly http: ProviderHttp;
  private readonly cache: ProviderCacheAccess;
  private readonly language: string;
  readonly imageBaseUrl: string;

  constructor(private readonly options: TmdbClientOptions) {
    if (options.apiKey.trim() === '') throw new Error('TMDb needs an API key or read access token');
    this.http = new ProviderHttp(TMDB_PROVIDER, options);
    this.cache = new ProviderCacheAccess(TMDB_PROVIDER, options.cache, options.clock);
    this.language = options.language ?? 'en-US';
    this.imageBaseUrl = (options.imageBaseUrl ?? 'https://image.tmdb.org/t/p').replace(/\/+$/, '');
  }

  /** `/search/movie`; cached for a day. No match is an empty page, not an error. */
  async searchMovie(
    query: string,
    year?: number | null,
    options: TmdbSearchOptions = {},
    signal?: AbortSignal,
  ): Promise<TmdbSearchPage> {
    const q = query.replace(/\s+/g, ' ').trim();
    if (q === '') throw this.http.error('invalid_request', 'A search needs a title');
    const yearParam = options.yearParam ?? 'primary_release_year';
    const page = options.page ?? 1;
    const params: Record<string, string> = {
      query: q,
      include_adult: 'false',
      language: this.language,
      page: String(page),
    };
    if (year !== undefined && year !== null) params[yearParam] = String(year);
    const key = `search:${this.language}:${yearParam}:${year ?? ''}:${page}:${q.toLowerCase()}`;
    return this.cached(key, SEARCH_TTL_MS, parseSearchPage, () => this.get('search/movie', params, signal));
  }

  /**
   * `/movie/{id}?append_to_response=credits,images,release_dates,external_ids`; cached 7 days.
   * @throws ProviderError not_found for an unknown id.
   */
  async movieDetails(movieId: number, signal?: AbortSignal): Promise<TmdbMovieDetails> {
    if (!Number.isSafeInteger(movieId) || movieId <= 0) {
      throw this.http.error('invalid_request', `Not a TMDb movie id: ${movieId}`);
    }
    const lang = this.language.split('-')[0] ?? 'en';
    const params = {
      append_to_response: 'credits,images,release_dates,external_ids',
      language: this.language,
      include_image_language: `${lang},null`,
    };
    return this.cached(`movie:${movieId}:${this.language}`, DETAILS_TTL_MS, parseDetails, () =>
      this.get(`movie/${movieId}`, params, signal),
    );
  }

  /** `/find/{imdb_id}?external_source=imdb_id`; cached 7 days. */
  async findByImdbId(imdbId: string, signal?: AbortSignal): Promise<TmdbFindResult> {
    const idText = imdbId.trim();
    if (!IMDB_ID.test(idText))
      throw this.http.error('invalid_request', `Not an IMDb id: "${idText.slice(0, 20)}"`);
    const params = { external_source: 'imdb_id', language: this.language };
    return this.cached(`find:imdb:${idText}:${this.language}`, FIND_TTL_MS, parseFind, () =>
      this.get(`find/${idText}`, params, signal),
    );
  }

  /** `/configuration`; cached a day. */
  async configuration(signal?: AbortSignal): Promise<TmdbConfiguration> {
    return this.cached('configuration', CONFIGURATION_TTL_MS, parseConfiguration, () =>
      this.get('configuration', {}, signal),
    );
  }

  /** `{imageBaseUrl}/{size}{filePath}`, e.g. …/t/p/w500/abc.jpg. */
  imageUrl(size: string, filePath: string): string {
    if (!/^[a-z0-9]+$/i.test(size) || !FILE_PATH.test(filePath)) {
      throw this.http.error('invalid_request', `Not a TMDb image: ${size} ${filePath.slice(0, 60)}`);
    }
    return `${this.imageBaseUrl}/${size}${filePath}`;
  }

  /** Downloads one image (not cached here: the artwork store keeps the file). */
  async fetchImage(size: string, filePath: string, signal?: AbortSignal): Promise<TmdbImageFile> {
    const url = new URL(this.imageUrl(size, filePath));
    const res = await this.http.getBytes(url, {
      headers: { Accept: 'image/*' },
      ...(signal === undefined ? {} : { signal }),
    });
    if (res.status < 200 || res.status >= 300) throw this.http.errorFor(res, `image ${size}${filePath}`);
    const contentType = (res.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    if (!contentType.startsWith('image/') || res.bytes.length === 0 || res.bytes.length > MAX_IMAGE_BYTES) {
      throw this.http.error(
        'bad_response',
        `TMDb image ${size}${filePath} is not an image (${contentType || 'no type'})`,
        {
          status: res.status,
        },
      );
    }
    return { contentType, bytes: res.bytes };
  }

  private async cached<T>(
    key: string,
    ttlMs: number,
    parse: (value: unknown) => T | null,
    load: () => Promise<JsonObject>,
  ): Promise<T> {
    const hit = await this.cache.get(key, parse);
    if (hit !== null) return hit;
    const body = await load();
    const value = parse(body);
    if (value === null)
      throw this.http.error(
        'bad_response',
        `TMDb sent an answer of an unexpected shape (${key.split(':')[0]})`,
      );
    await this.cache.put(key, body, ttlMs);
    return value;
  }

  private async get(path: string, params: Record<string, string>, signal?: AbortSignal): Promise<JsonObject> {
    const url = joinUrl(this.options.baseUrl, path);
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    const headers: Record<string, string> = {};
    if (isTmdbV3ApiKey(this.options.apiKey)) url.searchParams.set('api_key', this.options.apiKey);
    else headers.Authorization = `Bearer ${this.options.apiKey}`;
    const res = await this.http.getJson(url, { headers, ...(signal === undefined ? {} : { signal }) });
    if (res.status >= 200 && res.status < 300 && isObject(res.json)) return res.json;
    throw this.failure(res);
  }

  /** Classified by HTTP status first; TMDb's status_code/status_message ride along. */
  private failure(res: JsonResult): ProviderError {
    const body = isObject(res.json) ? res.json : null;
    const message = body === null ? undefined : (str(body, 'status_message') ?? undefined);
    const code = body === null ? undefined : (num(body, 'status_code') ?? undefined);
    return this.http.errorFor(res, message, code === undefined ? undefined : String(code));
  }
}

function summary(o: JsonObject): TmdbMovieSummary | null {
  const movieId = id(o, 'id');
  const title = str(o, 'title') ?? str(o, 'original_title');
  if (movieId === null || title === null) return null;
  const releaseDate = str(o, 'release_date');
  return {
    id: movieId,
    title,
    originalTitle: str(o, 'original_title'),
    releaseDate,
    year: yearOf(releaseDate),
    overview: str(o, 'overview'),
    posterPath: imagePath(o, 'poster_path'),
    backdropPath: imagePath(o, 'backdrop_path'),
    originalLanguage: str(o, 'original_language'),
    popularity: num(o, 'popularity'),
  };
}

function imagePath(o: JsonObject, key: string): string | null {
  const p = str(o, key);
  return p !== null && FILE_PATH.test(p) ? p : null;
}

function parseSearchPage(value: unknown): TmdbSearchPage | null {
  if (!isObject(value) || !Array.isArray(value.results)) return null;
  const results = objects(value, 'results')
    .map(summary)
    .filter((r): r is TmdbMovieSummary => r !== null);
  return {
    page: num(value, 'page') ?? 1,
    totalPages: num(value, 'total_pages') ?? 0,
    totalResults: num(value, 'total_results') ?? results.length,
    results,
  };
}

function images(o: JsonObject | null, key: string): TmdbImage[] {
  if (o === null) return [];
  return objects(o, key).flatMap((i) => {
    const filePath = imagePath(i, 'file_path');
    if (filePath === null) return [];
    return [
      {
        filePath,
        width: num(i, 'width'),
        height: num(i, 'height'),
        language: str(i, 'iso_639_1'),
        voteAverage: num(i, 'vote_average'),
      },
    ];
  });
}

function parseDetails(value: unknown): TmdbMovieDetails | null {
  if (!isObject(value)) return null;
  const base = summary(value);
  if (base === null) return null;
  const credits = obj(value, 'credits');
  const imageSet = obj(value, 'images');
  const external = obj(value, 'external_ids');
  const collection = obj(value, 'belongs_to_collection');
  const collectionId = collection === null ? null : id(collection, 'id');
  const runtime = num(value, 'runtime');
  const imdbId = str(value, 'imdb_id') ?? (external === null ? null : str(external, 'imdb_id'));
  return {
    ...base,
    runtime: runtime !== null && runtime > 0 ? Math.round(runtime) : null,
    tagline: str(value, 'tagline'),
    status: str(value, 'status'),
    genres: objects(value, 'genres').flatMap((g) => {
      const gid = id(g, 'id');
      const name = str(g, 'name');
      return gid === null || name === null ? [] : [{ id: gid, name }];
    }),
    imdbId: imdbId !== null && IMDB_ID.test(imdbId) ? imdbId : null,
    collection:
      collection === null || collectionId === null
        ? null
        : {
            id: collectionId,
            name: str(collection, 'name') ?? '',
            posterPath: imagePath(collection, 'poster_path'),
            backdropPath: imagePath(collection, 'backdrop_path'),
          },
    productionCompanies: objects(value, 'production_companies').flatMap((c) => {
      const cid = id(c, 'id');
      const name = str(c, 'name');
      return cid === null || name === null
        ? []
        : [{ id: cid, name, logoPath: imagePath(c, 'logo_path'), originCountry: str(c, 'origin_country') }];
    }),
    credits: {
      cast: (credits === null ? [] : objects(credits, 'cast'))
        .flatMap((c) => {
          const pid = id(c, 'id');
          const name = str(c, 'name');
          if (pid === null || name === null) return [];
          return [
            {
              id: pid,
              name,
              character: str(c, 'character'),
              order: num(c, 'order') ?? Number.MAX_SAFE_INTEGER,
              profilePath: imagePath(c, 'profile_path'),
            },
          ];
        })
        .sort((a, b) => a.order - b.order),
      crew: (credits === null ? [] : objects(credits, 'crew')).flatMap((c) => {
        const pid = id(c, 'id');
        const name = str(c, 'name');
        const job = str(c, 'job');
        if (pid === null || name === null || job === null) return [];
        return [
          {
            id: pid,
            name,
            job,
            department: str(c, 'department') ?? '',
            profilePath: imagePath(c, 'profile_path'),
          },
        ];
      }),
    },
    images: {
      posters: images(imageSet, 'posters'),
      backdrops: images(imageSet, 'backdrops'),
      logos: images(imageSet, 'logos'),
    },
    releaseDates: objects(obj(value, 'release_dates') ?? {}, 'results').flatMap((country) => {
      const code = str(country, 'iso_3166_1');
      if (code === null) return [];
      return objects(country, 'release_dates').flatMap((d) => {
        const type = num(d, 'type');
        const date = str(d, 'release_date');
        if (type === null || date === null) return [];
        return [{ country: code, type, date, certification: str(d, 'certification'), note: str(d, 'note') }];
      });
    }),
    externalIds: {
      imdbId: external === null ? null : str(external, 'imdb_id'),
      wikidataId: external === null ? null : str(external, 'wikidata_id'),
    },
  };
}

function parseFind(value: unknown): TmdbFindResult | null {
  if (!isObject(value)) return null;
  if (!Array.isArray(value.movie_results)) return null;
  return {
    movies: objects(value, 'movie_results')
      .map(summary)
      .filter((r): r is TmdbMovieSummary => r !== null),
    tv: objects(value, 'tv_results').flatMap((t) => {
      const tid = id(t, 'id');
      const name = str(t, 'name') ?? str(t, 'original_name');
      return tid === null || name === null ? [] : [{ id: tid, name, firstAirDate: str(t, 'first_air_date') }];
    }),
  };
}

function parseConfiguration(value: unknown): TmdbConfiguration | null {
  if (!isObject(value)) return null;
  const img = obj(value, 'images');
  if (img === null) return null;
  return {
    images: {
      baseUrl: str(img, 'base_url'),
      secureBaseUrl: str(img, 'secure_base_url'),
      posterSizes: strings(img, 'poster_sizes'),
      backdropSizes: strings(img, 'backdrop_sizes'),
      logoSizes: strings(img, 'logo_sizes'),
      profileSizes: strings(img, 'profile_sizes'),
      stillSizes: strings(img, 'still_sizes'),
    },
  };
}

/** The people credited with job "Director", in TMDb order. */
export function directorsOf(details: TmdbMovieDetails): TmdbCrewMember[] {
  return details.credits.crew.filter((c) => c.job === 'Director');
}
