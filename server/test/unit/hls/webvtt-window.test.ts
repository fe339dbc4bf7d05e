import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { webVttSeconds, webVttWindow } from '../../../src/domain/hls/webvtt-window.ts';

const VTT = [
  'WEBVTT',
  'X-TIMESTAMP-MAP=MPEGTS:900000,LOCAL:00:00:00.000',
  '',
  'STYLE',
  '::cue { color: yellow }',
  '',
  'NOTE a comment',
  '',
  '1',
  '00:00:01.000 --> 00:00:02.500',
  'Hello.',
  '',
  '00:00:03.500 --> 00:00:04.500 line:0',
  'Across the boundary at 4.',
  '',
  '01:00:00.000 --> 01:00:01.000',
  'An hour in.',
  '',
].join('\r\n');

describe('webVttWindow: the cues of one subtitle segment', () => {
  const cases: [string, number, number, string[]][] = [
    ['the first segment', 0, 4, ['Hello.', 'Across the boundary at 4.']],
    ['a cue crossing a boundary is in both segments', 4, 8, ['Across the boundary at 4.']],
    ['a window with no cue', 8, 12, []],
    ['the last segment takes every cue to the end', 3600, Number.POSITIVE_INFINITY, ['An hour in.']],
  ];
  for (const [name, start, end, texts] of cases) {
    it(name, () => {
      const out = webVttWindow(VTT, start, end);
      assert.match(out, /^WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:900000,LOCAL:00:00:00\.000\n\nSTYLE\n/);
      assert.doesNotMatch(out, /NOTE/);
      for (const text of ['Hello.', 'Across the boundary at 4.', 'An hour in.']) {
        assert.equal(out.includes(text), texts.includes(text), `${text} in [${start}, ${end})`);
      }
      assert.ok(out.endsWith('\n\n'));
    });
  }
  it('reads WebVTT timestamps with and without hours', () => {
    assert.equal(webVttSeconds('01:02.500'), 62.5);
    assert.equal(webVttSeconds('1:00:00.000'), 3600);
  });
});
