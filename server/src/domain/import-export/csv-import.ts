/**
 * @module import-export/csv-import
 * Reads a collection CSV — our own export, CLZ Movies, Letterboxd, DVD Profiler-style spreadsheets, IMDb
 * lists — into validated {@link ImportRow}s. The whole file is checked and every problem is listed with
 * the line it is on; nothing is half-accepted (POST /api/import is all-or-nothing).
 *
 * - Encoding: UTF-8 only; a UTF-8 byte-order mark is dropped. Anything else (Latin-1, UTF-16) is one
 *   `file` error that says how to re-save the file.
 * - Delimiter: `,`, `;` or tab, whichever the header line holds most of (outside quotes); an Excel
 *   `sep=;` first line is honoured.
 * - Quoting: RFC 4180 (quoted values may hold delimiters, doubled quotes and line breaks). A line that
 *   is not valid CSV is reported and reading resumes on the next line.
 * - Header: matched case-, space-, `_`- and `-`-insensitively against the aliases of metadata.md §6.5
 *   ({@link COLUMN_ALIASES}); known collector columns we do not store are ignored silently, unknown
 *   columns are ignored with a warning. A Letterboxd list preamble is skipped.
 * - Cells: trimmed; a leading `'` added by our formula-injection escape is removed
 *   ({@link unescapeFormula}).
 * - Rows: empty lines are skipped; rows whose collection status is a wish (CLZ `Wish List`) are the
 *   file's wishes ({@link CsvImportResult} `wishes`, docs/collector.md "Wish list"); rows whose status
 *   says the disc is otherwise not owned (on order, sold) are skipped with a warning. With
 *   `allWishes` (`POST /api/import?into=wishes`: a Letterboxd watchlist.csv) every row is a wish.
 */
import { parse } from 'csv-parse/sync';
import { normalizeTitle } from '../titles.ts';
import {
  LIMITS,
  type Parsed,
  parseBarcodeCell,
  parseFormat,
  parseImdbId,
  parseText,
  parseTitle,
  parseTmdbId,
  parseWatched,
  parseYear,
  parseYesNo,
  unescapeFormula,
} from './fields.ts';
import { checkBarcode } from './barcode-check.ts';
import { excerpt, quoted } from './excerpt.ts';
import type { BarcodeNormalizer, ImportRow, RowError } from './types.ts';

/** The columns an {@link ImportRow} is built from (also the `field` of a {@link RowError}). */
export const IMPORT_FIELDS = [
  'title',
  'year',
  'tmdb_id',
  'imdb_id',
  'edition',
  'format',
  'barcode',
  'binder',
  'slot',
  'watched',
  'digital_store_a',
  'digital_store_b',
] as const;
export type ImportField = (typeof IMPORT_FIELDS)[number];

export interface CsvImportOptions {
  /** Barcode rules; defaults to {@link checkBarcode} (the project's `normalizeBarcode`, GTIN-13 storage). */
  normalizeBarcode?: BarcodeNormalizer;
  /** Every row is a wish, whatever its collection status (`?into=wishes`). */
  allWishes?: boolean;
}

/** `rows`: the owned films (movies, editions, copies); `wishes`: the rows that are wishes. */
export type CsvImportResult =
  | { ok: true; rows: ImportRow[]; wishes: ImportRow[]; warnings: string[] }
  | { ok: false; errors: RowError[]; warnings: string[] };

/**
 * Accepted header names per field, in priority order: when a file has several columns for one field,
 * the first non-empty one in this order wins (so `Year` beats `Release Date`). Names are compared after
 * {@link headerKey} (lower case, letters and digits only), so `IMDb ID`, `imdb_id` and `IMDB-Id` are one.
 */
