import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEFAULT_SEGMENT_SECONDS,
  type HlsSegment,
  planSegments,
  segmentAt,
} from '../../../src/domain/hls/segment-plan.ts';

/** The boundaries of a plan and its end: [start0, start1, …, end]. */
function cuts(segments: HlsSegment[]): number[] {
  const last = segments.at(-1);
  return last === undefined ? [] : [...segments.map((s) => s.start), round6(last.start + last.duration)];
}

function round6(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

/** Every plan is contiguous, starts at 0, ends at the duration, and numbers its segments 0…n-1. */
function assertWellFormed(segments: HlsSegment[], duration: number): void {
  segments.forEach((segment, index) => {
    assert.equal(segment.index, index);
    assert.ok(segment.duration > 0, `segment ${index} has a positive duration`);
    const next = segments[index + 1];
    if (next !== undefined) assert.equal(round6(segment.start + segment.duration), next.start);
  });
  if (segments.length > 0) {
    assert.equal(segments[0]?.start, 0);
    assert.equal(cuts(segments).at(-1), round6(duration));
  }
}

describe('planSegments for encoded video (fixed k·target cuts)', () => {
  const rows: [string, number, number | undefined, number[]][] = [
    ['exact multiple', 12, undefined, [0, 4, 8, 12]],
    ['a 2.3 s tail stays its own segment', 10.3, undefined, [0, 4, 8, 10.3]],
    ['a 0.3 s tail joins the last segment', 8.3, undefined, [0, 4, 8.3]],
    ['a tail of exactly 0.5 s stays', 8.5, undefined, [0, 4, 8, 8.5]],
    ['shorter than one target', 3, undefined, [0, 3]],
    ['shorter than the merge limit: still one segment', 0.2, undefined, [0, 0.2]],
    ['6 s target', 20, 6, [0, 6, 12, 18, 20]],
    ['fractional target (0.2 s tail merged)', 4.7, 1.5, [0, 1.5, 3, 4.7]],
    ['duration 0', 0, undefined, []],
    ['negative duration', -5, undefined, []],
    ['NaN duration', Number.NaN, undefined, []],
  ];
  for (const [name, durationSeconds, targetSeconds, expected] of rows) {
    it(name, () => {
      const plan = planSegments({ durationSeconds, keyframes: null, targetSeconds });
      assert.deepEqual(cuts(plan), expected);
      assertWellFormed(plan, durationSeconds);
    });
  }

  it('uses 4 s by default', () => {
    assert.equal(DEFAULT_SEGMENT_SECONDS, 4);
    assert.equal(planSegments({ durationSeconds: 40, keyframes: null }).length, 10);
  });

  it('refuses a target that is not a positive number', () => {
    for (const targetSeconds of [0, -4, Number.NaN, Infinity]) {
      assert.throws(() => planSegments({ durationSeconds: 10, keyframes: null, targetSeconds }), RangeError);
    }
  });
});

describe('planSegments for copied video (cuts on keyframes)', () => {
  const rows: [string, number, number[], number[]][] = [
    ['regular 2 s GOPs', 12, [0, 2, 4, 6, 8, 10], [0, 4, 8, 12]],
    [
      'regular 1 s GOPs, 23.976 fps drift',
      9,
      [0, 1.001, 2.002, 3.003, 4.004, 5.005, 6.006, 7.007, 8.008],
      [0, 4.004, 8.008, 9],
    ],
    ['irregular GOPs', 20, [0, 0.8, 1.5, 6.1, 6.3, 13, 15.2, 17.1, 19.9], [0, 6.1, 13, 17.1, 20]],
    ['a GOP longer than the target', 30, [0, 12, 14, 16, 18, 24, 28], [0, 12, 16, 24, 28, 30]],
    ['first keyframe at 0.005 counts as 0', 10, [0.005, 2.005, 4.005, 6.005, 8.005], [0, 4.005, 8.005, 10]],
    ['first keyframe at 0.4 counts as 0 (no 0.4 s first segment)', 10, [0.4, 4.4, 8.4], [0, 4.4, 8.4, 10]],
    ['no keyframe besides 0: one segment', 30, [0], [0, 30]],
    ['empty keyframe list: one segment', 30, [], [0, 30]],
    ['keyframes past the duration are ignored', 10, [0, 4, 8, 12, 16], [0, 4, 8, 10]],
    ['a keyframe at the duration is no cut', 8, [0, 4, 8], [0, 4, 8]],
    ['a 0.2 s last piece joins the previous segment', 8.2, [0, 4, 8], [0, 4, 8.2]],
    ['unsorted and repeated keyframes', 12, [8, 0, 4, 4, 2, 6, 10], [0, 4, 8, 12]],
    ['non-finite keyframes are ignored', 12, [0, Number.NaN, 4, Infinity, 8], [0, 4, 8, 12]],
    ['a keyframe just below the target is no cut', 9, [0, 3.999999, 5, 9], [0, 5, 9]],
    [
      'all-intra: every frame at 24 fps is a keyframe',
      10,
      Array.from({ length: 240 }, (_, i) => i / 24),
      [0, 4, 8, 10],
    ],
    [
      'all-intra at 23.976 fps: cuts on the first frame ≥ 4 s',
      9,
      Array.from({ length: 215 }, (_, i) => (i * 1001) / 24000),
      [0, 4.004, 8.008, 9],
    ],
    ['duration 0', 0, [0, 4], []],
  ];
  for (const [name, durationSeconds, keyframes, expected] of rows) {
    it(name, () => {
      const plan = planSegments({ durationSeconds, keyframes });
      assert.deepEqual(cuts(plan), expected);
      assertWellFormed(plan, durationSeconds);
      for (const segment of plan) {
        assert.ok(segment.start === 0 || keyframes.includes(segment.start), `${segment.start} is a keyframe`);
      }
    });
  }

  it('does not change the caller’s keyframe list', () => {
    const keyframes = [8, 0, 4];
    planSegments({ durationSeconds: 12, keyframes });
    assert.deepEqual(keyframes, [8, 0, 4]);
  });
});

describe('planSegments over a whole film', () => {
  const twoHours = 7200;

  it('a 2-hour encoded film has 1,800 segments of exactly 4 s', () => {
    const plan = planSegments({ durationSeconds: twoHours, keyframes: null });
    assert.equal(plan.length, 1800);
    assert.ok(
      plan.every((segment) => segment.duration === 4),
      'no accumulated float drift',
    );
    assert.equal(plan[1799]?.start, 7196);
  });

  it('a 2-hour copied film at 23.976 fps with 2.002 s GOPs: durations are exact boundary differences', () => {
    const keyframes = Array.from({ length: 3597 }, (_, k) => (k * 48 * 1001) / 24000);
    // The plan's cost, counted rather than timed (a wall-clock bound fails on a loaded machine):
    // an ordered index is read a few times over, never sorted or searched once per segment.
    let reads = 0;
    const counted = new Proxy(keyframes, {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    const plan = planSegments({ durationSeconds: twoHours, keyframes: counted });
    assert.ok(reads <= 3 * keyframes.length, `${reads} reads of ${keyframes.length} keyframes`);
    assertWellFormed(plan, twoHours);
    // Every GOP is 2.002 s, the first ≥ 4 s after a cut is two GOPs on: 4.004 s segments.
    assert.ok(plan.slice(0, -1).every((segment) => segment.duration === 4.004));
    assert.equal(plan.length, Math.ceil(twoHours / 4.004));
  });

  it('is deterministic: the same input gives the same plan (a restarted job cuts at the same places)', () => {
    const keyframes = [0, 0.8, 1.5, 6.1, 6.3, 13, 15.2, 17.1, 19.9];
    const first = planSegments({ durationSeconds: 20, keyframes });
    const again = planSegments({ durationSeconds: 20, keyframes: [...keyframes] });
    assert.deepEqual(again, first);
  });
});

describe('segmentAt', () => {
  const plan = planSegments({ durationSeconds: 10.3, keyframes: null }); // 0, 4, 8 → 10.3
  const rows: [number, number][] = [
    [0, 0],
    [3.999999, 0],
    [4, 1],
    [4.0000001, 1],
    [7.5, 1],
    [8, 2],
    [10.29, 2],
    [10.3, 2],
    [99, 2],
    [-1, 0],
    [Number.NaN, 0],
    [Infinity, 2],
    [-Infinity, 0],
  ];
  for (const [seconds, expected] of rows) {
    it(`${seconds} s is in segment ${expected}`, () => {
      assert.equal(segmentAt(plan, seconds), expected);
    });
  }

  it('finds the segment of irregular keyframe cuts', () => {
    const irregular = planSegments({ durationSeconds: 20, keyframes: [0, 6.1, 13, 17.1] });
    assert.deepEqual(
      [0, 6.09, 6.1, 12.99, 13, 17.1, 19.99].map((time) => segmentAt(irregular, time)),
      [0, 0, 1, 1, 2, 3, 3],
    );
  });

  it('agrees with a linear scan on a 2-hour plan', () => {
    const film = planSegments({ durationSeconds: 7200, keyframes: null });
    for (const time of [0, 1, 3.9, 4, 1234.5, 7195.99, 7196, 7199.9]) {
      const linear = film.findLastIndex((segment) => segment.start <= time);
      assert.equal(segmentAt(film, time), linear, `time ${time}`);
    }
  });

  it('is -1 for an empty plan', () => {
    assert.equal(segmentAt([], 5), -1);
  });
});
