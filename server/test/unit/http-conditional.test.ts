import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type ConditionalHeaders,
  evaluatePreconditions,
  parseEntityTagList,
  parseHttpDate,
  type PreconditionOutcome,
  type Validators,
} from '../../src/domain/http-conditional.ts';

const ETAG = '"abc123"';
const MODIFIED = new Date('2024-05-06T07:08:09.750Z');
const AT = 'Mon, 06 May 2024 07:08:09 GMT'; // Last-Modified as sent (whole seconds)
const BEFORE = 'Mon, 06 May 2024 07:08:08 GMT';
const AFTER = 'Mon, 06 May 2024 07:08:10 GMT';
const FILE: Validators = { etag: ETAG, lastModified: MODIFIED };

const proceed = (range?: string): PreconditionOutcome => ({ kind: 'proceed', range });
const NOT_MODIFIED: PreconditionOutcome = { kind: 'not_modified' };
const failed = (field: 'If-Match' | 'If-Unmodified-Since' | 'If-None-Match'): PreconditionOutcome => ({
  kind: 'precondition_failed',
  field,
});

describe('evaluatePreconditions (RFC 9110 §13.2.2)', () => {
  const R = 'bytes=0-99';
  const rows: [string, string, ConditionalHeaders, PreconditionOutcome][] = [
    ['no conditions', 'GET', {}, proceed()],
    ['a Range alone', 'GET', { range: R }, proceed(R)],
    ['HEAD ignores Range', 'HEAD', { range: R }, proceed()],
    ['POST ignores Range', 'POST', { range: R }, proceed()],
    // If-None-Match: weak comparison, `*`, lists; 304 on GET/HEAD, also with a Range.
    ['If-None-Match strong match', 'GET', { 'if-none-match': ETAG }, NOT_MODIFIED],
    ['If-None-Match weak form of the tag', 'GET', { 'if-none-match': `W/${ETAG}` }, NOT_MODIFIED],
    ['If-None-Match *', 'GET', { 'if-none-match': '*' }, NOT_MODIFIED],
    ['If-None-Match list', 'GET', { 'if-none-match': `"x", W/"y",${ETAG}` }, NOT_MODIFIED],
    ['If-None-Match repeated header', 'GET', { 'if-none-match': ['"x"', ETAG] }, NOT_MODIFIED],
    ['If-None-Match with a Range', 'GET', { 'if-none-match': ETAG, range: R }, NOT_MODIFIED],
    ['If-None-Match on HEAD', 'HEAD', { 'if-none-match': ETAG }, NOT_MODIFIED],
    ['If-None-Match other tag', 'GET', { 'if-none-match': '"other"' }, proceed()],
    ['If-None-Match other tag, Range', 'GET', { 'if-none-match': '"x"', range: R }, proceed(R)],
    ['If-None-Match unquoted', 'GET', { 'if-none-match': 'abc123' }, proceed()],
    ['If-None-Match tag as a prefix', 'GET', { 'if-none-match': '"abc12"' }, proceed()],
    ['If-None-Match match on POST', 'POST', { 'if-none-match': ETAG }, failed('If-None-Match')],
    // If-Match: strong comparison, `*`, lists; 412 when none matches, even with a Range.
    ['If-Match match', 'GET', { 'if-match': ETAG }, proceed()],
    ['If-Match match with a Range', 'GET', { 'if-match': ETAG, range: R }, proceed(R)],
    ['If-Match *', 'GET', { 'if-match': '*' }, proceed()],
    ['If-Match list', 'GET', { 'if-match': `"x", ${ETAG}` }, proceed()],
    ['If-Match other', 'GET', { 'if-match': '"other"' }, failed('If-Match')],
    ['If-Match other with a Range', 'GET', { 'if-match': '"x"', range: R }, failed('If-Match')],
    ['If-Match weak tag (strong comparison)', 'GET', { 'if-match': `W/${ETAG}` }, failed('If-Match')],
    ['If-Match garbage', 'GET', { 'if-match': 'garbage' }, failed('If-Match')],
    ['If-Match empty', 'GET', { 'if-match': '' }, failed('If-Match')],
    [
      'If-Match fails before If-None-Match',
      'GET',
      { 'if-match': '"x"', 'if-none-match': ETAG },
      failed('If-Match'),
    ],
    // If-Unmodified-Since: ignored under If-Match or when not a date.
    ['If-Unmodified-Since at', 'GET', { 'if-unmodified-since': AT }, proceed()],
    ['If-Unmodified-Since after', 'GET', { 'if-unmodified-since': AFTER }, proceed()],
    ['If-Unmodified-Since before', 'GET', { 'if-unmodified-since': BEFORE }, failed('If-Unmodified-Since')],
    [
      'If-Unmodified-Since before, Range',
      'GET',
      { 'if-unmodified-since': BEFORE, range: R },
      failed('If-Unmodified-Since'),
    ],
    [
      'If-Unmodified-Since under If-Match',
      'GET',
      { 'if-match': ETAG, 'if-unmodified-since': BEFORE },
      proceed(),
    ],
    ['If-Unmodified-Since not a date', 'GET', { 'if-unmodified-since': 'yesterday' }, proceed()],
    ['If-Unmodified-Since ISO 8601', 'GET', { 'if-unmodified-since': '2000-01-01T00:00:00Z' }, proceed()],
    // If-Modified-Since: GET/HEAD only, ignored under If-None-Match or when not a date.
    ['If-Modified-Since at', 'GET', { 'if-modified-since': AT }, NOT_MODIFIED],
    ['If-Modified-Since after', 'GET', { 'if-modified-since': AFTER }, NOT_MODIFIED],
    ['If-Modified-Since before', 'GET', { 'if-modified-since': BEFORE }, proceed()],
    ['If-Modified-Since with a Range', 'GET', { 'if-modified-since': AT, range: R }, NOT_MODIFIED],
    ['If-Modified-Since on HEAD', 'HEAD', { 'if-modified-since': AT }, NOT_MODIFIED],
    ['If-Modified-Since on POST', 'POST', { 'if-modified-since': AT }, proceed()],
    [
      'If-Modified-Since RFC 850',
      'GET',
      { 'if-modified-since': 'Monday, 06-May-24 07:08:09 GMT' },
      NOT_MODIFIED,
    ],
    ['If-Modified-Since asctime', 'GET', { 'if-modified-since': 'Mon May  6 07:08:09 2024' }, NOT_MODIFIED],
    ['If-Modified-Since ISO 8601', 'GET', { 'if-modified-since': '2030-01-01T00:00:00Z' }, proceed()],
    ['If-Modified-Since garbage', 'GET', { 'if-modified-since': 'yesterday' }, proceed()],
    ['If-Modified-Since repeated', 'GET', { 'if-modified-since': [AT, AT] }, proceed()],
    [
      'If-Modified-Since under a failing If-None-Match',
      'GET',
      { 'if-none-match': '"x"', 'if-modified-since': AT },
      proceed(),
    ],
    // If-Range: strong etag or exact date; otherwise the Range is ignored (200).
    ['If-Range etag', 'GET', { range: R, 'if-range': ETAG }, proceed(R)],
    ['If-Range date', 'GET', { range: R, 'if-range': AT }, proceed(R)],
    ['If-Range stale etag', 'GET', { range: R, 'if-range': '"old"' }, proceed()],
    ['If-Range weak etag', 'GET', { range: R, 'if-range': `W/${ETAG}` }, proceed()],
    ['If-Range earlier date', 'GET', { range: R, 'if-range': BEFORE }, proceed()],
    ['If-Range later date', 'GET', { range: R, 'if-range': AFTER }, proceed()],
    ['If-Range without a Range', 'GET', { 'if-range': '"old"' }, proceed()],
    [
      'If-Range after a passing If-None-Match',
      'GET',
      { 'if-none-match': '"x"', range: R, 'if-range': ETAG },
      proceed(R),
    ],
    ['If-Range on HEAD', 'HEAD', { range: R, 'if-range': ETAG }, proceed()],
  ];
  for (const [name, method, headers, expected] of rows) {
    it(`${name}: ${method} ${JSON.stringify(headers)} → ${JSON.stringify(expected)}`, () => {
      assert.deepEqual(evaluatePreconditions(method, headers, FILE), expected);
    });
  }
});

