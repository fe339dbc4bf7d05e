// The rip queue over time (issue 27 item 6): a pure series from grouped discs, table-tested.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  MAX_MONTHS,
  monthLabel,
  monthOf,
  type RipQueueGroup,
  ripQueueSeries,
} from '../../../src/domain/stats/rip-queue-series.ts';

const NOW = new Date('2026-04-15T12:00:00Z');

/** The series as `YYYY-MM:n` text. */
function draw(groups: RipQueueGroup[], now = NOW): string {
  return ripQueueSeries(groups, now)
    .map((p) => `${p.month}:${p.discs}`)
    .join(' ');
}

describe('ripQueueSeries', () => {
  const cases: [name: string, groups: RipQueueGroup[], expected: string][] = [
    ['no discs: no points', [], ''],
    [
      'discs never ripped stay on the queue up to now',
      [{ added: '2026-01', ripped: null, discs: 3 }],
      '2026-01:3 2026-02:3 2026-03:3 2026-04:3',
    ],
    [
      'a rip leaves the queue in the month its file was added',
      [{ added: '2026-01', ripped: '2026-03', discs: 2 }],
      '2026-01:2 2026-02:2 2026-03:0 2026-04:0',
    ],
    [
      'added and ripped in one month: never on the queue at a month end',
      [{ added: '2026-02', ripped: '2026-02', discs: 4 }],
      '2026-02:0 2026-03:0 2026-04:0',
    ],
    [
      'a file there before the disc: never on the queue',
      [{ added: '2026-03', ripped: '2025-11', discs: 1 }],
      '2026-03:0 2026-04:0',
    ],
    [
      'groups add up; the last point is now',
      [
        { added: '2026-01', ripped: null, discs: 1 },
        { added: '2026-02', ripped: '2026-04', discs: 5 },
        { added: '2026-03', ripped: null, discs: 2 },
      ],
      '2026-01:1 2026-02:6 2026-03:8 2026-04:3',
    ],
    [
      'a disc added "after now" (clock set back) counts from now',
      [{ added: '2026-09', ripped: null, discs: 1 }],
      '2026-04:1',
    ],
    [
      'months that do not read are left out',
      [
        { added: 'garbage', ripped: null, discs: 9 },
        { added: '2026-04', ripped: '2026-13', discs: 9 },
        { added: '2026-04', ripped: null, discs: 1 },
      ],
      '2026-04:1',
    ],
  ];
  for (const [name, groups, expected] of cases) {
    it(name, () => assert.equal(draw(groups), expected));
  }

  it(`draws at most ${MAX_MONTHS} months; older discs start the count`, () => {
    const points = ripQueueSeries(
      [
        { added: '1999-01', ripped: null, discs: 2 },
        { added: '1999-01', ripped: '2000-01', discs: 7 },
        { added: '2010-06', ripped: '2020-01', discs: 3 },
      ],
      NOW,
    );
    assert.equal(points.length, MAX_MONTHS);
    assert.deepEqual(points[0], { month: '2016-05', discs: 5 });
    assert.equal(points.find((p) => p.month === '2020-01')?.discs, 2);
    assert.deepEqual(points.at(-1), { month: '2026-04', discs: 2 });
  });

  it('months are UTC', () => {
    assert.equal(monthOf(new Date('2026-01-31T23:30:00-05:00')), '2026-02');
    assert.equal(monthLabel('2026-03'), 'Mar 2026');
    assert.equal(monthLabel('n/a'), 'n/a');
  });
});
