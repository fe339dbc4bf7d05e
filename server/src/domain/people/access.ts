/**
 * Who may do what (issue 22; INTERFACE.md "Authentication"). Pure: the HTTP layer asks `permits`
 * once per request, with the access a route declares (`config.access`; a route that declares none
 * is `admin`, so a new route is closed until someone opens it).
 */

export const ROLES = ['admin', 'member', 'child'] as const;
export type Role = (typeof ROLES)[number];

/** What a key may do: `read` (GET), `playback` (read + play + own state), `admin` (its person's all). */
export const KEY_SCOPES = ['read', 'playback', 'admin'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

/**
 * What a route needs:
 * - `public`: anyone (health, contract, sign-in, assets; /stream checks its own playback token);
 * - `signed-in`: any person, any credential (who am I, sign out, the who's-watching page);
 * - `account`: any person, but not with a read or playback key (their own keys, PIN, sign out
 *   everywhere): a key for a TV never mints keys or changes its person;
 * - `read`: the library as the person may see it (listing, movies, artwork, devices);
 * - `playback`: streams, HLS, subtitles, playback info, prewarm, the person's own watch state;
 * - `collect`: barcode lookups and imports (members and admins);
 * - `admin`: everything else (people, keys of others, roots, scans, edits, export, jobs).
 */
export type Access = 'public' | 'signed-in' | 'account' | 'read' | 'playback' | 'collect' | 'admin';

const ROLE_ALLOWS: Record<Role, ReadonlySet<Access>> = {
  admin: new Set(['public', 'signed-in', 'account', 'read', 'playback', 'collect', 'admin']),
  member: new Set(['public', 'signed-in', 'account', 'read', 'playback', 'collect']),
  child: new Set(['public', 'signed-in', 'account', 'read', 'playback']),
};

const SCOPE_ALLOWS: Record<KeyScope | 'full', ReadonlySet<Access>> = {
  read: new Set(['public', 'signed-in', 'read']),
  playback: new Set(['public', 'signed-in', 'read', 'playback']),
  admin: ROLE_ALLOWS.admin,
  full: ROLE_ALLOWS.admin,
};

/** A `read` key only reads: any method but GET/HEAD/OPTIONS is refused whatever the route says. */
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export type Decision = { ok: true } | { ok: false; reason: 'role' | 'scope' };

/**
 * Whether a person of `role`, holding a credential of `scope` (`full` for a session or the admin
 * token), may call a route of `access` with `method`. Both must allow it.
 */
export function permits(role: Role, scope: KeyScope | 'full', access: Access, method: string): Decision {
  if (!SCOPE_ALLOWS[scope].has(access)) return { ok: false, reason: 'scope' };
  if (scope === 'read' && !READ_METHODS.has(method.toUpperCase())) return { ok: false, reason: 'scope' };
  if (!ROLE_ALLOWS[role].has(access)) return { ok: false, reason: 'role' };
  return { ok: true };
}

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

export function isKeyScope(value: unknown): value is KeyScope {
  return typeof value === 'string' && (KEY_SCOPES as readonly string[]).includes(value);
}
