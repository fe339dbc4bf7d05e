/**
 * @module import-export/json-format
 * The versioned JSON export (GET /api/export?format=json) and import (POST /api/import with
 * application/json): one document that carries everything a library holds that is not derived from the
 * media files themselves (analysis results, playback artifacts and downloaded artwork files are rebuilt).
 *
 * Rendering is deterministic — importing an export into an empty library and exporting again gives the
 * same bytes:
 * - every object is written with its keys in the order of the interfaces below;
 * - two-space indent, LF line ends, a final newline, no timestamps or database ids;
 * - arrays that are sets are sorted (code-unit order, empty values last; ties broken by the item's own
 *   rendered JSON, so equal keys still sort the same whatever the input order):
 *   movies by normalised title, year, TMDb id, IMDb id, title; editions by format, label, barcode,
 *   region; copies by binder, slot (numbers by value), notes; media files by root, relative path;
 *   ratings by source; studios by name; collections by name; library roots by path; binders by name;
 *   wishes by normalised title, year, TMDb id, title (`wishes` is written only when there are some,
 *   so the exports of a library without wishes keep their bytes);
 * - arrays whose order means something are kept as given: `genres` (as stored), `cast` and `directors`
 *   (billing order, person_movie.sort_order).
 */
import { MAX_SLOTS_PER_PAGE } from '../binders.ts';
import { borrowerName, isCalendarDate, MAX_BORROWER_LENGTH } from '../loans.ts';
import { normalizeTitle } from '../titles.ts';
import {
  LIMITS,
  codePointLength,
  compareNullableNumber,
  compareNullableText,
  compareSlots,
  compareText,
  parseFormat,
} from './fields.ts';
import type { CsvExportRow } from './csv-export.ts';
import { checkBarcode } from './barcode-check.ts';
import type { BarcodeNormalizer, ImportRow, RowError } from './types.ts';

export const EXPORT_FORMAT_VERSION = 1;

/** The whole document. */
export interface LibraryExport {
  format_version: 1;
  movies: ExportMovie[];
  collections: ExportCollection[];
  library_roots: ExportRoot[];
  binders: ExportBinder[];
  /** The wish list (issue 27; docs/collector.md "Wish list"); absent when empty. */
  wishes?: ExportWish[];
}

/** A film wished for: no id or timestamp, like every other item of the document. */
export interface ExportWish {
  title: string;
  year: number | null;
  tmdb_id: number | null;
  note: string | null;
}

export interface ExportCollection {
  name: string;
}

export interface ExportRoot {
  /** Absolute directory path on the server. */
  path: string;
  name: string;
  /** Name of one of `collections`, or null. */
  collection: string | null;
}

export interface ExportBinder {
  name: string;
  capacity: number;
  /** Slots per drawn page (issue 27); written only when not the default 8, so older exports stay the same bytes. */
  slots_per_page?: number;
}

export interface ExportRating {
  /** e.g. `tmdb`, `imdb`, `rotten_tomatoes`; one rating per source. */
  source: string;
  value: string;
}

export interface ExportArtworkSide {
  state: string;
  source: string | null;
}

export interface ExportArtwork {
  poster: ExportArtworkSide;
  backdrop: ExportArtworkSide;
}

export interface ExportCopy {
  binder: string | null;
  slot: string | null;
  notes: string | null;
  /** The copy's loans, oldest first (issue 27); the key is absent when it was never lent. */
  loans?: ExportLoan[];
}

/** A loan of a copy: to whom, since when (ISO-8601 UTC), due back (`YYYY-MM-DD`), returned (null: out). */
export interface ExportLoan {
  to: string;
  lent_at: string;
  due: string | null;
  returned_at: string | null;
}

export interface ExportEdition {
  label: string | null;
  format: string | null;
  barcode: string | null;
  region: string | null;
  copies: ExportCopy[];
}

export interface ExportWatch {
  position_seconds: number;
  watched: boolean;
}

export interface ExportMediaFile {
  /** The library root's path (preferred) or name; one of `library_roots` when the document lists any. */
  root: string;
  /** Path inside the root, `/`-separated, never absolute, never `..`. */
  relative_path: string;
  fingerprint: string | null;
  size_bytes: number;
  edition_label: string | null;
  /** 0-based index into this movie's `editions` (as rendered, i.e. after sorting), or null. */
  edition_index: number | null;
  watch: ExportWatch | null;
}

export interface ExportMovie {
  title: string;
  original_title: string | null;
  year: number | null;
  overview: string | null;
  tagline: string | null;
  runtime_minutes: number | null;
  tmdb_id: number | null;
  imdb_id: string | null;
  genres: string[];
  tmdb_collection: { id: number; name: string | null } | null;
  /** The movie's own binder (movies.binder_id), if any. */
  binder: string | null;
  has_digital_store_a: boolean;
  has_digital_store_b: boolean;
  watched: boolean;
  ratings: ExportRating[];
  directors: string[];
  cast: string[];
  studios: string[];
  artwork: ExportArtwork | null;
  editions: ExportEdition[];
  /** Physical copies that belong to no edition. */
  copies: ExportCopy[];
  media_files: ExportMediaFile[];
}

export interface JsonImportOptions {
  /** Barcode rules; defaults to {@link checkBarcode}. */
  normalizeBarcode?: BarcodeNormalizer;
}

