/**
 * Conditional requests (RFC 9110 §13), pure: parse entity-tag lists and HTTP dates, compare
 * validators, and evaluate the preconditions of a request in the RFC's order (§13.2.2). Every
 * byte-serving route asks `evaluatePreconditions` once and acts on the outcome; no I/O here.
 */

/** The validators of the selected representation; `null` where it has none (a growing file). */
export interface Validators {
  /** The quoted entity-tag as sent in `ETag` (`"…"` strong or `W/"…"` weak). */
  etag: string | null;
  lastModified: Date | null;
}

/** The request header fields that take part; Node's `IncomingHttpHeaders` fits. */
export interface ConditionalHeaders {
  'if-match'?: string | readonly string[] | undefined;
  'if-unmodified-since'?: string | readonly string[] | undefined;
  'if-none-match'?: string | readonly string[] | undefined;
  'if-modified-since'?: string | readonly string[] | undefined;
  'if-range'?: string | readonly string[] | undefined;
  range?: string | readonly string[] | undefined;
}

/**
 * What to do with the request.
 * - `not_modified`: answer 304 with the validators and Cache-Control, no body.
 * - `precondition_failed`: answer 412; `field` names the header that failed.
 * - `proceed`: answer as usual; `range` is the `Range` value to honour, or undefined to send the
 *   whole representation (no Range, a method other than GET, or an If-Range that does not match).
 */
export type PreconditionOutcome =
  | { kind: 'not_modified' }
  | { kind: 'precondition_failed'; field: 'If-Match' | 'If-Unmodified-Since' | 'If-None-Match' }
  | { kind: 'proceed'; range: string | undefined };

export interface EntityTag {
  weak: boolean;
  opaque: string;
}

/** `etagc` (RFC 9110 §8.8.3): %x21 / %x23-7E / obs-text — anything visible but a double quote. */
const ETAGC = /^[\x21\x23-\x7e\x80-\xff]*$/;

/** One `entity-tag` (`"x"` or `W/"x"`, surrounding whitespace allowed), or null if malformed. */
export function parseEntityTag(text: string): EntityTag | null {
  const value = text.trim();
  const weak = value.startsWith('W/');
  const quoted = weak ? value.slice(2) : value;
  if (quoted.length < 2 || !quoted.startsWith('"') || !quoted.endsWith('"')) return null;
  const opaque = quoted.slice(1, -1);
  return ETAGC.test(opaque) ? { weak, opaque } : null;
}

/**
 * An `If-Match` / `If-None-Match` value: `*`, or the well-formed entity-tags of the list. The list
 * is split on commas outside quotes (an opaque tag may hold a comma); a malformed member is skipped,
 * so it matches nothing. A repeated header (an array) is one list, as RFC 9110 §5.3 says.
 */
export function parseEntityTagList(field: string | readonly string[]): '*' | EntityTag[] {
  const text = typeof field === 'string' ? field : field.join(', ');
  if (text.trim() === '*') return '*';
  const tags: EntityTag[] = [];
  let member = '';
  let quoted = false;
  for (const char of `${text},`) {
    if (char === '"') quoted = !quoted;
    if (char === ',' && !quoted) {
      const tag = member.trim() === '' ? null : parseEntityTag(member);
      if (tag !== null) tags.push(tag);
      member = '';
    } else {
      member += char;
    }
  }
  return tags;
}

/** Strong comparison (§8.8.3.2): both strong and the same opaque tag. */
export function strongMatch(a: EntityTag, b: EntityTag): boolean {
  return !a.weak && !b.weak && a.opaque === b.opaque;
}

/** Weak comparison (§8.8.3.2): the same opaque tag, weak or not. */
export function weakMatch(a: EntityTag, b: EntityTag): boolean {
  return a.opaque === b.opaque;
}

