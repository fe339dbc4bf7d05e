/**
 * @module database-copy/target-url
 * The `--to` of `reelshelf migrate-database`: which URLs are accepted, and how one is shown (never
 * with its password).
 */

export type TargetUrlCheck =
  { ok: true; url: string; shown: string } | { ok: false; message: string; hint: string };

const EXAMPLE = 'postgres://user:password@host:5432/database';

/** The URL with its password (and only it) replaced by `***`; what is not a URL is cut at the scheme. */
export function redactUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.password !== '') url.password = '***';
    return url.href;
  } catch {
    // Not a URL: whatever follows `//` may hold a secret.
    return raw.replace(/\/\/.*$/s, '//…');
  }
}

/**
 * `text` with every form of the URL's password (as written and percent-decoded) replaced by `***`:
 * for messages from drivers and servers, which may quote what they were given.
 */
export function withoutPassword(text: string, raw: string): string {
  let password = '';
  try {
    password = new URL(raw).password;
  } catch {
    return text.split(raw).join(redactUrl(raw));
  }
  if (password === '') return text;
  let decoded = password;
  try {
    decoded = decodeURIComponent(password);
  } catch {
    // a malformed escape: the raw form is all there is
  }
  let out = text.split(raw).join(redactUrl(raw));
  for (const secret of new Set([password, decoded])) if (secret !== '') out = out.split(secret).join('***');
  return out;
}

/** Checks the `--to` value: a PostgreSQL URL that names a database. */
export function checkTargetUrl(raw: string | undefined): TargetUrlCheck {
  if (raw === undefined || raw.trim() === '') {
    return {
      ok: false,
      message: 'migrate-database needs --to: the PostgreSQL database to move the library into',
      hint: `reelshelf migrate-database --to ${EXAMPLE}`,
    };
  }
  const shown = redactUrl(raw);
  if (!/^postgres(ql)?:\/\//i.test(raw)) {
    return {
      ok: false,
      message: `--to ${shown} is not a PostgreSQL URL: only postgres:// or postgresql:// can be migrated to`,
      hint: `e.g. --to ${EXAMPLE}`,
    };
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, message: `--to ${shown} is not a valid URL`, hint: `e.g. --to ${EXAMPLE}` };
  }
  if (url.hostname === '' && !url.searchParams.has('host')) {
    return { ok: false, message: `--to ${shown} names no host`, hint: `e.g. --to ${EXAMPLE}` };
  }
  if (url.pathname === '' || url.pathname === '/') {
    return {
      ok: false,
      message: `--to ${shown} names no database`,
      hint: `create an empty one (createdb reelshelf) and name it: ${EXAMPLE}`,
    };
  }
  return { ok: true, url: raw, shown };
}
