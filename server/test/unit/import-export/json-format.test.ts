import { importRow } from './rows.ts';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderCollectionCsv } from '../../../src/domain/import-export/csv-export.ts';
import { parseCollectionCsv } from '../../../src/domain/import-export/csv-import.ts';
import {
  type ExportMovie,
  type LibraryExport,
  csvRowsFromExport,
  exportMovieFromGroup,
  groupImportRows,
  importRowsFromExport,
  renderLibraryExport,
  validateLibraryExport,
} from '../../../src/domain/import-export/json-format.ts';
import type { RowError } from '../../../src/domain/import-export/types.ts';

const emptyMovie: ExportMovie = {
  title: '',
  original_title: null,
  year: null,
  overview: null,
  tagline: null,
  runtime_minutes: null,
  tmdb_id: null,
  imdb_id: null,
  genres: [],
  tmdb_collection: null,
  binder: null,
  has_digital_store_a: false,
  has_digital_store_b: false,
  watched: false,
  ratings: [],
  directors: [],
  cast: [],
  studios: [],
  artwork: null,
  editions: [],
  copies: [],
  media_files: [],
};
const movie = (fields: Partial<ExportMovie> & Pick<ExportMovie, 'title'>): ExportMovie => ({
  ...emptyMovie,
  ...fields,
});

function library(): LibraryExport {
  return {
    format_version: 1,
    collections: [{ name: 'Kids' }, { name: 'Films' }],
    library_roots: [
      { path: '/srv/media/movies', name: 'Movies', collection: 'Films' },
      { path: '/srv/media/kids', name: 'Kids', collection: 'Kids' },
    ],
    binders: [
      { name: 'Binder B', capacity: 50 },
      { name: 'Binder A', capacity: 100 },
    ],
    movies: [
      movie({
        title: 'The Matrix',
        original_title: 'The Matrix',
        year: 1999,
        overview: 'A hacker learns the truth.',
        tagline: 'Welcome to the Real World.',
        runtime_minutes: 136,
        tmdb_id: 603,
        imdb_id: 'tt0133093',
        genres: ['Action', 'Science Fiction'],
        tmdb_collection: { id: 2344, name: 'The Matrix Collection' },
        has_digital_store_a: true,
        watched: true,
        ratings: [
          { source: 'tmdb', value: '8.2' },
          { source: 'imdb', value: '8.7' },
        ],
        directors: ['Lana Wachowski', 'Lilly Wachowski'],
        cast: ['Keanu Reeves', 'Laurence Fishburne', 'Carrie-Anne Moss'],
        studios: ['Warner Bros.', 'Village Roadshow'],
        artwork: { poster: { state: 'ready', source: 'tmdb' }, backdrop: { state: 'missing', source: null } },
        editions: [
          {
            label: null,
            format: 'DVD',
            barcode: null,
            region: '2',
            copies: [
              { binder: 'Binder A', slot: '10', notes: null },
              { binder: 'Binder A', slot: '2', notes: 'scratched' },
            ],
          },
          {
            label: '10th Anniversary',
            format: 'Blu-ray',
            barcode: '0085391163541',
            region: null,
            copies: [{ binder: 'Binder B', slot: '1', notes: null }],
          },
        ],
        copies: [{ binder: null, slot: null, notes: 'lent to Sam' }],
        media_files: [
          {
            root: '/srv/media/movies',
            relative_path: 'The Matrix (1999)/The Matrix (1999) - 4K.mkv',
            fingerprint: 'a1b2c3d4e5f60718',
            size_bytes: 52_000_000_000,
            edition_label: '4K',
            edition_index: null,
            watch: { position_seconds: 0, watched: true },
          },
          {
            root: '/srv/media/movies',
            relative_path: 'The Matrix (1999)/The Matrix (1999).mkv',
            fingerprint: '0f0e0d0c0b0a0908',
            size_bytes: 8_000_000_000,
            edition_label: null,
            edition_index: 0,
            watch: { position_seconds: 1234, watched: false },
          },
        ],
      }),
      movie({
        title: 'Amélie',
        year: 2001,
        tmdb_id: 194,
        editions: [{ label: null, format: 'DVD', barcode: null, region: null, copies: [] }],
      }),
      movie({ title: 'Léon', year: 1994, imdb_id: 'tt0110413', has_digital_store_b: true }),
      movie({
        title: 'Toy Story',
        year: 1995,
        tmdb_id: 862,
        media_files: [
          {
            root: '/srv/media/kids',
            relative_path: 'Toy Story (1995).mp4',
            fingerprint: null,
            size_bytes: 1_000,
            edition_label: null,
            edition_index: null,
            watch: null,
          },
        ],
      }),
      movie({ title: 'Heat', year: 1995, copies: [{ binder: 'Binder B', slot: '7', notes: null }] }),
    ],
  };
}

