import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatDuration, formatMinutes } from '../../src/domain/format-duration.ts';

describe('formatDuration', () => {
  const cases: [number | null | undefined, string | null][] = [
    [8160, '2 h 16 min'],
    [8164.123, '2 h 16 min'],
    [6720, '1 h 52 min'],
    [2700, '45 min'],
    [3600, '1 h'],
    [3629, '1 h'],
    [3630, '1 h 1 min'],
    [3599.7, '1 h'],
    [90061, '25 h 1 min'],
    [60, '1 min'],
    [89, '1 min'],
    [90, '2 min'],
    // Under a minute reads in seconds: an 8-second file is not "1 min".
    [8, '8 s'],
    [8.4, '8 s'],
    [20, '20 s'],
    [59.4, '59 s'],
    [59.5, '1 min'],
    [0.2, '1 s'],
    [0, null],
    [-5, null],
    [null, null],
    [undefined, null],
    [Number.NaN, null],
    [Number.POSITIVE_INFINITY, null],
  ];
  for (const [seconds, expected] of cases) {
    it(`${seconds} s → ${expected}`, () => assert.equal(formatDuration(seconds), expected));
  }
});

describe('formatMinutes', () => {
  const cases: [number | null | undefined, string | null][] = [
    [112, '1 h 52 min'],
    [48, '48 min'],
    [120, '2 h'],
    [0, null],
    [null, null],
    [undefined, null],
  ];
  for (const [minutes, expected] of cases) {
    it(`${minutes} min → ${expected}`, () => assert.equal(formatMinutes(minutes), expected));
  }
});
