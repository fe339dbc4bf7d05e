import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  formatNptTime,
  formatTimeSeekAnswer,
  parseNptTime,
  parseTimeSeekRange,
  resolveTimeSeek,
} from '../../../src/domain/dlna/time-seek.ts';

describe('parseNptTime', () => {
  const cases: [string, number | null][] = [
    ['0:00:00', 0],
    ['0:05:35.3', 335.3],
    ['01:45:30.000', 6330],
    ['100:00:00.5', 360000.5],
    ['335.3', 335.3],
    ['42', 42],
    [' 7 ', 7],
    // Negative cases: not npt.
    ['', null],
    ['1:60:00', null],
    ['1:00:60', null],
    ['1:5:00', null],
    ['-3', null],
    ['3.', null],
    ['.5', null],
    ['1e3', null],
    ['abc', null],
    ['1:00', null],
  ];
  for (const [text, expected] of cases) {
    it(`${JSON.stringify(text)} → ${expected}`, () => {
      const got = parseNptTime(text);
      if (expected === null) assert.equal(got, null);
      else assert.ok(got !== null && Math.abs(got - expected) < 1e-9, `got ${got}`);
    });
  }
});

describe('parseTimeSeekRange', () => {
  const cases: [string, ReturnType<typeof parseTimeSeekRange>][] = [
    ['npt=0:10:00.000-', { start: 600, end: null }],
    ['npt=600-', { start: 600, end: null }],
    ['npt=10.5-20', { start: 10.5, end: 20 }],
    ['npt=0:00:10.000-0:01:00.000', { start: 10, end: 60 }],
    ['NPT = 5 - 6', { start: 5, end: 6 }],
    ['npt=5- bytes=100-200', { start: 5, end: null }],
    ['npt=5-5', { start: 5, end: 5 }],
    // Negative cases.
    ['', 'malformed'],
    ['npt=', 'malformed'],
    ['npt=-10', 'malformed'],
    ['npt=10', 'malformed'],
    ['npt=abc-', 'malformed'],
    ['npt=20-10', 'malformed'],
    ['npt=1:99:00-', 'malformed'],
    ['bytes=0-100', 'malformed'],
    ['npt=now-', 'malformed'],
  ];
  for (const [header, expected] of cases) {
    it(`${JSON.stringify(header)}`, () => assert.deepEqual(parseTimeSeekRange(header), expected));
  }
});

describe('resolveTimeSeek', () => {
  const cases: [{ start: number; end: number | null }, number, ReturnType<typeof resolveTimeSeek>][] = [
    [{ start: 600, end: null }, 6330, { start: 600, end: 6330 }],
    [{ start: 10, end: 20 }, 6330, { start: 10, end: 20 }],
    [{ start: 10, end: 9000 }, 6330, { start: 10, end: 6330 }],
    [{ start: 6330, end: null }, 6330, 'out-of-range'],
    [{ start: 7000, end: null }, 6330, 'out-of-range'],
    [{ start: 0, end: null }, 0, 'out-of-range'],
    [{ start: 0, end: null }, Number.NaN, 'out-of-range'],
  ];
  for (const [range, duration, expected] of cases) {
    it(`${JSON.stringify(range)} of ${duration}`, () =>
      assert.deepEqual(resolveTimeSeek(range, duration), expected));
  }
});

describe('formatNptTime', () => {
  const cases: [number, string][] = [
    [0, '0:00:00.000'],
    [3, '0:00:03.000'],
    [6330, '1:45:30.000'],
    [335.3, '0:05:35.300'],
    [59.9996, '0:01:00.000'],
    [360000.5, '100:00:00.500'],
    [-1, '0:00:00.000'],
  ];
  for (const [seconds, expected] of cases) {
    it(`${seconds} → ${expected}`, () => assert.equal(formatNptTime(seconds), expected));
  }
  it('round-trips through parseNptTime', () => {
    for (const seconds of [0, 1.5, 61.25, 6330.125])
      assert.equal(parseNptTime(formatNptTime(seconds)), seconds);
  });
});

describe('formatTimeSeekAnswer', () => {
  it('names start, end and duration', () =>
    assert.equal(
      formatTimeSeekAnswer({ start: 600, end: 6330 }, 6330),
      'npt=0:10:00.000-1:45:30.000/1:45:30.000',
    ));
  it('says * when the duration is unknown', () =>
    assert.equal(formatTimeSeekAnswer({ start: 5, end: 10 }, null), 'npt=0:00:05.000-0:00:10.000/*'));
});
