import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  checkTrickplayOptions,
  DEFAULT_TRICKPLAY_OPTIONS,
  displaySize,
  fitTiles,
  locate,
  MAX_SHEET_PIXELS,
  MAX_SHEET_SIDE_PX,
  peakBandwidth,
  planTrickplay,
  rokuLayout,
  sheetCount,
  sheetSize,
  sheetsOf,
  type TrickplayLayout,
  type TrickplayOptions,
  trickplayResponse,
} from '../../../src/domain/trickplay/geometry.ts';

function layoutOf(durationSeconds: number, width: number, height: number, options?: TrickplayOptions) {
  const plan = planTrickplay({ durationSeconds, displayWidth: width, displayHeight: height }, options);
  assert.ok(plan.ok, plan.ok ? '' : plan.message);
  return plan.layout;
}

const TWO_HOURS: TrickplayLayout = {
  intervalMs: 10_000,
  thumbnailWidth: 320,
  thumbnailHeight: 180,
  tileWidth: 10,
  tileHeight: 10,
  thumbnailCount: 720,
};

describe('planTrickplay', () => {
  // [name, duration s, display w, display h, thumb w×h, tiles, count, sheets, last sheet's real count]
  const rows: [string, number, number, number, string, string, number, number, number][] = [
    ['a 2-hour 1080p film: 8 sheets of 3200×1800', 7200, 1920, 1080, '320x180', '10x10', 720, 8, 20],
    ['300 s: one sheet, 30 real thumbnails', 300, 1920, 1080, '320x180', '10x10', 30, 1, 30],
    [
      'ffprobe’s 300.032 s: thumbnail 30 shows the last frame',
      300.032,
      1920,
      1080,
      '320x180',
      '10x10',
      31,
      1,
      31,
    ],
    ['float noise on whole ms adds nothing', 300.0000001, 1920, 1080, '320x180', '10x10', 30, 1, 30],
    [
      'exactly 100 thumbnails: one full sheet, no empty one',
      1000,
      1920,
      1080,
      '320x180',
      '10x10',
      100,
      1,
      100,
    ],
    ['exactly 300 thumbnails: three full sheets', 3000, 1920, 1080, '320x180', '10x10', 300, 3, 100],
    ['one ms past 100 thumbnails: a second sheet of 1', 1000.001, 1920, 1080, '320x180', '10x10', 101, 2, 1],
    ['shorter than one interval: one thumbnail', 4.2, 1920, 1080, '320x180', '10x10', 1, 1, 1],
    ['one millisecond', 0.001, 1920, 1080, '320x180', '10x10', 1, 1, 1],
    ['2.40:1 scope: 320×134 (133.3 → nearest even)', 600, 1920, 800, '320x134', '10x10', 60, 1, 60],
    ['4:3', 600, 640, 480, '320x240', '10x10', 60, 1, 60],
    ['1.85:1 (1998×1080): 320×172', 600, 1998, 1080, '320x172', '10x10', 60, 1, 60],
    ['a 240 px source is not upscaled', 600, 240, 180, '240x180', '10x10', 60, 1, 60],
    ['an odd source width is made even', 600, 241, 181, '240x180', '10x10', 60, 1, 60],
    ['portrait 1080×1920: 7 rows keep the sheet under 4096', 600, 1080, 1920, '320x568', '10x7', 60, 1, 60],
    ['portrait 9:21 (1080×2520): 5 rows', 7200, 1080, 2520, '320x746', '10x5', 720, 15, 20],
    ['a square source', 600, 1080, 1080, '320x320', '10x10', 60, 1, 60],
    ['very wide 4:1 (3840×960): 320×80', 600, 3840, 960, '320x80', '10x10', 60, 1, 60],
    ['a tiny height still gives 2 px', 600, 4000, 10, '320x2', '10x10', 60, 1, 60],
  ];
  for (const [name, duration, width, height, thumb, tiles, count, sheets, last] of rows) {
    it(name, () => {
      const layout = layoutOf(duration, width, height);
      assert.equal(`${layout.thumbnailWidth}x${layout.thumbnailHeight}`, thumb);
      assert.equal(`${layout.tileWidth}x${layout.tileHeight}`, tiles);
      assert.equal(layout.thumbnailCount, count);
      assert.equal(sheetCount(layout), sheets);
      const all = sheetsOf(layout);
      assert.equal(all.length, sheets);
      assert.equal(all.at(-1)?.thumbnailCount, last);
      assert.equal(
        all.reduce((sum, sheet) => sum + sheet.thumbnailCount, 0),
        count,
      );
      assert.equal(layout.thumbnailHeight % 2, 0);
      const size = sheetSize(layout);
      assert.ok(size.width <= MAX_SHEET_SIDE_PX && size.height <= MAX_SHEET_SIDE_PX, JSON.stringify(size));
      assert.ok(size.width * size.height <= MAX_SHEET_PIXELS);
    });
  }

  it('the sheets of a 2-hour film: sizes, starts and real counts', () => {
    const layout = layoutOf(7200, 1920, 1080);
    assert.deepEqual(layout, TWO_HOURS);
    assert.deepEqual(sheetSize(layout), { width: 3200, height: 1800 });
    assert.deepEqual(sheetsOf(layout)[7], {
      index: 7,
      firstThumbnail: 700,
      thumbnailCount: 20,
      startMs: 7_000_000,
      durationMs: 200_000,
    });
  });

  it('anamorphic SAR: a 720×480 DVD at 32:27 gives a 16:9 thumbnail, 8:9 a 4:3 one', () => {
    const wide = displaySize({ width: 720, height: 480, sar: '32:27', rotation: 0 });
    assert.ok(wide !== null);
    assert.equal(layoutOf(600, wide.width, wide.height).thumbnailHeight, 180);
    const narrow = displaySize({ width: 720, height: 480, sar: '8:9', rotation: 0 });
    assert.ok(narrow !== null);
    assert.equal(layoutOf(600, narrow.width, narrow.height).thumbnailHeight, 240);
    // 1440×1080 HDV at 4:3 is 1920×1080.
    assert.deepEqual(displaySize({ width: 1440, height: 1080, sar: '4:3', rotation: 0 }), {
      width: 1920,
      height: 1080,
    });
  });

  const displayRows: [string, Parameters<typeof displaySize>[0], { width: number; height: number } | null][] =
    [
      [
        'square pixels',
        { width: 1920, height: 1080, sar: '1:1', rotation: 0 },
        { width: 1920, height: 1080 },
      ],
      ['no SAR', { width: 1920, height: 1080, sar: null, rotation: 0 }, { width: 1920, height: 1080 }],
      [
        'a malformed SAR counts as square',
        { width: 640, height: 480, sar: 'N/A', rotation: 0 },
        { width: 640, height: 480 },
      ],
      [
        'a 0:1 SAR counts as square',
        { width: 640, height: 480, sar: '0:1', rotation: 0 },
        { width: 640, height: 480 },
      ],
      [
        'a phone video rotated 90°',
        { width: 1920, height: 1080, sar: null, rotation: 90 },
        { width: 1080, height: 1920 },
      ],
      [
        'rotated 270°',
        { width: 1920, height: 1080, sar: null, rotation: 270 },
        { width: 1080, height: 1920 },
      ],
      [
        'rotated 180°',
        { width: 1920, height: 1080, sar: null, rotation: 180 },
        { width: 1920, height: 1080 },
      ],
      [
        'anamorphic and rotated',
        { width: 720, height: 480, sar: '32:27', rotation: 90 },
        { width: 480, height: (720 * 32) / 27 },
      ],
      ['no width', { width: null, height: 1080, sar: null, rotation: 0 }, null],
      ['a zero height', { width: 1920, height: 0, sar: null, rotation: 0 }, null],
    ];
  for (const [name, video, expected] of displayRows) {
    it(`displaySize: ${name}`, () => assert.deepEqual(displaySize(video), expected));
  }

  const refusals: [string, number | null, number | null, number | null, string][] = [
    ['a 0-s film', 0, 1920, 1080, 'unknown_duration'],
    ['an unknown duration', null, 1920, 1080, 'unknown_duration'],
    ['NaN seconds', Number.NaN, 1920, 1080, 'unknown_duration'],
    ['infinite seconds (a live stream)', Number.POSITIVE_INFINITY, 1920, 1080, 'unknown_duration'],
    ['a negative duration', -5, 1920, 1080, 'unknown_duration'],
    ['under half a millisecond rounds to 0', 0.0004, 1920, 1080, 'unknown_duration'],
    ['no width', 600, null, 1080, 'unknown_size'],
    ['no height', 600, 1920, null, 'unknown_size'],
    ['a 1 px wide picture', 600, 1, 1080, 'unknown_size'],
    ['a thumbnail taller than a sheet (200×10000)', 600, 200, 10_000, 'thumbnail_too_large'],
  ];
  for (const [name, durationSeconds, displayWidth, displayHeight, reason] of refusals) {
    it(`refuses ${name}: ${reason}`, () => {
      const plan = planTrickplay({ durationSeconds, displayWidth, displayHeight });
      assert.equal(plan.ok, false);
      if (!plan.ok) {
        assert.equal(plan.reason, reason);
        assert.ok(plan.message.length > 0);
      }
    });
  }

  it('other options: 2 s, 480 px, 5×5', () => {
    const layout = layoutOf(601, 1920, 1080, { intervalMs: 2000, width: 480, tileWidth: 5, tileHeight: 5 });
    assert.deepEqual(layout, {
      intervalMs: 2000,
      thumbnailWidth: 480,
      thumbnailHeight: 270,
      tileWidth: 5,
      tileHeight: 5,
      thumbnailCount: 301,
    });
    assert.equal(sheetCount(layout), 13);
  });

  it('a 1280 px width with 10×10 wanted shrinks to 3 columns (3840 px)', () => {
    const layout = layoutOf(600, 3840, 2160, { ...DEFAULT_TRICKPLAY_OPTIONS, width: 1280 });
    assert.equal(`${layout.tileWidth}x${layout.tileHeight}`, '3x5');
    assert.deepEqual(sheetSize(layout), { width: 3840, height: 3600 });
  });

  const badOptions: [string, Partial<TrickplayOptions>][] = [
    ['a zero interval', { intervalMs: 0 }],
    ['a fractional interval', { intervalMs: 2.5 }],
    ['a 1 px width', { width: 1 }],
    ['a width over 4096', { width: 5000 }],
    ['an odd fractional width', { width: 320.5 }],
    ['zero columns', { tileWidth: 0 }],
    ['fractional rows', { tileHeight: 1.5 }],
  ];
  for (const [name, change] of badOptions) {
    it(`throws on ${name}`, () => {
      const options = { ...DEFAULT_TRICKPLAY_OPTIONS, ...change };
      assert.throws(() => checkTrickplayOptions(options), RangeError);
      assert.throws(
        () => planTrickplay({ durationSeconds: 60, displayWidth: 1920, displayHeight: 1080 }, options),
        RangeError,
      );
    });
  }
});

