/**
 * @module import-export/fields
 * Value rules shared by the CSV importer and the JSON format: what a title, year, id, format, barcode,
 * binder, slot or yes/no cell may hold, and the formula-injection escape of CSV cells.
 * Limits follow the request schemas of the movie routes (server/src/http/schemas.ts).
 */
import { quoted } from './excerpt.ts';
import { type BarcodeNormalizer, DISC_FORMATS, type DiscFormat } from './types.ts';

export const LIMITS = {
  title: 500,
  edition: 200,
  binder: 100,
  slot: 20,
  notes: 2000,
  overview: 20000,
  label: 500,
  yearMin: 1870,
  yearMax: 2100,
  idMax: 2147483647,
  runtimeMax: 6000,
} as const;

/** A parsed cell: its value (null = empty), or why it cannot be read. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
const fail = <T>(message: string): Parsed<T> => ({ ok: false, message });

/**
 * Cells that a spreadsheet would run as a formula start with one of these (OWASP "CSV Injection"):
 * `=`, `+`, `-`, `@`, tab, carriage return.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
/** A cell that needs the escape: any number of single quotes, then a formula character. */
const NEEDS_ESCAPE = /^'*[=+\-@\t\r]/;
/** A cell that carries the escape: at least one single quote, then a formula character. */
const CARRIES_ESCAPE = /^'+[=+\-@\t\r]/;

/**
 * Neutralises a CSV cell that a spreadsheet would evaluate: prefixes one `'` when the cell, after any
 * leading single quotes, starts with `=`, `+`, `-`, `@`, tab or CR. Counting the leading quotes makes
 * the escape reversible: `'-1` is written `''-1` and reads back as `'-1`.
 * @example escapeFormula('=HYPERLINK("x")') === "'=HYPERLINK(\"x\")"
 * @example escapeFormula("'Til Death") === "'Til Death"
 */
export function escapeFormula(cell: string): string {
  return NEEDS_ESCAPE.test(cell) ? `'${cell}` : cell;
}

/**
 * The inverse of {@link escapeFormula}: drops one leading `'` when more quotes and then a formula
 * character follow. A cell such as `'Til Death` (a quote, then ordinary text) is left alone.
 * @example unescapeFormula("'=1+1") === '=1+1'
 * @example unescapeFormula("'Til Death") === "'Til Death"
 */
export function unescapeFormula(cell: string): string {
  return CARRIES_ESCAPE.test(cell) ? cell.slice(1) : cell;
}

/** True when a spreadsheet would read the cell as a formula. */
export function looksLikeFormula(cell: string): boolean {
  return FORMULA_START.test(cell);
}

/** Length in Unicode code points (what JSON Schema `maxLength` counts). */
export function codePointLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/**
 * Free text: whitespace runs (newlines too) become one space, ends are trimmed; empty gives null.
 * Control characters other than whitespace are refused.
 */
export function parseText(raw: string, max: number): Parsed<string | null> {
  const trimmed = raw.trim();
  const text = /\s\s|[^\S ]/.test(trimmed) ? trimmed.replace(/\s+/g, ' ') : trimmed;
  if (text === '') return ok(null);
  if (/[\u0000-\u001f\u007f-\u009f]/.test(text)) return fail('contains control characters');
  // A string never has more code points than UTF-16 units: count only when it could be too long.
  if (text.length > max && codePointLength(text) > max) return fail(`is longer than ${max} characters`);
  return ok(text);
}

/** A required title, 1 to 500 characters. */
export function parseTitle(raw: string): Parsed<string> {
  const text = parseText(raw, LIMITS.title);
  if (!text.ok) return fail(`title ${text.message}`);
  if (text.value === null) return fail('title is empty: every row needs a title');
  return ok(text.value);
}

/**
 * A year 1870–2100. Accepts `1999`, `1999.0` (a spreadsheet number) and a date that holds exactly one
 * four-digit year (`1999-03-31`, `31/03/1999`, `Mar 31, 1999`), as a "Release Date" column does.
 */
