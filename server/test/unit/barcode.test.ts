import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type NormalizedBarcode,
  expandUpcE,
  gtinCheckDigit,
  hasValidCheckDigit,
  normalizeBarcode,
} from '../../src/domain/barcode.ts';

describe('gtinCheckDigit (metadata.md §3.5 vectors)', () => {
  const vectors: [string, number][] = [
    ['03600029145', 2], // UPC-A 036000291452
    ['400638133393', 1], // EAN-13 4006381333931
    ['730001100001', 7], // GS1 Sweden's worked example 7300011000017
    ['003600029145', 2], // the UPC-A as GTIN-13: a leading 0 does not change the digit
    ['04210000526', 4], // UPC-E 04252614 expanded
    ['9638507', 4], // EAN-8 96385074
    ['88392910664', 6], // Inception Blu-ray
  ];
  for (const [body, digit] of vectors) {
    it(`${body} → ${digit}`, () => assert.equal(gtinCheckDigit(body), digit));
  }
  it('hasValidCheckDigit needs digits', () => {
    assert.equal(hasValidCheckDigit('036000291452'), true);
    assert.equal(hasValidCheckDigit('036000291453'), false);
    assert.equal(hasValidCheckDigit('03600029145x'), false);
  });
});

describe('expandUpcE', () => {
  const cases: [string, string | null][] = [
    ['04252614', '042100005264'], // d6 = 1
    ['01234505', '012000003455'], // d6 = 0
    ['01234523', '012200003453'], // d6 = 2
    ['01234531', '012300000451'], // d6 = 3
    ['01234542', '012340000052'], // d6 = 4
    ['01234565', '012345000065'], // d6 = 5..9
    ['21234565', null], // number system must be 0 or 1
    ['0123456', null],
  ];
  for (const [input, expected] of cases) {
    it(`${input} → ${String(expected)}`, () => assert.equal(expandUpcE(input), expected));
  }
});

describe('normalizeBarcode', () => {
  const ok = (gtin: string, kind: string, upc: string): NormalizedBarcode =>
    ({ ok: true, gtin, kind, upc }) as NormalizedBarcode;
  const no = (reason: string): NormalizedBarcode => ({ ok: false, reason }) as NormalizedBarcode;
  const table: [string, string, NormalizedBarcode][] = [
    ['UPC-A', '036000291452', ok('0036000291452', 'UPC-A', '036000291452')],
    ['UPC-A with spaces', '0 36000 29145 2', ok('0036000291452', 'UPC-A', '036000291452')],
    ['UPC-A with dashes', '0-36000-29145-2', ok('0036000291452', 'UPC-A', '036000291452')],
    ['UPC-A padded by whitespace', '  883929106646\n', ok('0883929106646', 'UPC-A', '883929106646')],
    ['EAN-13 with leading 0 is a UPC-A', '0036000291452', ok('0036000291452', 'UPC-A', '036000291452')],
    ['EAN-13', '4006381333931', ok('4006381333931', 'EAN-13', '4006381333931')],
    ['EAN-13 GS1 Sweden example', '7300011000017', ok('7300011000017', 'EAN-13', '7300011000017')],
    ['EAN-13 (DE disc)', '5051890123459', ok('5051890123459', 'EAN-13', '5051890123459')],
    ['GTIN-14 with indicator 1 kept', '10036000291459', ok('10036000291459', 'GTIN-14', '10036000291459')],
    [
      'GTIN-14 with indicator 0 is the GTIN-13',
      '00036000291452',
      ok('0036000291452', 'UPC-A', '036000291452'),
    ],
    ['UPC-E expands to UPC-A', '04252614', ok('0042100005264', 'UPC-E', '042100005264')],
    ['UPC-E d6=3', '01234531', ok('0012300000451', 'UPC-E', '012300000451')],
    ['EAN-8', '96385074', ok('96385074', 'EAN-8', '96385074')],
    ['EAN-8 starting with 5', '50123452', ok('50123452', 'EAN-8', '50123452')],
    ['UPC-A bad check digit', '036000291453', no('bad_check_digit')],
    ['EAN-13 bad check digit', '4006381333932', no('bad_check_digit')],
    ['EAN-8 bad check digit', '96385075', no('bad_check_digit')],
    ['GTIN-14 bad check digit', '10036000291458', no('bad_check_digit')],
    ['ISBN-13 978', '9780306406157', no('isbn')],
    ['ISBN-13 979', '9791234567896', no('isbn')],
    ['letters', '03600029145A', no('not_digits')],
    ['empty', '', no('not_digits')],
    ['only dashes', ' - - ', no('not_digits')],
    ['too short', '1234567', no('bad_length')],
    ['11 digits', '03600029145', no('bad_length')],
    ['ISBN-10 length', '0306406152', no('bad_length')],
    ['too long', '100360002914591', no('bad_length')],
  ];
  for (const [name, input, expected] of table) {
    it(`${name}: ${JSON.stringify(input)}`, () => assert.deepEqual(normalizeBarcode(input), expected));
  }

  it('keeps leading zeros (the GTIN is a string)', () => {
    const r = normalizeBarcode('00012345678905');
    assert.deepEqual(r, ok('0012345678905', 'UPC-A', '012345678905'));
  });

  it('every accepted GTIN carries a valid check digit and every UPC is what a UPC service takes', () => {
    for (const [, input] of table) {
      const r = normalizeBarcode(input);
      if (!r.ok) continue;
      assert.ok(hasValidCheckDigit(r.gtin), r.gtin);
      assert.ok([8, 12, 13, 14].includes(r.upc.length), r.upc);
      assert.ok(hasValidCheckDigit(r.upc), r.upc);
    }
  });
});