export type LibraryExportValidation = { ok: true; value: LibraryExport } | { ok: false; errors: RowError[] };

// ---------------------------------------------------------------------------------------------------
// Validation

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Collects errors for one row (movie item, or 0 for the document) under a path prefix. */
class Reader {
  constructor(
    readonly errors: RowError[],
    readonly row: number,
    readonly prefix: string,
  ) {}

  at(segment: string | number): Reader {
    return new Reader(this.errors, this.row, this.path(segment));
  }

  path(segment: string | number): string {
    return this.prefix === '' ? String(segment) : `${this.prefix}/${segment}`;
  }

  fail(segment: string | number | null, message: string): void {
    this.errors.push({
      row: this.row,
      field: segment === null ? this.prefix || 'document' : this.path(segment),
      message,
    });
  }

  object(value: unknown, allowed: readonly string[]): Json | null {
    if (!isObject(value)) {
      this.fail(null, 'must be an object');
      return null;
    }
    for (const key of Object.keys(value)) {
      if (!allowed.includes(key))
        this.fail(key, `unknown field (format_version ${EXPORT_FORMAT_VERSION} has ${allowed.join(', ')})`);
    }
    return value;
  }

  text(obj: Json, key: string, max: number): string | null {
    const value = obj[key];
    if (value === undefined || value === null) return null;
    if (typeof value !== 'string') {
      this.fail(key, 'must be a string or null');
      return null;
    }
    if (codePointLength(value) > max) {
      this.fail(key, `is longer than ${max} characters`);
      return null;
    }
    return value;
  }

  requiredText(obj: Json, key: string, max: number): string {
    const value = obj[key];
    if (typeof value !== 'string' || value.trim() === '') {
      this.fail(key, value === undefined ? 'is missing' : 'must be a non-empty string');
      return '';
    }
    return this.text(obj, key, max) ?? '';
  }

  integer(obj: Json, key: string, min: number, max: number): number | null {
    const value = obj[key];
    if (value === undefined || value === null) return null;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      this.fail(key, `must be a whole number from ${min} to ${max}, or null`);
      return null;
    }
    return value;
  }

  boolean(obj: Json, key: string): boolean {
    const value = obj[key];
    if (value === undefined) return false;
    if (typeof value !== 'boolean') {
      this.fail(key, 'must be true or false');
      return false;
    }
    return value;
  }

  array(obj: Json, key: string): unknown[] {
    const value = obj[key];
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) {
      this.fail(key, 'must be an array');
      return [];
    }
    return value;
  }

  names(obj: Json, key: string): string[] {
    const out: string[] = [];
    this.array(obj, key).forEach((item, i) => {
      if (typeof item !== 'string' || item.trim() === '' || codePointLength(item) > LIMITS.label) {
        this.at(key).fail(i, `must be a non-empty string of at most ${LIMITS.label} characters`);
      } else out.push(item);
    });
    return out;
  }
}

const DOCUMENT_KEYS = [
  'format_version',
  'movies',
  'collections',
  'library_roots',
  'binders',
  'wishes',
] as const;
const MOVIE_KEYS: readonly (keyof ExportMovie)[] = [
  'title',
  'original_title',
  'year',
  'overview',
  'tagline',
  'runtime_minutes',
  'tmdb_id',
  'imdb_id',
  'genres',
  'tmdb_collection',
  'binder',
  'has_digital_store_a',
  'has_digital_store_b',
  'watched',
  'ratings',
  'directors',
  'cast',
  'studios',
  'artwork',
  'editions',
  'copies',
  'media_files',
];
const EDITION_KEYS: readonly (keyof ExportEdition)[] = ['label', 'format', 'barcode', 'region', 'copies'];
const COPY_KEYS: readonly (keyof ExportCopy)[] = ['binder', 'slot', 'notes', 'loans'];
const LOAN_KEYS: readonly (keyof ExportLoan)[] = ['to', 'lent_at', 'due', 'returned_at'];
/** An instant as the database stores it (`Date.prototype.toISOString`). */
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const MEDIA_FILE_KEYS: readonly (keyof ExportMediaFile)[] = [
  'root',
  'relative_path',
  'fingerprint',
  'size_bytes',
  'edition_label',
  'edition_index',
  'watch',
];

/** Where a unique value was first seen: movie item (1-based) and JSON path. */
interface Seen {
  row: number;
  field: string;
}

interface CrossChecks {
  tmdb: Map<number, Seen>;
  barcodes: Map<string, Seen>;
  slots: Map<string, Seen>;
  files: Map<string, Seen>;
  rootNames: Set<string> | null;
  normalizeBarcode: BarcodeNormalizer;
}

/**
 * Checks an uploaded JSON document against format_version 1 and returns it with defaults filled in
 * (missing arrays → [], missing flags → false, missing values → null). Every problem is listed.
 * Unknown fields are errors (a typo would silently drop data). Besides types and ranges it refuses what
 * the database cannot hold: a TMDb id or barcode on two items, two copies in one binder slot, a slot
 * without a binder, one file twice, a media file outside the listed library roots or with `..` in its path.
 * @param value the parsed request body
 * @returns `row` = 1-based movie item (0 outside `movies`), `field` = JSON path inside it
 * @example validateLibraryExport({ format_version: 1, movies: [{ title: 'Heat', year: 1995 }] })
 *   // { ok: true, value: { format_version: 1, movies: [{ title: 'Heat', year: 1995, …defaults }], … } }
 * @example validateLibraryExport({ format_version: 1, movies: [{ title: 'Heat', editions: [{ copies: [{ slot: '3' }] }] }] })
 *   // { ok: false, errors: [{ row: 1, field: 'editions/0/copies/0/slot', message: 'slot 3 needs a binder' }] }
 */