/** The same library with every set-like array in another order. */
function shuffled(): LibraryExport {
  const lib = library();
  const reverse = <T>(items: T[]): T[] => [...items].reverse();
  return {
    binders: reverse(lib.binders),
    library_roots: reverse(lib.library_roots),
    movies: reverse(lib.movies).map((m) => {
      const editions = reverse(m.editions).map((e) => ({ ...e, copies: reverse(e.copies) }));
      return {
        ...m,
        ratings: reverse(m.ratings),
        studios: reverse(m.studios),
        editions,
        copies: reverse(m.copies),
        // edition_index follows the reversed editions
        media_files: reverse(m.media_files).map((f) => ({
          ...f,
          edition_index: f.edition_index === null ? null : m.editions.length - 1 - f.edition_index,
        })),
      };
    }),
    collections: reverse(lib.collections),
    format_version: 1,
  };
}

function errorsOf(value: unknown): RowError[] {
  const result = validateLibraryExport(value);
  if (result.ok) assert.fail('expected validation errors');
  return result.errors;
}

describe('renderLibraryExport', () => {
  it('renders the same bytes whatever the order of the input', () => {
    assert.equal(renderLibraryExport(shuffled()), renderLibraryExport(library()));
  });

  it('uses two-space indent, LF only, a final newline and no timestamps', () => {
    const text = renderLibraryExport(library());
    assert.ok(text.endsWith('}\n'));
    assert.ok(!text.includes('\r'));
    assert.ok(text.startsWith('{\n  "format_version": 1,\n  "movies": [\n    {\n      "title": '));
    assert.doesNotMatch(text, /exported_at|created_at|updated_at|"id": \d+,\n\s+"title"/);
  });

  it('writes keys in a fixed order and sorts movies by normalised title, editions by format, copies by slot number', () => {
    const doc = JSON.parse(renderLibraryExport(shuffled())) as LibraryExport;
    assert.deepEqual(Object.keys(doc), [
      'format_version',
      'movies',
      'collections',
      'library_roots',
      'binders',
    ]);
    assert.deepEqual(
      doc.movies.map((m) => m.title),
      ['Amélie', 'Heat', 'Léon', 'The Matrix', 'Toy Story'],
    );
    const matrix = doc.movies[3];
    assert.deepEqual(Object.keys(matrix ?? {}), Object.keys(emptyMovie));
    assert.deepEqual(
      matrix?.editions.map((e) => e.format),
      ['Blu-ray', 'DVD'],
    );
    assert.deepEqual(
      matrix?.editions[1]?.copies.map((c) => c.slot),
      ['2', '10'],
    );
    assert.deepEqual(
      matrix?.ratings.map((r) => r.source),
      ['imdb', 'tmdb'],
    );
    assert.deepEqual(matrix?.cast, ['Keanu Reeves', 'Laurence Fishburne', 'Carrie-Anne Moss']);
    assert.deepEqual(
      doc.collections.map((c) => c.name),
      ['Films', 'Kids'],
    );
    assert.deepEqual(
      doc.binders.map((b) => b.name),
      ['Binder A', 'Binder B'],
    );
  });

  it('re-points edition_index at the edition after sorting', () => {
    const doc = JSON.parse(renderLibraryExport(library())) as LibraryExport;
    const matrix = doc.movies.find((m) => m.tmdb_id === 603);
    const file = matrix?.media_files.find((f) => f.relative_path.endsWith('(1999).mkv'));
    assert.equal(file?.edition_index, 1);
    assert.equal(matrix?.editions[1]?.format, 'DVD');
  });

  it('does not modify its input and drops fields outside the format', () => {
    const lib = library();
    const before = JSON.stringify(lib);
    const extra = { ...lib, movies: lib.movies.map((m) => ({ ...m, id: 42 })) };
    assert.equal(renderLibraryExport(extra), renderLibraryExport(lib));
    assert.equal(JSON.stringify(lib), before);
  });

  it('reads back through the validator to the same bytes', () => {
    const text = renderLibraryExport(library());
    const result = validateLibraryExport(JSON.parse(text));
    if (!result.ok) assert.fail(JSON.stringify(result.errors, null, 2));
    assert.equal(renderLibraryExport(result.value), text);
  });
});