describe('evaluatePreconditions without validators (a file still being written)', () => {
  const GROWING: Validators = { etag: null, lastModified: null };
  const rows: [ConditionalHeaders, PreconditionOutcome][] = [
    [{}, proceed()],
    [{ range: 'bytes=0-9' }, proceed('bytes=0-9')],
    [{ 'if-none-match': '*' }, NOT_MODIFIED],
    [{ 'if-none-match': ETAG }, proceed()],
    [{ 'if-match': '*' }, proceed()],
    [{ 'if-match': ETAG }, failed('If-Match')],
    // RFC 9110 §13.1.4: no modification date → the field is ignored.
    [{ 'if-unmodified-since': AT }, proceed()],
    [{ 'if-modified-since': AT }, proceed()],
    [{ range: 'bytes=0-9', 'if-range': ETAG }, proceed()],
  ];
  for (const [headers, expected] of rows) {
    it(`${JSON.stringify(headers)} → ${JSON.stringify(expected)}`, () => {
      assert.deepEqual(evaluatePreconditions('GET', headers, GROWING), expected);
    });
  }
});

describe('evaluatePreconditions with a weak current ETag', () => {
  const WEAK: Validators = { etag: 'W/"w1"', lastModified: MODIFIED };
  it('If-None-Match matches it weakly, If-Match and If-Range never', () => {
    assert.deepEqual(evaluatePreconditions('GET', { 'if-none-match': '"w1"' }, WEAK), NOT_MODIFIED);
    assert.deepEqual(evaluatePreconditions('GET', { 'if-match': 'W/"w1"' }, WEAK), failed('If-Match'));
    assert.deepEqual(
      evaluatePreconditions('GET', { range: 'bytes=0-1', 'if-range': 'W/"w1"' }, WEAK),
      proceed(),
    );
  });
});