export function validateLibraryExport(
  value: unknown,
  options: JsonImportOptions = {},
): LibraryExportValidation {
  const errors: RowError[] = [];
  const top = new Reader(errors, 0, '');
  if (!isObject(value)) {
    return {
      ok: false,
      errors: [
        { row: 0, field: 'document', message: 'must be a JSON object with format_version and movies' },
      ],
    };
  }
  const doc = top.object(value, DOCUMENT_KEYS) ?? {};
  if (doc.format_version !== EXPORT_FORMAT_VERSION) {
    top.fail(
      'format_version',
      doc.format_version === undefined
        ? `is missing (this server reads format_version ${EXPORT_FORMAT_VERSION})`
        : `${JSON.stringify(doc.format_version)} is not supported (this server reads format_version ${EXPORT_FORMAT_VERSION})`,
    );
  }
  if (!Array.isArray(doc.movies))
    top.fail('movies', doc.movies === undefined ? 'is missing' : 'must be an array');

  const collections = readCollections(top, doc);
  const roots = readRoots(top, doc, collections);
  const binders = readBinders(top, doc);
  const wishes = readWishes(top, doc);

  const checks: CrossChecks = {
    tmdb: new Map(),
    barcodes: new Map(),
    slots: new Map(),
    files: new Map(),
    rootNames: roots.length > 0 ? new Set(roots.flatMap((r) => [r.path, r.name])) : null,
    normalizeBarcode: options.normalizeBarcode ?? checkBarcode,
  };
  const movies: ExportMovie[] = [];
  (Array.isArray(doc.movies) ? doc.movies : []).forEach((item, i) => {
    const movie = readMovie(new Reader(errors, i + 1, ''), item, checks);
    if (movie !== null) movies.push(movie);
  });

  if (errors.length > 0) return { ok: false, errors: errors.sort((a, b) => a.row - b.row) };
  return {
    ok: true,
    value: {
      format_version: EXPORT_FORMAT_VERSION,
      movies,
      collections,
      library_roots: roots,
      binders,
      ...(wishes.length === 0 ? {} : { wishes }),
    },
  };
}

function readCollections(top: Reader, doc: Json): ExportCollection[] {
  const out: ExportCollection[] = [];
  const seen = new Set<string>();
  top.array(doc, 'collections').forEach((item, i) => {
    const r = top.at('collections').at(i);
    const obj = r.object(item, ['name']);
    if (obj === null) return;
    const name = r.requiredText(obj, 'name', LIMITS.label);
    if (name === '') return;
    if (seen.has(name)) r.fail('name', `collection "${name}" is listed twice`);
    seen.add(name);
    out.push({ name });
  });
  return out;
}

function readRoots(top: Reader, doc: Json, collections: ExportCollection[]): ExportRoot[] {
  const out: ExportRoot[] = [];
  const seen = new Set<string>();
  const names = new Set(collections.map((c) => c.name));
  top.array(doc, 'library_roots').forEach((item, i) => {
    const r = top.at('library_roots').at(i);
    const obj = r.object(item, ['path', 'name', 'collection']);
    if (obj === null) return;
    const path = r.requiredText(obj, 'path', 4096);
    const name = r.requiredText(obj, 'name', LIMITS.label);
    const collection = r.text(obj, 'collection', LIMITS.label);
    if (path !== '' && !isAbsolutePath(path)) r.fail('path', `"${path}" is not an absolute path`);
    if (seen.has(path)) r.fail('path', `library root "${path}" is listed twice`);
    seen.add(path);
    if (collection !== null && !names.has(collection))
      r.fail('collection', `"${collection}" is not in collections`);
    out.push({ path, name, collection });
  });
  return out;
}

function readBinders(top: Reader, doc: Json): ExportBinder[] {
  const out: ExportBinder[] = [];
  const seen = new Set<string>();
  top.array(doc, 'binders').forEach((item, i) => {
    const r = top.at('binders').at(i);
    const obj = r.object(item, ['name', 'capacity', 'slots_per_page']);
    if (obj === null) return;
    const name = r.requiredText(obj, 'name', LIMITS.binder);
    const capacity = r.integer(obj, 'capacity', 1, 100000);
    if (capacity === null && obj.capacity === undefined) r.fail('capacity', 'is missing');
    const perPage =
      obj.slots_per_page === undefined ? null : r.integer(obj, 'slots_per_page', 1, MAX_SLOTS_PER_PAGE);
    if (seen.has(name)) r.fail('name', `binder "${name}" is listed twice`);
    seen.add(name);
    out.push({ name, capacity: capacity ?? 0, ...(perPage === null ? {} : { slots_per_page: perPage }) });
  });
  return out;
}