describe('fitTiles', () => {
  it('keeps to the pixel cap when it is below the side cap²', () => {
    // 4096 a side allows 12×12 of 320×320 (3840² = 14.7 MP); a 10 MP cap drops lines of the longer side.
    const tiles = fitTiles({ width: 320, height: 320 }, { tileWidth: 12, tileHeight: 12 }, 4096, 10_000_000);
    assert.ok(tiles !== null);
    assert.ok(tiles.tileWidth * tiles.tileHeight * 320 * 320 <= 10_000_000);
    assert.deepEqual(tiles, { tileWidth: 9, tileHeight: 10 });
  });

  it('never grows past the wanted grid, and is null when one thumbnail does not fit', () => {
    assert.deepEqual(fitTiles({ width: 320, height: 180 }, { tileWidth: 4, tileHeight: 2 }, 4096), {
      tileWidth: 4,
      tileHeight: 2,
    });
    assert.equal(fitTiles({ width: 1280, height: 720 }, { tileWidth: 10, tileHeight: 10 }, 1080), null);
  });
});

describe('rokuLayout', () => {
  it('re-cuts the same 320×180 thumbnails into 3×6 sheets of 960×1080 (720 px: 2×4)', () => {
    const roku = rokuLayout(TWO_HOURS);
    assert.ok(roku !== null);
    assert.deepEqual({ ...roku, tileWidth: 10, tileHeight: 10 }, TWO_HOURS);
    assert.equal(`${roku.tileWidth}x${roku.tileHeight}`, '3x6');
    assert.deepEqual(sheetSize(roku), { width: 960, height: 1080 });
    assert.equal(sheetCount(roku), 40);
    const lowEnd = rokuLayout(TWO_HOURS, 720);
    assert.ok(lowEnd !== null);
    assert.deepEqual(sheetSize(lowEnd), { width: 640, height: 720 });
  });

  it('portrait 320×568 sheets: 3×1; a thumbnail over 1080 px has no Roku variant', () => {
    const portrait = rokuLayout({ ...TWO_HOURS, thumbnailHeight: 568, tileHeight: 7 });
    assert.equal(`${portrait?.tileWidth}x${portrait?.tileHeight}`, '3x1');
    assert.equal(
      rokuLayout({ ...TWO_HOURS, thumbnailWidth: 1280, thumbnailHeight: 720, tileWidth: 3 }),
      null,
    );
  });
});

