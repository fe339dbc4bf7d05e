import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rokuImageStream } from '../../../../src/services/playback/hls.service.ts';
import type { TrickplayMade } from '../../../../src/services/trickplay/trickplay-ports.ts';

const layout = {
  intervalMs: 10_000,
  thumbnailWidth: 320,
  thumbnailHeight: 180,
  tileWidth: 10,
  tileHeight: 10,
  thumbnailCount: 30,
};
const made: TrickplayMade = {
  fileId: 1,
  generation: 7,
  mode: 'keyframes',
  layout,
  sheetBytes: [90_000],
  roku: { layout: { ...layout, tileWidth: 3, tileHeight: 6 }, sheetBytes: [20_000, 15_000] },
  bifBytes: 100_000,
  madeAt: '2026-11-26T08:00:00.000Z',
};

describe("the HLS master's image stream (reelshelf's Roku sheets)", () => {
  for (const [query, uri] of [
    ['device=tv&token=v2.1.a-.1.abc', 'trickplay/tiles.m3u8?device=tv&token=v2.1.a-.1.abc'],
    // The tiles playlist takes no burn-in choice (its query schema would refuse it: 400).
    ['device=tv&token=t0k&burn_subtitle=3', 'trickplay/tiles.m3u8?device=tv&token=t0k'],
    ['burn_subtitle=3&token=a%2Bb&device=web', 'trickplay/tiles.m3u8?device=web&token=a%2Bb'],
  ] as const) {
    it(`${query} → ${uri}`, () => {
      assert.deepEqual(rokuImageStream(query)(made), { variant: 'roku', uri });
    });
  }
});
