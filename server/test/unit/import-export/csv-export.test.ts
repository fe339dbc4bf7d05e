import { importRow } from './rows.ts';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import {
  CSV_EXPORT_HEADER,
  type CsvExportRow,
  renderCollectionCsv,
} from '../../../src/domain/import-export/csv-export.ts';
import { parseCollectionCsv } from '../../../src/domain/import-export/csv-import.ts';

// An export row is an import row without its line number.
const { line: _line, title: _title, ...empty } = importRow({ line: 0, title: '' });
const base: CsvExportRow = { title: '', ...empty };
const r = (fields: Partial<CsvExportRow> & Pick<CsvExportRow, 'title'>): CsvExportRow => ({
  ...base,
  ...fields,
});

const collection: CsvExportRow[] = [
  r({
    title: 'The Matrix',
    year: 1999,
    tmdbId: 603,
    imdbId: 'tt0133093',
    format: 'Blu-ray',
    edition: '10th Anniversary, 2 discs',
    barcode: '0085391163541',
    binder: 'Binder A',
    slot: '10',
    watched: true,
    hasDigitalStoreA: true,
    hasDigitalStoreB: false,
  }),
  r({
    title: 'The Matrix',
    year: 1999,
    tmdbId: 603,
    imdbId: 'tt0133093',
    format: 'DVD',
    binder: 'Binder A',
    slot: '2',
    watched: true,
    hasDigitalStoreA: true,
    hasDigitalStoreB: false,
  }),
  r({
    title: 'Amélie',
    year: 2001,
    tmdbId: 194,
    format: 'DVD',
    edition: 'Édition "collector"',
    binder: 'Classeur; Europe',
    slot: '1',
    watched: false,
    hasDigitalStoreA: false,
    hasDigitalStoreB: false,
  }),
  r({
    title: 'Léon',
    year: 1994,
    format: '4K UHD',
    watched: false,
    hasDigitalStoreA: false,
    hasDigitalStoreB: true,
  }),
  r({
    title: '=HYPERLINK("http://evil.example","click")',
    year: 2020,
    watched: false,
    hasDigitalStoreA: false,
    hasDigitalStoreB: false,
  }),
  r({
    title: '+1 Phone',
    edition: '-ing',
    binder: '@home',
    slot: '=1+1',
    watched: false,
    hasDigitalStoreA: false,
    hasDigitalStoreB: false,
  }),
  r({ title: "'Til Death", edition: "''-1", watched: null, hasDigitalStoreA: null, hasDigitalStoreB: null }),
  r({
    title: 'Heat',
    year: 1995,
    barcode: '0036000291452',
    format: 'Other',
    watched: false,
    hasDigitalStoreA: false,
    hasDigitalStoreB: false,
  }),
];

function parsed(text: string): CsvExportRow[] {
  const result = parseCollectionCsv(Buffer.from(text, 'utf8'));
  if (!result.ok) assert.fail(JSON.stringify(result.errors, null, 2));
  assert.deepEqual(result.warnings, []);
  return result.rows.map(({ line: _line, ...row }) => row);
}

describe('renderCollectionCsv', () => {
  it('writes a BOM, the documented header and CRLF line ends', () => {
    const text = renderCollectionCsv([r({ title: 'Heat', year: 1995, watched: true })]);
    assert.equal(
      text,
      '\uFEFFTitle,Year,Format,Edition,Barcode,Binder,Slot,TMDb ID,IMDb ID,Watched,Digital Store A,Digital Store B\r\n' +
        'Heat,1995,,,,,,,,yes,,\r\n',
    );
    assert.deepEqual([...CSV_EXPORT_HEADER], text.slice(1).split('\r\n')[0]?.split(','));
  });

  it('reads back through our importer to the same data (round trip)', () => {
    const text = renderCollectionCsv(collection);
    const back = parsed(text);
    assert.equal(back.length, collection.length);
    const key = (row: CsvExportRow) => JSON.stringify(row);
    assert.deepEqual(back.map(key).sort(), collection.map(key).sort());
    // …and rendering what was read gives the same bytes.
    assert.equal(renderCollectionCsv(back), text);
  });

  it('is deterministic: input order does not matter', () => {
    const reversed = [...collection].reverse();
    const rotated = [...collection.slice(3), ...collection.slice(0, 3)];
    assert.equal(renderCollectionCsv(reversed), renderCollectionCsv(collection));
    assert.equal(renderCollectionCsv(rotated), renderCollectionCsv(collection));
  });

  it('sorts by title ignoring articles and accents, then year, then slot by number', () => {
    const text = renderCollectionCsv(collection);
    const titles = text
      .split('\r\n')
      .slice(1, -1)
      .map((line) => line.split(',')[0]);
    assert.deepEqual(titles, [
      "'+1 Phone",
      'Amélie',
      'Heat',
      '"\'=HYPERLINK(""http://evil.example""',
      'Léon',
      'The Matrix',
      'The Matrix',
      "'Til Death",
    ]);
    const slots = ['10', 'A1', '2', null].map((slot) =>
      r({ title: 'Heat', format: 'DVD', binder: 'B', slot }),
    );
    const slotColumn = renderCollectionCsv(slots)
      .split('\r\n')
      .slice(1, -1)
      .map((line) => line.split(',')[6]);
    assert.deepEqual(slotColumn, ['2', '10', 'A1', '']);
  });

  it('leaves no cell that a spreadsheet would run as a formula', () => {
    const cells = parse(renderCollectionCsv(collection).slice(1), { record_delimiter: '\r\n' }) as string[][];
    for (const cell of cells.flat()) assert.doesNotMatch(cell, /^[=+\-@\t\r]/, cell);
    assert.ok(cells.flat().includes('\'=HYPERLINK("http://evil.example","click")'));
    assert.ok(cells.flat().includes("'=1+1"));
    assert.ok(cells.flat().includes("'''-1"));
    assert.ok(cells.flat().includes("'Til Death"));
  });

  it('quotes values with commas, quotes, semicolons and line breaks', () => {
    const text = renderCollectionCsv([r({ title: 'A, "B"; C\nD' })]);
    assert.ok(text.includes('"A, ""B""; C\nD"'));
  });

  it('writes only the header for an empty collection', () => {
    assert.equal(renderCollectionCsv([]), `\uFEFF${CSV_EXPORT_HEADER.join(',')}\r\n`);
  });
});
