import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type Access, permits } from '../../domain/people/access.ts';
import { AppError } from '../../errors.ts';
import { type Principal, setPrincipal } from '../principal.ts';
import { routeAccess } from '../route-access.ts';

/** The bearer token of a request, or null. */
export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

export interface AuthOptions {
  /**
   * The person behind the request's credentials (bearer token or session cookie), or null when it
   * carries none that holds. Throws an AppError to refuse outright (a revoked or rate-limited one).
   */
  resolve: (request: FastifyRequest) => Promise<Principal | null>;
  /** True for a page a person opens: without auth it redirects (303) to the sign-in page, not a 401. */
  isPage?: (request: FastifyRequest) => boolean;
  /**
   * The access of a request that matched no route (default `admin`: its 404 only after the
   * credentials hold). The Jellyfin facade answers its unknown paths 404 to anyone: an app reads a
   * 401 as "signed out".
   */
  unmatchedAccess?: (request: FastifyRequest) => Access;
}

/** Where an unauthenticated page request is sent; `next` brings the person back after sign-in. */
export function signInLocation(url: string): string {
  return url === '/' || url === '' ? '/sign-in' : `/sign-in?next=${encodeURIComponent(url)}`;
}

/** The access a request's route needs (a request that matched no route: `admin`, answered 404 after). */
function accessOf(request: FastifyRequest, options: AuthOptions): Access {
  const url = request.routeOptions.url;
  if (url === undefined) return options.unmatchedAccess?.(request) ?? 'admin';
  if (url.startsWith('/assets/')) return 'public';
  return routeAccess(request.method, url);
}

/**
 * Every request is checked here, once: who it is (`resolve`) and whether the route's access
 * (http/route-access.ts) lets that person, with that credential, in. 401 without credentials, 403
 * with credentials that do not reach (a child on an admin route, a read key on a POST).
 */
export function registerAuth(app: FastifyInstance, options: AuthOptions): void {
  app.addHook('onRequest', async (request, reply) => {
    const access = accessOf(request, options);
    // A public route does not read a session (that would hold its POSTs, sign-in among them, to the
    // session's CSRF check), but a bearer still says who asks (health says more to the admin).
    const principal =
      access === 'public' && bearerToken(request) === null ? null : await options.resolve(request);
    if (principal !== null) setPrincipal(request, principal);
    if (access === 'public') return;
    if (principal === null) {
      if (options.isPage?.(request) === true) {
        return reply.redirect(signInLocation(request.method === 'GET' ? request.url : '/library'), 303);
      }
      throw new AppError('unauthorized', {
        message: bearerToken(request) === null ? 'Authentication is required.' : 'The token is not valid.',
        hint: 'Send Authorization: Bearer <token> (the admin token is in the data dir file api-token; keys come from POST /api/keys), or sign in.',
        headers: { 'www-authenticate': 'Bearer realm="reelshelf"' },
      });
    }
    const decision = permits(principal.role, principal.credential.scope, access, request.method);
    if (!decision.ok) {
      throw new AppError('forbidden', {
        message:
          decision.reason === 'scope'
            ? `This key's scope (${principal.credential.scope}) does not allow this request.`
            : `A ${principal.role} may not do this.`,
        hint:
          decision.reason === 'scope'
            ? 'Use a key with a wider scope, or sign in.'
            : 'Ask an admin of this household.',
        extra: { required: access },
      });
    }
  });
}