describe('validateLibraryExport', () => {
  it('fills in defaults for a minimal document', () => {
    const result = validateLibraryExport({ format_version: 1, movies: [{ title: 'Heat', year: 1995 }] });
    assert.deepEqual(result, {
      ok: true,
      value: {
        format_version: 1,
        movies: [movie({ title: 'Heat', year: 1995 })],
        collections: [],
        library_roots: [],
        binders: [],
      },
    });
  });

  it('refuses a non-object and an unknown format_version', () => {
    assert.deepEqual(errorsOf([]), [
      { row: 0, field: 'document', message: 'must be a JSON object with format_version and movies' },
    ]);
    assert.deepEqual(errorsOf({ format_version: 2, movies: [] }), [
      { row: 0, field: 'format_version', message: '2 is not supported (this server reads format_version 1)' },
    ]);
    assert.deepEqual(
      errorsOf({ movies: {} }).map((e) => e.field),
      ['format_version', 'movies'],
    );
  });

  it('lists every problem with the 1-based movie item and a JSON path', () => {
    const errors = errorsOf({
      format_version: 1,
      library_roots: [{ path: '/srv/media/movies', name: 'Movies', collection: null }],
      movies: [
        { title: 'Fine', tmdb_id: 603 },
        { year: 'nineteen', imdb_id: 'nm01', tmdb_id: 603, watched: 'yes', colour: 'red' },
        {
          title: 'Copies',
          editions: [
            {
              format: 'Blu-ray',
              barcode: '036000291453',
              copies: [{ binder: 'A', slot: '1' }, { slot: '2' }],
            },
            { format: 'Betamax', copies: [] },
          ],
          copies: [{ binder: 'A', slot: '1', notes: 7 }],
        },
        {
          title: 'Files',
          media_files: [
            { root: '/elsewhere', relative_path: 'x.mkv', size_bytes: 1 },
            { root: 'Movies', relative_path: '../../etc/passwd', size_bytes: 1 },
            { root: '/srv/media/movies', relative_path: 'a.mkv', size_bytes: -1, edition_index: 0 },
            {
              root: '/srv/media/movies',
              relative_path: 'a.mkv',
              size_bytes: 1,
              watch: { position_seconds: -5 },
            },
          ],
          ratings: [
            { source: 'imdb', value: '8.0' },
            { source: 'imdb', value: '8.1' },
          ],
        },
        'not a movie',
      ],
    });
    assert.deepEqual(
      errors.map((e) => [e.row, e.field]),
      [
        [2, 'colour'],
        [2, 'title'],
        [2, 'tmdb_id'],
        [2, 'imdb_id'],
        [2, 'year'],
        [2, 'watched'],
        [3, 'editions/0/barcode'],
        [3, 'editions/0/copies/1/slot'],
        [3, 'editions/1/format'],
        [3, 'copies/0/slot'],
        [3, 'copies/0/notes'],
        [4, 'media_files/0/root'],
        [4, 'media_files/1/relative_path'],
        [4, 'media_files/2/size_bytes'],
        [4, 'media_files/2/edition_index'],
        [4, 'media_files/3/relative_path'],
        [4, 'media_files/3/watch/position_seconds'],
        [4, 'ratings/1/source'],
        [5, 'document'],
      ],
    );
    const message = (row: number, field: string) =>
      errors.find((e) => e.row === row && e.field === field)?.message;
    assert.equal(message(2, 'tmdb_id'), 'tmdb_id 603 is already used on movie item 1 (tmdb_id)');
    assert.equal(message(3, 'editions/0/copies/1/slot'), 'slot 2 needs a binder');
    assert.equal(
      message(3, 'copies/0/slot'),
      'binder "A" slot 1 is already used at editions/0/copies/0/slot',
    );
    assert.match(message(3, 'editions/0/barcode') ?? '', /check digit/);
    assert.match(message(4, 'media_files/1/relative_path') ?? '', /inside its root/);
    assert.match(
      message(4, 'media_files/3/relative_path') ?? '',
      /already used at media_files\/2\/relative_path/,
    );
  });

  it('keeps a binder’s slots per page (issue 27), written only when not the default 8', () => {
    const binders = [
      { name: 'A', capacity: 40, slots_per_page: 12 },
      { name: 'B', capacity: 40 },
    ];
    const result = validateLibraryExport({ format_version: 1, movies: [], binders });
    if (!result.ok) assert.fail(JSON.stringify(result.errors));
    assert.deepEqual(result.value.binders, binders);
    const text = renderLibraryExport(result.value);
    assert.match(text, /"slots_per_page": 12/);
    assert.equal(text.match(/slots_per_page/g)?.length, 1);
    const again = validateLibraryExport(JSON.parse(text));
    if (!again.ok) assert.fail(JSON.stringify(again.errors));
    assert.equal(renderLibraryExport(again.value), text);
    assert.deepEqual(
      errorsOf({
        format_version: 1,
        movies: [],
        binders: [{ name: 'C', capacity: 1, slots_per_page: 101 }],
      }).map((e) => e.field),
      ['binders/0/slots_per_page'],
    );
  });

  it('keeps the wish list (issue 27): sorted, written only when there are wishes, one film once', () => {
    const wishes = [
      { title: 'Paris, Texas', year: 1984, tmdb_id: null, note: 'the "restored" print' },
      { title: 'Koyaanisqatsi', year: null, tmdb_id: 11314, note: null },
      { title: 'The Abyss', year: 1989, tmdb_id: null, note: null },
    ];
    const result = validateLibraryExport({ format_version: 1, movies: [], wishes });
    if (!result.ok) assert.fail(JSON.stringify(result.errors));
    const text = renderLibraryExport(result.value);
    const doc = JSON.parse(text) as { wishes: { title: string }[] };
    assert.deepEqual(
      doc.wishes.map((w) => w.title),
      ['The Abyss', 'Koyaanisqatsi', 'Paris, Texas'],
    );
    const again = validateLibraryExport(JSON.parse(text));
    if (!again.ok) assert.fail(JSON.stringify(again.errors));
    assert.equal(renderLibraryExport(again.value), text);
    const none = validateLibraryExport({ format_version: 1, movies: [], wishes: [] });
    if (!none.ok) assert.fail(JSON.stringify(none.errors));
    assert.equal('wishes' in none.value, false);
    assert.equal(renderLibraryExport(none.value).includes('wishes'), false, 'older exports keep their bytes');
    assert.deepEqual(
      errorsOf({
        format_version: 1,
        movies: [],
        wishes: [
          { title: 'Heat', year: 1995, tmdb_id: 949 },
          { title: 'heat', year: 1995 },
          { title: 'Other', tmdb_id: 949 },
          { title: '', year: 1 },
          { title: 'X', color: 'red' },
        ],
      }).map((e) => e.field),
      ['wishes/1/title', 'wishes/2/tmdb_id', 'wishes/3/title', 'wishes/3/year', 'wishes/4/color'],
    );
  });

  it('checks the document-level lists', () => {
    const errors = errorsOf({
      format_version: 1,
      movies: [],
      collections: [{ name: 'A' }, { name: 'A' }],
      library_roots: [{ path: 'relative/dir', name: 'R', collection: 'Nope' }],
      binders: [{ name: 'B' }, { name: 'C', capacity: 0 }],
    });
    assert.deepEqual(
      errors.map((e) => [e.row, e.field]),
      [
        [0, 'collections/1/name'],
        [0, 'library_roots/0/path'],
        [0, 'library_roots/0/collection'],
        [0, 'binders/0/capacity'],
        [0, 'binders/1/capacity'],
      ],
    );
  });

  it('normalises format spellings and uses the barcode normaliser it is given', () => {
    const result = validateLibraryExport(
      {
        format_version: 1,
        movies: [{ title: 'Heat', editions: [{ format: 'Blu-ray Disc', barcode: '0036000291452' }] }],
      },
      { normalizeBarcode: (input) => ({ ok: true, barcode: `${input}-custom` }) },
    );
    assert.ok(result.ok);
    assert.deepEqual(result.value.movies[0]?.editions[0], {
      label: null,
      format: 'Blu-ray',
      barcode: '0036000291452-custom',
      region: null,
      copies: [],
    });
  });
});

