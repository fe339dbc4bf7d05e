import { DAY_MS, ProviderCacheAccess, type ProviderClientOptions, ProviderHttp, joinUrl } from '../http.ts';
import { type JsonObject, isObject, objects, str, strings } from '../json.ts';

/**
 * UPCitemdb lookup (reference metadata.md §3.1): `GET {base}/lookup?upc=<code>`, base
 * `https://api.upcitemdb.com/prod/trial` (free, no key) or `…/prod/v1` (key sent as `user_key` +
 * `key_type` headers). Validate the code locally first (domain/barcode.ts): invalid codes cost quota.
 */

export interface UpcProduct {
  title: string;
  brand: string | null;
  /** Google product taxonomy path, e.g. "Media > DVDs & Videos". */
  category: string | null;
  description: string | null;
  /** EAN-13 as sent by the service (primary key), or null. */
  ean: string | null;
  upc: string | null;
  images: string[];
}

export type UpcLookupResult = { found: true; product: UpcProduct } | { found: false };

export interface UpcItemDbClientOptions extends ProviderClientOptions {
  /** `key_type` header for the paid plan (default "3scale"); only sent with an apiKey. */
  keyType?: string;
}

export const UPC_PROVIDER = 'upcitemdb';
const MISS_TTL_MS = 3 * DAY_MS;

export class UpcItemDbClient {
  private readonly http: ProviderHttp;
  private readonly cache: ProviderCacheAccess;

  constructor(private readonly options: UpcItemDbClientOptions) {
    this.http = new ProviderHttp(UPC_PROVIDER, options);
    this.cache = new ProviderCacheAccess(UPC_PROVIDER, options.cache, options.clock);
  }

  /**
   * Looks a code up (send `normalizeBarcode(x).upc`). Hits are cached forever, misses for 3 days.
   * @throws ProviderError invalid_request (INVALID_UPC/INVALID_QUERY), rate_limited (TOO_FAST,
   *   EXCEED_LIMIT; `retryAfterMs` set), unavailable (5xx/HTML/network), bad_response.
   */
  async lookup(upc: string, signal?: AbortSignal): Promise<UpcLookupResult> {
    const code = upc.trim();
    if (!/^\d{8,14}$/.test(code)) {
      throw this.http.error('invalid_request', `Not a UPC/EAN code: "${code.slice(0, 20)}"`);
    }
    const key = `lookup:${code}`;
    const cached = await this.cache.get(key, parseCachedResult);
    if (cached !== null) return cached;

    const url = joinUrl(this.options.baseUrl, 'lookup');
    url.searchParams.set('upc', code);
    const headers: Record<string, string> = {};
    if (this.options.apiKey !== undefined && this.options.apiKey !== '') {
      headers.user_key = this.options.apiKey;
      headers.key_type = this.options.keyType ?? '3scale';
    }
    const res = await this.http.getJson(url, {
      headers,
      ...(signal === undefined ? {} : { signal }),
      // The daily quota (EXCEED_LIMIT) is not worth retrying within one request.
      shouldRetry: ({ json }) => !(isObject(json) && json.code === 'EXCEED_LIMIT'),
    });
    const body = isObject(res.json) ? res.json : null;
    const apiCode = body === null ? undefined : (str(body, 'code') ?? undefined);
    const apiMessage = body === null ? undefined : (str(body, 'message') ?? apiCode);

    if (res.status === 404 && (body === null || apiCode === 'NOT_FOUND' || apiCode === undefined)) {
      await this.cache.put(key, { found: false }, MISS_TTL_MS);
      return { found: false };
    }
    if (res.status === 400 && res.bodyKind === 'json') {
      throw this.http.error('invalid_request', `UPCitemdb rejected the code: ${apiMessage ?? 'invalid'}`, {
        status: 400,
        ...(apiCode === undefined ? {} : { code: apiCode }),
      });
    }
    if (res.status < 200 || res.status >= 300) throw this.http.errorFor(res, apiMessage, apiCode);
    if (body === null || apiCode !== 'OK') {
      throw this.http.errorFor(res, apiMessage ?? 'the answer is not a lookup result', apiCode);
    }

    const items = objects(body, 'items');
    const item = items.find((i) => matchesCode(i, code)) ?? null;
    if (item === null) {
      await this.cache.put(key, { found: false }, MISS_TTL_MS);
      return { found: false };
    }
    const product = toProduct(item);
    if (product === null) {
      await this.cache.put(key, { found: false }, MISS_TTL_MS);
      return { found: false };
    }
    const result: UpcLookupResult = { found: true, product };
    await this.cache.put(key, result, null);
    return result;
  }
}

/** Same GTIN when both are left-padded to 14 digits; an item without any code is accepted. */
function matchesCode(item: JsonObject, code: string): boolean {
  const want = code.padStart(14, '0');
  const have = [str(item, 'ean'), str(item, 'upc'), str(item, 'gtin')].filter(
    (c): c is string => c !== null && /^\d{8,14}$/.test(c),
  );
  return have.length === 0 || have.some((c) => c.padStart(14, '0') === want);
}

function toProduct(item: JsonObject): UpcProduct | null {
  const title = str(item, 'title');
  if (title === null) return null;
  return {
    title,
    brand: str(item, 'brand'),
    category: str(item, 'category'),
    description: str(item, 'description'),
    ean: str(item, 'ean'),
    upc: str(item, 'upc'),
    images: strings(item, 'images').filter((u) => /^https?:\/\//i.test(u)),
  };
}

function parseCachedResult(value: unknown): UpcLookupResult | null {
  if (!isObject(value)) return null;
  if (value.found === false) return { found: false };
  if (value.found !== true || !isObject(value.product)) return null;
  const product = toProduct(value.product);
  return product === null ? null : { found: true, product };
}