describe('parseHttpDate', () => {
  const t = Date.UTC(1994, 10, 6, 8, 49, 37);
  const rows: [string, number | null][] = [
    ['Sun, 06 Nov 1994 08:49:37 GMT', t],
    ['Sunday, 06-Nov-94 08:49:37 GMT', t],
    ['Sun Nov  6 08:49:37 1994', t],
    ['Sun Nov 06 08:49:37 1994', t],
    ['sun, 06 nov 1994 08:49:37 GMT', t],
    [' Sun, 06 Nov 1994 08:49:37 GMT ', t],
    ['Thursday, 01-Jan-70 00:00:00 GMT', 0],
    ['Wednesday, 01-Jan-25 00:00:00 GMT', Date.UTC(2025, 0, 1)],
    ['Mon, 06 Nov 1994 08:49:37 GMT', null], // wrong weekday
    ['Thu, 31 Feb 2024 00:00:00 GMT', null], // no such day
    ['Sun, 06 Nov 1994 24:00:00 GMT', null],
    ['Sun, 06 Nov 1994 08:49:37 +0000', null],
    ['Sun, 6 Nov 1994 08:49:37 GMT', null],
    ['1994-11-06T08:49:37Z', null],
    ['784111777', null],
    ['', null],
  ];
  for (const [text, expected] of rows) {
    it(`${JSON.stringify(text)} → ${expected}`, () => assert.equal(parseHttpDate(text), expected));
  }
});

describe('parseEntityTagList', () => {
  const rows: [string | string[], ReturnType<typeof parseEntityTagList>][] = [
    ['*', '*'],
    [' * ', '*'],
    ['"a"', [{ weak: false, opaque: 'a' }]],
    [
      'W/"a", "b"',
      [
        { weak: true, opaque: 'a' },
        { weak: false, opaque: 'b' },
      ],
    ],
    [
      '"a,b", "c"',
      [
        { weak: false, opaque: 'a,b' },
        { weak: false, opaque: 'c' },
      ],
    ],
    [
      '"", "x"',
      [
        { weak: false, opaque: '' },
        { weak: false, opaque: 'x' },
      ],
    ],
    [
      '"a", junk, "b"',
      [
        { weak: false, opaque: 'a' },
        { weak: false, opaque: 'b' },
      ],
    ],
    ['"a", *', [{ weak: false, opaque: 'a' }]],
    [
      ['"a"', '"b"'],
      [
        { weak: false, opaque: 'a' },
        { weak: false, opaque: 'b' },
      ],
    ],
    ['w/"a"', []],
    ['"a b"', []],
    ['', []],
  ];
  for (const [field, expected] of rows) {
    it(`${JSON.stringify(field)}`, () => assert.deepEqual(parseEntityTagList(field), expected));
  }
});