describe('CSV view of the document', () => {
  it('gives one row per copy, per edition without copies, per movie with neither', () => {
    const rows = importRowsFromExport(library());
    const matrix = rows.filter((r) => r.tmdbId === 603);
    assert.deepEqual(
      matrix.map((r) => [r.format, r.binder, r.slot]),
      [
        ['DVD', 'Binder A', '10'],
        ['DVD', 'Binder A', '2'],
        ['Blu-ray', 'Binder B', '1'],
      ],
    );
    assert.deepEqual(
      rows.filter((r) => r.title !== 'The Matrix').map((r) => [r.line, r.title, r.format, r.binder]),
      [
        [2, 'Amélie', 'DVD', null],
        [3, 'Léon', null, null],
        [4, 'Toy Story', null, null],
        [5, 'Heat', null, 'Binder B'],
      ],
    );
  });

  it('survives export → CSV → import → group → export with the same CSV bytes', () => {
    const first = renderCollectionCsv(csvRowsFromExport(library()));
    const parsed = parseCollectionCsv(Buffer.from(first, 'utf8'));
    if (!parsed.ok) assert.fail(JSON.stringify(parsed.errors));
    const regrouped: LibraryExport = {
      format_version: 1,
      movies: groupImportRows(parsed.rows).map(exportMovieFromGroup),
      collections: [],
      library_roots: [],
      binders: [],
    };
    assert.equal(renderCollectionCsv(csvRowsFromExport(regrouped)), first);
  });
});

