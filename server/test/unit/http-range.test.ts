import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  contentRangeHeader,
  contentTypeFor,
  parseRange,
  type RangeResult,
  strongEtag,
  unsatisfiedRangeHeader,
} from '../../src/domain/http-range.ts';
import { ifRangeAllows } from '../../src/domain/http-conditional.ts';

const FULL: RangeResult = { kind: 'full' };
const NONE: RangeResult = { kind: 'unsatisfiable' };
const part = (start: number, end: number | null): RangeResult => ({ kind: 'partial', start, end });

describe('parseRange with a known size', () => {
  const rows: [string | undefined, number, RangeResult][] = [
    [undefined, 1000, FULL],
    ['bytes=0-499', 1000, part(0, 499)],
    ['bytes=500-999', 1000, part(500, 999)],
    ['bytes=0-0', 1000, part(0, 0)],
    ['bytes=999-999', 1000, part(999, 999)],
    ['bytes=500-', 1000, part(500, 999)],
    ['bytes=0-', 1000, part(0, 999)],
    ['bytes=-500', 1000, part(500, 999)],
    ['bytes=-1', 1000, part(999, 999)],
    ['bytes=-5000', 1000, part(0, 999)],
    ['bytes=-0', 1000, NONE],
    ['bytes=0-99999', 1000, part(0, 999)],
    ['bytes=1000-', 1000, NONE],
    ['bytes=1000-2000', 1000, NONE],
    ['bytes=5000-6000', 1000, NONE],
    ['bytes=0-0', 0, NONE],
    ['bytes=-10', 0, FULL],
    ['bytes=0-1,5-9', 1000, part(0, 1)],
    ['bytes=2000-3000,5-9', 1000, part(5, 9)],
    ['bytes=2000-3000,4000-', 1000, NONE],
    ['bytes=-0,10-20', 1000, part(10, 20)],
    ['bytes= 0 - 9 ', 1000, part(0, 9)],
    [' bytes = 0-9 , 20-29', 1000, part(0, 9)],
    ['BYTES=0-9', 1000, part(0, 9)],
    ['bytes=0-9,,', 1000, part(0, 9)],
    ['bytes=9-0', 1000, FULL],
    ['bytes=abc', 1000, FULL],
    ['bytes=', 1000, FULL],
    ['bytes=,', 1000, FULL],
    ['bytes=-', 1000, FULL],
    ['bytes=1-2-3', 1000, FULL],
    ['bytes=0-9,x', 1000, FULL],
    ['bytes=+1-2', 1000, FULL],
    ['bytes=0x10-20', 1000, FULL],
    ['bytes=1.5-2', 1000, FULL],
    ['bytes 0-9', 1000, FULL],
    ['items=0-9', 1000, FULL],
    ['', 1000, FULL],
    // RFC 9110 sets no limit on the digits: a huge last-pos clamps, a huge first-pos is past the end.
    ['bytes=9007199254740991-', 1000, NONE],
    ['bytes=9007199254740992-', 1000, NONE],
    ['bytes=18446744073709551616-', 1000, NONE],
    ['bytes=18446744073709551616-18446744073709551617', 1000, NONE],
    ['bytes=0-18446744073709551616', 1000, part(0, 999)],
    ['bytes=0-99999999999999999999', 1000, part(0, 999)],
    ['bytes=-99999999999999999999', 1000, part(0, 999)],
    ['bytes=0-9007199254740991', 1000, part(0, 999)],
    ['bytes=18446744073709551617-18446744073709551616', 1000, FULL],
    ['bytes=00000000000000000000000000000005-9', 1000, part(5, 9)],
    ['bytes=18446744073709551616-,0-9', 1000, part(0, 9)],
  ];
  for (const [header, size, expected] of rows) {
    it(`${JSON.stringify(header)} of ${size} bytes → ${JSON.stringify(expected)}`, () => {
      assert.deepEqual(parseRange(header, size), expected);
    });
  }
});

describe('parseRange with an unknown size (growing file)', () => {
  const rows: [string | undefined, RangeResult][] = [
    [undefined, FULL],
    ['bytes=0-499', part(0, 499)],
    ['bytes=100-', part(100, null)],
    ['bytes=0-', part(0, null)],
    ['bytes=-500', { kind: 'wait', suffixLength: 500 }],
    ['bytes=-0', NONE],
    ['bytes=-500,100-', part(100, null)],
    ['bytes=-500,-20', { kind: 'wait', suffixLength: 500 }],
    ['bytes=5-1', FULL],
    ['bytes=0-18446744073709551616', part(0, Number.MAX_SAFE_INTEGER)],
    ['bytes=-18446744073709551616', { kind: 'wait', suffixLength: Number.MAX_SAFE_INTEGER }],
    ['pages=1-2', FULL],
  ];
  for (const [header, expected] of rows) {
    it(`${JSON.stringify(header)} → ${JSON.stringify(expected)}`, () => {
      assert.deepEqual(parseRange(header, null), expected);
    });
  }
});

