import type { ImportRow } from '../../../src/domain/import-export/index.ts';

/** An ImportRow with every optional field empty, the given ones set (tests only). */
export function importRow(fields: Partial<ImportRow> & Pick<ImportRow, 'line' | 'title'>): ImportRow {
  return {
    year: null,
    tmdbId: null,
    imdbId: null,
    edition: null,
    format: null,
    barcode: null,
    binder: null,
    slot: null,
    watched: null,
    hasDigitalStoreA: null,
    hasDigitalStoreB: null,
    ...fields,
  };
}
