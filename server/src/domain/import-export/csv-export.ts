/**
 * @module import-export/csv-export
 * The collection as a spreadsheet (GET /api/export?format=csv): one row per physical copy, or per edition
 * without copies, or per movie with neither. The header is one our importer reads back
 * ({@link parseCollectionCsv}), so render → parse gives the same data.
 *
 * Decisions:
 * - UTF-8 **with** a byte-order mark: Excel opens a UTF-8 CSV correctly (Amélie, Léon) only with it; our
 *   importer and every CSV library we know drop it.
 * - RFC 4180: comma, `"` quoting, CRLF record ends (what Excel writes), final CRLF. Values holding a
 *   comma, quote, semicolon, tab or line break are quoted.
 * - Formula injection (OWASP "CSV Injection"): a text cell that, after any leading `'`, starts with
 *   `=`, `+`, `-`, `@`, tab or CR gets one `'` in front ({@link escapeFormula}); the importer removes
 *   exactly that quote ({@link unescapeFormula}), so `=Lola rennt` → `'=Lola rennt` → `=Lola rennt` and a
 *   title that really starts with a quote (`'Til Death`) is written and read unchanged.
 * - Deterministic: rows are sorted by {@link compareCsvExportRows} (a total order over every column),
 *   so the same collection gives the same bytes whatever order the database returns.
 */
import { stringify } from 'csv-stringify/sync';
import { normalizeTitle } from '../titles.ts';
import {
  compareNullableNumber,
  compareNullableText,
  compareSlots,
  compareText,
  escapeFormula,
} from './fields.ts';
import type { ImportRow } from './types.ts';

/** One exported line: an {@link ImportRow} without its line number. */
export type CsvExportRow = Omit<ImportRow, 'line'>;

/** The header of our CSV export, in column order. Every name is an alias the importer maps. */
export const CSV_EXPORT_HEADER = [
  'Title',
  'Year',
  'Format',
  'Edition',
  'Barcode',
  'Binder',
  'Slot',
  'TMDb ID',
  'IMDb ID',
  'Watched',
  'Digital Store A',
  'Digital Store B',
] as const;

const BOM = '\uFEFF';

/**
 * Renders the collection CSV.
 * @param rows one per physical copy (see {@link csvRowsFromExport} in json-format.ts); any order
 * @returns the file text, starting with a BOM, CRLF line ends; encode as UTF-8
 * @example renderCollectionCsv([{ title: 'Amélie', year: 2001, format: 'DVD', … }])
 *   // '\uFEFFTitle,Year,Format,…\r\nAmélie,2001,DVD,…\r\n'
 */
export function renderCollectionCsv(rows: readonly CsvExportRow[]): string {
  const sorted = rows
    .map((row) => ({ row, key: normalizeTitle(row.title) }))
    .sort((a, b) => compareText(a.key, b.key) || compareCsvExportRows(a.row, b.row))
    .map(({ row }) => row);
  const records = sorted.map((row) => [
    escapeFormula(row.title),
    row.year === null ? '' : String(row.year),
    escapeFormula(row.format ?? ''),
    escapeFormula(row.edition ?? ''),
    row.barcode ?? '',
    escapeFormula(row.binder ?? ''),
    escapeFormula(row.slot ?? ''),
    row.tmdbId === null ? '' : String(row.tmdbId),
    row.imdbId ?? '',
    yesNo(row.watched),
    yesNo(row.hasDigitalStoreA),
    yesNo(row.hasDigitalStoreB),
  ]);
  const body = stringify([[...CSV_EXPORT_HEADER], ...records], {
    record_delimiter: '\r\n',
    // csv-stringify quotes only the configured record delimiter; a lone LF or CR must be quoted too.
    quoted_match: /[\r\n;\t]/,
  });
  return `${BOM}${body}`;
}

function yesNo(value: boolean | null): string {
  return value === null ? '' : value ? 'yes' : 'no';
}

/**
 * The export order: normalised title (articles, accents and case ignored), title, year, TMDb id,
 * IMDb id, format, edition, barcode, binder, slot (numbers by value), watched, store flags; empty
 * values last. A total order, so sorting is deterministic.
 */
export function compareCsvExportRows(a: CsvExportRow, b: CsvExportRow): number {
  return (
    compareText(normalizeTitle(a.title), normalizeTitle(b.title)) ||
    compareText(a.title, b.title) ||
    compareNullableNumber(a.year, b.year) ||
    compareNullableNumber(a.tmdbId, b.tmdbId) ||
    compareNullableText(a.imdbId, b.imdbId) ||
    compareNullableText(a.format, b.format) ||
    compareNullableText(a.edition, b.edition) ||
    compareNullableText(a.barcode, b.barcode) ||
    compareNullableText(a.binder, b.binder) ||
    compareSlots(a.slot, b.slot) ||
    compareFlag(a.watched, b.watched) ||
    compareFlag(a.hasDigitalStoreA, b.hasDigitalStoreA) ||
    compareFlag(a.hasDigitalStoreB, b.hasDigitalStoreB)
  );
}

function compareFlag(a: boolean | null, b: boolean | null): number {
  return compareNullableNumber(a === null ? null : Number(a), b === null ? null : Number(b));
}
