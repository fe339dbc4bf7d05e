import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.ts';

/** Routes anyone may call (INTERFACE.md "Authentication"); /stream checks its own playback token. */
const PUBLIC_EXACT = new Set([
  'GET /api/health',
  'HEAD /api/health',
  'GET /api/contract',
  'HEAD /api/contract',
]);
const PUBLIC_PREFIXES = ['/stream/', '/assets/', '/sign-in'];

/** Constant-time equality of two secrets of any length (hashing first equalises the lengths). */
export function secretsEqual(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

export function isPublicRoute(method: string, path: string): boolean {
  if (PUBLIC_EXACT.has(`${method} ${path}`)) return true;
  return PUBLIC_PREFIXES.some((p) => path.startsWith(p));
}

/** The bearer token of a request, or null. */
export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

export interface AuthOptions {
  apiToken: string;
  /** Reads the signed-in session (pages); returns true when the request carries a valid one. */
  hasSession?: (request: FastifyRequest) => boolean;
  /** True for a page a person opens: without auth it redirects (303) to the sign-in page, not a 401. */
  isPage?: (request: FastifyRequest) => boolean;
}

/** Where an unauthenticated page request is sent; `next` brings the person back after sign-in. */
export function signInLocation(url: string): string {
  return url === '/' || url === '' ? '/sign-in' : `/sign-in?next=${encodeURIComponent(url)}`;
}

/** Requests that proved who they are (token or session), public routes included. */
const authenticated = new WeakSet<FastifyRequest>();

/**
 * Whether the request carried valid credentials. Public routes answer everyone but may say more to
 * the admin (health shows the media tools' paths only then).
 */
export function isAuthenticated(request: FastifyRequest): boolean {
  return authenticated.has(request);
}

/** Every route needs the admin bearer token (or a session) unless it is public. */
export function registerAuth(app: FastifyInstance, options: AuthOptions): void {
  app.addHook('onRequest', async (request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const token = bearerToken(request);
    const tokenValid = token !== null && secretsEqual(token, options.apiToken);
    if (tokenValid) authenticated.add(request);
    // (A session is not read on public routes: that would hold their POSTs, sign-in among them, to
    // the session's CSRF check.)
    if (isPublicRoute(request.method, path) || tokenValid) return;
    if (options.hasSession?.(request) === true) {
      authenticated.add(request);
      return;
    }
    if (options.isPage?.(request) === true) {
      return reply.redirect(signInLocation(request.method === 'GET' ? request.url : '/library'), 303);
    }
    throw new AppError('unauthorized', {
      message: token === null ? 'Authentication is required.' : 'The token is not valid.',
      hint: 'Send Authorization: Bearer <token>; the token is in the data dir file api-token.',
      headers: { 'www-authenticate': 'Bearer realm="reelshelf"' },
    });
  });
}