describe('locate', () => {
  // [ms, thumbnail, sheet, index, x, y]
  const rows: [number, number, number, number, number, number][] = [
    [0, 0, 0, 0, 0, 0],
    [9_999, 0, 0, 0, 0, 0],
    [10_000, 1, 0, 1, 320, 0],
    [95_000, 9, 0, 9, 2880, 0],
    [100_000, 10, 0, 10, 0, 180],
    [999_999, 99, 0, 99, 2880, 1620],
    [1_000_000, 100, 1, 0, 0, 0],
    [3_600_000, 360, 3, 60, 0, 1080],
    [7_195_000, 719, 7, 19, 2880, 180],
    // Past the last thumbnail's time (a film of 7,200.4 s) and beyond: the last one.
    [7_200_400, 719, 7, 19, 2880, 180],
    [99_999_999, 719, 7, 19, 2880, 180],
    // Before the start, or not a number: the first.
    [-500, 0, 0, 0, 0, 0],
    [Number.NaN, 0, 0, 0, 0, 0],
  ];
  for (const [ms, thumbnail, sheet, index, x, y] of rows) {
    it(`${ms} ms → thumbnail ${thumbnail}: sheet ${sheet}, #${index} at ${x},${y}`, () => {
      assert.deepEqual(locate(TWO_HOURS, ms), { thumbnail, sheet, index, x, y, width: 320, height: 180 });
    });
  }

  it('uses the layout’s own grid (a 10×7 portrait layout, a 3×6 Roku one)', () => {
    const portrait = { ...TWO_HOURS, thumbnailHeight: 568, tileHeight: 7 };
    assert.deepEqual(locate(portrait, 700_000), {
      thumbnail: 70,
      sheet: 1,
      index: 0,
      x: 0,
      y: 0,
      width: 320,
      height: 568,
    });
    assert.deepEqual(locate(portrait, 690_000), {
      thumbnail: 69,
      sheet: 0,
      index: 69,
      x: 2880,
      y: 6 * 568,
      width: 320,
      height: 568,
    });
    const roku = { ...TWO_HOURS, tileWidth: 3, tileHeight: 6 };
    assert.deepEqual(locate(roku, 200_000), {
      thumbnail: 20,
      sheet: 1,
      index: 2,
      x: 640,
      y: 0,
      width: 320,
      height: 180,
    });
  });
});