/** The wishes: one per TMDb id and one per normalised title + year (the table's unique indexes). */
function readWishes(top: Reader, doc: Json): ExportWish[] {
  const out: ExportWish[] = [];
  const ids = new Set<number>();
  const titles = new Set<string>();
  top.array(doc, 'wishes').forEach((item, i) => {
    const r = top.at('wishes').at(i);
    const obj = r.object(item, ['title', 'year', 'tmdb_id', 'note']);
    if (obj === null) return;
    const title = r.requiredText(obj, 'title', LIMITS.title);
    const year = r.integer(obj, 'year', LIMITS.yearMin, LIMITS.yearMax);
    const tmdbId = r.integer(obj, 'tmdb_id', 1, LIMITS.idMax);
    const note = r.text(obj, 'note', LIMITS.notes);
    const key = `${normalizeTitle(title)}\u0000${year ?? 0}`;
    if (tmdbId !== null && ids.has(tmdbId)) r.fail('tmdb_id', `TMDb id ${tmdbId} is wished twice`);
    if (titles.has(key)) r.fail('title', `"${title}"${year === null ? '' : ` (${year})`} is wished twice`);
    if (tmdbId !== null) ids.add(tmdbId);
    titles.add(key);
    out.push({ title, year, tmdb_id: tmdbId, note });
  });
  return out;
}

function isAbsolutePath(path: string): boolean {
  return path.startsWith('/') || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith('\\\\');
}

function readMovie(r: Reader, item: unknown, checks: CrossChecks): ExportMovie | null {
  const obj = r.object(item, MOVIE_KEYS);
  if (obj === null) return null;
  const title = r.requiredText(obj, 'title', LIMITS.title);
  const tmdbId = r.integer(obj, 'tmdb_id', 1, LIMITS.idMax);
  if (tmdbId !== null) unique(r, checks.tmdb, tmdbId, 'tmdb_id', `tmdb_id ${tmdbId}`);
  const imdbId = r.text(obj, 'imdb_id', 12);
  if (imdbId !== null && !/^tt\d{5,10}$/.test(imdbId))
    r.fail('imdb_id', `"${imdbId}" is not an IMDb id (tt0133093)`);

  const editions = r.array(obj, 'editions').flatMap((e, i) => {
    const edition = readEdition(r.at('editions').at(i), e, checks);
    return edition === null ? [] : [edition];
  });
  const media = r.array(obj, 'media_files').flatMap((f, i) => {
    const file = readMediaFile(r.at('media_files').at(i), f, checks, editions.length);
    return file === null ? [] : [file];
  });
  return {
    title,
    original_title: r.text(obj, 'original_title', LIMITS.title),
    year: r.integer(obj, 'year', LIMITS.yearMin, LIMITS.yearMax),
    overview: r.text(obj, 'overview', LIMITS.overview),
    tagline: r.text(obj, 'tagline', LIMITS.label),
    runtime_minutes: r.integer(obj, 'runtime_minutes', 1, LIMITS.runtimeMax),
    tmdb_id: tmdbId,
    imdb_id: imdbId,
    genres: r.names(obj, 'genres'),
    tmdb_collection: readTmdbCollection(r, obj),
    binder: r.text(obj, 'binder', LIMITS.binder),
    has_digital_store_a: r.boolean(obj, 'has_digital_store_a'),
    has_digital_store_b: r.boolean(obj, 'has_digital_store_b'),
    watched: r.boolean(obj, 'watched'),
    ratings: readRatings(r, obj),
    directors: r.names(obj, 'directors'),
    cast: r.names(obj, 'cast'),
    studios: r.names(obj, 'studios'),
    artwork: readArtwork(r, obj),
    editions,
    copies: readCopies(r, obj, checks),
    media_files: media,
  };
}

function readTmdbCollection(r: Reader, obj: Json): ExportMovie['tmdb_collection'] {
  if (obj.tmdb_collection === undefined || obj.tmdb_collection === null) return null;
  const c = r.at('tmdb_collection');
  const o = c.object(obj.tmdb_collection, ['id', 'name']);
  if (o === null) return null;
  const id = c.integer(o, 'id', 1, LIMITS.idMax);
  if (id === null) {
    if (o.id === undefined || o.id === null) c.fail('id', 'is missing');
    return null;
  }
  return { id, name: c.text(o, 'name', LIMITS.label) };
}

function readRatings(r: Reader, obj: Json): ExportRating[] {
  const out: ExportRating[] = [];
  const sources = new Set<string>();
  r.array(obj, 'ratings').forEach((item, i) => {
    const c = r.at('ratings').at(i);
    const o = c.object(item, ['source', 'value']);
    if (o === null) return;
    const source = c.requiredText(o, 'source', 50);
    const value = c.requiredText(o, 'value', 50);
    if (sources.has(source)) c.fail('source', `a second rating from "${source}"`);
    sources.add(source);
    out.push({ source, value });
  });
  return out;
}

function readArtwork(r: Reader, obj: Json): ExportArtwork | null {
  if (obj.artwork === undefined || obj.artwork === null) return null;
  const a = r.at('artwork');
  const o = a.object(obj.artwork, ['poster', 'backdrop']);
  if (o === null) return null;
  const side = (key: 'poster' | 'backdrop'): ExportArtworkSide => {
    const s = a.at(key);
    const so = s.object(o[key], ['state', 'source']);
    if (so === null) return { state: '', source: null };
    return { state: s.requiredText(so, 'state', 50), source: s.text(so, 'source', 200) };
  };
  return { poster: side('poster'), backdrop: side('backdrop') };
}

