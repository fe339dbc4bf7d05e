import type { Clock } from '../adapters/clock.ts';
import type { ProviderCache } from '../repositories/provider-cache.repository.ts';

/**
 * What every metadata provider client shares: GET with a timeout, retries with exponential backoff
 * on network errors and 5xx, 429 honoured through `Retry-After`, bodies classified before parsing
 * (gateways answer with HTML), one typed error, and keys kept out of every message and log line.
 */

export type ProviderErrorKind =
  | 'unavailable'
  | 'rate_limited'
  | 'quota'
  | 'unauthorized'
  | 'not_found'
  | 'invalid_request'
  | 'bad_response';

export interface ProviderErrorInit {
  provider: string;
  kind: ProviderErrorKind;
  message: string;
  status?: number;
  /** How long the service asked us to wait (429 `Retry-After`), when it said. */
  retryAfterMs?: number;
  /** The provider's own error code (`INVALID_UPC`, TMDb `status_code` 34), for logs. */
  code?: string;
}

/** A provider call failed; `kind` says what a caller can do about it. Messages never carry keys. */
export class ProviderError extends Error {
  override name = 'ProviderError';
  readonly provider: string;
  readonly kind: ProviderErrorKind;
  readonly status: number | undefined;
  readonly retryAfterMs: number | undefined;
  readonly code: string | undefined;

  constructor(init: ProviderErrorInit) {
    super(init.message);
    this.provider = init.provider;
    this.kind = init.kind;
    this.status = init.status;
    this.retryAfterMs = init.retryAfterMs;
    this.code = init.code;
  }

  toJSON(): Record<string, unknown> {
    return {
      provider: this.provider,
      kind: this.kind,
      message: this.message,
      ...(this.status === undefined ? {} : { status: this.status }),
      ...(this.retryAfterMs === undefined ? {} : { retryAfterMs: this.retryAfterMs }),
      ...(this.code === undefined ? {} : { code: this.code }),
    };
  }
}

/** pino-compatible subset. */
export interface ProviderLogger {
  warn(details: Record<string, unknown>, message: string): void;
}

/** Options every provider client takes. */
export interface ProviderClientOptions {
  baseUrl: string;
  apiKey?: string;
  cache: ProviderCache;
  clock: Clock;
  fetch?: typeof fetch;
  /** Per attempt, including reading the body. Default 10 s. */
  timeoutMs?: number;
  /** Retries after the first attempt (network errors, 5xx, 429). Default 3. */
  maxRetries?: number;
  sleep?: (ms: number) => Promise<void>;
  /** A 429 asking for a longer wait than this is not retried but reported (rate_limited). Default 10 s. */
  maxRetryAfterMs?: number;
  /** First backoff delay; doubles per retry, plus up to 25 % jitter. Default 500 ms. */
  retryBaseDelayMs?: number;
  logger?: ProviderLogger;
}

export type BodyKind = 'json' | 'html' | 'text' | 'empty';

export interface JsonResult {
  status: number;
  headers: Headers;
  /** The parsed body when `bodyKind` is 'json', else undefined. */
  json: unknown;
  bodyKind: BodyKind;
  /** Parsed `Retry-After`, when present and readable. */
  retryAfterMs: number | null;
}

export interface BytesResult {
  status: number;
  headers: Headers;
  bytes: Buffer;
  retryAfterMs: number | null;
}

export interface RequestInit {
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Return false to stop retrying a 429/5xx answer the generic rules would retry (e.g. a daily quota). */
  shouldRetry?: (result: { status: number; json: unknown }) => boolean;
}

const LABELS: Record<string, string> = { tmdb: 'TMDb', omdb: 'OMDb', upcitemdb: 'UPCitemdb' };

/** The person-facing name of a provider ("TMDb"). */
export function providerLabel(provider: string): string {
  return LABELS[provider] ?? provider;
}

const SECRET_PARAMS = /([?&](?:api_key|apikey|key|user_key|token|access_token)=)[^&#]*/gi;

/** A URL safe to log: secret query values replaced. */
export function redactUrl(url: string | URL): string {
  return String(url).replace(SECRET_PARAMS, '$1[redacted]');
}

/** Replaces every occurrence of the given secrets (and secret query values) in a text. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = redactUrl(text).replace(/(Bearer\s+)[A-Za-z0-9._~+/=-]+/g, '$1[redacted]');
  for (const secret of secrets) {
    if (secret.length >= 4) out = out.split(secret).join('[redacted]');
  }
  return out;
}

/**
 * `Retry-After` as milliseconds from `now`: delta-seconds or an HTTP date (a past date is 0).
 * Null when absent or unreadable.
 */
export function parseRetryAfter(value: string | null, now: Date): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d+(?:\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now.getTime());
}