export const COLUMN_ALIASES: Readonly<Record<ImportField, readonly string[]>> = {
  title: ['Title', 'Name', 'Movie Title', 'Film Title', 'Movie Name', 'Film Name', 'Movie', 'Film'],
  year: [
    'Year',
    'Release Year',
    'Movie Release Year',
    'Film Year',
    'Movie Year',
    'Production Year',
    'Year Released',
    'Release Date',
    'Movie Release Date',
    'Original Release Date',
  ],
  tmdb_id: [
    'TMDb ID',
    'tmdbID',
    'TMDB',
    'TheMovieDB ID',
    'TMDb Number',
    'TMDb Movie ID',
    'TMDb URL',
    'TMDb Link',
  ],
  imdb_id: ['IMDb ID', 'imdbID', 'IMDb', 'IMDb Number', 'IMDb Url', 'IMDb Link', 'IMDb Title ID', 'Const'],
  edition: ['Edition', 'Edition Name', 'Edition Label'],
  format: ['Format', 'Media Type', 'MediaTypes', 'Media Format', 'Disc Format', 'Media'],
  barcode: ['Barcode', 'UPC', 'EAN', 'GTIN', 'UPC/EAN', 'EAN/UPC', 'UPC Code', 'EAN Code'],
  binder: ['Binder', 'Binder Name', 'Storage Device', 'Location', 'Storage Location', 'Storage'],
  slot: ['Slot', 'Storage Slot', 'Binder Slot', 'Slot Number'],
  watched: [
    'Watched',
    'Seen',
    'Seen It',
    'Viewed',
    'Has Watched',
    'Watched Status',
    'Watched Date',
    'Date Watched',
    'Last Watched',
    'Viewing Date',
  ],
  digital_store_a: ['Digital Store A', 'Has Digital Store A', 'Store A'],
  digital_store_b: ['Digital Store B', 'Has Digital Store B', 'Store B'],
};

/**
 * Columns of collector exports that we accept and do not store (no warning). `Index` (CLZ's collection
 * number) and `Position` (Letterboxd list order) are deliberately not slots.
 */
export const IGNORED_COLUMNS: readonly string[] = [
  // Letterboxd (diary, ratings, reviews, lists) and its import format
  'Date',
  'Letterboxd URI',
  'LetterboxdURI',
  'URL',
  'Rating',
  'Rating10',
  'Rewatch',
  'Tags',
  'Review',
  'Position',
  'Description',
  'Directors',
  'Director',
  // CLZ Movies
  'Index',
  'Notes',
  'Condition',
  'Quantity',
  'Purchase Price',
  'Purchase Date',
  'Purchase Store',
  'Purchase Year',
  'Value',
  'Serial No.',
  'Serial Number',
  'My Rating',
  'Completed',
  'Completed Date',
  'Studio',
  'Studios',
  'Distributor',
  'Genre',
  'Genres',
  'Series',
  'Region',
  'Audience Rating',
  'Runtime',
  'Aspect Ratio',
  'Disc Count',
  'Discs',
  'Added Date',
  'Added Year',
  'Modified Date',
  'Sort Title',
  'Owner',
  'Due Date',
  'Loan Date',
  'Loaned To',
  'Plot',
  'Cast',
  'Actors',
  'Stars',
  'Original Title',
  'Subtitles',
  'Audio Tracks',
  'Language',
  'Languages',
  'Country',
  'Color',
  'Layers',
  'Screen Ratio',
  'Packaging',
  'Cover Front',
  'Cover Back',
  'Links',
  'Tagline',
  'Blu-ray Release Date',
  'DVD Release Date',
  'Price',
  'Writer',
  'Writers',
  'Producer',
  'Producers',
  'Composer',
  'Spine Number',
  'Collection Number',
  'ID',
  'UUID',
  'Overview',
  'Synopsis',
  // IMDb lists
  'Your Rating',
  'Date Rated',
  'Title Type',
  'IMDb Rating',
  'Runtime (mins)',
  'Num Votes',
  'Created',
  'Modified',
  // DVD Profiler-style spreadsheets
  'Released',
  'Rating (MPAA)',
  'MPAA Rating',
  'Running Time',
  'Date Added',
];