function readEdition(r: Reader, item: unknown, checks: CrossChecks): ExportEdition | null {
  const obj = r.object(item, EDITION_KEYS);
  if (obj === null) return null;
  const label = r.text(obj, 'label', LIMITS.edition);
  const rawFormat = r.text(obj, 'format', 100);
  let format: string | null = null;
  if (rawFormat !== null) {
    const parsed = parseFormat(rawFormat);
    if (parsed.ok && parsed.value !== null && parsed.value.known) format = parsed.value.format;
    else
      r.fail(
        'format',
        `"${rawFormat}" is not a disc format (DVD, Blu-ray, 4K UHD, 3D Blu-ray, HD DVD, VHS, LaserDisc, Other)`,
      );
  }
  const rawBarcode = r.text(obj, 'barcode', 32);
  let barcode: string | null = null;
  if (rawBarcode !== null) {
    const checked = checks.normalizeBarcode(rawBarcode);
    if (!checked.ok) r.fail('barcode', checked.message);
    else {
      barcode = checked.barcode;
      unique(r, checks.barcodes, barcode, 'barcode', `barcode ${barcode}`);
    }
  }
  return {
    label,
    format,
    barcode,
    region: r.text(obj, 'region', 50),
    copies: readCopies(r, obj, checks),
  };
}

function readCopies(r: Reader, obj: Json, checks: CrossChecks): ExportCopy[] {
  const out: ExportCopy[] = [];
  r.array(obj, 'copies').forEach((item, i) => {
    const c = r.at('copies').at(i);
    const o = c.object(item, COPY_KEYS);
    if (o === null) return;
    const binder = nonBlank(c, o, 'binder', LIMITS.binder);
    const slot = nonBlank(c, o, 'slot', LIMITS.slot);
    if (slot !== null && binder === null) c.fail('slot', `slot ${slot} needs a binder`);
    if (slot !== null && binder !== null) {
      unique(c, checks.slots, `${binder}\u0000${slot}`, 'slot', `binder "${binder}" slot ${slot}`);
    }
    const notes = c.text(o, 'notes', LIMITS.notes);
    const loans = readLoans(c, o);
    out.push({ binder, slot, notes, ...(loans.length === 0 ? {} : { loans }) });
  });
  return out;
}

/** A copy's loans: at most one still out (returned_at null), as the database allows. */
function readLoans(r: Reader, obj: Json): ExportLoan[] {
  const out: ExportLoan[] = [];
  r.array(obj, 'loans').forEach((item, i) => {
    const l = r.at('loans').at(i);
    const o = l.object(item, LOAN_KEYS);
    if (o === null) return;
    const to = borrowerName(l.requiredText(o, 'to', MAX_BORROWER_LENGTH));
    const instant = (key: 'lent_at' | 'returned_at'): string | null => {
      const value = l.text(o, key, 30);
      // Round-trips: a time of no calendar day (2026-02-30T…) parses, as another day.
      if (value !== null && (!INSTANT.test(value) || !isInstant(value))) {
        l.fail(key, 'must be a UTC time such as 2026-03-10T12:00:00.000Z');
        return null;
      }
      return value;
    };
    const lentAt = instant('lent_at');
    if (lentAt === null && o.lent_at == null) l.fail('lent_at', 'is missing');
    const due = l.text(o, 'due', 10);
    if (due !== null && !isCalendarDate(due)) l.fail('due', 'must be a day, YYYY-MM-DD, or null');
    const returnedAt = instant('returned_at');
    if (lentAt !== null && returnedAt !== null && returnedAt < lentAt) {
      l.fail('returned_at', 'is before lent_at: a disc comes back after it was lent');
    }
    if (to === '' || lentAt === null) return;
    out.push({ to, lent_at: lentAt, due, returned_at: returnedAt });
  });
  if (out.filter((x) => x.returned_at === null).length > 1) {
    r.fail('loans', 'a disc is lent to one person at a time: at most one loan without returned_at');
  }
  return out;
}

/** An ISO-8601 UTC time that names a real moment: it prints back as written. */
function isInstant(value: string): boolean {
  const ms = Date.parse(value);
  return !Number.isNaN(ms) && new Date(ms).toISOString() === value;
}

function nonBlank(r: Reader, obj: Json, key: string, max: number): string | null {
  const value = r.text(obj, key, max);
  if (value !== null && value.trim() === '') {
    r.fail(key, 'must not be blank (use null)');
    return null;
  }
  return value;
}

