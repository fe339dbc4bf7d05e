import type { FastifyRequest } from 'fastify';
import { readJellyfinCredentials } from '../../domain/jellyfin/auth-header.ts';
import type { Principal } from '../../domain/people/principal.ts';
import type { SessionService } from '../../services/people/session.service.ts';

/**
 * The one place the Jellyfin facade reads credentials (wired into the auth hook's `resolve` in
 * http/app.ts). Paths: the facade's routes are registered in lower case under `/jellyfin`;
 * `rewriteJellyfinUrl` lower-cases the path of every `/jellyfin/…` and `/emby/…` request (never its
 * query) so clients' `/Users/AuthenticateByName`, `/users/authenticatebyname` and Kodi's
 * `/emby/system/info` reach the same route. The ids in paths are hex, so case carries nothing.
 */
export const JELLYFIN_PREFIX = '/jellyfin';
const PREFIXED = /^\/(?:jellyfin|emby)(?=\/|\?|$)/i;

/** Whether a (rewritten) URL belongs to the Jellyfin facade. */
export function isJellyfinUrl(url: string): boolean {
  return PREFIXED.test(url);
}

/** `/Emby/Users/AuthenticateByName?Foo=Bar` → `/jellyfin/users/authenticatebyname?Foo=Bar`; others as they are. */
export function rewriteJellyfinUrl(url: string): string {
  if (!PREFIXED.test(url)) return url;
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  const rest = query === -1 ? '' : url.slice(query);
  return `${JELLYFIN_PREFIX}${path.replace(PREFIXED, '').toLowerCase()}${rest}`;
}

/**
 * The playback routes players fetch without headers (http/jellyfin/playback.routes.ts and
 * trickplay.routes.ts register exactly these): the static stream, reelshelf's HLS under
 * `/Videos/{id}/`, subtitle files, the seek thumbnails' sheets and image playlist.
 */
export const JELLYFIN_MEDIA_ROUTES = [
  `${JELLYFIN_PREFIX}/videos/:itemid/stream`,
  `${JELLYFIN_PREFIX}/videos/:itemid/stream.:container`,
  `${JELLYFIN_PREFIX}/videos/:itemid/master.m3u8`,
  `${JELLYFIN_PREFIX}/videos/:itemid/hls/:rendition/index.m3u8`,
  `${JELLYFIN_PREFIX}/videos/:itemid/hls/:rendition/:segment`,
  `${JELLYFIN_PREFIX}/videos/:itemid/:mediasourceid/subtitles/:index/stream.:format`,
  `${JELLYFIN_PREFIX}/videos/:itemid/:mediasourceid/subtitles/:index/:startticks/stream.:format`,
  `${JELLYFIN_PREFIX}/videos/:itemid/trickplay/:width/:file`,
] as const;

/**
 * Routes where a token in the query (`api_key`, `ApiKey`) is accepted: players fetch streams,
 * HLS, subtitles and images without headers. Everywhere else a query token is ignored, so a token
 * copied into an address bar opens nothing but media.
 */
const QUERY_TOKEN_ROUTES: ReadonlySet<string> = new Set<string>([
  ...JELLYFIN_MEDIA_ROUTES,
  // Images (http/jellyfin/images.routes.ts).
  `${JELLYFIN_PREFIX}/items/:itemid/images/:type`,
  `${JELLYFIN_PREFIX}/items/:itemid/images/:type/:index`,
]);

/** The person behind a Jellyfin request's token (a device session), or null. */
export async function jellyfinPrincipal(
  request: FastifyRequest,
  sessions: Pick<SessionService, 'authenticate'>,
): Promise<Principal | null> {
  const query = (request.query ?? {}) as Record<string, unknown>;
  const credentials = readJellyfinCredentials(request.headers, query);
  if (credentials.token === null) return null;
  if (credentials.source === 'query' && !QUERY_TOKEN_ROUTES.has(request.routeOptions.url ?? '')) return null;
  const found = await sessions.authenticate(credentials.token);
  return found?.principal ?? null;
}
