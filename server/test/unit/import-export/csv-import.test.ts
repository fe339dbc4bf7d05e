import { importRow } from './rows.ts';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type CsvImportResult, parseCollectionCsv } from '../../../src/domain/import-export/csv-import.ts';
import { excerpt, quoted } from '../../../src/domain/import-export/excerpt.ts';
import type { ImportRow, RowError } from '../../../src/domain/import-export/types.ts';

const csv = (text: string): Buffer => Buffer.from(text, 'utf8');

function rowsOf(result: CsvImportResult): ImportRow[] {
  if (!result.ok) assert.fail(`expected rows, got errors: ${JSON.stringify(result.errors, null, 2)}`);
  return result.rows;
}

function errorsOf(result: CsvImportResult): RowError[] {
  if (result.ok) assert.fail(`expected errors, got ${result.rows.length} rows`);
  return result.errors;
}

const row = importRow;

describe('CLZ Movies export', () => {
  // A CLZ export with the user's chosen columns (metadata.md §6.2): quoted everything, one row per copy.
  const clz = [
    '"Index","Title","Release Year","Format","Edition","Barcode","IMDb Url","Storage Device","Storage Slot","Collection Status","Seen It","Director","Genre","Runtime","Audience Rating","Added Date","My Rating","Quantity","Notes"',
    '"1","The Matrix","1999","Blu-ray Disc","10th Anniversary Edition","085391163541","https://www.imdb.com/title/tt0133093/","Binder A","1","In Collection","Yes","Lana Wachowski, Lilly Wachowski","Action, Sci-Fi","136 min","R","2020-01-05","9","1",""',
    '"2","Inception","2010","4K Ultra HD + Blu-ray","","883929014453","https://www.imdb.com/title/tt1375666/","Binder A","2","In Collection","No","Christopher Nolan","Action","148 min","PG-13","2020-01-06","10","1","Steelbook"',
    '"3","Léon","1994","DVD","Director\'s Cut","85392118823.0","http://www.imdb.com/title/tt0110413","Binder B","1","In Collection","","Luc Besson","Crime","133 min","R","2021-03-02","","1",""',
    '"4","Dune: Part Two","2024","4K Ultra HD","","","","","","Wish List","No","Denis Villeneuve","Sci-Fi","166 min","PG-13","2024-05-01","","0",""',
    '"5","Gravity","2013","Blu-ray 3D","","","","Binder B","2","For Sale","","Alfonso Cuarón","Sci-Fi","91 min","PG-13","2021-03-02","","1",""',
    '"6","Blade Runner","1982","HD-DVD","The Final Cut","","","","","In Collection","Yes","Ridley Scott","Sci-Fi","117 min","R","2021-04-02","","1",""',
    '',
  ].join('\r\n');

  it('maps the CLZ columns, normalises formats; wish-list rows are wishes, not discs', () => {
    const result = parseCollectionCsv(csv(clz));
    assert.deepEqual(rowsOf(result), [
      row({
        line: 2,
        title: 'The Matrix',
        year: 1999,
        imdbId: 'tt0133093',
        edition: '10th Anniversary Edition',
        format: 'Blu-ray',
        barcode: '0085391163541',
        binder: 'Binder A',
        slot: '1',
        watched: true,
      }),
      row({
        line: 3,
        title: 'Inception',
        year: 2010,
        imdbId: 'tt1375666',
        format: '4K UHD',
        barcode: '0883929014453',
        binder: 'Binder A',
        slot: '2',
        watched: false,
      }),
      row({
        line: 4,
        title: 'Léon',
        year: 1994,
        imdbId: 'tt0110413',
        edition: "Director's Cut",
        format: 'DVD',
        barcode: '0085392118823',
        binder: 'Binder B',
        slot: '1',
      }),
      row({ line: 6, title: 'Gravity', year: 2013, format: '3D Blu-ray', binder: 'Binder B', slot: '2' }),
      row({
        line: 7,
        title: 'Blade Runner',
        year: 1982,
        edition: 'The Final Cut',
        format: 'HD DVD',
        watched: true,
      }),
    ]);
    assert.deepEqual(result.ok ? result.wishes : [], [
      row({ line: 5, title: 'Dune: Part Two', year: 2024, format: '4K UHD', watched: false }),
    ]);
    assert.deepEqual(result.warnings, []);
  });

  it('skips rows on order or sold (with a warning); allWishes makes every row a wish', () => {
    const file = [
      'Title,Release Year,Collection Status,Storage Device,Storage Slot',
      'Heat,1995,On Order,,',
      'Alien,1979,In Collection,A,1',
      'Up,2009,Wish List,A,1',
      'Dune,2021,Sold,,',
      '',
    ].join('\n');
    const result = parseCollectionCsv(csv(file));
    assert.deepEqual(
      rowsOf(result).map((r) => r.title),
      ['Alien'],
    );
    assert.deepEqual(result.ok ? result.wishes.map((r) => r.title) : [], ['Up']);
    assert.equal(result.warnings.length, 2);
    assert.match(result.warnings.join('\n'), /"On Order".*line 2/);
    const all = parseCollectionCsv(csv(file), { allWishes: true });
    assert.deepEqual(rowsOf(all), []);
    assert.deepEqual(
      all.ok ? all.wishes.map((r) => r.title) : [],
      ['Heat', 'Alien', 'Up', 'Dune'],
      'a slot taken twice is no error among wishes',
    );
  });

  it('does not read CLZ "Index" as a slot', () => {
    const rows = rowsOf(parseCollectionCsv(csv('Index,Title\n17,Heat\n')));
    assert.equal(rows[0]?.slot, null);
  });

  it('reads the "Release Date" column of other CLZ exports as the year', () => {
    const rows = rowsOf(
      parseCollectionCsv(
        csv(
          'Title,Release Date,IMDb Url,Format,Distributor,Added Date\nHeat,12/15/1995,,DVD,Warner,2020-01-01\n',
        ),
      ),
    );
    assert.equal(rows[0]?.year, 1995);
  });
});

