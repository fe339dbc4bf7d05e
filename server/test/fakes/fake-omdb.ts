import type { ServerResponse } from 'node:http';
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
import { FAKE_KEYS, OMDB_MOVIES, type OmdbRecord } from './fixtures.ts';

/**
 * An OMDb fake (reference metadata.md §2, §7): everything at `/` with `apikey` and one of `i`, `t`,
 * `s`; string-only values with "N/A"; "not found" as HTTP 200 `Response:"False"`; a bad key and an
 * exhausted quota both as HTTP 401.
 */

export interface FakeOmdbOptions {
  apiKey?: string;
  /** Requests per key before "Request limit reached!" (default unlimited). */
  dailyLimit?: number;
}

export interface FakeOmdb extends FakeControl {
  /** …/ — what REELSHELF_OMDB_BASE_URL takes. */
  baseUrl: string;
  apiKey: string;
}

function omdbError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, { Response: 'False', Error: message }, headers);
}

export async function startFakeOmdb(
  ratings: OmdbRecord[] = OMDB_MOVIES,
  options: FakeOmdbOptions = {},
): Promise<FakeOmdb> {
  const apiKey = options.apiKey ?? FAKE_KEYS.omdbApiKey;
  let used = 0;

  const handler = (req: RecordedRequest, res: ServerResponse): void => {
    if (req.path !== '/') return sendHtml(res, 404, '<html><body>404 Not Found</body></html>');
    const key = req.query.apikey;
    if (key === undefined || key === '') return omdbError(res, 401, 'No API key provided.');
    if (key !== apiKey) return omdbError(res, 401, 'Invalid API key!');
    used++;
    if (options.dailyLimit !== undefined && used > options.dailyLimit) {
      return omdbError(res, 401, 'Request limit reached!');
    }
    const { i, t, s, y, type } = req.query;
    const typeOk = (r: OmdbRecord): boolean => type === undefined || type === '' || r.Type === type;
    const yearOk = (r: OmdbRecord): boolean => y === undefined || y === '' || String(r.Year).startsWith(y);
    if (i !== undefined) {
      if (!/^tt\d{7,10}$/.test(i)) return omdbError(res, 200, 'Incorrect IMDb ID.');
      const found = ratings.find((r) => r.imdbID === i);
      return found === undefined ? omdbError(res, 200, 'Movie not found!') : sendJson(res, 200, found);
    }
    if (t !== undefined) {
      const found = ratings.find((r) => matchKey(r.Title) === matchKey(t) && yearOk(r) && typeOk(r));
      return found === undefined ? omdbError(res, 200, 'Movie not found!') : sendJson(res, 200, found);
    }
    if (s !== undefined) {
      const hits = ratings.filter((r) => matchKey(r.Title).includes(matchKey(s)) && yearOk(r) && typeOk(r));
      if (hits.length === 0) return omdbError(res, 200, 'Movie not found!');
      return sendJson(res, 200, {
        Search: hits.map((r) => ({
          Title: r.Title,
          Year: r.Year,
          imdbID: r.imdbID,
          Type: r.Type,
          Poster: r.Poster,
        })),
        totalResults: String(hits.length),
        Response: 'True',
      });
    }
    return omdbError(res, 200, 'Incorrect IMDb ID.');
  };

  const renderFailure = (failure: Failure, _req: RecordedRequest, res: ServerResponse): void => {
    switch (failure.kind) {
      case 'quota':
        return omdbError(res, 401, 'Request limit reached!');
      case 'invalid_key':
        return omdbError(res, 401, 'Invalid API key!');
      case 'rate_limited':
        return omdbError(res, 429, 'Too many requests', retryAfterHeader(failure.options));
      case 'server_error': {
        const status = failure.options.status ?? 500;
        return sendHtml(res, status, gatewayPage(status));
      }
      case 'unavailable':
        return omdbError(res, 200, 'Error getting data.');
      case 'html_200':
        return sendHtml(res, 200, '<html><body>Please sign in to the network</body></html>');
      case 'hang':
        return;
    }
  };

  const control = await startFakeServer(handler, renderFailure);
  return { ...control, baseUrl: `${control.origin}/`, apiKey };
}