function readMediaFile(
  r: Reader,
  item: unknown,
  checks: CrossChecks,
  editionCount: number,
): ExportMediaFile | null {
  const obj = r.object(item, MEDIA_FILE_KEYS);
  if (obj === null) return null;
  const root = r.requiredText(obj, 'root', 4096);
  const relativePath = r.requiredText(obj, 'relative_path', 4096);
  if (root !== '' && checks.rootNames !== null && !checks.rootNames.has(root)) {
    r.fail('root', `"${root}" is not the path or name of one of library_roots`);
  }
  if (relativePath !== '') {
    const segments = relativePath.split(/[\\/]/);
    if (isAbsolutePath(relativePath) || segments.includes('..') || relativePath.includes('\u0000')) {
      r.fail('relative_path', `"${relativePath}" must stay inside its root (not absolute, no "..")`);
    } else {
      unique(
        r,
        checks.files,
        `${root}\u0000${relativePath}`,
        'relative_path',
        `file "${relativePath}" in "${root}"`,
      );
    }
  }
  const size = r.integer(obj, 'size_bytes', 0, Number.MAX_SAFE_INTEGER);
  if (size === null && obj.size_bytes === undefined) r.fail('size_bytes', 'is missing');
  const editionIndex = r.integer(obj, 'edition_index', 0, Math.max(0, editionCount - 1));
  if (editionIndex !== null && editionIndex >= editionCount)
    r.fail('edition_index', 'this movie has no editions');
  return {
    root,
    relative_path: relativePath,
    fingerprint: r.text(obj, 'fingerprint', 200),
    size_bytes: size ?? 0,
    edition_label: r.text(obj, 'edition_label', LIMITS.edition),
    edition_index: editionIndex,
    watch: readWatch(r, obj),
  };
}

function readWatch(r: Reader, obj: Json): ExportWatch | null {
  if (obj.watch === undefined || obj.watch === null) return null;
  const w = r.at('watch');
  const o = w.object(obj.watch, ['position_seconds', 'watched']);
  if (o === null) return null;
  const position = o.position_seconds ?? 0;
  if (typeof position !== 'number' || !Number.isFinite(position) || position < 0) {
    w.fail('position_seconds', 'must be a number of seconds, 0 or more');
  }
  return {
    position_seconds: typeof position === 'number' && position >= 0 ? position : 0,
    watched: w.boolean(o, 'watched'),
  };
}

function unique<K>(r: Reader, seen: Map<K, Seen>, key: K, segment: string, what: string): void {
  const first = seen.get(key);
  if (first === undefined) {
    seen.set(key, { row: r.row, field: r.path(segment) });
    return;
  }
  const where = first.row === r.row ? `at ${first.field}` : `on movie item ${first.row} (${first.field})`;
  r.fail(segment, `${what} is already used ${where}`);
}

// ---------------------------------------------------------------------------------------------------
// Rendering

/**
 * Writes the document deterministically (see the module notes): fixed key order, sorted set-like arrays,
 * two-space indent, LF, final newline. Input objects are not modified; fields not in the interfaces are
 * dropped.
 * @example renderLibraryExport(a) === renderLibraryExport({ ...a, movies: [...a.movies].reverse() })
 */
