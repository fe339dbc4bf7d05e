/**
 * @module import-export/types
 * Shapes shared by the CSV importer, the CSV exporter and the JSON export format.
 */

/**
 * One problem found in an import file. For CSV, `row` is the 1-based line of the file (the header is
 * line 1; a record that spans lines reports the line it starts on) and 0 for a problem with the file as
 * a whole (not UTF-8, empty). For JSON, `row` is the 1-based index of the item in `movies`, or 0 for a
 * problem outside `movies`. `field` is the canonical column name (`title`, `year`, `tmdb_id`, `imdb_id`,
 * `edition`, `format`, `barcode`, `binder`, `slot`, `watched`, `digital_store_a`, `digital_store_b`), or
 * `file` (the whole file), or `csv` (a line that is not valid CSV) — for JSON a path such as
 * `editions/0/copies/1/slot`.
 */
export interface RowError {
  row: number;
  field: string;
  message: string;
}

/** One validated CSV line: a movie, optionally one physical copy (edition, format, barcode, binder, slot). */
export interface ImportRow {
  /** The line of the file the record starts on. */
  line: number;
  title: string;
  year: number | null;
  tmdbId: number | null;
  imdbId: string | null;
  edition: string | null;
  /** One of {@link DISC_FORMATS}. */
  format: string | null;
  /** Digits only, as returned by the barcode normaliser (by default the GTIN: UPC-A as 13 digits). */
  barcode: string | null;
  binder: string | null;
  slot: string | null;
  watched: boolean | null;
  hasDigitalStoreA: boolean | null;
  hasDigitalStoreB: boolean | null;
}

/** The result of a barcode check: the normalised digits, or why the input is not a barcode. */
export type BarcodeCheck = { ok: true; barcode: string } | { ok: false; message: string };

/**
 * Validates and normalises a disc barcode. The default, {@link checkBarcode}, is the project-wide
 * `normalizeBarcode` of server/src/domain/barcode.ts; the option exists for tests and other rules.
 */
export type BarcodeNormalizer = (input: string) => BarcodeCheck;

/** The disc formats the API accepts (`copyInput.format` in server/src/http/schemas.ts). */
export const DISC_FORMATS = [
  'DVD',
  'Blu-ray',
  '4K UHD',
  '3D Blu-ray',
  'HD DVD',
  'VHS',
  'LaserDisc',
  'Other',
] as const;
export type DiscFormat = (typeof DISC_FORMATS)[number];
