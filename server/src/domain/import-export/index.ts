/**
 * @module import-export
 * Pure parts of import and export (issue 7): CSV reading and writing, the versioned JSON document.
 * The service that talks to the database builds on these.
 */
export * from './types.ts';
export { checkBarcode } from './barcode-check.ts';
export { escapeFormula, unescapeFormula } from './fields.ts';
export {
  COLUMN_ALIASES,
  IGNORED_COLUMNS,
  IMPORT_FIELDS,
  type CsvImportOptions,
  type CsvImportResult,
  type ImportField,
  headerKey,
  parseCollectionCsv,
  sameMovie,
} from './csv-import.ts';
export {
  CSV_EXPORT_HEADER,
  type CsvExportRow,
  compareCsvExportRows,
  renderCollectionCsv,
} from './csv-export.ts';
export * from './json-format.ts';
