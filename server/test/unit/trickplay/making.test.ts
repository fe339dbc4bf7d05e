import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  conversionsBusy,
  longestKeyframeGap,
  pauseAction,
  queueDecision,
  reconcileSheets,
  type TrickplayQueueFacts,
} from '../../../src/domain/trickplay/making.ts';

const FILE = { hasVideo: true, sizeBytes: 1000, mtimeMs: 5, fingerprint: 'fp' } as const;
const SAME = { sizeBytes: 1000, mtimeMs: 5, fingerprint: 'fp' } as const;

describe('trickplay making: which scanned files are queued', () => {
  const table: [string, TrickplayQueueFacts, 'make' | 'skip'][] = [
    ['a video with no row', { ...FILE, state: null, source: null }, 'make'],
    ['no video stream (audio only)', { ...FILE, hasVideo: false, state: null, source: null }, 'skip'],
    ['made from this content', { ...FILE, state: 'ready', source: SAME }, 'skip'],
    ['made, then the file grew', { ...FILE, state: 'ready', source: { ...SAME, sizeBytes: 999 } }, 'make'],
    [
      'made, then the file was rewritten',
      { ...FILE, state: 'ready', source: { ...SAME, mtimeMs: 4 } },
      'make',
    ],
    [
      'made, another fingerprint at the same size',
      { ...FILE, state: 'ready', source: { ...SAME, fingerprint: 'other' } },
      'make',
    ],
    [
      'made, no fingerprint then: size and mtime decide',
      { ...FILE, state: 'ready', source: { ...SAME, fingerprint: null } },
      'skip',
    ],
    ['failed on this content: never retried by itself', { ...FILE, state: 'failed', source: SAME }, 'skip'],
    [
      'failed, then the file changed: tried again',
      { ...FILE, state: 'failed', source: { ...SAME, sizeBytes: 2000 } },
      'make',
    ],
    ['queued already', { ...FILE, state: 'queued', source: { ...SAME, sizeBytes: 2 } }, 'skip'],
    ['running already', { ...FILE, state: 'running', source: SAME }, 'skip'],
  ];
  for (const [name, facts, expected] of table) {
    it(`${name} → ${expected}`, () => assert.equal(queueDecision(facts), expected));
  }
});

describe('trickplay making: the longest keyframe gap a mark can fall in', () => {
  const table: [string, number[], number | null][] = [
    ['none at all', [], null],
    ['every 4 s from 0', [0, 4, 8, 12], 4],
    ['a first keyframe late counts from 0', [3, 5, 7], 3],
    ['one long GOP in the middle', [0, 2, 14, 16], 12],
    ['a single keyframe at 0 (after it only it exists)', [0], 0],
    ['unsorted noise does not make a negative gap', [0, 10, 9, 20], 10],
  ];
  for (const [name, times, expected] of table) {
    it(name, () => assert.equal(longestKeyframeGap(times), expected));
  }
});

describe('trickplay making: never in a viewer’s way', () => {
  const busy: [{ inUse: number; queued: number }, boolean][] = [
    [{ inUse: 0, queued: 0 }, false],
    [{ inUse: 1, queued: 0 }, true],
    [{ inUse: 0, queued: 1 }, true],
    [{ inUse: 2, queued: 3 }, true],
  ];
  for (const [slots, expected] of busy) {
    it(`${slots.inUse} held, ${slots.queued} waiting → ${expected ? 'pause' : 'run'}`, () =>
      assert.equal(conversionsBusy(slots), expected));
  }
  const actions: [boolean, boolean, 'stop' | 'continue' | 'none'][] = [
    [true, false, 'stop'],
    [true, true, 'none'],
    [false, true, 'continue'],
    [false, false, 'none'],
  ];
  for (const [paused, stopped, expected] of actions) {
    it(`paused=${paused}, ffmpeg stopped=${stopped} → ${expected}`, () =>
      assert.equal(pauseAction(paused, stopped), expected));
  }
});

describe('trickplay making: ffmpeg’s real output against the plan', () => {
  const plan = { thumbnailCount: 130, perSheet: 100 };
  const table: [string, { sheets: number; thumbnails: number }, ReturnType<typeof reconcileSheets>][] = [
    ['as planned', { sheets: 2, thumbnails: 130 }, { ok: true, thumbnailCount: 130 }],
    [
      'pictures ended early: the real count',
      { sheets: 2, thumbnails: 117 },
      { ok: true, thumbnailCount: 117 },
    ],
    ['so early a sheet is not needed', { sheets: 1, thumbnails: 90 }, { ok: true, thumbnailCount: 90 }],
    ['never more than planned', { sheets: 2, thumbnails: 131 }, { ok: true, thumbnailCount: 130 }],
  ];
  for (const [name, written, expected] of table) {
    it(name, () => assert.deepEqual(reconcileSheets(plan, written), expected));
  }
  it('no thumbnail, or sheets that do not match the thumbnails, is a failure with a reason', () => {
    assert.deepEqual(
      [
        reconcileSheets(plan, { sheets: 0, thumbnails: 0 }),
        reconcileSheets(plan, { sheets: 1, thumbnails: 130 }),
        reconcileSheets(plan, { sheets: 3, thumbnails: 130 }),
      ].map((r) => (r.ok ? 'ok' : r.reason)),
      ['no_thumbnails', 'sheets_mismatch', 'sheets_mismatch'],
    );
  });
});
