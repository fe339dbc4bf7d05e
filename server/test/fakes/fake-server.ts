import { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The plumbing shared by the provider fakes: a node:http server on 127.0.0.1 with a random port,
 * every request recorded, and a queue of scripted failures consumed one request at a time.
 */

export interface RecordedRequest {
  method: string;
  /** Path without the query, e.g. "/3/movie/27205". */
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
}

/**
 * What the next request(s) get instead of a normal answer; each fake renders it in its service's
 * own wire format:
 * - rate_limited: 429 with `Retry-After` (default "1"; `retryAfter: null` omits it)
 * - quota: the daily-quota answer (UPCitemdb 429 EXCEED_LIMIT, OMDb 401 "Request limit reached!")
 * - server_error: a 5xx HTML error page (gateway style; `status` default 500, UPC 502)
 * - unavailable: the service's own JSON outage answer (TMDb 503/9, UPC 500 SERVER_ERR, OMDb 200 "Error getting data.")
 * - invalid_key: the service's bad-credential answer
 * - html_200: HTTP 200 with an HTML page (captive portal, CDN error)
 * - hang: never answers (until the client gives up or the fake closes)
 */
export type FailureKind =
  'rate_limited' | 'quota' | 'server_error' | 'unavailable' | 'invalid_key' | 'html_200' | 'hang';

export interface FailureOptions {
  /** `Retry-After` value (seconds or HTTP date); null leaves the header out. */
  retryAfter?: string | null;
  status?: number;
}

export interface Failure {
  kind: FailureKind;
  options: FailureOptions;
}

export interface FakeControl {
  /** http://127.0.0.1:PORT (no trailing slash). */
  origin: string;
  requests: RecordedRequest[];
  /** The next `count` requests fail as `kind`. Calls queue up in order. */
  failNext(kind: FailureKind, count?: number, options?: FailureOptions): void;
  /** Forgets recorded requests and pending failures. */
  reset(): void;
  /** Requests whose path matches (string = exact path, RegExp = test). */
  requestsTo(path: string | RegExp): RecordedRequest[];
  close(): Promise<void>;
}

export type FakeHandler = (req: RecordedRequest, res: ServerResponse) => void | Promise<void>;
export type FailureRenderer = (failure: Failure, req: RecordedRequest, res: ServerResponse) => void;

export async function startFakeServer(
  handler: FakeHandler,
  renderFailure: FailureRenderer,
): Promise<FakeControl> {
  const requests: RecordedRequest[] = [];
  const failures: { kind: FailureKind; remaining: number; options: FailureOptions }[] = [];
  const server = createServer((incoming: IncomingMessage, res: ServerResponse) => {
    const url = new URL(incoming.url ?? '/', 'http://127.0.0.1');
    const recorded: RecordedRequest = {
      method: incoming.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: incoming.headers,
    };
    requests.push(recorded);
    const failure = failures[0];
    if (failure !== undefined) {
      failure.remaining--;
      if (failure.remaining <= 0) failures.shift();
      if (failure.kind === 'hang') return; // keep the socket open; close() destroys it
      renderFailure({ kind: failure.kind, options: failure.options }, recorded, res);
      return;
    }
    Promise.resolve(handler(recorded, res)).catch((e: unknown) => {
      if (!res.headersSent) sendHtml(res, 500, `<html><body>fake crashed: ${String(e)}</body></html>`);
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    failNext(kind, count = 1, options = {}) {
      failures.push({ kind, remaining: Math.max(1, count), options });
    },
    reset() {
      requests.length = 0;
      failures.length = 0;
    },
    requestsTo(path) {
      return requests.filter((r) => (typeof path === 'string' ? r.path === path : path.test(r.path)));
    },
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json;charset=utf-8',
    'Content-Length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

export function sendHtml(
  res: ServerResponse,
  status: number,
  html: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(html)),
    ...headers,
  });
  res.end(html);
}

/** The kind of page a CDN or gateway serves when the origin is down. */
export function gatewayPage(status: number): string {
  const reason =
    status === 502 ? 'Bad Gateway' : status === 503 ? 'Service Unavailable' : 'Internal Server Error';
  return `<!DOCTYPE html>\n<html><head><title>${status} ${reason}</title></head><body><center><h1>${status} ${reason}</h1></center><hr><center>nginx</center></body></html>\n`;
}

/** `Retry-After` header for a failure, default "1". */
export function retryAfterHeader(options: FailureOptions, fallback = '1'): Record<string, string> {
  const value = options.retryAfter === undefined ? fallback : options.retryAfter;
  return value === null ? {} : { 'Retry-After': value };
}

/** Lower-case letters and digits only, spaces collapsed: how the fakes match titles. */
export function matchKey(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}