/** Columns that say whether the disc is owned (CLZ `Collection Status`, DVD Profiler `CollectionType`). */
const STATUS_COLUMNS = ['Collection Status', 'CollectionType', 'Collection Type', 'Ownership'];
/** Status values of films wanted: those rows are wishes. */
const WISHED = /^(wish ?list|wanted|want)$/i;
/** Status values of other discs that are not on the shelf: those rows are skipped. */
const NOT_OWNED = /^(on ?order|ordered|pre-?order(ed)?|sold|not in collection)$/i;

/**
 * The comparison key of a header name: accents dropped, lower case, letters and digits only.
 * @example headerKey('IMDb_ID') === headerKey('imdb id') // 'imdbid'
 */
export function headerKey(header: string): string {
  return header
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '');
}

const FIELD_BY_KEY = new Map<string, { field: ImportField; priority: number }>();
for (const field of IMPORT_FIELDS) {
  COLUMN_ALIASES[field].forEach((alias, priority) => FIELD_BY_KEY.set(headerKey(alias), { field, priority }));
}
const IGNORED_KEYS = new Set(IGNORED_COLUMNS.map(headerKey));
const STATUS_KEYS = new Set(STATUS_COLUMNS.map(headerKey));

const MAX_SYNTAX_ERRORS = 100;
const MAX_LINES_IN_WARNING = 10;

interface CsvRecord {
  fields: string[];
  line: number;
}

interface Column {
  index: number;
  header: string;
  priority: number;
}

/**
 * Parses and validates a collection CSV.
 * @param bytes the uploaded file, as received
 * @param options `normalizeBarcode`: the barcode rules (default {@link checkBarcode})
 * @returns every row, or every error (with its line) when any row is bad; warnings either way
 * @example parseCollectionCsv(Buffer.from('Title,Year\nAmélie,2001\n'))
 *   // { ok: true, rows: [{ line: 2, title: 'Amélie', year: 2001, … }], warnings: [] }
 */
export function parseCollectionCsv(bytes: Buffer, options: CsvImportOptions = {}): CsvImportResult {
  const normalizeBarcode = options.normalizeBarcode ?? checkBarcode;
  const parseBarcode = (raw: string) => parseBarcodeCell(raw, normalizeBarcode);
  const warnings: string[] = [];
  const decoded = decodeUtf8(bytes);
  if (!decoded.ok)
    return { ok: false, errors: [{ row: 0, field: 'file', message: decoded.message }], warnings };

  const text = decoded.value.replace(/\r\n?/g, '\n');
  const lines = text.split('\n');
  let firstLine = lines.findIndex((l) => l.trim() !== '');
  if (firstLine === -1) {
    return {
      ok: false,
      errors: [
        { row: 0, field: 'file', message: 'the file is empty: expected a header row such as Title,Year' },
      ],
      warnings,
    };
  }
  let delimiter: string | null = null;
  const sep = /^sep=(.)\s*$/i.exec(lines[firstLine] ?? '');
  if (sep?.[1] !== undefined) {
    delimiter = sep[1];
    firstLine++;
  }
  delimiter ??= detectDelimiter(lines.slice(firstLine, firstLine + 5));

  const { records, errors } = readRecords(lines, firstLine, delimiter);
  const headerAt = findHeader(records);
  const header = records[headerAt];
  if (header === undefined || errors.some((e) => e.row <= header.line)) {
    return {
      ok: false,
      errors: errors.length > 0 ? errors : [{ row: 0, field: 'file', message: 'the file has no header row' }],
      warnings,
    };
  }
  const mapping = mapHeader(header.fields, warnings);
  if (mapping.columns.title.length === 0) {
    const names = header.fields.map((h) => h.trim()).filter((h) => h !== '');
    return {
      ok: false,
      errors: [
        {
          row: header.line,
          field: 'title',
          message: `no title column: the header is ${quoted(names.join(delimiter === '\t' ? ' | ' : delimiter))}; name the title column Title (or Name, Movie Title, Film)`,
        },
      ],
      warnings,
    };
  }

  const rows: ImportRow[] = [];
  const wishes: ImportRow[] = [];
  const skipped = new Map<string, number[]>();
  const unknownFormats = new Map<string, number[]>();
  for (const record of records.slice(headerAt + 1)) {
    if (record.fields.every((f) => f.trim() === '')) continue;
    const extra = record.fields.slice(header.fields.length).filter((f) => f.trim() !== '');
    if (extra.length > 0) {
      const shown = delimiter === '\t' ? 'tab' : `"${delimiter}"`;
      errors.push({
        row: record.line,
        field: 'csv',
        message: `this line has ${record.fields.length} values but the header has ${header.fields.length}: a value with a ${shown} in it must be put in double quotes`,
      });
      continue;
    }
    const status = mapping.status.map((i) => cell(record.fields, i)).find((v) => v !== '');
    const wished = options.allWishes === true || (status !== undefined && WISHED.test(status));
    if (!wished && status !== undefined && NOT_OWNED.test(status)) {
      pushLine(skipped, status, record.line);
      continue;
    }
    const row = readRow(record, mapping.columns, parseBarcode, errors, unknownFormats);
    if (row !== null) (wished ? wishes : rows).push(row);
  }

  checkAcrossRows(rows, errors, warnings);
  for (const [status, at] of skipped) {
    warnings.push(
      `skipped ${at.length} row(s) with collection status ${quoted(status)} (not owned): ${lineList(at)}`,
    );
  }
  for (const [value, at] of unknownFormats) {
    warnings.push(
      `format ${quoted(value)} is not a disc format we know; imported as "Other": ${lineList(at)}`,
    );
  }
  if (errors.length > 0) {
    errors.sort((a, b) => a.row - b.row);
    return { ok: false, errors, warnings };
  }
  if (rows.length === 0 && wishes.length === 0 && skipped.size === 0) {
    warnings.push('the file has a header but no rows');
  }
  return { ok: true, rows, wishes, warnings };
}

