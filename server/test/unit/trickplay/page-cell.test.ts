/**
 * The /movie page's seek-thumbnail maths (server/src/http/assets/seek-thumbnail-cell.js, the very
 * module the browser loads) against the server's domain answer, locate(), on the same table: the
 * page reads the API body (trickplayResponse of a layout) and must pick the same thumbnail, sheet
 * and cell for every position.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  clockText,
  readTrickplayInfo,
  thumbnailCell,
  timeAtPointer,
} from '../../../src/http/assets/seek-thumbnail-cell.js';
import {
  locate,
  planTrickplay,
  rokuLayout,
  type TrickplayLayout,
  trickplayResponse,
} from '../../../src/domain/trickplay/geometry.ts';

const TWO_HOURS: TrickplayLayout = {
  intervalMs: 10_000,
  thumbnailWidth: 320,
  thumbnailHeight: 180,
  tileWidth: 10,
  tileHeight: 10,
  thumbnailCount: 720,
};

function planned(durationSeconds: number, width: number, height: number, tiles = 10): TrickplayLayout {
  const plan = planTrickplay(
    { durationSeconds, displayWidth: width, displayHeight: height },
    { intervalMs: 10_000, width: 320, tileWidth: tiles, tileHeight: tiles },
  );
  assert.ok(plan.ok);
  return plan.layout;
}

const LAYOUTS: [string, TrickplayLayout][] = [
  ['two hours, 10×10 of 320×180', TWO_HOURS],
  ['portrait 1080×1920 (10×7 of 320×568)', planned(5_000, 1080, 1920)],
  ['Roku re-cut (3×6)', rokuLayout(TWO_HOURS) ?? TWO_HOURS],
  ['a 108-s film of 160×90 in 2×2 sheets (the page test)', planned(108, 160, 90, 2)],
  ['a 7-s film: one thumbnail', planned(7, 640, 360)],
  ['1-s interval, 3×2', { ...TWO_HOURS, intervalMs: 1_000, tileWidth: 3, tileHeight: 2, thumbnailCount: 25 }],
];

/** Positions (ms) around every boundary that matters: thumbnails, sheets, the end, before 0, NaN. */
function positions(layout: TrickplayLayout): number[] {
  const perSheet = layout.tileWidth * layout.tileHeight;
  const end = layout.thumbnailCount * layout.intervalMs;
  const out = [0, 1, -1, -500, Number.NaN, Number.POSITIVE_INFINITY, end, end + 400, end * 10];
  for (const n of [1, 2, perSheet - 1, perSheet, perSheet + 1, layout.thumbnailCount - 1]) {
    const at = n * layout.intervalMs;
    out.push(at - 1, at, at + 1, at + layout.intervalMs / 2);
  }
  for (let f = 0; f <= 1; f += 0.05) out.push(Math.round(end * f * 1000) / 1000);
  return out;
}

describe('the page’s thumbnailCell against locate()', () => {
  for (const [name, layout] of LAYOUTS) {
    it(name, () => {
      const info = readTrickplayInfo(
        trickplayResponse(layout, (i) => `/stream/media_file/7/trickplay/3/${i}.jpg`),
      );
      assert.ok(info !== null, 'the API body is read');
      for (const ms of positions(layout)) {
        assert.deepEqual(thumbnailCell(info, ms), locate(layout, ms), `at ${ms} ms`);
      }
    });
  }

  it('picks the sheet URL of the located sheet (the 50 % mark of the page test: sheet 1, cell 1)', () => {
    const layout = planned(108, 160, 90, 2);
    const info = readTrickplayInfo(trickplayResponse(layout, (i) => `/s/${i}.jpg`));
    assert.ok(info !== null);
    const cell = thumbnailCell(info, 54_000);
    assert.deepEqual(
      { sheet: info.sheets[cell.sheet], x: cell.x, y: cell.y },
      { sheet: '/s/1.jpg', x: 160, y: 0 },
    );
  });
});

describe('readTrickplayInfo: anything but a ready set is no thumbnails', () => {
  const good = trickplayResponse(TWO_HOURS, (i) => `/s/${i}.jpg`);
  const rows: [string, unknown][] = [
    ['null', null],
    ['an ApiError', { error: 'not_found', message: 'No seek thumbnails.', hint: '' }],
    ['a set being made', { ...good, status: 'running' }],
    ['a failed set', { status: 'failed', reason: 'broken stream' }],
    ['a zero interval', { ...good, interval_ms: 0 }],
    ['a fractional width', { ...good, width: 320.5 }],
    ['a count as text', { ...good, thumbnail_count: '720' }],
    ['one sheet too few', { ...good, sheets: good.sheets.slice(1) }],
    ['an empty sheet URL', { ...good, sheets: ['', ...good.sheets.slice(1)] }],
    ['no sheet list', { ...good, sheets: undefined }],
  ];
  for (const [name, body] of rows) {
    it(name, () => assert.equal(readTrickplayInfo(body), null));
  }
  it('a ready set, with or without its status', () => {
    assert.deepEqual(readTrickplayInfo({ ...good, status: 'ready' }), good);
    assert.deepEqual(readTrickplayInfo(good), good);
  });
});

describe('timeAtPointer and clockText', () => {
  // [clientX, left, width, duration, seconds]
  const rows: [number, number, number, number, number][] = [
    [100, 100, 800, 108, 0],
    [500, 100, 800, 108, 54],
    [900, 100, 800, 108, 108],
    [50, 100, 800, 108, 0], // left of the bar
    [2000, 100, 800, 108, 108], // right of it
    [500, 100, 0, 108, 0], // a bar not laid out
    [500, 100, 800, Number.NaN, 0], // no duration yet
    [500, 100, 800, Number.POSITIVE_INFINITY, 0], // a live stream
  ];
  for (const [x, left, width, duration, seconds] of rows) {
    it(`x ${x} over ${left}+${width} of ${duration} s → ${seconds} s`, () => {
      assert.equal(timeAtPointer(x, left, width, duration), seconds);
    });
  }
  it('formats times', () => {
    assert.deepEqual([0, 5.9, 54, 599, 3600, 3723.4, -3, Number.NaN].map(clockText), [
      '0:00',
      '0:05',
      '0:54',
      '9:59',
      '1:00:00',
      '1:02:03',
      '0:00',
      '0:00',
    ]);
  });
});
