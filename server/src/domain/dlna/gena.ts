/**
 * GENA eventing requests (UDA 1.0 §4.1): what a `SUBSCRIBE` or `UNSUBSCRIBE` on an event URL asks,
 * read from its headers, and the HTTP status a malformed one gets. Pure; the subscriptions
 * themselves are kept by services/dlna/event-subscriptions.ts.
 */

/** Every subscription lasts this long (UDA lets the publisher choose; 1800 s is what servers answer). */
export const GENA_TIMEOUT_SECONDS = 1800;

export type GenaRequest =
  /** A first subscription: the URLs events would go to. */
  | { kind: 'subscribe'; callbacks: string[] }
  /** A renewal of a subscription by its SID. */
  | { kind: 'renew'; sid: string }
  | { kind: 'unsubscribe'; sid: string }
  /** 400 (SID together with NT or CALLBACK) or 412 (a needed header missing or wrong). */
  | { kind: 'invalid'; status: 400 | 412; reason: string };

export interface GenaHeaders {
  sid?: string | undefined;
  nt?: string | undefined;
  callback?: string | undefined;
}

/** `<http://a/><http://b/>` → the URLs, or null when not of that form or not http. */
export function parseCallbacks(header: string): string[] | null {
  const urls = [...header.matchAll(/<([^<>]*)>/g)].map((m) => m[1] ?? '');
  if (urls.length === 0 || header.replace(/<[^<>]*>/g, '').trim() !== '') return null;
  for (const url of urls) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return null;
    }
    if (parsed.protocol !== 'http:') return null;
  }
  return urls;
}

/** A SUBSCRIBE's or UNSUBSCRIBE's headers → what it asks (UDA 1.0 §4.1.1–4.1.3). */
export function readGenaRequest(method: 'SUBSCRIBE' | 'UNSUBSCRIBE', headers: GenaHeaders): GenaRequest {
  const sid = headers.sid?.trim();
  const hasNtOrCallback = headers.nt !== undefined || headers.callback !== undefined;
  if (sid !== undefined && hasNtOrCallback) {
    return { kind: 'invalid', status: 400, reason: 'SID together with NT or CALLBACK' };
  }
  if (method === 'UNSUBSCRIBE') {
    if (sid === undefined || sid === '') return { kind: 'invalid', status: 412, reason: 'no SID' };
    return { kind: 'unsubscribe', sid };
  }
  if (sid !== undefined) {
    return sid === '' ? { kind: 'invalid', status: 412, reason: 'empty SID' } : { kind: 'renew', sid };
  }
  if (headers.nt?.trim() !== 'upnp:event') {
    return { kind: 'invalid', status: 412, reason: 'NT is not upnp:event' };
  }
  const callbacks = headers.callback === undefined ? null : parseCallbacks(headers.callback);
  if (callbacks === null) return { kind: 'invalid', status: 412, reason: 'no valid CALLBACK' };
  return { kind: 'subscribe', callbacks };
}