/** Classifies a response body without trusting its Content-Type. */
export function classifyBody(text: string, contentType: string | null): { kind: BodyKind; json: unknown } {
  const trimmed = text.trim();
  if (trimmed === '') return { kind: 'empty', json: undefined };
  if (trimmed.startsWith('<') || (contentType ?? '').toLowerCase().includes('html')) {
    return { kind: 'html', json: undefined };
  }
  try {
    return { kind: 'json', json: JSON.parse(trimmed) as unknown };
  } catch {
    return { kind: 'text', json: undefined };
  }
}

const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** One provider's HTTP access. Holds no state between calls besides its settings. */
export class ProviderHttp {
  readonly label: string;
  private readonly fetchImpl: typeof fetch;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly maxRetryAfterMs: number;
  private readonly retryBaseDelayMs: number;

  constructor(
    readonly provider: string,
    private readonly options: ProviderClientOptions,
    private readonly secrets: readonly string[] = options.apiKey === undefined ? [] : [options.apiKey],
  ) {
    this.label = providerLabel(provider);
    this.fetchImpl = options.fetch ?? globalThis.fetch;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.maxRetries = Math.max(0, options.maxRetries ?? 3);
    this.sleep = options.sleep ?? defaultSleep;
    this.maxRetryAfterMs = options.maxRetryAfterMs ?? 10_000;
    this.retryBaseDelayMs = options.retryBaseDelayMs ?? 500;
  }

  /** GET returning the final answer (after retries) with its body classified; throws only when nothing answered. */
  getJson(url: URL, init: RequestInit = {}): Promise<JsonResult> {
    return this.execute(url, init, async (res) => {
      const text = await res.text();
      const body = classifyBody(text, res.headers.get('content-type'));
      return {
        status: res.status,
        headers: res.headers,
        json: body.json,
        bodyKind: body.kind,
        retryAfterMs: null,
      };
    });
  }

  /** GET returning raw bytes (images), with the same retry rules. */
  getBytes(url: URL, init: RequestInit = {}): Promise<BytesResult> {
    return this.execute(url, init, async (res) => ({
      status: res.status,
      headers: res.headers,
      bytes: Buffer.from(await res.arrayBuffer()),
      retryAfterMs: null,
    }));
  }

  /** A ProviderError with every secret removed from its message. */
  error(
    kind: ProviderErrorKind,
    message: string,
    extra: Omit<ProviderErrorInit, 'provider' | 'kind' | 'message'> = {},
  ) {
    return new ProviderError({
      provider: this.provider,
      kind,
      message: redactSecrets(message, this.secrets),
      ...extra,
    });
  }

  /**
   * The generic reading of a non-success answer: 429 rate_limited, 5xx unavailable, 401/403
   * unauthorized, 404 not_found, other 4xx invalid_request, a 2xx that is not JSON bad_response.
   */
  errorFor(
    result: { status: number; bodyKind?: BodyKind; retryAfterMs: number | null },
    detail?: string,
    code?: string,
  ) {
    const { status } = result;
    const what = detail === undefined || detail === '' ? '' : `: ${detail}`;
    const extra = {
      status,
      ...(code === undefined ? {} : { code }),
      ...(result.retryAfterMs === null ? {} : { retryAfterMs: result.retryAfterMs }),
    };
    if (status === 429) {
      const wait =
        result.retryAfterMs === null ? '' : ` (retry after ${Math.ceil(result.retryAfterMs / 1000)} s)`;
      return this.error('rate_limited', `${this.label} rate limit reached${wait}${what}`, extra);
    }
    if (status >= 500) {
      const html = result.bodyKind === 'html' ? ' with an HTML error page' : '';
      return this.error('unavailable', `${this.label} is unavailable (HTTP ${status}${html})${what}`, extra);
    }
    if (status === 401 || status === 403) {
      return this.error(
        'unauthorized',
        `${this.label} refused the credentials (HTTP ${status})${what}`,
        extra,
      );
    }
    if (status === 404) return this.error('not_found', `${this.label} has no such resource${what}`, extra);
    if (status >= 400)
      return this.error(
        'invalid_request',
        `${this.label} rejected the request (HTTP ${status})${what}`,
        extra,
      );
    const body =
      result.bodyKind === undefined || result.bodyKind === 'json' ? '' : ` (${result.bodyKind} body)`;
    return this.error(
      'bad_response',
      `${this.label} sent an unusable answer (HTTP ${status})${body}${what}`,
      extra,
    );
  }

