import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Principal } from '../../domain/people/principal.ts';
import { AppError } from '../../errors.ts';
import type { SessionService } from '../../services/people/session.service.ts';

/** The cookie the sign-in page and POST /api/sessions set (INTERFACE.md "Authentication"). */
export const SESSION_COOKIE = 'reelshelf_session';
/** Header (fetch) and form field (plain forms) that carry the CSRF token. */
export const CSRF_HEADER = 'x-csrf-token';
export const CSRF_FIELD = '_csrf';

const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The session a request was authenticated by: its row (id, creation time for the CSRF token). */
export interface Session {
  id: number;
  created_at: string;
  user_id: number;
}

/** Cookies of a `Cookie` header (first value of a name wins, as browsers send the most specific first). */
export function parseCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (header === undefined) return out;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    let value = part.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    if (name === '' || out.has(name)) continue;
    try {
      out.set(name, decodeURIComponent(value));
    } catch {
      out.set(name, value);
    }
  }
  return out;
}

/** A `Set-Cookie` value with the attributes every reelshelf cookie shares. */
export function cookieHeader(
  name: string,
  value: string,
  options: { maxAgeSeconds: number; secure: boolean; httpOnly?: boolean },
): string {
  const parts = [`${name}=${encodeURIComponent(value)}`, 'Path=/', `Max-Age=${options.maxAgeSeconds}`];
  if (options.maxAgeSeconds === 0) parts.push('Expires=Thu, 01 Jan 1970 00:00:00 GMT');
  if (options.httpOnly !== false) parts.push('HttpOnly');
  parts.push('SameSite=Lax');
  if (options.secure) parts.push('Secure');
  return parts.join('; ');
}

/** True when the request reached us over TLS (then cookies are marked Secure). */
export function isHttps(request: FastifyRequest): boolean {
  return request.protocol === 'https';
}

/**
 * The browser side of database sessions (services/people/session.service.ts): the cookie holds the
 * session's random secret (HttpOnly, SameSite=Lax, Secure over TLS); the request remembers which
 * session authenticated it, because a state-changing request so authenticated needs the session's
 * CSRF token.
 */
export class SessionCookies {
  private readonly authenticated = new WeakMap<FastifyRequest, Session>();

  constructor(
    private readonly sessions: SessionService,
    /** REELSHELF_SESSION_MAX_DAYS: the cookie lives as long as the session may. */
    private readonly maxAgeSeconds: number,
  ) {}

  private secretOf(request: FastifyRequest): string | null {
    return parseCookies(request.headers.cookie).get(SESSION_COOKIE) ?? null;
  }

  /** For the auth hook: the person the request's session cookie speaks for, or null. */
  async authenticate(request: FastifyRequest): Promise<Principal | null> {
    const secret = this.secretOf(request);
    if (secret === null) return null;
    const found = await this.sessions.authenticate(secret);
    if (found === null) return null;
    this.authenticated.set(request, found.session);
    return found.principal;
  }

  /** The session that authenticated this request (null when a bearer token did, or nothing). */
  authenticatedBy(request: FastifyRequest): Session | null {
    return this.authenticated.get(request) ?? null;
  }

  /** The request's live session, looked up (a public page, such as sign-in, is not authenticated by the hook). */
  async read(request: FastifyRequest): Promise<Session | null> {
    const known = this.authenticatedBy(request);
    if (known !== null) return known;
    const secret = this.secretOf(request);
    if (secret === null) return null;
    return (await this.sessions.authenticate(secret))?.session ?? null;
  }

  csrfToken(session: Session): string {
    return this.sessions.csrfToken(session);
  }

  csrfValid(session: Session, given: string): boolean {
    return this.sessions.csrfValid(session, given);
  }

  setCookie(secret: string, secure: boolean): string {
    return cookieHeader(SESSION_COOKIE, secret, { maxAgeSeconds: this.maxAgeSeconds, secure });
  }

  clearCookie(secure: boolean): string {
    return cookieHeader(SESSION_COOKIE, '', { maxAgeSeconds: 0, secure });
  }
}

function csrfFieldOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const value: unknown = (body as Record<string, unknown>)[CSRF_FIELD];
  return typeof value === 'string' ? value : undefined;
}

/**
 * CSRF protection: a POST/PUT/PATCH/DELETE authenticated by the session cookie must carry the
 * session's CSRF token in `X-CSRF-Token` or a `_csrf` form field (checked after the body is
 * parsed). Requests authenticated by a bearer token need none: a browser never adds that header
 * on its own.
 */
export function registerSession(app: FastifyInstance, sessions: SessionCookies): void {
  app.addHook('preValidation', async (request) => {
    if (!UNSAFE_METHODS.has(request.method)) return;
    const session = sessions.authenticatedBy(request);
    if (session === null) return;
    const header = request.headers[CSRF_HEADER];
    const given = typeof header === 'string' ? header : csrfFieldOf(request.body);
    if (given !== undefined && sessions.csrfValid(session, given)) return;
    throw new AppError('csrf_failed', {
      status: 403,
      message: 'The request is missing its CSRF token or the token does not match the session.',
      hint: 'Reload the page and try again.',
    });
  });
}
