import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { peakBandwidth, rokuLayout, type TrickplayLayout } from '../../../src/domain/trickplay/geometry.ts';
import { imageStreamInfLine, renderImagePlaylist } from '../../../src/domain/trickplay/image-playlist.ts';
import { checkMasterPlaylist } from '../../helpers/hls-check.ts';
import {
  attributeList,
  checkImagePlaylist,
  ImagePlaylistCheckError,
} from '../../helpers/image-playlist-check.ts';

const TWO_HOURS: TrickplayLayout = {
  intervalMs: 10_000,
  thumbnailWidth: 320,
  thumbnailHeight: 180,
  tileWidth: 10,
  tileHeight: 10,
  thumbnailCount: 720,
};
const sheetUri = (index: number): string => `${index}.jpg?MediaSourceId=abc&ApiKey=t`;

function rulesBroken(text: string): string[] {
  try {
    checkImagePlaylist(text);
    return [];
  } catch (error) {
    assert.ok(error instanceof ImagePlaylistCheckError, String(error));
    return error.rules;
  }
}

describe('renderImagePlaylist', () => {
  it('writes a 30-thumbnail film as Jellyfin does, with an RFC 8216 target duration', () => {
    const text = renderImagePlaylist({ ...TWO_HOURS, thumbnailCount: 30 }, sheetUri);
    assert.equal(
      text,
      [
        '#EXTM3U',
        '#EXT-X-VERSION:7',
        '#EXT-X-TARGETDURATION:300',
        '#EXT-X-MEDIA-SEQUENCE:0',
        '#EXT-X-PLAYLIST-TYPE:VOD',
        '#EXT-X-IMAGES-ONLY',
        '#EXTINF:300,',
        '#EXT-X-TILES:RESOLUTION=320x180,LAYOUT=10x10,DURATION=10',
        '0.jpg?MediaSourceId=abc&ApiKey=t',
        '#EXT-X-ENDLIST',
        '',
      ].join('\n'),
    );
    checkImagePlaylist(text);
  });

  // [name, layout, sheets, each EXTINF, target duration]
  const rows: [string, TrickplayLayout, number, number[], number][] = [
    ['a 2-hour film: 7 full sheets and one of 20', TWO_HOURS, 8, [...Array<number>(7).fill(1000), 200], 1000],
    [
      'exactly 100 thumbnails: one sheet, no empty one',
      { ...TWO_HOURS, thumbnailCount: 100 },
      1,
      [1000],
      1000,
    ],
    ['101 thumbnails: a last sheet of one', { ...TWO_HOURS, thumbnailCount: 101 }, 2, [1000, 10], 1000],
    ['one thumbnail (shorter than an interval)', { ...TWO_HOURS, thumbnailCount: 1 }, 1, [10], 10],
    [
      'a 2.5 s interval: fractional EXTINFs, target rounded up',
      { ...TWO_HOURS, intervalMs: 2500, tileWidth: 3, tileHeight: 1, thumbnailCount: 4 },
      2,
      [7.5, 2.5],
      8,
    ],
    [
      'a 1.234 s interval',
      { ...TWO_HOURS, intervalMs: 1234, tileWidth: 2, tileHeight: 2, thumbnailCount: 5 },
      2,
      [4.936, 1.234],
      5,
    ],
    [
      'the Roku variant of a 2-hour film: 40 sheets of 3×6',
      rokuLayout(TWO_HOURS) ?? TWO_HOURS,
      40,
      Array<number>(40).fill(180),
      180,
    ],
    [
      'a portrait 10×7 layout',
      { ...TWO_HOURS, thumbnailHeight: 568, tileHeight: 7, thumbnailCount: 75 },
      2,
      [700, 50],
      700,
    ],
  ];
  for (const [name, layout, sheets, extinfs, target] of rows) {
    it(name, () => {
      const checked = checkImagePlaylist(renderImagePlaylist(layout, sheetUri));
      assert.equal(checked.segments.length, sheets);
      assert.deepEqual(
        checked.segments.map((segment) => segment.duration),
        extinfs,
      );
      assert.equal(checked.targetDuration, target);
      assert.equal(checked.mediaSequence, 0);
      for (const segment of checked.segments) {
        assert.deepEqual(segment.tiles, {
          width: layout.thumbnailWidth,
          height: layout.thumbnailHeight,
          columns: layout.tileWidth,
          rows: layout.tileHeight,
          duration: layout.intervalMs / 1000,
        });
      }
      const total = checked.segments.reduce((sum, segment) => sum + segment.duration, 0);
      assert.ok(Math.abs(total - (layout.thumbnailCount * layout.intervalMs) / 1000) < 1e-9);
      assert.deepEqual(
        checked.segments.map((segment) => segment.uri),
        Array.from({ length: sheets }, (_, index) => sheetUri(index)),
      );
    });
  }

  it('refuses URIs that would break the playlist', () => {
    assert.throws(() => renderImagePlaylist(TWO_HOURS, () => 'a.jpg\n#EXT-X-ENDLIST'), /CR, LF/);
    assert.throws(() => renderImagePlaylist(TWO_HOURS, () => ''), /non-empty/);
    assert.throws(() => renderImagePlaylist({ ...TWO_HOURS, thumbnailCount: 0 }, sheetUri), /at least one/);
  });
});

