import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
// Self-contained .d.ts (no neighbour imports), so it resolves under the project's NodeNext settings.
import type { TrickplayInfoDto as SdkTrickplayInfoDto } from '@jellyfin/sdk/lib/generated-client/models/trickplay-info-dto.js';
import { planTrickplay, type TrickplayLayout } from '../../../src/domain/trickplay/geometry.ts';
import {
  type TrickplayField,
  trickplayField,
  trickplayInfoDto,
} from '../../../src/domain/trickplay/jellyfin-trickplay.ts';

const SOURCE = '0f8fad5bd9cb469fa16570867728950e';

function planned(durationSeconds: number, width = 1920, height = 1080): TrickplayLayout {
  const plan = planTrickplay({ durationSeconds, displayWidth: width, displayHeight: height });
  assert.ok(plan.ok);
  return plan.layout;
}

describe('trickplayInfoDto', () => {
  it('a 2-hour film: one thumbnail’s size, the grid, the real count, the peak sheet bandwidth', () => {
    const sheets = [410_000, 402_113, 398_000, 420_017, 415_000, 409_000, 401_000, 90_000];
    const dto = trickplayInfoDto(planned(7200), sheets);
    assert.deepEqual(dto, {
      Width: 320,
      Height: 180,
      TileWidth: 10,
      TileHeight: 10,
      ThumbnailCount: 720,
      Interval: 10_000,
      // 420,017 B × 8 / 100 / 10 s = 3,360.136 → 3,361.
      Bandwidth: 3361,
    });
    const sdk: SdkTrickplayInfoDto = dto;
    assert.equal(sdk.ThumbnailCount, 720);
  });

  it('the last partial sheet counts against the full grid (Jellyfin’s formula), and may be the peak', () => {
    // 31 thumbnails, one sheet of 30,000 B: 240,000 bits / 100 / 10 = 240 (not / 31).
    assert.equal(trickplayInfoDto(planned(305), [30_000]).Bandwidth, 240);
    assert.equal(trickplayInfoDto(planned(305), [30_000]).ThumbnailCount, 31);
  });

  it('a portrait film reports its shrunk grid (10×7), so clients cut the sheets right', () => {
    const dto = trickplayInfoDto(planned(600, 1080, 1920), [100_000]);
    assert.deepEqual([dto.Width, dto.Height, dto.TileWidth, dto.TileHeight], [320, 568, 10, 7]);
  });

  it('refuses sheet sizes that do not match the layout', () => {
    assert.throws(() => trickplayInfoDto(planned(7200), [1]), /1 sheet sizes for a layout of 8 sheets/);
    assert.throws(() => trickplayInfoDto(planned(60), [-3]), RangeError);
  });
});

describe('trickplayField', () => {
  it('groups by media source id, then by width as a string key', () => {
    const other = 'aa11bb22cc33dd44ee55ff6600112233';
    const small = planTrickplay(
      { durationSeconds: 60, displayWidth: 1920, displayHeight: 1080 },
      { intervalMs: 10_000, width: 160, tileWidth: 10, tileHeight: 10 },
    );
    assert.ok(small.ok);
    const field: TrickplayField = trickplayField([
      { mediaSourceId: SOURCE, layout: planned(60), sheetBytes: [20_000] },
      { mediaSourceId: SOURCE, layout: small.layout, sheetBytes: [8_000] },
      { mediaSourceId: other, layout: planned(1000), sheetBytes: [150_000] },
    ]);
    assert.deepEqual(Object.keys(field), [SOURCE, other]);
    assert.deepEqual(Object.keys(field[SOURCE] ?? {}), ['160', '320']);
    assert.equal(field[SOURCE]?.['320']?.ThumbnailCount, 6);
    assert.equal(field[SOURCE]?.['160']?.Height, 90);
    assert.equal(field[other]?.['320']?.Bandwidth, 1200);
    // The BaseItemDto field's type in @jellyfin/sdk.
    const sdk: Record<string, Record<string, SdkTrickplayInfoDto>> = field;
    assert.ok(sdk);
    assert.equal(
      JSON.stringify(trickplayField([{ mediaSourceId: SOURCE, layout: planned(10), sheetBytes: [5_000] }])),
      `{"${SOURCE}":{"320":{"Width":320,"Height":180,"TileWidth":10,"TileHeight":10,"ThumbnailCount":1,"Interval":10000,"Bandwidth":40}}}`,
    );
  });

  it('is {} for an item without trickplay, and refuses two layouts of one width for one source', () => {
    assert.deepEqual(trickplayField([]), {});
    assert.throws(
      () =>
        trickplayField([
          { mediaSourceId: SOURCE, layout: planned(60), sheetBytes: [1] },
          { mediaSourceId: SOURCE, layout: planned(70), sheetBytes: [1] },
        ]),
      /two trickplay layouts of width 320/,
    );
  });
});
