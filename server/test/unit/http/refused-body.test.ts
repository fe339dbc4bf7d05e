import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  declaredLength,
  type DrainBudget,
  keepDraining,
  refusedBodyAction,
} from '../../../src/http/plugins/refused-body.ts';

const budget: DrainBudget = { maxBytes: 1000, maxMs: 30_000, idleMs: 5_000 };

describe('refusedBodyAction: what happens to a body the answer left unread', () => {
  const cases: [string, Parameters<typeof refusedBodyAction>[0], ReturnType<typeof refusedBodyAction>][] = [
    ['a body read to its end', { complete: true, declaredBytes: 10, closing: false }, 'none'],
    ['a complete body while closing', { complete: true, declaredBytes: null, closing: true }, 'none'],
    [
      'an unread declared body within budget',
      { complete: false, declaredBytes: 1000, closing: false },
      'drain',
    ],
    [
      'an unread chunked body (length unknown)',
      { complete: false, declaredBytes: null, closing: false },
      'drain',
    ],
    ['a declared body past the budget', { complete: false, declaredBytes: 1001, closing: false }, 'close'],
    [
      'an unread body while the server closes',
      { complete: false, declaredBytes: 10, closing: true },
      'close',
    ],
  ];
  for (const [name, input, expected] of cases) {
    it(`${name} → ${expected}`, () => assert.equal(refusedBodyAction(input, budget), expected));
  }
});

describe('keepDraining: the lingering budget', () => {
  const cases: [string, Parameters<typeof keepDraining>[0], boolean][] = [
    ['just started', { drainedBytes: 0, elapsedMs: 0, msSinceLastByte: 0 }, true],
    ['at every limit', { drainedBytes: 1000, elapsedMs: 30_000, msSinceLastByte: 5_000 }, true],
    ['one byte too many', { drainedBytes: 1001, elapsedMs: 10, msSinceLastByte: 0 }, false],
    [
      'too long in all (a slow trickle)',
      { drainedBytes: 10, elapsedMs: 30_001, msSinceLastByte: 100 },
      false,
    ],
    ['the client went quiet', { drainedBytes: 10, elapsedMs: 6_000, msSinceLastByte: 5_001 }, false],
  ];
  for (const [name, progress, expected] of cases) {
    it(`${name} → ${expected ? 'go on' : 'give up'}`, () =>
      assert.equal(keepDraining(progress, budget), expected));
  }
});

describe('declaredLength', () => {
  const cases: [string | undefined, number | null][] = [
    [undefined, null],
    ['0', 0],
    ['52428800', 52428800],
    ['', null],
    ['-1', null],
    ['12abc', null],
    ['1e9', null],
    [' 12', null],
  ];
  for (const [header, expected] of cases) {
    it(`${JSON.stringify(header)} → ${expected}`, () => assert.equal(declaredLength(header), expected));
  }
});
