/**
 * Reading the credentials a Jellyfin app sends (docs/jellyfin.md, players.md §1.4). Pure: the route
 * layer hands in the request's headers and query; this says what token was sent, where it came
 * from, and which app and device sent it. Whether a token from the query is acceptable on a given
 * URL (only streams, HLS, subtitles, images) is the route's decision, not the parser's.
 */

/** Where the token was found, in Jellyfin's lookup order. */
export type TokenSource =
  'authorization' | 'x-emby-authorization' | 'x-emby-token' | 'x-mediabrowser-token' | 'query';

/** What the app says about itself in the MediaBrowser header (empty strings are absent). */
export interface ClientInfo {
  client: string | null;
  device: string | null;
  deviceId: string | null;
  version: string | null;
}

export interface JellyfinCredentials {
  /** The token, or null when none was sent (an empty `Token=""` before sign-in is none). */
  token: string | null;
  source: TokenSource | null;
  client: ClientInfo;
}

type HeaderBag = Record<string, string | string[] | undefined>;

const SCHEMES = new Set(['mediabrowser', 'emby']);
const QUERY_TOKEN_KEYS = ['apikey', 'api_key'];

/** Values are URL-decoded as Jellyfin does (`Uri.UnescapeDataString`): `+` stays a plus. */
function unescape(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** Splits on commas outside double quotes. */
function splitParts(text: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (const ch of text) {
    if (ch === '"') quoted = !quoted;
    if (ch === ',' && !quoted) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return parts;
}

/**
 * Parses `MediaBrowser Client="…", Device="…", DeviceId="…", Version="…", Token="…"` (scheme
 * `MediaBrowser` or `Emby`, any case; values quoted or not, URL-encoded or not; keys in any order
 * and case). Returns the parameters under lower-case keys, or null for another scheme.
 */
export function parseMediaBrowserHeader(value: string): Map<string, string> | null {
  const trimmed = value.trim();
  const space = trimmed.search(/\s/);
  const scheme = (space === -1 ? trimmed : trimmed.slice(0, space)).toLowerCase();
  if (!SCHEMES.has(scheme)) return null;
  const params = new Map<string, string>();
  if (space === -1) return params;
  for (const part of splitParts(trimmed.slice(space + 1))) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    const key = part.slice(0, eq).trim().toLowerCase();
    let raw = part.slice(eq + 1).trim();
    if (raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"')) raw = raw.slice(1, -1);
    if (key !== '' && !params.has(key)) params.set(key, unescape(raw));
  }
  return params;
}

function header(headers: HeaderBag, name: string): string | null {
  const value = headers[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first.trim() === '' ? null : first;
}

function nonEmpty(value: string | undefined): string | null {
  return value === undefined || value.trim() === '' ? null : value;
}

/** The first non-empty string of a query value (repeated keys arrive as arrays). */
function queryValue(query: Record<string, unknown>, key: string): string | null {
  for (const [name, value] of Object.entries(query)) {
    if (name.toLowerCase() !== key) continue;
    const values = Array.isArray(value) ? value : [value];
    for (const v of values) if (typeof v === 'string' && v.trim() !== '') return v;
  }
  return null;
}

/**
 * The credentials of a request, in Jellyfin's order: `Authorization` (or, when that is absent or
 * not a MediaBrowser header, `X-Emby-Authorization`) `Token=`, then `X-Emby-Token`,
 * `X-MediaBrowser-Token`, then the `ApiKey` and `api_key` query parameters (any case).
 * `headers` has lower-case names, as Node gives them.
 */
export function readJellyfinCredentials(
  headers: HeaderBag,
  query: Record<string, unknown>,
): JellyfinCredentials {
  let params: Map<string, string> | null = null;
  let paramsSource: TokenSource | null = null;
  for (const [name, source] of [
    ['authorization', 'authorization'],
    ['x-emby-authorization', 'x-emby-authorization'],
  ] as const) {
    const value = header(headers, name);
    const parsed = value === null ? null : parseMediaBrowserHeader(value);
    if (parsed !== null) {
      params = parsed;
      paramsSource = source;
      break;
    }
  }
  const client: ClientInfo = {
    client: nonEmpty(params?.get('client')),
    device: nonEmpty(params?.get('device')),
    deviceId: nonEmpty(params?.get('deviceid')),
    version: nonEmpty(params?.get('version')),
  };
  const fromHeader = nonEmpty(params?.get('token'));
  if (fromHeader !== null) return { token: fromHeader, source: paramsSource, client };
  for (const name of ['x-emby-token', 'x-mediabrowser-token'] as const) {
    const value = header(headers, name);
    if (value !== null) return { token: value.trim(), source: name, client };
  }
  for (const key of QUERY_TOKEN_KEYS) {
    const value = queryValue(query, key);
    if (value !== null) return { token: value, source: 'query', client };
  }
  return { token: null, source: null, client };
}