function decodeUtf8(bytes: Buffer): Parsed<string> {
  if (
    bytes.length >= 2 &&
    ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))
  ) {
    return {
      ok: false,
      message:
        'not UTF-8: save the file as UTF-8 (it is UTF-16, what Excel calls "Unicode Text"; choose "CSV UTF-8" instead)',
    };
  }
  let text: string;
  try {
    // fatal: refuse instead of replacing bad bytes with U+FFFD; the UTF-8 BOM is dropped by default.
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    const at = firstInvalidUtf8(bytes);
    const byte = bytes[at] ?? 0;
    const line = countLines(bytes, at);
    return {
      ok: false,
      message: `not UTF-8: save the file as UTF-8 (byte 0x${byte.toString(16).toUpperCase().padStart(2, '0')} on line ${line} is not UTF-8; the file looks like Latin-1 / Windows-1252 — in Excel choose "CSV UTF-8", in LibreOffice the character set "Unicode (UTF-8)")`,
    };
  }
  if (text.includes('\u0000')) {
    return {
      ok: false,
      message:
        'not UTF-8: save the file as UTF-8 (it holds NUL bytes: it looks like UTF-16 or a binary file)',
    };
  }
  return { ok: true, value: text };
}

/** Offset of the first byte that does not start or continue a valid UTF-8 sequence. */
function firstInvalidUtf8(bytes: Buffer): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i] ?? 0;
    const need =
      b < 0x80
        ? 0
        : b >= 0xc2 && b <= 0xdf
          ? 1
          : b >= 0xe0 && b <= 0xef
            ? 2
            : b >= 0xf0 && b <= 0xf4
              ? 3
              : -1;
    if (need < 0) return i;
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
    }
    i += need + 1;
  }
  return Math.max(0, bytes.length - 1);
}

function countLines(bytes: Buffer, end: number): number {
  let line = 1;
  for (let i = 0; i < end; i++) {
    const b = bytes[i];
    if (b === 0x0a || (b === 0x0d && bytes[i + 1] !== 0x0a)) line++;
  }
  return line;
}