describe('the image playlist check bites', () => {
  const good = renderImagePlaylist({ ...TWO_HOURS, thumbnailCount: 150 }, sheetUri);
  // Jellyfin's own playlist: its TARGETDURATION is the tile count (100) under EXTINFs of 1000 s.
  const cases: [string, string, string][] = [
    [
      'Jellyfin’s tile-count target duration',
      good.replace('TARGETDURATION:1000', 'TARGETDURATION:100'),
      'target-duration',
    ],
    ['no EXT-X-IMAGES-ONLY', good.replace('#EXT-X-IMAGES-ONLY\n', ''), 'images-only'],
    ['a sheet without EXT-X-TILES', good.replace(/#EXT-X-TILES[^\n]*\n(?=1\.jpg)/, ''), 'tiles'],
    ['a LAYOUT without rows', good.replace('LAYOUT=10x10', 'LAYOUT=10'), 'tiles'],
    [
      'a full sheet claiming more thumbnails than its grid',
      good.replace('#EXTINF:1000,', '#EXTINF:1010,'),
      'tiles',
    ],
    ['a partial sheet before the last', good.replace('#EXTINF:1000,', '#EXTINF:990,'), 'tiles'],
    ['no ENDLIST', good.replace('#EXT-X-ENDLIST\n', ''), 'endlist'],
    ['an EVENT playlist', good.replace('VOD', 'EVENT'), 'playlist-type'],
    ['a missing URI', good.replace('1.jpg?MediaSourceId=abc&ApiKey=t\n', ''), 'extinf-uri'],
  ];
  for (const [name, text, rule] of cases) {
    it(`${name} → [${rule}]`, () =>
      assert.ok(rulesBroken(text).includes(rule), rulesBroken(text).join(', ')));
  }
  it('and the good one passes', () => assert.deepEqual(rulesBroken(good), []));
});

describe('imageStreamInfLine', () => {
  it('announces the image playlist in a master that still passes the RFC 8216 master check', () => {
    const line = imageStreamInfLine(TWO_HOURS, 3361, 'Trickplay/320/tiles.m3u8?MediaSourceId=abc&ApiKey=t');
    assert.equal(
      line,
      '#EXT-X-IMAGE-STREAM-INF:BANDWIDTH=3361,RESOLUTION=320x180,CODECS="jpeg",URI="Trickplay/320/tiles.m3u8?MediaSourceId=abc&ApiKey=t"',
    );
    const attributes = attributeList(line.slice('#EXT-X-IMAGE-STREAM-INF:'.length));
    assert.deepEqual(attributes && Object.fromEntries(attributes), {
      BANDWIDTH: '3361',
      RESOLUTION: '320x180',
      CODECS: '"jpeg"',
      URI: '"Trickplay/320/tiles.m3u8?MediaSourceId=abc&ApiKey=t"',
    });
    const master = [
      '#EXTM3U',
      '#EXT-X-VERSION:7',
      '#EXT-X-STREAM-INF:BANDWIDTH=5000000,RESOLUTION=1920x1080,CODECS="avc1.640028"',
      'main.m3u8',
      line,
      '',
    ].join('\n');
    const checked = checkMasterPlaylist(master);
    assert.equal(checked.variants.length, 1);
  });

  it('takes its BANDWIDTH from the sheets, and the Roku variant’s resolution is the same thumbnail', () => {
    const roku = rokuLayout(TWO_HOURS);
    assert.ok(roku !== null);
    const bandwidth = peakBandwidth({ ...roku, thumbnailCount: 36 }, [40_000, 39_000]);
    assert.equal(bandwidth, 1778);
    assert.match(
      imageStreamInfLine(roku, bandwidth, 'trickplay/roku.m3u8'),
      /BANDWIDTH=1778,RESOLUTION=320x180,/,
    );
  });

  it('refuses a bad bandwidth or a URI with a quote', () => {
    assert.throws(() => imageStreamInfLine(TWO_HOURS, 0, 'a.m3u8'), RangeError);
    assert.throws(() => imageStreamInfLine(TWO_HOURS, 1.5, 'a.m3u8'), RangeError);
    assert.throws(() => imageStreamInfLine(TWO_HOURS, 10, 'a".m3u8'), /CR, LF/);
  });
});
