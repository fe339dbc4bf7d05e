import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { layOutBinder, slotNumber } from '../../src/domain/binders.ts';

/** A page as text: `1:a 2:- …` (slot:copy, `-` empty). */
function draw(held: [slot: string, copy: string | null][], perPage: number): string[] {
  return layOutBinder(
    held.map(([slot, copy]) => ({ slot, copy })),
    perPage,
  ).map((p) => `${p.number}| ${p.slots.map((s) => `${s.slot}:${s.copy ?? '-'}`).join(' ')}`);
}

describe('slotNumber', () => {
  const cases: [string, number | null][] = [
    ['1', 1],
    ['12', 12],
    ['10000', 10000],
    ['10001', null],
    ['0', null],
    ['01', null],
    ['A3', null],
    ['3 ', null],
    ['', null],
    ['-1', null],
    ['1.5', null],
  ];
  for (const [slot, expected] of cases) {
    it(`${JSON.stringify(slot)} → ${String(expected)}`, () => assert.equal(slotNumber(slot), expected));
  }
});

describe('layOutBinder', () => {
  it('20 discs in slots 1..20 with 8 per page: 3 pages, the last with 4 empty slots', () => {
    const held = Array.from({ length: 20 }, (_, i): [string, string] => [String(i + 1), `c${i + 1}`]);
    const pages = layOutBinder(
      held.map(([slot, copy]) => ({ slot, copy })),
      8,
    );
    assert.deepEqual(
      pages.map((p) => p.slots.length),
      [8, 8, 8],
    );
    assert.equal(pages.flatMap((p) => p.slots).filter((s) => s.copy === null).length, 4);
    assert.deepEqual(
      pages[2]?.slots.map((s) => s.slot),
      ['17', '18', '19', '20', '21', '22', '23', '24'],
    );
  });

  const cases: [name: string, held: [string, string | null][], perPage: number, expected: string[]][] = [
    ['empty binder: no pages', [], 8, []],
    ['gaps are empty slots', [['3', 'x']], 4, ['1| 1:- 2:- 3:x 4:-']],
    ['pages run to the highest slot', [['5', 'x']], 4, ['1| 1:- 2:- 3:- 4:-', '2| 5:x 6:- 7:- 8:-']],
    ['a hidden copy holds its place, empty', [['2', null]], 2, ['1| 1:- 2:-']],
    [
      'named slots follow the numbered pages, natural order',
      [
        ['B10', 'b'],
        ['1', 'x'],
        ['B2', 'a'],
        ['01', 'z'],
      ],
      2,
      ['1| 1:x 2:-', '2| 01:z B2:a', '3| B10:b'],
    ],
    ['only named slots', [['side', 'x']], 8, ['1| side:x']],
    ['a number above the bound is a named slot', [['20000', 'x']], 8, ['1| 20000:x']],
    ['slots per page out of range is clamped to 1..100', [['2', 'x']], 0, ['1| 1:-', '2| 2:x']],
  ];
  for (const [name, held, perPage, expected] of cases) {
    it(name, () => assert.deepEqual(draw(held, perPage), expected));
  }
});