  private async execute<R extends { status: number; headers: Headers; retryAfterMs: number | null }>(
    url: URL,
    init: RequestInit,
    read: (res: Response) => Promise<R>,
  ): Promise<R> {
    for (let attempt = 0; ; attempt++) {
      const canRetry = attempt < this.maxRetries;
      let result: R;
      try {
        const timeout = AbortSignal.timeout(this.timeoutMs);
        const signal = init.signal === undefined ? timeout : AbortSignal.any([timeout, init.signal]);
        const res = await this.fetchImpl(url, {
          method: 'GET',
          headers: { Accept: 'application/json', ...init.headers },
          signal,
          redirect: 'follow',
        });
        result = await read(res);
        result.retryAfterMs = parseRetryAfter(res.headers.get('retry-after'), this.options.clock.now());
      } catch (e) {
        if (init.signal?.aborted === true) throw init.signal.reason;
        const reason = describeNetworkError(e, this.timeoutMs);
        if (canRetry) {
          const delay = this.backoff(attempt);
          this.log(url, attempt, delay, reason);
          await this.sleep(delay);
          continue;
        }
        throw this.error('unavailable', `${this.label} did not answer: ${reason}`);
      }

      const { status } = result;
      if (!canRetry || (status !== 429 && status < 500)) return result;
      if (
        init.shouldRetry !== undefined &&
        !init.shouldRetry({ status, json: 'json' in result ? result.json : undefined })
      ) {
        return result;
      }
      let delay = result.retryAfterMs ?? this.backoff(attempt);
      if (delay > this.maxRetryAfterMs) {
        if (status === 429) return result; // asked to wait longer than we will: report it
        delay = this.maxRetryAfterMs;
      }
      this.log(url, attempt, delay, `HTTP ${status}`);
      await this.sleep(delay);
    }
  }

  private backoff(attempt: number): number {
    const base = this.retryBaseDelayMs * 2 ** attempt;
    return Math.round(base + Math.random() * base * 0.25);
  }

  private log(url: URL, attempt: number, delayMs: number, reason: string): void {
    this.options.logger?.warn(
      {
        provider: this.provider,
        url: redactSecrets(url.toString(), this.secrets),
        attempt: attempt + 1,
        delayMs,
        reason: redactSecrets(reason, this.secrets),
      },
      `${this.label} request failed, retrying`,
    );
  }
}

function describeNetworkError(e: unknown, timeoutMs: number): string {
  if (e instanceof Error) {
    if (e.name === 'TimeoutError' || e.name === 'AbortError') return `timed out after ${timeoutMs} ms`;
    const cause = (e as { cause?: unknown }).cause;
    const code =
      typeof cause === 'object' && cause !== null && 'code' in cause && typeof cause.code === 'string'
        ? cause.code
        : null;
    return code ?? e.message;
  }
  return String(e);
}

/** Typed JSON cache access for one provider. Unreadable cached bodies count as misses. */
export class ProviderCacheAccess {
  constructor(
    private readonly provider: string,
    private readonly cache: ProviderCache,
    private readonly clock: Clock,
  ) {}

  async get<T>(key: string, parse: (value: unknown) => T | null): Promise<T | null> {
    const text = await this.cache.get(this.provider, key, this.clock.now());
    if (text === null) return null;
    try {
      return parse(JSON.parse(text) as unknown);
    } catch {
      return null;
    }
  }

  async put(key: string, value: unknown, ttlMs: number | null): Promise<void> {
    await this.cache.put(this.provider, key, JSON.stringify(value), this.clock.now(), ttlMs);
  }
}

/** Joins a base URL (with or without trailing slash) and a path. */
export function joinUrl(baseUrl: string, path: string): URL {
  const base = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
  return new URL(path.replace(/^\/+/, ''), base);
}

export const DAY_MS = 24 * 60 * 60 * 1000;