describe('Letterboxd exports', () => {
  it('reads watched.csv / watchlist.csv (Date,Name,Year,Letterboxd URI) without warnings', () => {
    const result = parseCollectionCsv(
      csv(
        [
          'Date,Name,Year,Letterboxd URI',
          '2023-01-14,Amélie,2001,https://boxd.it/2aHM',
          '2023-02-01,Léon: The Professional,1994,https://boxd.it/29Kk',
          '2023-03-03,"Crouching Tiger, Hidden Dragon",2000,https://boxd.it/1xk0',
          '2023-04-01,Some Short,,https://boxd.it/abc',
          '',
        ].join('\n'),
      ),
    );
    assert.deepEqual(rowsOf(result), [
      row({ line: 2, title: 'Amélie', year: 2001 }),
      row({ line: 3, title: 'Léon: The Professional', year: 1994 }),
      row({ line: 4, title: 'Crouching Tiger, Hidden Dragon', year: 2000 }),
      row({ line: 5, title: 'Some Short' }),
    ]);
    assert.deepEqual(result.warnings, []);
  });

  it('reads diary.csv: a Watched Date marks the movie watched, Rating/Rewatch/Tags are ignored', () => {
    const result = parseCollectionCsv(
      csv(
        [
          'Date,Name,Year,Letterboxd URI,Rating,Rewatch,Tags,Watched Date',
          '2023-01-15,Heat,1995,https://boxd.it/abcd,4.5,Yes,"crime, la",2023-01-14',
          '2023-01-16,Ronin,1998,https://boxd.it/abce,3,,,',
        ].join('\n'),
      ),
    );
    assert.deepEqual(rowsOf(result), [
      row({ line: 2, title: 'Heat', year: 1995, watched: true }),
      row({ line: 3, title: 'Ronin', year: 1998 }),
    ]);
    assert.deepEqual(result.warnings, []);
  });

  it("reads Letterboxd's own import format (LetterboxdURI,tmdbID,imdbID,Title,Year,…)", () => {
    const rows = rowsOf(
      parseCollectionCsv(
        csv(
          'LetterboxdURI,tmdbID,imdbID,Title,Year,Directors,WatchedDate,Rating,Rating10,Rewatch,Tags,Review\n' +
            ',603,tt0133093,The Matrix,1999,Wachowski,2022-12-31,5,10,,,\n',
        ),
      ),
    );
    assert.deepEqual(rows, [
      row({ line: 2, title: 'The Matrix', year: 1999, tmdbId: 603, imdbId: 'tt0133093', watched: true }),
    ]);
  });

  it('skips the preamble of a list export and reads the Position,Name,… table', () => {
    const rows = rowsOf(
      parseCollectionCsv(
        csv(
          [
            'Letterboxd list export v7',
            'Date,Name,Tags,URL,Description',
            '2023-05-01,Favourites,,https://boxd.it/list1,My favourites',
            '',
            'Position,Name,Year,URL,Description',
            '1,Heat,1995,https://boxd.it/abcd,',
            '2,Ronin,1998,https://boxd.it/abce,"Car chases, Paris"',
          ].join('\n'),
        ),
      ),
    );
    assert.deepEqual(rows, [
      row({ line: 6, title: 'Heat', year: 1995 }),
      row({ line: 7, title: 'Ronin', year: 1998 }),
    ]);
  });
});