export function renderLibraryExport(value: LibraryExport): string {
  const movies = sortWithTieBreak(
    value.movies.map(canonicalMovie),
    (m) => normalizeTitle(m.title),
    compareMovies,
  );
  const doc: LibraryExport = {
    format_version: EXPORT_FORMAT_VERSION,
    movies,
    collections: sortWithTieBreak(
      value.collections.map((c) => ({ name: c.name })),
      (c) => c.name,
      () => 0,
    ),
    library_roots: sortWithTieBreak(
      value.library_roots.map((r) => ({ path: r.path, name: r.name, collection: r.collection })),
      (r) => r.path,
      () => 0,
    ),
    binders: sortWithTieBreak(
      value.binders.map((b) => ({
        name: b.name,
        capacity: b.capacity,
        ...(b.slots_per_page === undefined ? {} : { slots_per_page: b.slots_per_page }),
      })),
      (b) => b.name,
      () => 0,
    ),
  };
  const wishes = value.wishes ?? [];
  if (wishes.length > 0) {
    doc.wishes = sortWithTieBreak(
      wishes.map((w) => ({ title: w.title, year: w.year, tmdb_id: w.tmdb_id, note: w.note })),
      (w) => normalizeTitle(w.title),
      (a, b) =>
        compareNullableNumber(a.year, b.year) ||
        compareNullableNumber(a.tmdb_id, b.tmdb_id) ||
        compareText(a.title, b.title),
    );
  }
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/** Sorts by a precomputed text key, then `compare`, then the item's JSON (equal items are interchangeable). */
function sortWithTieBreak<T>(items: T[], key: (item: T) => string, compare: (a: T, b: T) => number): T[] {
  return items
    .map((item) => ({ item, key: key(item), json: JSON.stringify(item) }))
    .sort((a, b) => compareText(a.key, b.key) || compare(a.item, b.item) || compareText(a.json, b.json))
    .map(({ item }) => item);
}

function compareMovies(a: ExportMovie, b: ExportMovie): number {
  return (
    compareNullableNumber(a.year, b.year) ||
    compareNullableNumber(a.tmdb_id, b.tmdb_id) ||
    compareNullableText(a.imdb_id, b.imdb_id) ||
    compareText(a.title, b.title)
  );
}

function canonicalCopy(c: ExportCopy): ExportCopy {
  const loans = sortWithTieBreak(
    (c.loans ?? []).map((l) => ({ to: l.to, lent_at: l.lent_at, due: l.due, returned_at: l.returned_at })),
    (l) => l.lent_at,
    () => 0,
  );
  // Without loans the copy is written as before loans existed (the same bytes for the same library).
  return { binder: c.binder, slot: c.slot, notes: c.notes, ...(loans.length === 0 ? {} : { loans }) };
}

function sortCopies(copies: ExportCopy[]): ExportCopy[] {
  return sortWithTieBreak(
    copies.map(canonicalCopy),
    () => '',
    (a, b) =>
      compareNullableText(a.binder, b.binder) ||
      compareSlots(a.slot, b.slot) ||
      compareNullableText(a.notes, b.notes),
  );
}

function canonicalMovie(m: ExportMovie): ExportMovie {
  const editions = m.editions
    .map((e, index) => ({
      index,
      edition: {
        label: e.label,
        format: e.format,
        barcode: e.barcode,
        region: e.region,
        copies: sortCopies(e.copies),
      },
    }))
    .map((x) => ({ ...x, json: JSON.stringify(x.edition) }))
    .sort(
      (a, b) =>
        compareNullableText(a.edition.format, b.edition.format) ||
        compareNullableText(a.edition.label, b.edition.label) ||
        compareNullableText(a.edition.barcode, b.edition.barcode) ||
        compareNullableText(a.edition.region, b.edition.region) ||
        compareText(a.json, b.json),
    );
  const newIndex = new Map(editions.map((x, i) => [x.index, i]));
  const mediaFiles = sortWithTieBreak(
    m.media_files.map((f): ExportMediaFile => ({
      root: f.root,
      relative_path: f.relative_path,
      fingerprint: f.fingerprint,
      size_bytes: f.size_bytes,
      edition_label: f.edition_label,
      edition_index: f.edition_index === null ? null : (newIndex.get(f.edition_index) ?? null),
      watch:
        f.watch === null ? null : { position_seconds: f.watch.position_seconds, watched: f.watch.watched },
    })),
    (f) => f.root,
    (a, b) => compareText(a.relative_path, b.relative_path),
  );
  const side = (s: ExportArtworkSide): ExportArtworkSide => ({ state: s.state, source: s.source });
  return {
    title: m.title,
    original_title: m.original_title,
    year: m.year,
    overview: m.overview,
    tagline: m.tagline,
    runtime_minutes: m.runtime_minutes,
    tmdb_id: m.tmdb_id,
    imdb_id: m.imdb_id,
    genres: [...m.genres],
    tmdb_collection:
      m.tmdb_collection === null ? null : { id: m.tmdb_collection.id, name: m.tmdb_collection.name },
    binder: m.binder,
    has_digital_store_a: m.has_digital_store_a,
    has_digital_store_b: m.has_digital_store_b,
    watched: m.watched,
    ratings: sortWithTieBreak(
      m.ratings.map((r) => ({ source: r.source, value: r.value })),
      (r) => r.source,
      () => 0,
    ),
    directors: [...m.directors],
    cast: [...m.cast],
    studios: sortWithTieBreak(
      [...m.studios],
      (s) => s,
      () => 0,
    ),
    artwork:
      m.artwork === null ? null : { poster: side(m.artwork.poster), backdrop: side(m.artwork.backdrop) },
    editions: editions.map((x) => x.edition),
    copies: sortCopies(m.copies),
    media_files: mediaFiles,
  };
}

// ---------------------------------------------------------------------------------------------------
// Mapping between the document and CSV rows

/**
 * The CSV view of a document: one row per physical copy, one per edition without copies, one per movie
 * with neither (see csv-export.ts). A copy with no edition, binder or slot has no row of its own (it
 * would read back as "just the movie"), so export → import → export gives the same bytes.
 */
export function csvRowsFromExport(value: LibraryExport): CsvExportRow[] {
  return importRowsFromExport(value).map(({ line: _line, ...row }) => row);
}

/**
 * The same rows as {@link csvRowsFromExport} with `line` = the 1-based movie item they come from, for an
 * import path that only understands rows (it drops everything a CSV cannot carry).
 */
export function importRowsFromExport(value: LibraryExport): ImportRow[] {
  const rows: ImportRow[] = [];
  value.movies.forEach((m, i) => {
    const base = {
      line: i + 1,
      title: m.title,
      year: m.year,
      tmdbId: m.tmdb_id,
      imdbId: m.imdb_id,
      watched: m.watched,
      hasDigitalStoreA: m.has_digital_store_a,
      hasDigitalStoreB: m.has_digital_store_b,
    };
    const disc = { edition: null, format: null, barcode: null, binder: null, slot: null };
    const before = rows.length;
    for (const e of m.editions) {
      const edition = { ...disc, edition: e.label, format: e.format, barcode: e.barcode };
      if (e.copies.length === 0) rows.push({ ...base, ...edition });
      for (const c of e.copies) rows.push({ ...base, ...edition, binder: c.binder, slot: c.slot });
    }
    for (const c of m.copies) {
      // A copy with no edition and no place has nothing a CSV row could show apart from the movie.
      if (c.binder !== null || c.slot !== null)
        rows.push({ ...base, ...disc, binder: c.binder, slot: c.slot });
    }
    if (rows.length === before) rows.push({ ...base, ...disc });
  });
  return rows;
}

/** A physical copy read from a CSV line. */
export interface ImportCopyGroup {
  line: number;
  binder: string | null;
  slot: string | null;
}

/** An edition read from one or more CSV lines (same barcode, else same label and format). */
export interface ImportEditionGroup {
  label: string | null;
  format: string | null;
  barcode: string | null;
  copies: ImportCopyGroup[];
}

/** One movie read from the CSV lines that name it; `null` flags mean the file did not say. */
export interface ImportMovieGroup {
  lines: number[];
  title: string;
  year: number | null;
  tmdbId: number | null;
  imdbId: string | null;
  watched: boolean | null;
  hasDigitalStoreA: boolean | null;
  hasDigitalStoreB: boolean | null;
  editions: ImportEditionGroup[];
  /** Copies that name no edition, format or barcode but a binder or slot. */
  copies: ImportCopyGroup[];
}

/**
 * Groups CSV rows into movies, editions and copies. Rows are one movie when they share a TMDb id, else an
 * IMDb id, else normalised title + year (ids must not contradict). Each row that names an edition,
 * format, barcode, binder or slot is one physical copy (the reading of CLZ and of our own export); a row
 * with none of these only names the movie. Flags combine as "any yes wins, else any no, else null".
 * Groups keep the order of their first line.
 * @example groupImportRows(rowsOf('Title,Format\nHeat,DVD\nHeat,Blu-ray')) // one movie, two editions
 */
export function groupImportRows(rows: readonly ImportRow[]): ImportMovieGroup[] {
  const groups: ImportMovieGroup[] = [];
  const byTmdb = new Map<number, ImportMovieGroup>();
  const byImdb = new Map<string, ImportMovieGroup>();
  const byTitle = new Map<string, ImportMovieGroup>();
  const titleKey = (title: string, year: number | null) => `${normalizeTitle(title)}\u0000${year ?? ''}`;

  for (const row of rows) {
    const candidate =
      (row.tmdbId !== null ? byTmdb.get(row.tmdbId) : undefined) ??
      (row.imdbId !== null ? byImdb.get(row.imdbId) : undefined) ??
      byTitle.get(titleKey(row.title, row.year));
    const compatible =
      candidate !== undefined &&
      (candidate.tmdbId === null || row.tmdbId === null || candidate.tmdbId === row.tmdbId) &&
      (candidate.imdbId === null || row.imdbId === null || candidate.imdbId === row.imdbId);
    let group: ImportMovieGroup;
    if (candidate !== undefined && compatible) {
      group = candidate;
      group.lines.push(row.line);
      group.year ??= row.year;
      group.tmdbId ??= row.tmdbId;
      group.imdbId ??= row.imdbId;
      group.watched = mergeFlag(group.watched, row.watched);
      group.hasDigitalStoreA = mergeFlag(group.hasDigitalStoreA, row.hasDigitalStoreA);
      group.hasDigitalStoreB = mergeFlag(group.hasDigitalStoreB, row.hasDigitalStoreB);
    } else {
      group = {
        lines: [row.line],
        title: row.title,
        year: row.year,
        tmdbId: row.tmdbId,
        imdbId: row.imdbId,
        watched: row.watched,
        hasDigitalStoreA: row.hasDigitalStoreA,
        hasDigitalStoreB: row.hasDigitalStoreB,
        editions: [],
        copies: [],
      };
      groups.push(group);
    }
    if (group.tmdbId !== null && !byTmdb.has(group.tmdbId)) byTmdb.set(group.tmdbId, group);
    if (group.imdbId !== null && !byImdb.has(group.imdbId)) byImdb.set(group.imdbId, group);
    const key = titleKey(row.title, row.year);
    if (!byTitle.has(key)) byTitle.set(key, group);
    addCopy(group, row);
  }
  return groups;
}

function mergeFlag(a: boolean | null, b: boolean | null): boolean | null {
  if (a === true || b === true) return true;
  if (a === false || b === false) return false;
  return null;
}

function addCopy(group: ImportMovieGroup, row: ImportRow): void {
  const copy: ImportCopyGroup = { line: row.line, binder: row.binder, slot: row.slot };
  if (row.edition === null && row.format === null && row.barcode === null) {
    if (row.binder !== null || row.slot !== null) group.copies.push(copy);
    return;
  }
  const edition = group.editions.find((e) =>
    row.barcode !== null || e.barcode !== null
      ? e.barcode === row.barcode
      : e.label === row.edition && e.format === row.format,
  );
  if (edition === undefined) {
    group.editions.push({ label: row.edition, format: row.format, barcode: row.barcode, copies: [copy] });
    return;
  }
  edition.label ??= row.edition;
  edition.format ??= row.format;
  edition.copies.push(copy);
}

/**
 * A grouped CSV movie as a document item, for a single write path: unknown flags become false, the
 * fields a CSV cannot carry are empty.
 */
export function exportMovieFromGroup(group: ImportMovieGroup): ExportMovie {
  const copy = (c: ImportCopyGroup): ExportCopy => ({ binder: c.binder, slot: c.slot, notes: null });
  return {
    title: group.title,
    original_title: null,
    year: group.year,
    overview: null,
    tagline: null,
    runtime_minutes: null,
    tmdb_id: group.tmdbId,
    imdb_id: group.imdbId,
    genres: [],
    tmdb_collection: null,
    binder: null,
    has_digital_store_a: group.hasDigitalStoreA === true,
    has_digital_store_b: group.hasDigitalStoreB === true,
    watched: group.watched === true,
    ratings: [],
    directors: [],
    cast: [],
    studios: [],
    artwork: null,
    editions: group.editions.map((e) => ({
      label: e.label,
      format: e.format,
      barcode: e.barcode,
      region: null,
      copies: e.copies.map(copy),
    })),
    copies: group.copies.map(copy),
    media_files: [],
  };
}