export function parseYear(raw: string): Parsed<number | null> {
  const text = raw.trim();
  if (text === '') return ok(null);
  let year: number | null = null;
  const plain = /^(\d{4})(?:\.0+)?$/.exec(text);
  if (plain?.[1] !== undefined) {
    year = Number(plain[1]);
  } else if (/^[\p{L}\d\s,./:T+-]+$/u.test(text)) {
    const groups = text.match(/(?<!\d)\d{4}(?!\d)/g) ?? [];
    const only = groups.length === 1 ? groups[0] : undefined;
    if (only !== undefined && /[-/.,\s]/.test(text)) year = Number(only);
  }
  if (year === null) return fail(`${quoted(text)} is not a year (expected four digits such as 1999)`);
  if (year < LIMITS.yearMin || year > LIMITS.yearMax) {
    return fail(`${year} is not a year between ${LIMITS.yearMin} and ${LIMITS.yearMax}`);
  }
  return ok(year);
}

/** A TMDb movie id: a positive integer, `603.0`, or a themoviedb.org movie URL. */
export function parseTmdbId(raw: string): Parsed<number | null> {
  const text = raw.trim();
  if (text === '') return ok(null);
  const match =
    /^(\d+)(?:\.0+)?$/.exec(text) ??
    /^(?:https?:\/\/)?(?:www\.)?themoviedb\.org\/movie\/(\d+)(?:[-/?#].*)?$/i.exec(text);
  const digits = match?.[1];
  const id = digits === undefined ? NaN : Number(digits);
  if (!Number.isSafeInteger(id) || id < 1 || id > LIMITS.idMax) {
    return fail(`${quoted(text)} is not a TMDb id (a positive whole number such as 603)`);
  }
  return ok(id);
}

/**
 * An IMDb title id `tt` + 5–10 digits. Accepts upper case, an IMDb URL
 * (`https://www.imdb.com/title/tt0133093/`) and bare digits (padded to seven).
 */
export function parseImdbId(raw: string): Parsed<string | null> {
  const text = raw.trim();
  if (text === '') return ok(null);
  const fromUrl = /imdb\.com\/(?:[a-z]{2}\/)?title\/(tt\d+)/i.exec(text)?.[1];
  let id = (fromUrl ?? text).toLowerCase();
  if (/^\d{1,10}$/.test(id)) id = `tt${id.padStart(7, '0')}`;
  if (!/^tt\d{5,10}$/.test(id)) {
    return fail(
      `${quoted(text)} is not an IMDb id (tt followed by digits, such as tt0133093, or an IMDb URL)`,
    );
  }
  return ok(id);
}

/**
 * Reads a disc format the way collectors write it and returns one of {@link DISC_FORMATS}. Combos
 * resolve to the best disc ("4K Ultra HD + Blu-ray" → 4K UHD, "Blu-ray + DVD" → Blu-ray,
 * metadata.md §3.4). `known` is false when the text named no format we know: the value is then `Other`.
 * @example parseFormat('Blu-ray Disc') // { ok: true, value: { format: 'Blu-ray', known: true } }
 */
export function parseFormat(raw: string): Parsed<{ format: DiscFormat; known: boolean } | null> {
  const text = raw.trim();
  if (text === '') return ok(null);
  const exact = DISC_FORMATS.find((f) => f === text);
  if (exact !== undefined) return ok({ format: exact, known: true });
  const key = ` ${text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()} `;
  const format = formatOfKey(key);
  return ok(format === null ? { format: 'Other', known: false } : { format, known: true });
}

function formatOfKey(key: string): DiscFormat | null {
  const compact = key.replace(/ /g, '');
  if (compact.includes('hddvd')) return 'HD DVD';
  if (/ (4k|uhd|2160p)/.test(key) || compact.includes('ultrahd') || compact.includes('4kuhd'))
    return '4K UHD';
  const bluRay = compact.includes('bluray') || / (bd|bd50|bd25|bdr) /.test(key);
  if (/ 3 ?d /.test(key) && (bluRay || !/ dvd/.test(key))) return '3D Blu-ray';
  if (bluRay) return 'Blu-ray';
  if (/ dvd/.test(key)) return 'DVD';
  if (/ vhs /.test(key)) return 'VHS';
  if (compact.includes('laserdisc') || / ld /.test(key)) return 'LaserDisc';
  if (key === ' other ') return 'Other';
  return null;
}

/**
 * A barcode cell as spreadsheets leave it: spaces and dashes dropped, a `.0` suffix removed, an 11-digit
 * UPC-A whose leading zero was lost re-padded; then checked by `normalize`. Scientific notation
 * (`4.00638E+12`) is refused: the digits are gone.
 */
export function parseBarcodeCell(raw: string, normalize: BarcodeNormalizer): Parsed<string | null> {
  const text = raw.trim();
  if (text === '') return ok(null);
  if (/^\d+(?:[.,]\d+)?e\+?\d+$/i.test(text)) {
    return fail(
      `${quoted(text)} is a barcode a spreadsheet turned into a number (its digits are lost): format the column as text and export again`,
    );
  }
  let digits = text.replace(/[\s-]+/g, '').replace(/^(\d+)\.0+$/, '$1');
  if (/^\d{11}$/.test(digits)) digits = `0${digits}`;
  const checked = normalize(digits);
  return checked.ok ? ok(checked.barcode) : fail(checked.message);
}

const YES = new Set(['yes', 'y', 'true', 't', '1', 'x', '✓', '✔', 'on', 'watched', 'seen']);
const NO = new Set(['no', 'n', 'false', 'f', '0', 'off', 'unwatched', 'not watched', 'unseen', 'not seen']);

/** yes/no, true/false, 1/0, x, y/n (any case); empty gives null. */
export function parseYesNo(raw: string): Parsed<boolean | null> {
  const text = raw.trim().toLowerCase().replace(/\s+/g, ' ');
  if (text === '') return ok(null);
  if (YES.has(text)) return ok(true);
  if (NO.has(text)) return ok(false);
  return fail(`${quoted(raw.trim())} is not yes or no (accepted: yes/no, true/false, 1/0, x)`);
}

/** Like {@link parseYesNo}, and a date (the day it was watched, as in a Letterboxd diary) means yes. */
export function parseWatched(raw: string): Parsed<boolean | null> {
  const yesNo = parseYesNo(raw);
  if (yesNo.ok) return yesNo;
  if (looksLikeDate(raw.trim())) return ok(true);
  return fail(
    `${quoted(raw.trim())} is not yes, no or a date (accepted: yes/no, true/false, 1/0, x, a date)`,
  );
}

function looksLikeDate(text: string): boolean {
  if (/^\d{4}[-/.]\d{1,2}[-/.]\d{1,2}(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/.test(text)) return true;
  if (/^\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}(?: [\d:.]+(?: ?[ap]m)?)?$/i.test(text)) return true;
  return /^(?:\d{1,2} )?[a-z]{3,9}\.? (?:\d{1,2},? )?\d{4}$/i.test(text) && !Number.isNaN(Date.parse(text));
}

/** Compares strings by UTF-16 code units: the same order on every machine and locale. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Nullable strings: values first, nulls last. */
export function compareNullableText(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return compareText(a, b);
}

/** Nullable numbers: ascending, nulls last. */
export function compareNullableNumber(a: number | null, b: number | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a - b;
}

/** Slots: numeric slots by value (2 before 10), then other slots by text; nulls last. */
export function compareSlots(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  const na = /^\d+$/.test(a) ? Number(a) : null;
  const nb = /^\d+$/.test(b) ? Number(b) : null;
  if (na !== null && nb !== null && na !== nb) return na - nb;
  if (na !== null && nb === null) return -1;
  if (na === null && nb !== null) return 1;
  return compareText(a, b);
}
