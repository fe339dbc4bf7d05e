import type { ServerResponse } from 'node:http';
import {
  type FakeControl,
  type Failure,
  type RecordedRequest,
  gatewayPage,
  retryAfterHeader,
  sendHtml,
  sendJson,
  startFakeServer,
} from './fake-server.ts';
import { FAKE_KEYS, UPC_PRODUCTS, type UpcItem } from './fixtures.ts';

/**
 * A UPCitemdb fake (reference metadata.md §3.1, §7): `/prod/trial/lookup` (no key) and
 * `/prod/v1/lookup` (headers `user_key` + `key_type: 3scale`), rate-limit headers on every answer,
 * unknown codes as 200-empty (or 404 NOT_FOUND), 400 INVALID_UPC for a bad check digit,
 * 429 EXCEED_LIMIT + `Retry-After` once the daily quota is spent.
 */

export interface FakeUpcOptions {
  /** Lookups per day (default 100, like the free plan). INVALID_UPC answers count too. */
  dailyLimit?: number;
  /** How an unknown code is answered: 200 with no items (default, the recorded behaviour) or 404 NOT_FOUND. */
  notFound?: 'empty' | '404';
  /** Key the paid endpoint accepts (default FAKE_KEYS.upcUserKey). */
  userKey?: string;
}

export interface FakeUpc extends FakeControl {
  /** …/prod/trial — what REELSHELF_UPC_BASE_URL takes. */
  baseUrl: string;
  /** …/prod/v1 — the paid endpoint. */
  paidBaseUrl: string;
  userKey: string;
}

const QUOTA_RETRY_AFTER = '25173';

function checkDigitOk(code: string): boolean {
  let sum = 0;
  const body = code.slice(0, -1);
  for (let i = 0; i < body.length; i++)
    sum += (body.charCodeAt(body.length - 1 - i) - 48) * (i % 2 === 0 ? 3 : 1);
  return (10 - (sum % 10)) % 10 === Number(code.slice(-1));
}

export async function startFakeUpc(
  products: Record<string, UpcItem> = UPC_PRODUCTS,
  options: FakeUpcOptions = {},
): Promise<FakeUpc> {
  const limit = options.dailyLimit ?? 100;
  const userKey = options.userKey ?? FAKE_KEYS.upcUserKey;
  const byGtin = new Map<string, UpcItem>();
  for (const [code, item] of Object.entries(products)) byGtin.set(code.padStart(14, '0'), item);
  let used = 0;
  const reset = String(Math.floor(Date.now() / 1000) + 25173);

  const limitHeaders = (): Record<string, string> => ({
    'X-RateLimit-Limit': String(limit),
    'X-RateLimit-Remaining': String(Math.max(0, limit - used)),
    'X-RateLimit-Reset': reset,
  });
  const answer = (
    res: ServerResponse,
    status: number,
    body: unknown,
    extra: Record<string, string> = {},
  ): void => sendJson(res, status, body, { ...limitHeaders(), ...extra });

  const handler = (req: RecordedRequest, res: ServerResponse): void => {
    const m = /^\/prod\/(trial|v1)\/lookup$/.exec(req.path);
    if (m === null) return answer(res, 404, { code: 'NOT_FOUND', message: 'No such endpoint.' });
    if (m[1] === 'v1' && (req.headers.user_key !== userKey || req.headers.key_type !== '3scale')) {
      return answer(res, 401, { code: 'INVALID_KEY', message: 'Authentication failed: invalid user_key.' });
    }
    if (used >= limit) {
      return answer(
        res,
        429,
        { code: 'EXCEED_LIMIT', message: 'Exceed request limit' },
        { 'Retry-After': QUOTA_RETRY_AFTER },
      );
    }
    const upc = req.query.upc;
    if (upc === undefined || upc === '') {
      return answer(res, 400, { code: 'INVALID_QUERY', message: 'Missing query parameter upc.' });
    }
    used++;
    if (!/^(?:\d{8}|\d{12,14})$/.test(upc) || !checkDigitOk(upc)) {
      return answer(res, 400, { code: 'INVALID_UPC', message: 'Not a valid UPC code.' });
    }
    const item = byGtin.get(upc.padStart(14, '0'));
    if (item === undefined) {
      if (options.notFound === '404')
        return answer(res, 404, { code: 'NOT_FOUND', message: 'No match found.' });
      return answer(res, 200, { code: 'OK', total: 0, offset: 0, items: [] });
    }
    return answer(res, 200, { code: 'OK', total: 1, offset: 0, items: [item] });
  };

  const renderFailure = (failure: Failure, _req: RecordedRequest, res: ServerResponse): void => {
    switch (failure.kind) {
      case 'rate_limited':
        return answer(
          res,
          429,
          { code: 'TOO_FAST', message: 'The API is being called too fast.' },
          retryAfterHeader(failure.options),
        );
      case 'quota':
        return answer(
          res,
          429,
          { code: 'EXCEED_LIMIT', message: 'Exceed request limit' },
          retryAfterHeader(failure.options, QUOTA_RETRY_AFTER),
        );
      case 'server_error': {
        const status = failure.options.status ?? 502;
        return sendHtml(res, status, gatewayPage(status));
      }
      case 'unavailable':
        return answer(res, failure.options.status ?? 500, {
          code: 'SERVER_ERR',
          message: 'Internal server error.',
        });
      case 'invalid_key':
        return answer(res, 401, { code: 'INVALID_KEY', message: 'Authentication failed: invalid user_key.' });
      case 'html_200':
        return sendHtml(res, 200, '<html><body>Please sign in to the network</body></html>');
      case 'hang':
        return;
    }
  };

  const control = await startFakeServer(handler, renderFailure);
  return {
    ...control,
    baseUrl: `${control.origin}/prod/trial`,
    paidBaseUrl: `${control.origin}/prod/v1`,
    userKey,
  };
}
