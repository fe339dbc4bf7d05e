/**
 * nginx's X-Accel-Redirect offload (REELSHELF_ACCEL_REDIRECT): after reelshelf has checked the token
 * and that the file lies inside a library root (or the artifacts area), it answers with the URI of an
 * `internal` nginx location instead of the bytes, and nginx sends the file with sendfile. The
 * location maps its prefix onto `/` (`alias /;`, docs/deploy/nginx.conf), so the URI is the prefix
 * followed by the file's absolute real path.
 */

/** A prefix nginx can match as a location: `/word/…/`, unreserved characters only, no dot segments. */
const PREFIX = /^\/(?:[A-Za-z0-9_~-][A-Za-z0-9._~-]*\/)+$/;

/**
 * The configured prefix with its trailing slash, or null when it is not one nginx could map safely
 * (it must be absolute and made of plain path segments: `/internal-media/`).
 */
export function normaliseAccelPrefix(raw: string): string | null {
  const withSlash = raw.endsWith('/') ? raw : `${raw}/`;
  if (!PREFIX.test(withSlash)) return null;
  if (withSlash.split('/').some((segment) => segment === '.' || segment === '..')) return null;
  return withSlash;
}

/**
 * The X-Accel-Redirect value for an absolute real path: the prefix, then every path segment
 * percent-encoded. nginx decodes the URI before it maps it through the location's alias, so a name
 * with spaces, `%`, `?`, `#` or non-ASCII letters reaches the same file; a path with an empty, `.`
 * or `..` segment is refused (nginx would refuse it too), as is a relative one.
 */
export function accelRedirectUri(prefix: string, absolutePath: string): string {
  if (!absolutePath.startsWith('/')) throw new Error(`not an absolute path: ${absolutePath}`);
  const segments = absolutePath.slice(1).split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..')) {
    throw new Error(`not a normalised path: ${absolutePath}`);
  }
  return prefix + segments.map((s) => encodeURIComponent(s)).join('/');
}