describe('groupImportRows', () => {
  const row = importRow;

  it('joins rows of one movie and one edition, keeps copies and their lines', () => {
    const groups = groupImportRows([
      row({
        line: 2,
        title: 'The Matrix',
        year: 1999,
        tmdbId: 603,
        format: 'DVD',
        binder: 'A',
        slot: '1',
        watched: false,
      }),
      row({
        line: 3,
        title: 'Matrix, The',
        year: 1999,
        format: 'DVD',
        binder: 'A',
        slot: '2',
        watched: true,
      }),
      row({
        line: 4,
        title: 'Matrix',
        imdbId: 'tt0133093',
        tmdbId: 603,
        format: 'Blu-ray',
        barcode: '0085391163541',
      }),
      row({ line: 5, title: 'The Matrix', tmdbId: 604 }),
      row({ line: 6, title: 'Heat', binder: 'B', slot: '9' }),
      row({ line: 7, title: 'Heat' }),
    ]);
    assert.equal(groups.length, 3);
    const [matrix, other, heat] = groups;
    assert.deepEqual(matrix?.lines, [2, 3, 4]);
    assert.equal(matrix?.tmdbId, 603);
    assert.equal(matrix?.imdbId, 'tt0133093');
    assert.equal(matrix?.watched, true);
    assert.deepEqual(
      matrix?.editions.map((e) => [e.format, e.barcode, e.copies.map((c) => c.line)]),
      [
        ['DVD', null, [2, 3]],
        ['Blu-ray', '0085391163541', [4]],
      ],
    );
    assert.deepEqual(other?.lines, [5]);
    assert.deepEqual(heat?.lines, [6, 7]);
    assert.deepEqual(heat?.copies, [{ line: 6, binder: 'B', slot: '9' }]);
    assert.deepEqual(heat?.editions, []);
  });
});

