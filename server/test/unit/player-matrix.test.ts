// The player matrix's readings that are pure: mpv's log split into points, and the rule of a
// point (test/helpers/player-matrix.ts). The players themselves run in integration/player-matrix-*.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { matrixProblems, readMpvLog, type SeekPoint } from '../helpers/player-matrix.ts';

const LOG = [
  '[   0.40][v][ffmpeg] Parsed_showinfo_0: n:   0 pts:  26333 pts_time:0.026333 pos: -1 fmt:yuv420p',
  '[   0.41][v][ffmpeg] Parsed_ashowinfo_0: n:0 pts:0 pts_time:0 pos:-1 fmt:fltp',
  '[   0.45][i][matrix] MATRIX-RESTART 1 185 0.026333',
  // mpv restarts again when the audio joins: not a point of its own.
  '[   0.60][v][cplayer] playback restart complete @ 0.066, audio=playing, video=playing',
  '[   1.45][i][matrix] MATRIX-PLAYED 1 1.026',
  '[   1.46][i][matrix] MATRIX-SEEK 2',
  // Still decoded from before the seek: belongs to no point.
  '[   1.46][v][ffmpeg] Parsed_showinfo_0: n:  27 pts:1106333 pts_time:1.106333 pos: -1',
  '[   1.47][v][cplayer] hr-seek, skipping to 10.000000',
  '[   1.48][v][ffmpeg] Parsed_ashowinfo_0: n:0 pts:0 pts_time:9.984 pos:-1',
  '[   1.49][v][ffmpeg] Parsed_showinfo_0: n:   0 pts:0 pts_time:8.026333 pos: -1',
  "[   1.49][w][ffmpeg/demuxer] hls: Can't support the subtitle(uri: hls/s0/index.m3u8)",
  '[   1.50][e][ffmpeg/video] h264: Invalid NAL unit size (1468890232 > 16695).',
  '[   1.52][i][matrix] MATRIX-RESTART 2 41 10.000',
  '[   2.52][i][matrix] MATRIX-PLAYED 2 11.0',
].join('\n');

describe('readMpvLog: the points of one mpv run', () => {
  it('splits the decoded frames per seek at its execution, and takes errors by level', () => {
    const [start, seek] = readMpvLog(LOG, [0, 10]);
    assert.deepEqual(
      { video: start?.video, audio: start?.audio, ms: start?.firstFrameMs, errors: start?.errors },
      { video: 0.026333, audio: 0, ms: 185, errors: [] },
    );
    assert.equal(start?.decodedSeconds.toFixed(2), '1.00');
    assert.equal(seek?.video, 8.026333);
    assert.equal(seek?.audio, 9.984);
    assert.deepEqual(seek?.errors, ['[e][ffmpeg/video] h264: Invalid NAL unit size (1468890232 > 16695).']);
    assert.equal(seek?.decodedSeconds, 1);
  });
  it('a point mpv never reported throws, with the log', () => {
    assert.throws(() => readMpvLog(LOG, [0, 10, 18]), /mpv reported 2 of 3 points/);
  });
});

describe('matrixProblems: what the viewer gets after a seek', () => {
  const point = (p: Partial<SeekPoint>): SeekPoint => ({
    target: 10,
    firstFrameMs: 40,
    video: 8,
    audio: 9.98,
    decodedSeconds: 1,
    errors: [],
    ...p,
  });
  const rows: { name: string; point: SeekPoint; problems: RegExp[] }[] = [
    { name: 'decoded from the keyframe before: both start at the target', point: point({}), problems: [] },
    {
      name: 'video a GOP late',
      point: point({ video: 13 }),
      problems: [/video starts at 13\.000, audio at 10\.000/, /after the target/],
    },
    {
      name: 'audio 0.3 s late',
      point: point({ audio: 10.3 }),
      problems: [/video starts at 10\.000, audio at 10\.300/],
    },
    { name: 'audio 0.08 s late: within the tolerance', point: point({ audio: 10.08 }), problems: [] },
    { name: 'no video', point: point({ video: null }), problems: [/no video decoded/] },
    {
      name: 'the seek did not happen (played from 0)',
      point: point({ video: 0, audio: 0 }),
      problems: [/the seek did not happen/],
    },
    { name: 'an error line', point: point({ errors: ['Packet corrupt'] }), problems: [/Packet corrupt/] },
    { name: 'too little played', point: point({ decodedSeconds: 0.2 }), problems: [/0\.20 s decoded/] },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const problems = matrixProblems('mpv', [row.point], 0.9);
      assert.equal(problems.length, row.problems.length, problems.join('\n'));
      row.problems.forEach((pattern, i) => assert.match(problems[i] ?? '', pattern));
    });
  }
});
