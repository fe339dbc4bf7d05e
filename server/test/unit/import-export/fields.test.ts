import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  compareSlots,
  escapeFormula,
  looksLikeFormula,
  parseBarcodeCell,
  parseFormat,
  parseImdbId,
  parseTmdbId,
  parseWatched,
  parseYear,
  unescapeFormula,
} from '../../../src/domain/import-export/fields.ts';
import { checkBarcode } from '../../../src/domain/import-export/barcode-check.ts';

describe('checkBarcode (the project rules of domain/barcode.ts, with messages)', () => {
  it('accepts UPC-A, EAN-13, EAN-8 and UPC-E and returns the stored GTIN', () => {
    assert.deepEqual(checkBarcode('036000291452'), { ok: true, barcode: '0036000291452' });
    assert.deepEqual(checkBarcode('0 36000-29145 2'), { ok: true, barcode: '0036000291452' });
    assert.deepEqual(checkBarcode('0036000291452'), { ok: true, barcode: '0036000291452' });
    assert.deepEqual(checkBarcode('4006381333931'), { ok: true, barcode: '4006381333931' });
    assert.deepEqual(checkBarcode('04252614'), { ok: true, barcode: '0042100005264' });
  });

  it('explains wrong check digits, wrong lengths, letters and ISBNs', () => {
    const message = (input: string) => {
      const result = checkBarcode(input);
      return result.ok ? 'ok' : result.message;
    };
    assert.equal(
      message('036000291453'),
      '"036000291453" has a wrong check digit (the last digit should be 2): a typo in the barcode?',
    );
    assert.match(message('12345'), /has 5 digits/);
    assert.match(message('ABC000291452'), /digits only/);
    assert.match(message('9780306406157'), /ISBN/);
  });
});

describe('barcode cells as spreadsheets leave them', () => {
  it('drops ".0", re-pads a lost leading zero and refuses scientific notation', () => {
    assert.deepEqual(parseBarcodeCell('85392118823.0', checkBarcode), { ok: true, value: '0085392118823' });
    assert.deepEqual(parseBarcodeCell(' 085392118823 ', checkBarcode), { ok: true, value: '0085392118823' });
    assert.deepEqual(parseBarcodeCell('', checkBarcode), { ok: true, value: null });
    const sci = parseBarcodeCell('4.00638E+12', checkBarcode);
    assert.equal(sci.ok, false);
    assert.match(sci.ok ? '' : sci.message, /format the column as text/);
  });
});

describe('parseFormat', () => {
  const cases: [string, string, boolean][] = [
    ['DVD', 'DVD', true],
    ['dvd', 'DVD', true],
    ['DVD-R', 'DVD', true],
    ['Blu-ray', 'Blu-ray', true],
    ['Blu-ray Disc', 'Blu-ray', true],
    ['BluRay', 'Blu-ray', true],
    ['BD', 'Blu-ray', true],
    ['Blu-ray + DVD', 'Blu-ray', true],
    ['DVD + Blu-ray', 'Blu-ray', true],
    ['4K Ultra HD', '4K UHD', true],
    ['4K Ultra HD + Blu-ray', '4K UHD', true],
    ['UHD', '4K UHD', true],
    ['4K UHD', '4K UHD', true],
    ['Blu-ray 3D', '3D Blu-ray', true],
    ['3D Blu-ray', '3D Blu-ray', true],
    ['3D DVD', 'DVD', true],
    ['HD DVD', 'HD DVD', true],
    ['HD-DVD', 'HD DVD', true],
    ['VHS', 'VHS', true],
    ['Laserdisc', 'LaserDisc', true],
    ['Laser Disc', 'LaserDisc', true],
    ['Other', 'Other', true],
    ['Digital', 'Other', false],
    ['UMD', 'Other', false],
  ];
  for (const [input, format, known] of cases) {
    it(`reads "${input}" as ${format}`, () => {
      assert.deepEqual(parseFormat(input), { ok: true, value: { format, known } });
    });
  }
  it('gives null for an empty cell', () => assert.deepEqual(parseFormat('  '), { ok: true, value: null }));
});