describe('CSV syntax', () => {
  it('handles quotes, doubled quotes, embedded commas and line breaks, with start lines', () => {
    const text = [
      'title,year,edition,format,binder,slot,watched',
      '"Dr. Strangelove or: How I Learned to Stop Worrying and Love the Bomb",1964,"Criterion, 2-disc",DVD,Shelf,1,x',
      '"The ""Best"" Film",2001,,Blu-ray,,,',
      '"Multi',
      'line',
      'title",2002,"Edition with',
      'a break",DVD,,,no',
      'After,2003,,,,,',
    ].join('\n');
    assert.deepEqual(rowsOf(parseCollectionCsv(csv(text))), [
      row({
        line: 2,
        title: 'Dr. Strangelove or: How I Learned to Stop Worrying and Love the Bomb',
        year: 1964,
        edition: 'Criterion, 2-disc',
        format: 'DVD',
        binder: 'Shelf',
        slot: '1',
        watched: true,
      }),
      row({ line: 3, title: 'The "Best" Film', year: 2001, format: 'Blu-ray' }),
      row({
        line: 4,
        title: 'Multi line title',
        year: 2002,
        edition: 'Edition with a break',
        format: 'DVD',
        watched: false,
      }),
      row({ line: 8, title: 'After', year: 2003 }),
    ]);
  });

  it('reads a semicolon file from European Excel with a BOM and CRLF, keeping accents', () => {
    const text =
      '\uFEFFTitle;Year;Format;Edition\r\nAmélie;2001;DVD;"Édition collector; 2 disques"\r\nLéon;1994;Blu-ray;\r\n';
    assert.deepEqual(rowsOf(parseCollectionCsv(csv(text))), [
      row({ line: 2, title: 'Amélie', year: 2001, format: 'DVD', edition: 'Édition collector; 2 disques' }),
      row({ line: 3, title: 'Léon', year: 1994, format: 'Blu-ray' }),
    ]);
  });

  it('honours an Excel "sep=;" first line', () => {
    const rows = rowsOf(parseCollectionCsv(csv('sep=;\nTitle;Year\nHeat, the movie;1995\n')));
    assert.deepEqual(rows, [row({ line: 3, title: 'Heat, the movie', year: 1995 })]);
  });

  it('reads tab-separated files', () => {
    const rows = rowsOf(
      parseCollectionCsv(csv('Title\tYear\tBinder\tSlot\nHeat\t1995\t\t\n Ronin \t1998\tA\t3\n')),
    );
    assert.deepEqual(rows, [
      row({ line: 2, title: 'Heat', year: 1995 }),
      row({ line: 3, title: 'Ronin', year: 1998, binder: 'A', slot: '3' }),
    ]);
  });

  it('skips empty and blank lines, including rows of bare delimiters', () => {
    const rows = rowsOf(
      parseCollectionCsv(csv('\n\nTitle,Year,Format\n\nHeat,1995\n   \n,,\n\t\nRonin,1998\n\n')),
    );
    assert.deepEqual(rows, [
      row({ line: 5, title: 'Heat', year: 1995 }),
      row({ line: 9, title: 'Ronin', year: 1998 }),
    ]);
  });

  it('matches headers regardless of case, spaces, underscores and dashes', () => {
    const rows = rowsOf(
      parseCollectionCsv(
        csv(
          ' TITLE ,release_year,TMDB-ID,imdb_ID,Digital Store A,digital_store_b,STORAGE DEVICE,storage-slot\nHeat,1995,949,tt0113277,yes,no,Binder 1,4\n',
        ),
      ),
    );
    assert.deepEqual(rows, [
      row({
        line: 2,
        title: 'Heat',
        year: 1995,
        tmdbId: 949,
        imdbId: 'tt0113277',
        hasDigitalStoreA: true,
        hasDigitalStoreB: false,
        binder: 'Binder 1',
        slot: '4',
      }),
    ]);
  });

  it('ignores unknown columns with a warning, not an error', () => {
    const result = parseCollectionCsv(csv('Title,Shoe Size,Rating,Notes\nHeat,42,5,great\n'));
    assert.deepEqual(rowsOf(result), [row({ line: 2, title: 'Heat' })]);
    assert.deepEqual(result.warnings, ['column "Shoe Size" is not one we know: ignored']);
  });

  it('warns about unknown formats and imports them as Other', () => {
    const result = parseCollectionCsv(csv('Title,Format\nA,Digital\nB,DVD\nC,Digital\n'));
    assert.deepEqual(
      rowsOf(result).map((r) => r.format),
      ['Other', 'DVD', 'Other'],
    );
    assert.deepEqual(result.warnings, [
      'format "Digital" is not a disc format we know; imported as "Other": lines 2, 4',
    ]);
  });

  it('removes our formula escape and keeps ordinary leading quotes', () => {
    const rows = rowsOf(parseCollectionCsv(csv("Title,Edition\n'=Lola rennt,'@home\n'Til Death,''-1\n")));
    assert.deepEqual(
      rows.map((r) => [r.title, r.edition]),
      [
        ['=Lola rennt', '@home'],
        ["'Til Death", "'-1"],
      ],
    );
  });

  it('uses the barcode normaliser it is given', () => {
    const rows = rowsOf(
      parseCollectionCsv(csv('Title,UPC\nHeat,036000291452\n'), {
        normalizeBarcode: (input) => ({ ok: true, barcode: `${input}-custom` }),
      }),
    );
    assert.equal(rows[0]?.barcode, '036000291452-custom');
  });

  it('accepts a header without rows', () => {
    const result = parseCollectionCsv(csv('Title,Year\n'));
    assert.deepEqual(rowsOf(result), []);
    assert.deepEqual(result.warnings, ['the file has a header but no rows']);
  });
});