describe('ifRangeAllows', () => {
  const etag = '"abc123"';
  const lastModified = new Date('2024-05-06T07:08:09.750Z');
  const rows: [string | string[] | undefined, boolean][] = [
    [undefined, true],
    ['"abc123"', true],
    [' "abc123" ', true],
    ['"abc124"', false],
    ['W/"abc123"', false],
    ['abc123', false],
    ['Mon, 06 May 2024 07:08:09 GMT', true],
    ['Monday, 06-May-24 07:08:09 GMT', true],
    ['Mon May  6 07:08:09 2024', true], // asctime: GMT by definition
    ['Mon, 06 May 2024 07:08:08 GMT', false],
    ['Mon, 06 May 2024 07:08:10 GMT', false],
    ['not a date', false],
    ['2024', false],
    ['2024-05-06T07:08:09Z', false],
    ['Mon, 06 May 2024 07:08:09 +0000', false],
    ['', false],
    [['"abc123"'], true],
    [['"abc123"', '"abc123"'], false],
  ];
  for (const [ifRange, expected] of rows) {
    it(`${JSON.stringify(ifRange)} → ${expected}`, () => {
      assert.equal(ifRangeAllows(ifRange, etag, lastModified), expected);
    });
  }
  it('a weak current ETag never matches, even itself', () => {
    assert.equal(ifRangeAllows('W/"x"', 'W/"x"', lastModified), false);
  });
  it('without validators (a growing file) nothing matches', () => {
    assert.equal(ifRangeAllows('"abc123"', null, null), false);
    assert.equal(ifRangeAllows('Mon, 06 May 2024 07:08:09 GMT', null, null), false);
    assert.equal(ifRangeAllows(undefined, null, null), true);
  });
});

describe('Content-Range headers', () => {
  it('formats known, unknown and unsatisfied lengths', () => {
    assert.equal(contentRangeHeader(0, 499, 1000), 'bytes 0-499/1000');
    assert.equal(contentRangeHeader(500, 999, 1000), 'bytes 500-999/1000');
    assert.equal(contentRangeHeader(0, 65535, null), 'bytes 0-65535/*');
    assert.equal(unsatisfiedRangeHeader(1000), 'bytes */1000');
    assert.equal(unsatisfiedRangeHeader(0), 'bytes */0');
  });
});

describe('contentTypeFor', () => {
  const rows: [string, string][] = [
    ['mp4', 'video/mp4'],
    ['m4v', 'video/mp4'],
    ['mkv', 'video/x-matroska'],
    ['webm', 'video/webm'],
    ['mov', 'video/quicktime'],
    ['avi', 'video/x-msvideo'],
    ['ts', 'video/mp2t'],
    ['m2ts', 'video/mp2t'],
    ['mpeg', 'video/mpeg'],
    ['mpg', 'video/mpeg'],
    ['vob', 'video/mpeg'],
    ['asf', 'video/x-ms-asf'],
    ['wmv', 'video/x-ms-asf'],
    ['ogg', 'video/ogg'],
    ['MKV', 'video/x-matroska'],
    ['.mp4', 'video/mp4'],
    ['flv', 'application/octet-stream'],
    ['', 'application/octet-stream'],
  ];
  for (const [container, type] of rows) {
    it(`${JSON.stringify(container)} → ${type}`, () => assert.equal(contentTypeFor(container), type));
  }
});

describe('strongEtag', () => {
  it('is a quoted strong tag of 24 hex digits, stable for the same parts', () => {
    const tag = strongEtag(['f', 12, 3456, 1700000000000]);
    assert.match(tag, /^"[0-9a-f]{24}"$/);
    assert.equal(strongEtag(['f', 12, 3456, 1700000000000]), tag);
  });
  it('changes with any part, with the type of a part, and with how parts are split', () => {
    const base = strongEtag(['f', 12, 3456]);
    assert.notEqual(strongEtag(['f', 12, 3457]), base);
    assert.notEqual(strongEtag(['f', '12', 3456]), base);
    assert.notEqual(strongEtag(['a,b']), strongEtag(['a', 'b']));
  });
});