describe('loans in the JSON document (issue 27)', () => {
  const lent = (loans: unknown) => ({
    format_version: 1,
    movies: [{ title: 'Heat', year: 1995, copies: [{ binder: 'A', slot: '1', loans }] }],
  });
  const neil = { to: 'Neil', lent_at: '2026-03-01T10:00:00.000Z', due: '2026-03-20', returned_at: null };
  const chris = {
    to: 'Chris',
    lent_at: '2026-01-01T10:00:00.000Z',
    due: null,
    returned_at: '2026-01-05T18:30:00.000Z',
  };

  it('reads them back to the same bytes, oldest first; a copy never lent has no loans key', () => {
    const result = validateLibraryExport(lent([neil, chris]));
    if (!result.ok) assert.fail(JSON.stringify(result.errors, null, 2));
    const text = renderLibraryExport(result.value);
    const doc = JSON.parse(text) as LibraryExport;
    assert.deepEqual(doc.movies[0]?.copies[0]?.loans, [chris, neil]);
    const again = validateLibraryExport(JSON.parse(text));
    if (!again.ok) assert.fail('valid');
    assert.equal(renderLibraryExport(again.value), text);
    const home = validateLibraryExport(lent([]));
    if (!home.ok) assert.fail('valid');
    assert.doesNotMatch(renderLibraryExport(home.value), /loans/);
  });

  it('refuses two open loans of one copy, a bad day or time, a missing borrower', () => {
    assert.deepEqual(
      errorsOf(lent([neil, { ...neil, to: 'Vincent' }])).map((e) => e.field),
      ['copies/0/loans'],
    );
    assert.deepEqual(
      errorsOf(
        lent([
          { ...neil, due: '2026-02-30' },
          { ...chris, lent_at: 'yesterday' },
          { ...chris, to: ' ' },
        ]),
      ).map((e) => e.field),
      ['copies/0/loans/0/due', 'copies/0/loans/1/lent_at', 'copies/0/loans/2/to'],
    );
    assert.deepEqual(
      errorsOf(lent([{ to: 'Neil', due: null, returned_at: null }])).map((e) => e.field),
      ['copies/0/loans/0/lent_at'],
    );
  });

  it('refuses a time that is no calendar day (it was stored as written) and a return before the lend', () => {
    assert.deepEqual(
      errorsOf(
        lent([
          { ...chris, lent_at: '2026-02-30T10:00:00.000Z' },
          { ...chris, returned_at: '2025-13-01T10:00:00.000Z' },
          { ...chris, returned_at: '2025-12-31T10:00:00.000Z' },
        ]),
      ).map((e) => e.field),
      ['copies/0/loans/0/lent_at', 'copies/0/loans/1/returned_at', 'copies/0/loans/2/returned_at'],
    );
    const sameMoment = validateLibraryExport(lent([{ ...chris, returned_at: chris.lent_at }]));
    assert.equal(sameMoment.ok, true, 'back the moment it left is a loan all the same');
  });
});