describe('file-level errors', () => {
  it('refuses a Latin-1 file with one clear error', () => {
    const latin1 = Buffer.from('Title,Year\nAmélie,2001\n', 'latin1');
    const errors = errorsOf(parseCollectionCsv(latin1));
    assert.equal(errors.length, 1);
    assert.equal(errors[0]?.row, 0);
    assert.equal(errors[0]?.field, 'file');
    assert.match(errors[0]?.message ?? '', /^not UTF-8: save the file as UTF-8 \(.*0xE9 on line 2.*\)$/);
  });

  it('refuses UTF-16 (Excel "Unicode Text") with or without a BOM', () => {
    const withBom = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Title\nHeat\n', 'utf16le')]);
    assert.match(errorsOf(parseCollectionCsv(withBom))[0]?.message ?? '', /^not UTF-8: .*UTF-16/);
    const noBom = Buffer.from('Title\nHeat\n', 'utf16le');
    assert.match(errorsOf(parseCollectionCsv(noBom))[0]?.message ?? '', /^not UTF-8: .*UTF-16/);
  });

  it('refuses an empty file', () => {
    assert.deepEqual(errorsOf(parseCollectionCsv(csv('\uFEFF\n  \n'))), [
      { row: 0, field: 'file', message: 'the file is empty: expected a header row such as Title,Year' },
    ]);
  });

  it('names the header when no column is a title', () => {
    const errors = errorsOf(parseCollectionCsv(csv('Movie Name Here,Year\nHeat,1995\n')));
    assert.equal(errors.length, 1);
    assert.equal(errors[0]?.row, 1);
    assert.equal(errors[0]?.field, 'title');
    assert.match(errors[0]?.message ?? '', /no title column: the header is "Movie Name Here,Year"/);
  });
});