describe('years, ids and watched values', () => {
  it('reads years from plain numbers and dates', () => {
    const ok = (raw: string) => {
      const y = parseYear(raw);
      return y.ok ? y.value : 'error';
    };
    assert.equal(ok('1999'), 1999);
    assert.equal(ok('1999.0'), 1999);
    assert.equal(ok('1999-03-31'), 1999);
    assert.equal(ok('31/03/1999'), 1999);
    assert.equal(ok('Mar 31, 1999'), 1999);
    assert.equal(ok(''), null);
    assert.equal(ok('99'), 'error');
    assert.equal(ok('20011'), 'error');
    assert.equal(ok('1869'), 'error');
    assert.equal(ok('2101'), 'error');
    assert.equal(ok('nineteen'), 'error');
  });

  it('reads IMDb ids from ids, URLs and bare digits', () => {
    assert.deepEqual(parseImdbId('tt0133093'), { ok: true, value: 'tt0133093' });
    assert.deepEqual(parseImdbId('TT0133093'), { ok: true, value: 'tt0133093' });
    assert.deepEqual(parseImdbId('https://www.imdb.com/title/tt0133093/'), { ok: true, value: 'tt0133093' });
    assert.deepEqual(parseImdbId('http://imdb.com/title/tt0110413?ref_=x'), { ok: true, value: 'tt0110413' });
    assert.deepEqual(parseImdbId('133093'), { ok: true, value: 'tt0133093' });
    assert.equal(parseImdbId('nm0000123').ok, false);
    assert.equal(parseImdbId('tt12').ok, false);
  });

  it('reads TMDb ids from numbers and themoviedb.org URLs', () => {
    assert.deepEqual(parseTmdbId('603'), { ok: true, value: 603 });
    assert.deepEqual(parseTmdbId('603.0'), { ok: true, value: 603 });
    assert.deepEqual(parseTmdbId('https://www.themoviedb.org/movie/603-the-matrix'), {
      ok: true,
      value: 603,
    });
    assert.equal(parseTmdbId('0').ok, false);
    assert.equal(parseTmdbId('-3').ok, false);
    assert.equal(parseTmdbId('abc').ok, false);
    assert.equal(parseTmdbId('99999999999').ok, false);
  });

  it('reads watched as yes/no, x, 1/0 or a date', () => {
    const value = (raw: string) => {
      const w = parseWatched(raw);
      return w.ok ? w.value : 'error';
    };
    for (const yes of [
      'yes',
      'Yes',
      'TRUE',
      '1',
      'x',
      'X',
      'y',
      '2023-01-14',
      '14/01/2023',
      '2023-01-14 20:15',
    ]) {
      assert.equal(value(yes), true, yes);
    }
    for (const no of ['no', 'No', 'false', '0', 'n']) assert.equal(value(no), false, no);
    assert.equal(value(''), null);
    assert.equal(value('maybe'), 'error');
  });
});

describe('formula escape (OWASP CSV injection)', () => {
  const samples = [
    '=SUM(A1:A2)',
    '+1 555',
    '-ing',
    '@home',
    '\tTabbed',
    '\rCarriage',
    "'=already quoted",
    "''-1",
    "'Til Death",
    "'",
    'Amélie',
    '',
    '12 Angry Men',
    'A-Team',
  ];

  it('prefixes a quote exactly when a spreadsheet would see a formula', () => {
    assert.equal(escapeFormula('=SUM(A1:A2)'), "'=SUM(A1:A2)");
    assert.equal(escapeFormula('@home'), "'@home");
    assert.equal(escapeFormula("'=x"), "''=x");
    assert.equal(escapeFormula("'Til Death"), "'Til Death");
    assert.equal(escapeFormula('A-Team'), 'A-Team');
    for (const s of samples) assert.equal(looksLikeFormula(escapeFormula(s)), false, JSON.stringify(s));
  });

  it('is undone exactly by unescapeFormula, and plain quoted text is left alone', () => {
    for (const s of samples) assert.equal(unescapeFormula(escapeFormula(s)), s, JSON.stringify(s));
    assert.equal(unescapeFormula("'Til Death"), "'Til Death");
    assert.equal(unescapeFormula("'=1+1"), '=1+1');
  });
});

describe('compareSlots', () => {
  it('orders numeric slots by value, then text, then empty', () => {
    const slots = ['10', 'B2', null, '2', 'A1', '1'];
    assert.deepEqual([...slots].sort(compareSlots), ['1', '2', '10', 'A1', 'B2', null]);
  });
});