const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const LONG_DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const IMF_FIXDATE = /^([A-Za-z]{3}), (\d{2}) ([A-Za-z]{3}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const RFC850_DATE = /^([A-Za-z]{6,9}), (\d{2})-([A-Za-z]{3})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const ASCTIME_DATE = /^([A-Za-z]{3}) ([A-Za-z]{3}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;

/** Milliseconds for the parts of a date, or null when a part is out of range (31 Feb, 25:00…). */
function utc(
  dayName: string,
  names: readonly string[],
  day: string,
  month: string,
  year: number,
  clock: [string, string, string],
): number | null {
  const monthIndex = MONTHS.indexOf(month.toLowerCase());
  const weekday = names.indexOf(dayName.toLowerCase());
  const [hours, minutes, seconds] = clock.map(Number) as [number, number, number];
  const dayOfMonth = Number(day.trim());
  if (monthIndex < 0 || weekday < 0 || hours > 23 || minutes > 59 || seconds > 60) return null;
  const time = Date.UTC(year, monthIndex, dayOfMonth, hours, minutes, Math.min(seconds, 59));
  const date = new Date(time);
  // A day that does not exist in the month rolls over; a wrong weekday means a wrong date.
  if (date.getUTCDate() !== dayOfMonth || date.getUTCDay() !== weekday) return null;
  return time;
}

/**
 * An HTTP-date (RFC 9110 §5.6.7) in milliseconds, or null: IMF-fixdate
 * (`Sun, 06 Nov 1994 08:49:37 GMT`) and the obsolete RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`)
 * and asctime (`Sun Nov  6 08:49:37 1994`, GMT by definition) forms. Day and month names are read
 * without regard to case; anything else (ISO 8601, a numeric zone, a wrong weekday) is not a date.
 * A two-digit year is 19xx from 70 on and 20xx below (the POSIX pivot: pure, no clock).
 */
export function parseHttpDate(value: string): number | null {
  const text = value.trim();
  let match = IMF_FIXDATE.exec(text);
  if (match !== null) {
    const [, dayName = '', day = '', month = '', year = '', h = '', m = '', s = ''] = match;
    return utc(dayName, DAYS, day, month, Number(year), [h, m, s]);
  }
  match = RFC850_DATE.exec(text);
  if (match !== null) {
    const [, dayName = '', day = '', month = '', yy = '', h = '', m = '', s = ''] = match;
    const year = Number(yy) >= 70 ? 1900 + Number(yy) : 2000 + Number(yy);
    return utc(dayName, LONG_DAYS, day, month, year, [h, m, s]);
  }
  match = ASCTIME_DATE.exec(text);
  if (match !== null) {
    const [, dayName = '', month = '', day = '', h = '', m = '', s = '', year = ''] = match;
    return utc(dayName, DAYS, day, month, Number(year), [h, m, s]);
  }
  return null;
}

/** One value of a field that must not repeat (a date, If-Range), or undefined. */
function single(field: string | readonly string[] | undefined): string | undefined {
  if (field === undefined || typeof field === 'string') return field;
  return field.length === 1 ? field[0] : undefined;
}

/** A date field as whole seconds, or null when absent, repeated or not an HTTP-date. */
function dateSeconds(field: string | readonly string[] | undefined): number | null {
  const value = single(field);
  const time = value === undefined ? null : parseHttpDate(value);
  return time === null ? null : Math.floor(time / 1000);
}

/** `Last-Modified` is sent with one-second precision, so it is compared at that precision. */
function secondsOf(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}

/**
 * Whether a Range may be honoured under `If-Range` (RFC 9110 §13.1.5): true when there is no
 * If-Range, when it is the current ETag by strong comparison (a weak tag on either side never
 * matches), or when it is an HTTP-date exactly equal to `lastModified` (at second precision).
 * Anything else is false: the whole representation is sent with 200. A repeated header counts
 * only when it holds one value.
 */
export function ifRangeAllows(
  ifRange: string | readonly string[] | undefined,
  etag: string | null,
  lastModified: Date | null,
): boolean {
  if (ifRange === undefined) return true;
  const value = single(ifRange)?.trim();
  if (value === undefined || value === '') return false;
  if (value.startsWith('"') || value.startsWith('W/')) {
    const asked = parseEntityTag(value);
    const current = etag === null ? null : parseEntityTag(etag);
    return asked !== null && current !== null && strongMatch(asked, current);
  }
  const time = parseHttpDate(value);
  if (time === null || lastModified === null) return false;
  return Math.floor(time / 1000) === secondsOf(lastModified);
}

/** Whether any tag of the field matches the current one; `*` matches any current representation. */
function anyTagMatches(
  field: string | readonly string[],
  current: EntityTag | null,
  compare: (a: EntityTag, b: EntityTag) => boolean,
): boolean {
  const tags = parseEntityTagList(field);
  if (tags === '*') return true;
  return current !== null && tags.some((tag) => compare(tag, current));
}

/**
 * Evaluates the preconditions of a request for a representation that exists, in the order of
 * RFC 9110 §13.2.2:
 * 1. `If-Match` (strong comparison; `*` is true): false → 412.
 * 2. Without If-Match, `If-Unmodified-Since` (a valid date): modified after it → 412; ignored
 *    for a representation with no Last-Modified (§13.1.4: "MUST ignore").
 * 3. `If-None-Match` (weak comparison; `*` is true): a match → 304 on GET/HEAD, else 412.
 * 4. Without If-None-Match, on GET/HEAD, `If-Modified-Since` (a valid date): not modified since
 *    → 304. An invalid or repeated date is ignored, as is a representation with no Last-Modified.
 * 5. On GET only, `Range` is honoured when `If-Range` allows it; HEAD and other methods ignore
 *    Range (§14.2), so HEAD answers exactly as a GET without Range would.
 * The 304 wins over a Range: a client whose copy is current gets no body at all.
 */
export function evaluatePreconditions(
  method: string,
  headers: ConditionalHeaders,
  current: Validators,
): PreconditionOutcome {
  const verb = method.toUpperCase();
  const safe = verb === 'GET' || verb === 'HEAD';
  const tag = current.etag === null ? null : parseEntityTag(current.etag);
  const modified = current.lastModified === null ? null : secondsOf(current.lastModified);

  const ifMatch = headers['if-match'];
  if (ifMatch !== undefined) {
    if (!anyTagMatches(ifMatch, tag, strongMatch)) return { kind: 'precondition_failed', field: 'If-Match' };
  } else {
    const unmodifiedSince = dateSeconds(headers['if-unmodified-since']);
    if (unmodifiedSince !== null && modified !== null && modified > unmodifiedSince) {
      return { kind: 'precondition_failed', field: 'If-Unmodified-Since' };
    }
  }

  const ifNoneMatch = headers['if-none-match'];
  if (ifNoneMatch !== undefined) {
    if (anyTagMatches(ifNoneMatch, tag, weakMatch)) {
      return safe ? { kind: 'not_modified' } : { kind: 'precondition_failed', field: 'If-None-Match' };
    }
  } else if (safe && modified !== null) {
    const modifiedSince = dateSeconds(headers['if-modified-since']);
    if (modifiedSince !== null && modified <= modifiedSince) return { kind: 'not_modified' };
  }

  const range = single(headers.range);
  if (verb !== 'GET' || range === undefined) return { kind: 'proceed', range: undefined };
  const allowed = ifRangeAllows(headers['if-range'], current.etag, current.lastModified);
  return { kind: 'proceed', range: allowed ? range : undefined };
}