describe('row validation', () => {
  it('lists every bad row with its line and field', () => {
    const text = [
      'Title,Year,TMDb ID,IMDb ID,Barcode,Binder,Slot,Watched,Format', // 1
      'Good,2000,,,,,,,', // 2
      ',2001,,,,,,,', // 3
      'Bad Year,20011,,,,,,,', // 4
      'Bad Tmdb,2000,abc,,,,,,', // 5
      'Bad IMDb,2000,,nm0000123,,,,,', // 6
      'Bad Barcode,2000,,,036000291453,,,,', // 7
      'Slot only,2000,,,,,5,,', // 8
      'Bad watched,2000,,,,,,maybe,', // 9
      '"Multi', // 10
      'line",1800,,,,,,,', // 11
      'Too many,2000,1,tt0133093,,,,,DVD,extra', // 12
      'Two faults,1700,0,,,,,,', // 13
      'Fine again,2001,,,,,,,', // 14
      `${'x'.repeat(501)},2001,,,,,,,`, // 15
    ].join('\n');
    const errors = errorsOf(parseCollectionCsv(csv(text)));
    assert.deepEqual(
      errors.map((e) => [e.row, e.field]),
      [
        [3, 'title'],
        [4, 'year'],
        [5, 'tmdb_id'],
        [6, 'imdb_id'],
        [7, 'barcode'],
        [8, 'slot'],
        [9, 'watched'],
        [10, 'year'],
        [12, 'csv'],
        [13, 'year'],
        [13, 'tmdb_id'],
        [15, 'title'],
      ],
    );
    for (const e of errors) assert.ok(e.message.length > 10, e.message);
    assert.match(errors.find((e) => e.row === 7)?.message ?? '', /check digit/);
    assert.match(errors.find((e) => e.row === 12)?.message ?? '', /10 values but the header has 9/);
  });

  it('reports a line that is not valid CSV and keeps checking the rest', () => {
    const text = ['Title,Year', 'Heat,1995', '"Unclosed,1996', 'Ronin,19988', 'Fine,2000'].join('\n');
    const errors = errorsOf(parseCollectionCsv(csv(text)));
    assert.deepEqual(
      errors.map((e) => [e.row, e.field]),
      [
        [3, 'csv'],
        [4, 'year'],
      ],
    );
    assert.match(errors[0]?.message ?? '', /never closed/);
  });

  it('reports text after a closing quote', () => {
    const errors = errorsOf(
      parseCollectionCsv(csv('Title,Year\n"The "Best" Film",2001\nHeat,1995\n"Odd"x,1\n')),
    );
    assert.deepEqual(
      errors.map((e) => [e.row, e.field]),
      [
        [2, 'csv'],
        [4, 'csv'],
      ],
    );
  });

  it('reports two rows in one binder slot, naming the first line', () => {
    const text = [
      'Title,Binder,Slot',
      'A,Binder 1,1',
      'B,Binder 1,2',
      'C,Binder 1,1',
      'D,Binder 2,1',
      'E,Binder 1,2',
    ].join('\n');
    const result = parseCollectionCsv(csv(text));
    assert.deepEqual(errorsOf(result), [
      {
        row: 4,
        field: 'slot',
        message: 'binder "Binder 1" slot 1 is already taken by line 2: one disc per slot',
      },
      {
        row: 6,
        field: 'slot',
        message: 'binder "Binder 1" slot 2 is already taken by line 3: one disc per slot',
      },
    ]);
  });

  it('treats binders that differ in case as different binders, with a warning', () => {
    const result = parseCollectionCsv(csv('Title,Binder,Slot\nA,Binder 1,1\nB,binder 1,1\n'));
    assert.equal(rowsOf(result).length, 2);
    assert.deepEqual(result.warnings, [
      'binders "Binder 1", "binder 1" differ only in upper/lower case: they are imported as separate binders',
    ]);
  });

  it('refuses a barcode that a spreadsheet turned into scientific notation', () => {
    const errors = errorsOf(parseCollectionCsv(csv('Title,EAN\nHeat,4.00638E+12\n')));
    assert.equal(errors[0]?.field, 'barcode');
    assert.match(errors[0]?.message ?? '', /format the column as text/);
  });

  it('warns when one barcode names two different movies (a box set)', () => {
    const result = parseCollectionCsv(
      csv('Title,Barcode\nAlien,036000291452\nAliens,036000291452\nAlien,036000291452\n'),
    );
    assert.equal(rowsOf(result).length, 3);
    assert.deepEqual(result.warnings, [
      'line 3: barcode 0036000291452 is also on line 2 for another movie (a box set?)',
    ]);
  });
});