describe('peakBandwidth', () => {
  it('is the largest sheet’s bits per thumbnail per interval second, rounded up', () => {
    // 250,000 B: 2,000,000 bits / 100 thumbs / 10 s = 2,000; 250,001 B → 2,000.0008 → 2,001.
    assert.equal(peakBandwidth({ ...TWO_HOURS, thumbnailCount: 300 }, [250_000, 250_001, 10_000]), 2001);
    assert.equal(peakBandwidth({ ...TWO_HOURS, thumbnailCount: 1 }, [1]), 1);
    assert.equal(peakBandwidth({ ...TWO_HOURS, intervalMs: 2500, thumbnailCount: 100 }, [100_000]), 3200);
  });

  it('refuses sizes that do not match the sheets', () => {
    assert.throws(() => peakBandwidth(TWO_HOURS, [1, 2, 3]), /3 sheet sizes for a layout of 8 sheets/);
    assert.throws(() => peakBandwidth({ ...TWO_HOURS, thumbnailCount: 1 }, [0]), RangeError);
  });
});

describe('trickplayResponse', () => {
  it('maps a layout and its sheet URLs to INTERFACE.md’s shape', () => {
    const layout = { ...TWO_HOURS, thumbnailCount: 101 };
    assert.deepEqual(
      trickplayResponse(layout, (index) => `/api/media-file/7/trickplay/${index}.jpg?token=t`),
      {
        interval_ms: 10_000,
        width: 320,
        height: 180,
        tile_width: 10,
        tile_height: 10,
        thumbnail_count: 101,
        sheets: ['/api/media-file/7/trickplay/0.jpg?token=t', '/api/media-file/7/trickplay/1.jpg?token=t'],
      },
    );
  });
});
