import { DAY_MS, ProviderCacheAccess, type ProviderClientOptions, ProviderHttp } from '../http.ts';
import { type JsonObject, isObject, objects, str } from '../json.ts';

/**
 * OMDb ratings (reference metadata.md §2): `GET {base}?apikey=K&i=tt…&plot=short&r=json`.
 * OMDb answers "not found" with HTTP 200 and `Response:"False"`, and both a bad key and an
 * exhausted daily quota with HTTP 401 — told apart by the `Error` text. Failures are never cached;
 * "Movie not found!" is cached as a negative result for 3 days, ratings for 7 days.
 * After a quota answer the client stops calling OMDb until the next UTC midnight.
 */

export type OmdbRatingSource = 'Internet Movie Database' | 'Rotten Tomatoes' | 'Metacritic';

export interface OmdbRating {
  source: OmdbRatingSource;
  /** As OMDb writes it: "8.7/10", "83%", "73/100". */
  value: string;
  /** The same on a 0–100 scale, or null when unreadable. */
  score: number | null;
}

export interface OmdbRatings {
  found: true;
  imdbId: string;
  title: string | null;
  year: number | null;
  /** 0–10, e.g. 8.7; null for "N/A". */
  imdbRating: number | null;
  imdbVotes: number | null;
  /** 0–100; null for "N/A". */
  metascore: number | null;
  ratings: OmdbRating[];
}

export type OmdbRatingsResult = OmdbRatings | { found: false };

export interface OmdbClientOptions extends ProviderClientOptions {
  apiKey: string;
}

export const OMDB_PROVIDER = 'omdb';
const HIT_TTL_MS = 7 * DAY_MS;
const MISS_TTL_MS = 3 * DAY_MS;
const SOURCES: readonly OmdbRatingSource[] = ['Internet Movie Database', 'Rotten Tomatoes', 'Metacritic'];

export class OmdbClient {
  private readonly http: ProviderHttp;
  private readonly cache: ProviderCacheAccess;
  /** Set after a quota answer: no call before this instant. */
  private quotaBlockedUntil: number | null = null;

  constructor(private readonly options: OmdbClientOptions) {
    if (options.apiKey.trim() === '') throw new Error('OMDb needs an API key');
    this.http = new ProviderHttp(OMDB_PROVIDER, options);
    this.cache = new ProviderCacheAccess(OMDB_PROVIDER, options.cache, options.clock);
  }

  /**
   * Ratings of one movie by IMDb id.
   * @throws ProviderError quota ("Request limit reached!"), unauthorized (bad/missing key),
   *   invalid_request (malformed id), unavailable (5xx, network, "Error getting data."), bad_response.
   */
  async ratings(imdbId: string, signal?: AbortSignal): Promise<OmdbRatingsResult> {
    const idText = imdbId.trim();
    if (!/^tt\d{7,10}$/.test(idText)) {
      throw this.http.error('invalid_request', `Not an IMDb id: "${idText.slice(0, 20)}"`);
    }
    const key = `ratings:${idText}`;
    const cached = await this.cache.get(key, parseCached);
    if (cached !== null) return cached;

    const now = this.options.clock.now().getTime();
    if (this.quotaBlockedUntil !== null && now < this.quotaBlockedUntil) {
      throw this.http.error('quota', 'OMDb daily request limit reached; ratings resume after midnight UTC', {
        retryAfterMs: this.quotaBlockedUntil - now,
      });
    }

    const url = new URL(this.options.baseUrl);
    url.searchParams.set('apikey', this.options.apiKey);
    url.searchParams.set('i', idText);
    url.searchParams.set('plot', 'short');
    url.searchParams.set('r', 'json');
    const res = await this.http.getJson(url, signal === undefined ? {} : { signal });
    const body = isObject(res.json) ? res.json : null;
    const error = body === null ? null : str(body, 'Error');

    if (body !== null && body.Response === 'False') {
      const kind = classifyOmdbError(error ?? '', res.status);
      if (kind === 'not_found') {
        await this.cache.put(key, { Response: 'False', Error: error }, MISS_TTL_MS);
        return { found: false };
      }
      if (kind === 'quota') this.quotaBlockedUntil = nextUtcMidnight(now);
      throw this.http.error(kind, `OMDb: ${error ?? 'request failed'}`, { status: res.status });
    }
    if (res.status < 200 || res.status >= 300) throw this.http.errorFor(res, error ?? undefined);
    const result = body === null ? null : parseMovie(body);
    if (body === null || result === null) {
      throw this.http.errorFor(res, 'the answer is not a movie record');
    }
    await this.cache.put(key, body, HIT_TTL_MS);
    return result;
  }
}

/** The kind behind an OMDb `Error` text (the HTTP status alone does not tell). */
export function classifyOmdbError(
  message: string,
  status: number,
): 'not_found' | 'quota' | 'unauthorized' | 'invalid_request' | 'unavailable' {
  const m = message.toLowerCase();
  if (m.includes('limit reached')) return 'quota';
  if (m.includes('api key')) return 'unauthorized';
  if (m.includes('not found')) return 'not_found';
  if (m.includes('incorrect imdb id') || m.includes('too many results')) return 'invalid_request';
  if (status === 401 || status === 403) return 'unauthorized';
  return 'unavailable';
}

function nextUtcMidnight(now: number): number {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
}

function parseCached(value: unknown): OmdbRatingsResult | null {
  if (!isObject(value)) return null;
  if (value.Response === 'False') return { found: false };
  return parseMovie(value);
}

function parseMovie(body: JsonObject): OmdbRatings | null {
  const imdbId = naStr(body, 'imdbID');
  if (body.Response !== 'True' || imdbId === null) return null;
  const ratings: OmdbRating[] = objects(body, 'Ratings').flatMap((r) => {
    const source = str(r, 'Source');
    const value = naStr(r, 'Value');
    const known = SOURCES.find((s) => s === source);
    return known === undefined || value === null ? [] : [{ source: known, value, score: toScore(value) }];
  });
  const year = /^(\d{4})/.exec(naStr(body, 'Year') ?? '');
  return {
    found: true,
    imdbId,
    title: naStr(body, 'Title'),
    year: year === null ? null : Number(year[1]),
    imdbRating: naNumber(naStr(body, 'imdbRating')),
    imdbVotes: naNumber(naStr(body, 'imdbVotes')?.replace(/,/g, '') ?? null),
    metascore: naNumber(naStr(body, 'Metascore')),
    ratings,
  };
}

/** A string value with OMDb's "N/A" read as missing. */
function naStr(obj: JsonObject, key: string): string | null {
  const v = str(obj, key);
  return v === null || v === 'N/A' ? null : v;
}

function naNumber(text: string | null): number | null {
  if (text === null || !/^\d+(?:\.\d+)?$/.test(text)) return null;
  return Number(text);
}

/** "8.7/10" → 87, "83%" → 83, "73/100" → 73. */
export function toScore(value: string): number | null {
  const pct = /^(\d+(?:\.\d+)?)%$/.exec(value.trim());
  if (pct !== null) return Number(pct[1]);
  const frac = /^(\d+(?:\.\d+)?)\s*\/\s*(\d+(?:\.\d+)?)$/.exec(value.trim());
  if (frac === null) return null;
  const den = Number(frac[2]);
  return den > 0 ? Math.round((Number(frac[1]) / den) * 1000) / 10 : null;
}