describe('size', () => {
  it('parses a 10,000-row file quickly', (t) => {
    const lines = ['Title,Year,Format,Edition,Barcode,Binder,Slot,TMDb ID,IMDb ID,Watched'];
    for (let i = 0; i < 10_000; i++) {
      lines.push(
        `"Movie ${i}, part ${i % 7}",${1900 + (i % 120)},${i % 2 === 0 ? 'DVD' : 'Blu-ray Disc'},Special Edition,,Binder ${Math.floor(i / 100)},${(i % 100) + 1},${i + 1},tt${String(i + 1).padStart(7, '0')},${i % 3 === 0 ? 'yes' : 'no'}`,
      );
    }
    const bytes = csv(`${lines.join('\r\n')}\r\n`);
    const started = performance.now();
    const result = parseCollectionCsv(bytes);
    const elapsedMs = performance.now() - started;
    assert.equal(rowsOf(result).length, 10_000);
    assert.equal(result.ok && result.rows[9_999]?.line, 10_001);
    assert.ok(elapsedMs < 3000, `took ${elapsedMs.toFixed(0)} ms`);
    // Expected well under a second; reported so a slowdown is visible before it fails.
    t.diagnostic(`10,000-row CSV parsed in ${elapsedMs.toFixed(0)} ms`);
  });
});

describe('messages quote at most 200 characters of the file', () => {
  // A cut or binary upload can put megabytes in one line or cell: a message quoting it whole became a
  // 40 MB error body. Each case: the file, and the start of the message that must quote an excerpt.
  const long = 'x'.repeat(1_000_000);
  const cut = `"${'x'.repeat(200)}…"`;
  const table: [string, string, 'error' | 'warning', string][] = [
    [
      'a header without a title column',
      `${long},Year\nHeat,1995\n`,
      'error',
      `no title column: the header is ${cut}`,
    ],
    ['an unknown column', `Title,${long}\nHeat,1\n`, 'warning', `column ${cut} is not one we know`],
    ['a year', `Title,Year\nHeat,${long}\n`, 'error', `${cut} is not a year`],
    ['a TMDb id', `Title,TMDb ID\nHeat,${long}\n`, 'error', `${cut} is not a TMDb id`],
    ['an IMDb id', `Title,IMDb ID\nHeat,${long}\n`, 'error', `${cut} is not an IMDb id`],
    ['a barcode', `Title,Barcode\nHeat,${long}\n`, 'error', `${cut} is not a barcode`],
    [
      'a barcode of digits',
      `Title,Barcode\nHeat,${'1'.repeat(1_000_000)}\n`,
      'error',
      `"${'1'.repeat(200)}…" has 1000000 digits`,
    ],
    ['a watched cell', `Title,Watched\nHeat,${long}\n`, 'error', `${cut} is not yes, no or a date`],
    ['a format', `Title,Format\nHeat,${long}\n`, 'warning', `format ${cut} is not a disc format we know`],
  ];
  for (const [name, text, kind, start] of table) {
    it(name, () => {
      const result = parseCollectionCsv(csv(text));
      const messages = kind === 'error' ? errorsOf(result).map((e) => e.message) : result.warnings;
      const message = messages.find((m) => m.startsWith(start));
      assert.ok(
        message !== undefined,
        `a message starting ${start.slice(0, 60)}…: ${messages.join(' | ').slice(0, 500)}`,
      );
      for (const m of [...messages, ...(result.ok ? [] : result.errors.map((e) => e.message))]) {
        assert.ok(m.length < 500, `message of ${m.length} characters: ${m.slice(0, 100)}…`);
      }
    });
  }

  it('a header of thousands of unknown columns names 20 and counts the rest', () => {
    const header = ['Title', ...Array.from({ length: 5000 }, (_, i) => `Column ${i}`)].join(',');
    const { warnings } = parseCollectionCsv(csv(`${header}\nHeat\n`));
    assert.equal(warnings.filter((w) => w.startsWith('column "')).length, 20);
    assert.ok(warnings.includes('and 4980 more columns that are not ones we know: ignored'), warnings.at(-1));
  });

  it('a short value is quoted whole, and a cut never splits a character', () => {
    assert.equal(excerpt('Titel;Jahr'), 'Titel;Jahr');
    assert.equal(quoted('Titel;Jahr'), '"Titel;Jahr"');
    assert.equal(excerpt('x'.repeat(200)), 'x'.repeat(200));
    assert.equal(excerpt(`a${'😀'.repeat(150)}`), `a${'😀'.repeat(99)}…`);
    assert.equal(excerpt(`ab${'😀'.repeat(150)}`), `ab${'😀'.repeat(99)}…`);
  });
});
