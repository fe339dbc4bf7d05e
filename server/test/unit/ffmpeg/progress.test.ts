import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type FfmpegProgress,
  initialProgress,
  parseProgress,
  ProgressParser,
} from '../../../src/domain/ffmpeg/progress.ts';

/** One `-progress` block as ffmpeg 5.1 prints it (out_time_ms carries microseconds too). */
function block(us: number | 'N/A', status: 'continue' | 'end', speed = '2.5x'): string {
  const clock = us === 'N/A' ? 'N/A' : `00:00:${(us / 1e6).toFixed(6).padStart(9, '0')}`;
  return [
    'frame=50',
    'fps=0.00',
    'stream_0_0_q=-1.0',
    'bitrate=N/A',
    'total_size=48',
    `out_time_us=${us}`,
    `out_time_ms=${us}`,
    `out_time=${clock}`,
    'dup_frames=0',
    'drop_frames=0',
    `speed=${speed}`,
    `progress=${status}`,
    '',
  ].join('\n');
}

function publicPart(state: FfmpegProgress): FfmpegProgress {
  const { percent, outTimeSeconds, speed, done } = state;
  return { percent, outTimeSeconds, speed, done };
}

describe('parseProgress', () => {
  const rows: [string, string, number | null, FfmpegProgress][] = [
    ['nothing yet', '', 10, { percent: 0, outTimeSeconds: null, speed: null, done: false }],
    [
      'a continue block',
      block(2_500_000, 'continue'),
      10,
      { percent: 25, outTimeSeconds: 2.5, speed: 2.5, done: false },
    ],
    [
      'one decimal, rounded down',
      block(3_333_333, 'continue'),
      10,
      { percent: 33.3, outTimeSeconds: 3.333333, speed: 2.5, done: false },
    ],
    [
      'never 100 before the end',
      block(10_000_000, 'continue'),
      10,
      { percent: 99.9, outTimeSeconds: 10, speed: 2.5, done: false },
    ],
    [
      'past the duration',
      block(12_000_000, 'continue'),
      10,
      { percent: 99.9, outTimeSeconds: 12, speed: 2.5, done: false },
    ],
    [
      'the end block',
      block(9_900_000, 'end'),
      10,
      { percent: 100, outTimeSeconds: 9.9, speed: 2.5, done: true },
    ],
    [
      'unknown duration',
      block(2_000_000, 'continue'),
      null,
      { percent: 0, outTimeSeconds: 2, speed: 2.5, done: false },
    ],
    [
      'unknown duration at the end',
      block(2_000_000, 'end'),
      null,
      { percent: 100, outTimeSeconds: 2, speed: 2.5, done: true },
    ],
    [
      'zero duration',
      block(2_000_000, 'continue'),
      0,
      { percent: 0, outTimeSeconds: 2, speed: 2.5, done: false },
    ],
    [
      'N/A everywhere',
      block('N/A', 'continue', 'N/A'),
      10,
      { percent: 0, outTimeSeconds: null, speed: null, done: false },
    ],
    [
      'negative time before the first packet',
      block(-9_223_372_036, 'continue'),
      10,
      { percent: 0, outTimeSeconds: null, speed: 2.5, done: false },
    ],
    [
      'a half-written block does not count',
      'out_time_us=5000000\nspeed=1x\n',
      10,
      { percent: 0, outTimeSeconds: null, speed: null, done: false },
    ],
    [
      'Windows line ends',
      block(5_000_000, 'continue').replaceAll('\n', '\r\n'),
      10,
      { percent: 50, outTimeSeconds: 5, speed: 2.5, done: false },
    ],
    [
      'out_time_ms alone is microseconds',
      'out_time_ms=4000000\nprogress=continue\n',
      10,
      { percent: 40, outTimeSeconds: 4, speed: null, done: false },
    ],
    [
      'out_time alone',
      'out_time=00:01:00.500000\nprogress=continue\n',
      121,
      { percent: 50, outTimeSeconds: 60.5, speed: null, done: false },
    ],
    [
      'garbage lines are skipped',
      'hello\n=x\nprogress=continue\n',
      10,
      { percent: 0, outTimeSeconds: null, speed: null, done: false },
    ],
  ];
  for (const [label, text, duration, expected] of rows) {
    it(label, () => assert.deepEqual(publicPart(parseProgress(text, duration)), expected));
  }

  it('never decreases, keeps the last known speed and time across N/A blocks', () => {
    let state = parseProgress(block(6_000_000, 'continue', '3x'), 10);
    state = parseProgress(block(4_000_000, 'continue'), 10, state);
    assert.equal(state.percent, 60);
    assert.equal(state.outTimeSeconds, 4);
    state = parseProgress(block('N/A', 'continue', 'N/A'), 10, state);
    assert.deepEqual(publicPart(state), { percent: 60, outTimeSeconds: 4, speed: 2.5, done: false });
  });

  it('stays done after the end', () => {
    let state = parseProgress(block(10_000_000, 'end'), 10);
    state = parseProgress(block(1_000_000, 'continue'), 10, state);
    assert.equal(state.done, true);
    assert.equal(state.percent, 100);
  });

  it('gives the same result whatever the chunk boundaries, even mid-line', () => {
    const text =
      [1, 2, 3, 4, 5].map((s) => block(s * 1_000_000, 'continue')).join('') + block(5_500_000, 'end');
    const whole = parseProgress(text, 5.5);
    for (const size of [1, 2, 3, 7, 13, 64]) {
      let state = initialProgress();
      let last = 0;
      for (let i = 0; i < text.length; i += size) {
        state = parseProgress(text.slice(i, i + size), 5.5, state);
        assert.ok(state.percent >= last, 'never decreases');
        last = state.percent;
      }
      assert.deepEqual(publicPart(state), publicPart(whole), `chunks of ${size}`);
    }
    assert.deepEqual(publicPart(whole), { percent: 100, outTimeSeconds: 5.5, speed: 2.5, done: true });
  });

  it('does not change the previous state it is given', () => {
    const first = parseProgress('out_time_us=1000000\n', 10);
    const snapshot = structuredClone(first);
    parseProgress('progress=continue\n', 10, first);
    assert.deepEqual(first, snapshot);
  });
});

describe('ProgressParser', () => {
  it('accepts strings and buffers and returns only the public fields', () => {
    const parser = new ProgressParser(4);
    assert.deepEqual(parser.push('out_time_us=1000'), {
      percent: 0,
      outTimeSeconds: null,
      speed: null,
      done: false,
    });
    assert.deepEqual(parser.push(Buffer.from('000\nspeed=1.5x\nprogress=continue\n')), {
      percent: 25,
      outTimeSeconds: 1,
      speed: 1.5,
      done: false,
    });
    parser.push(block(4_000_000, 'end'));
    assert.deepEqual(parser.current(), { percent: 100, outTimeSeconds: 4, speed: 2.5, done: true });
  });
});
