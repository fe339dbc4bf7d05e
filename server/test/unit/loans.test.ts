// Issue 27 item 4: the pure loan decisions (domain/loans.ts) as tables.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  borrowerName,
  dayOf,
  isCalendarDate,
  isOverdue,
  loanLine,
  loansToAdd,
} from '../../src/domain/loans.ts';

describe('isOverdue', () => {
  const today = '2026-03-15';
  const cases: [string, { due: string | null; returned_at: string | null }, boolean][] = [
    ['no due date', { due: null, returned_at: null }, false],
    ['due yesterday, out', { due: '2026-03-14', returned_at: null }, true],
    ['due today, out: not late yet', { due: '2026-03-15', returned_at: null }, false],
    ['due tomorrow, out', { due: '2026-03-16', returned_at: null }, false],
    ['due last year, out', { due: '2025-12-31', returned_at: null }, true],
    ['due yesterday, returned', { due: '2026-03-14', returned_at: '2026-03-15T09:00:00.000Z' }, false],
    ['no due date, returned', { due: null, returned_at: '2026-03-01T00:00:00.000Z' }, false],
  ];
  for (const [name, loan, expected] of cases) {
    it(`${name} → ${String(expected)}`, () => assert.equal(isOverdue(loan, today), expected));
  }
});

describe('dayOf', () => {
  const cases: [string, string][] = [
    ['2026-03-15T00:00:00.000Z', '2026-03-15'],
    ['2026-03-15T23:59:59.999Z', '2026-03-15'],
    ['2026-03-16T00:00:00.000Z', '2026-03-16'],
  ];
  for (const [now, day] of cases) it(`${now} → ${day}`, () => assert.equal(dayOf(new Date(now)), day));
});

describe('isCalendarDate', () => {
  const cases: [string, boolean][] = [
    ['2026-03-15', true],
    ['2024-02-29', true],
    ['2026-02-29', false],
    ['2026-02-30', false],
    ['2026-13-01', false],
    ['2026-00-10', false],
    ['2026-3-15', false],
    ['2026-03-15T00:00:00Z', false],
    ['tomorrow', false],
    ['', false],
  ];
  for (const [text, ok] of cases)
    it(`${JSON.stringify(text)} → ${String(ok)}`, () => assert.equal(isCalendarDate(text), ok));
});

describe('borrowerName and loanLine', () => {
  it('trims and folds white space', () => {
    assert.equal(borrowerName('  Sam \t Jones \n'), 'Sam Jones');
    assert.equal(borrowerName(' \t '), '');
  });
  it('says to whom, since when and until when', () => {
    assert.equal(
      loanLine({ to: 'Sam', lent_at: '2026-03-01T10:00:00.000Z', due: '2026-03-15' }),
      'On loan to Sam since 2026-03-01 (due 2026-03-15)',
    );
    assert.equal(
      loanLine({ to: 'Sam', lent_at: '2026-03-01T10:00:00.000Z', due: null }),
      'On loan to Sam since 2026-03-01',
    );
  });
});

describe('loansToAdd (an import onto a stored copy)', () => {
  type L = { to: string; lent_at: string; returned_at: string | null };
  const loan = (to: string, day: string, back: string | null = null): L => ({
    to,
    lent_at: `2026-03-${day}T10:00:00.000Z`,
    returned_at: back === null ? null : `2026-03-${back}T10:00:00.000Z`,
  });
  const sam = loan('Sam', '01');
  const samBack = loan('Sam', '01', '05');
  const alex = loan('Alex', '10');
  const alexBack = loan('Alex', '10', '12');
  const kim = loan('Kim', '15');
  const cases: [string, L[], L[], { add: L[]; refused: { loan: L; out: L } | null }][] = [
    ['nothing stored: all of them', [], [samBack, alex], { add: [samBack, alex], refused: null }],
    ['all known: none', [samBack, alex], [samBack, alex], { add: [], refused: null }],
    [
      'the same loan, returned since (borrower and start): known',
      [samBack],
      [sam],
      { add: [], refused: null },
    ],
    ['history added to a copy that is out', [alex], [samBack], { add: [samBack], refused: null }],
    [
      'an open loan onto a copy that is out: refused, named with who has it',
      [alex],
      [samBack, kim],
      { add: [samBack], refused: { loan: kim, out: alex } },
    ],
    ['an open loan onto a copy at home', [alexBack], [kim], { add: [kim], refused: null }],
  ];
  for (const [name, stored, incoming, expected] of cases)
    it(name, () => assert.deepEqual(loansToAdd(stored, incoming), expected));
});