/** The candidate that occurs most often outside quotes in the first line that has any. */
function detectDelimiter(candidates: string[]): string {
  for (const line of candidates) {
    const counts = new Map<string, number>([
      [',', 0],
      [';', 0],
      ['\t', 0],
    ]);
    let quoted = false;
    for (const ch of line) {
      if (ch === '"') quoted = !quoted;
      else if (!quoted && counts.has(ch)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    }
    let best = ',';
    let bestCount = 0;
    for (const [ch, n] of counts) {
      if (n > bestCount) {
        best = ch;
        bestCount = n;
      }
    }
    if (bestCount > 0) return best;
  }
  return ',';
}

/**
 * Splits the text into records with the line each starts on. Every line break outside a quoted value
 * ends a record (empty lines give empty records), so a record starts one line after the previous one
 * plus the line breaks inside its values. csv-parse stops at the first syntax error: the failing record
 * is reported and parsing resumes on the following line.
 */
function readRecords(
  lines: string[],
  firstLine: number,
  delimiter: string,
): { records: CsvRecord[]; errors: RowError[] } {
  const records: CsvRecord[] = [];
  const errors: RowError[] = [];
  const options = {
    delimiter,
    record_delimiter: '\n',
    relax_column_count: true,
    relax_quotes: true,
    trim: delimiter !== '\t',
    skip_empty_lines: false,
  };
  let from = firstLine; // 0-based index into lines of the chunk being parsed
  while (from < lines.length) {
    const chunk = lines.slice(from).join('\n');
    let next = from + 1; // 1-based line of the next record
    const take = (fields: string[]) => {
      records.push({ fields, line: next });
      next += 1 + fields.reduce((n, f) => n + countNewlines(f), 0);
    };
    try {
      // Fast path: no per-record callback (csv-parse builds a context object for each one).
      parse(chunk, options).forEach(take);
      return { records, errors };
    } catch {
      // Read the chunk again, keeping the records before the error.
    }
    try {
      parse(chunk, {
        ...options,
        on_record: (fields: string[]) => {
          take(fields);
          return null;
        },
      });
      return { records, errors };
    } catch (err) {
      const code = err instanceof Error && 'code' in err && typeof err.code === 'string' ? err.code : '';
      const errLine =
        err instanceof Error && 'lines' in err && typeof err.lines === 'number' ? from + err.lines : next;
      errors.push({ row: next, field: 'csv', message: syntaxMessage(code, err) });
      if (errors.length >= MAX_SYNTAX_ERRORS) {
        errors.push({
          row: next,
          field: 'csv',
          message: 'too many lines that are not valid CSV: stopped reading here',
        });
        return { records, errors };
      }
      // An unclosed quote swallowed the rest of the file: resume right after the line it opened on.
      from = code === 'CSV_QUOTE_NOT_CLOSED' ? next : Math.max(next, errLine);
    }
  }
  return { records, errors };
}

function countNewlines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

function syntaxMessage(code: string, err: unknown): string {
  if (code === 'CSV_QUOTE_NOT_CLOSED') {
    return 'a quoted value starts on this line and is never closed: look for a stray double quote (")';
  }
  if (code === 'CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE' || code === 'CSV_INVALID_CLOSING_QUOTE') {
    return 'text follows the closing double quote of a value: a quote inside a quoted value is written twice ("")';
  }
  const detail = err instanceof Error ? err.message : String(err);
  return `this line is not valid CSV (${excerpt(detail)})`;
}

/** Index of the header record: the first record, or after a Letterboxd list preamble the `Position,…` row. */
function findHeader(records: CsvRecord[]): number {
  const first = records.findIndex((r) => r.fields.some((f) => f.trim() !== ''));
  if (first === -1) return -1;
  const firstCell = records[first]?.fields[0]?.trim() ?? '';
  if (/^letterboxd list export/i.test(firstCell)) {
    const listHeader = records.findIndex((r, i) => i > first && headerKey(r.fields[0] ?? '') === 'position');
    if (listHeader !== -1) return listHeader;
  }
  return first;
}

/** Unknown columns named one by one; past this a header (or a line of binary mistaken for one) is summed up. */
const MAX_UNKNOWN_COLUMN_WARNINGS = 20;

interface HeaderMapping {
  columns: Record<ImportField, number[]>;
  status: number[];
}

function mapHeader(header: string[], warnings: string[]): HeaderMapping {
  const found = new Map<ImportField, Column[]>();
  const status: number[] = [];
  const unknown: string[] = [];
  header.forEach((raw, index) => {
    const name = unescapeFormula(raw.trim());
    const key = headerKey(name);
    if (key === '') return;
    const known = FIELD_BY_KEY.get(key);
    if (known !== undefined) {
      found.set(known.field, [
        ...(found.get(known.field) ?? []),
        { index, header: name, priority: known.priority },
      ]);
    } else if (STATUS_KEYS.has(key)) status.push(index);
    else if (!IGNORED_KEYS.has(key)) unknown.push(name);
  });
  for (const name of unknown.slice(0, MAX_UNKNOWN_COLUMN_WARNINGS)) {
    warnings.push(`column ${quoted(name)} is not one we know: ignored`);
  }
  if (unknown.length > MAX_UNKNOWN_COLUMN_WARNINGS) {
    warnings.push(
      `and ${unknown.length - MAX_UNKNOWN_COLUMN_WARNINGS} more columns that are not ones we know: ignored`,
    );
  }
  const columns = (field: ImportField): number[] =>
    (found.get(field) ?? []).sort((a, b) => a.priority - b.priority || a.index - b.index).map((c) => c.index);
  return {
    columns: {
      title: columns('title'),
      year: columns('year'),
      tmdb_id: columns('tmdb_id'),
      imdb_id: columns('imdb_id'),
      edition: columns('edition'),
      format: columns('format'),
      barcode: columns('barcode'),
      binder: columns('binder'),
      slot: columns('slot'),
      watched: columns('watched'),
      digital_store_a: columns('digital_store_a'),
      digital_store_b: columns('digital_store_b'),
    },
    status,
  };
}

/** A trimmed cell with our formula escape removed ('' when the line is short). */
function cell(fields: string[], index: number): string {
  return unescapeFormula((fields[index] ?? '').trim());
}

/** The first non-empty cell among a field's columns ('' when all are empty). */
function rawValue(fields: string[], indexes: number[]): string {
  for (const index of indexes) {
    const value = cell(fields, index);
    if (value !== '') return value;
  }
  return '';
}

/** A parser for a free-text field whose messages name the field. */
function textField(max: number, what: string): (raw: string) => Parsed<string | null> {
  return (raw) => {
    const parsed = parseText(raw, max);
    return parsed.ok ? parsed : { ok: false, message: `${what} ${parsed.message}` };
  };
}

const parseEdition = textField(LIMITS.edition, 'edition');
const parseBinder = textField(LIMITS.binder, 'binder');
const parseSlot = textField(LIMITS.slot, 'slot');

/** Reads one field of a record; on a bad value records the error and gives `empty`. */
function readField<T>(
  record: CsvRecord,
  columns: Record<ImportField, number[]>,
  errors: RowError[],
  field: ImportField,
  read: (raw: string) => Parsed<T>,
  empty: T,
): T {
  const parsed = read(rawValue(record.fields, columns[field]));
  if (parsed.ok) return parsed.value;
  errors.push({ row: record.line, field, message: parsed.message });
  return empty;
}

function readRow(
  record: CsvRecord,
  columns: Record<ImportField, number[]>,
  parseBarcode: (raw: string) => Parsed<string | null>,
  errors: RowError[],
  unknownFormats: Map<string, number[]>,
): ImportRow | null {
  const before = errors.length;
  const title = readField(record, columns, errors, 'title', parseTitle, '');
  const year = readField(record, columns, errors, 'year', parseYear, null);
  const tmdbId = readField(record, columns, errors, 'tmdb_id', parseTmdbId, null);
  const imdbId = readField(record, columns, errors, 'imdb_id', parseImdbId, null);
  const edition = readField(record, columns, errors, 'edition', parseEdition, null);
  const format = readField(record, columns, errors, 'format', parseFormat, null);
  const barcode = readField(record, columns, errors, 'barcode', parseBarcode, null);
  const binder = readField(record, columns, errors, 'binder', parseBinder, null);
  const slot = readField(record, columns, errors, 'slot', parseSlot, null);
  const watched = readField(record, columns, errors, 'watched', parseWatched, null);
  const hasDigitalStoreA = readField(record, columns, errors, 'digital_store_a', parseYesNo, null);
  const hasDigitalStoreB = readField(record, columns, errors, 'digital_store_b', parseYesNo, null);

  if (slot !== null && binder === null) {
    errors.push({
      row: record.line,
      field: 'slot',
      message: `slot ${slot} is given without a binder: fill in the binder`,
    });
  }
  if (format !== null && !format.known)
    pushLine(unknownFormats, rawValue(record.fields, columns.format), record.line);
  if (errors.length > before) return null;
  return {
    line: record.line,
    title,
    year,
    tmdbId,
    imdbId,
    edition,
    format: format?.format ?? null,
    barcode,
    binder,
    slot,
    watched,
    hasDigitalStoreA,
    hasDigitalStoreB,
  };
}

/** Two rows for one binder slot are an error; case-only binder differences and shared barcodes are warnings. */
function checkAcrossRows(rows: ImportRow[], errors: RowError[], warnings: string[]): void {
  const slots = new Map<string, number>();
  const binderSpellings = new Map<string, Set<string>>();
  const barcodes = new Map<string, ImportRow>();
  for (const row of rows) {
    if (row.binder !== null) {
      const folded = row.binder.toLowerCase();
      const spellings = binderSpellings.get(folded) ?? new Set<string>();
      spellings.add(row.binder);
      binderSpellings.set(folded, spellings);
    }
    if (row.binder !== null && row.slot !== null) {
      const key = `${row.binder}\u0000${row.slot}`;
      const first = slots.get(key);
      if (first === undefined) slots.set(key, row.line);
      else {
        errors.push({
          row: row.line,
          field: 'slot',
          message: `binder "${row.binder}" slot ${row.slot} is already taken by line ${first}: one disc per slot`,
        });
      }
    }
    if (row.barcode !== null) {
      const first = barcodes.get(row.barcode);
      if (first === undefined) barcodes.set(row.barcode, row);
      else if (!sameMovie(first, row)) {
        warnings.push(
          `line ${row.line}: barcode ${row.barcode} is also on line ${first.line} for another movie (a box set?)`,
        );
      }
    }
  }
  for (const spellings of binderSpellings.values()) {
    if (spellings.size > 1) {
      const names = [...spellings].map((s) => `"${s}"`).join(', ');
      warnings.push(
        `binders ${names} differ only in upper/lower case: they are imported as separate binders`,
      );
    }
  }
}

/**
 * Whether two rows describe the same movie: same TMDb id, else same IMDb id, else the same normalised
 * title and year (a missing year matches any).
 */
export function sameMovie(a: ImportRow, b: ImportRow): boolean {
  if (a.tmdbId !== null && b.tmdbId !== null) return a.tmdbId === b.tmdbId;
  if (a.imdbId !== null && b.imdbId !== null) return a.imdbId === b.imdbId;
  if (a.year !== null && b.year !== null && a.year !== b.year) return false;
  return normalizeTitle(a.title) === normalizeTitle(b.title);
}

function pushLine(map: Map<string, number[]>, key: string, line: number): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [line]);
  else list.push(line);
}

function lineList(lines: number[]): string {
  const shown = lines.slice(0, MAX_LINES_IN_WARNING).join(', ');
  const more = lines.length > MAX_LINES_IN_WARNING ? ` and ${lines.length - MAX_LINES_IN_WARNING} more` : '';
  return `line${lines.length > 1 ? 's' : ''} ${shown}${more}`;
}
