import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.ts';
import { secretsEqual } from './auth.ts';

/** The cookie the sign-in page sets (INTERFACE.md "Authentication"). */
export const SESSION_COOKIE = 'reelshelf_session';
/** How long a sign-in lasts: a TV stays signed in for a month. */
export const SESSION_TTL_SECONDS = 30 * 24 * 60 * 60;
/** Header (fetch) and form field (plain forms) that carry the CSRF token. */
export const CSRF_HEADER = 'x-csrf-token';
export const CSRF_FIELD = '_csrf';

const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const VALUE_FORMAT = /^([A-Za-z0-9_-]{24})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/;

/** A signed-in browser: a random id and when the sign-in ends (Unix seconds). */
export interface Session {
  id: string;
  expiresAt: number;
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
 * Signed, stateless browser sessions. The cookie value is `<id>.<expiry>.<HMAC-SHA256>`; the HMAC
 * key is derived from the admin token, so sessions survive a restart and changing the admin token
 * signs every browser out. Sign-out also revokes the id in memory until it would have expired.
 * The CSRF token of a session is a second HMAC over its id: nothing to store, and it differs per
 * session.
 */
export class SessionManager {
  private readonly key: Buffer;
  private readonly revoked = new Map<string, number>();
  private readonly authenticated = new WeakMap<FastifyRequest, Session>();

  constructor(
    apiToken: string,
    private readonly nowMs: () => number = Date.now,
  ) {
    this.key = createHmac('sha256', apiToken).update('reelshelf session key v1').digest();
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.key).update(payload).digest('base64url');
  }

  private nowSeconds(): number {
    return Math.floor(this.nowMs() / 1000);
  }

  /** A new session and its cookie value. */
  issue(): { session: Session; value: string } {
    const session = {
      id: randomBytes(18).toString('base64url'),
      expiresAt: this.nowSeconds() + SESSION_TTL_SECONDS,
    };
    const payload = `${session.id}.${session.expiresAt}`;
    return { session, value: `${payload}.${this.sign(`s1.${payload}`)}` };
  }

  /** The session a cookie value stands for, or null when it is malformed, forged, expired or revoked. */
  verify(value: string): Session | null {
    const match = VALUE_FORMAT.exec(value);
    if (match === null) return null;
    const [, id = '', expiry = '', signature = ''] = match;
    const expected = Buffer.from(this.sign(`s1.${id}.${expiry}`));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    const expiresAt = Number(expiry);
    if (expiresAt <= this.nowSeconds()) return null;
    if (this.revoked.has(id)) return null;
    return { id, expiresAt };
  }

  /** The request's valid session, if it carries one. */
  read(request: FastifyRequest): Session | null {
    const value = parseCookies(request.headers.cookie).get(SESSION_COOKIE);
    return value === undefined ? null : this.verify(value);
  }

  /**
   * For the auth hook: true when the session cookie authenticates this request. It is then
   * remembered, because state-changing requests authenticated this way need a CSRF token.
   */
  authenticate(request: FastifyRequest): boolean {
    const session = this.read(request);
    if (session === null) return false;
    this.authenticated.set(request, session);
    return true;
  }

  /** The session that authenticated this request (null when a bearer token did, or nothing). */
  authenticatedBy(request: FastifyRequest): Session | null {
    return this.authenticated.get(request) ?? null;
  }

  csrfToken(session: Session): string {
    return this.sign(`csrf.${session.id}`);
  }

  csrfValid(session: Session, given: string): boolean {
    return secretsEqual(given, this.csrfToken(session));
  }

  /** Signs a session out before its expiry. */
  revoke(session: Session): void {
    const now = this.nowSeconds();
    for (const [id, expiresAt] of this.revoked) if (expiresAt <= now) this.revoked.delete(id);
    this.revoked.set(session.id, session.expiresAt);
  }

  setCookie(value: string, secure: boolean): string {
    return cookieHeader(SESSION_COOKIE, value, { maxAgeSeconds: SESSION_TTL_SECONDS, secure });
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
export function registerSession(app: FastifyInstance, sessions: SessionManager): void {
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
