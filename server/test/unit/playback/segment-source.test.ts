import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  chooseSegmentSource,
  type RunView,
  type SegmentSource,
} from '../../../src/domain/playback/segment-source.ts';

/** Segments of 4 s. */
const startOf = (i: number) => (i >= 0 && i < 100 ? i * 4 : undefined);
const run = (over: Partial<RunView> = {}): RunView => ({
  ended: false,
  error: null,
  start: 0,
  next: 0,
  speed: 1,
  pinned: false,
  waiters: 0,
  ...over,
});

/** [case, stored, index, run] → where the segment comes from. */
const TABLE: [string, boolean, number, RunView | null, SegmentSource][] = [
  ['on disk: served, whatever runs', true, 50, run({ start: 10 }), 'serve'],
  ['nothing runs: a run starts here', false, 7, null, 'restart'],
  ['the last run ended: a run starts here', false, 7, run({ ended: true, next: 3 }), 'restart'],
  ['being written now: wait', false, 2, run({ next: 3 }), 'wait'],
  ['one segment ahead at real time (4 s of work): wait', false, 4, run({ next: 3 }), 'wait'],
  ['two segments ahead at real time (8 s of work): restart', false, 5, run({ next: 3 }), 'restart'],
  ['two segments ahead at 2× (4 s of work): wait', false, 5, run({ next: 3, speed: 2 }), 'wait'],
  ['one segment ahead at 0.5× (8 s of work): restart', false, 4, run({ next: 3, speed: 0.5 }), 'restart'],
  ['speed unknown: taken as real time', false, 4, run({ next: 3, speed: null }), 'wait'],
  ['before where the run started: restart', false, 2, run({ start: 5, next: 6 }), 'restart'],
  ['far ahead of a prewarm run: wait, it is never stopped', false, 90, run({ pinned: true }), 'wait'],
  ['before a prewarm run started: restart', false, 1, run({ pinned: true, start: 10, next: 12 }), 'restart'],
  ['far ahead while another player waits: take turns', false, 90, run({ waiters: 1 }), 'take_turn'],
  [
    'the run started here failed: 500, not the same failure again',
    false,
    7,
    run({ ended: true, error: 'boom', start: 7 }),
    'fail',
  ],
  [
    'a run that failed elsewhere: restart here',
    false,
    9,
    run({ ended: true, error: 'boom', start: 7 }),
    'restart',
  ],
  [
    'a running run that failed to cut: not waited for',
    false,
    1,
    run({ error: 'cannot cut', next: 1 }),
    'restart',
  ],
];

describe('chooseSegmentSource: when a run is reused and when restarted', () => {
  for (const [name, stored, index, r, expected] of TABLE) {
    it(name, () => {
      assert.equal(chooseSegmentSource({ stored, index, run: r, startOf }), expected);
    });
  }
});
