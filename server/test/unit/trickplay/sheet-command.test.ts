import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toneMapChain } from '../../../src/domain/ffmpeg/artifact-command.ts';
import type { VideoCapabilities } from '../../../src/domain/media/capabilities.ts';
import {
  buildSheetArgs,
  needsToneMap,
  pickWindowSeconds,
  selectionFilters,
  sheetFilterGraph,
  type SheetCommandInput,
} from '../../../src/domain/trickplay/sheet-command.ts';
import { videoCaps } from '../ffmpeg/fixtures.ts';

const JELLYFIN = { interval_ms: 10_000, width: 320, height: 180, tile_width: 10, tile_height: 10 };

function input(
  over: Partial<SheetCommandInput> = {},
  video: Partial<VideoCapabilities> = {},
): SheetCommandInput {
  return {
    source: '/media/Heat (1995).mkv',
    outputDir: '/data/trickplay/12/320',
    layout: JELLYFIN,
    mode: 'keyframes',
    thumbnailCount: 720,
    maxKeyframeGapSeconds: 4,
    capabilities: { video: videoCaps(video) },
    threads: 2,
    ...over,
  };
}

describe('trickplay sheet command: which picture each thumbnail shows', () => {
  // [interval s, window c, count] → filters. Slot k is the last picture before k·I + c.
  const cases: [number, number, number, string[]][] = [
    [
      10,
      2,
      720,
      ['setpts=PTS+8/TB', 'fps=fps=1/10:round=down:start_time=0:eof_action=pass', 'trim=end_frame=720'],
    ],
    [
      10,
      6,
      6,
      ['setpts=PTS+4/TB', 'fps=fps=1/10:round=down:start_time=0:eof_action=pass', 'trim=end_frame=6'],
    ],
    [
      10,
      0.02,
      13,
      ['setpts=PTS+9.98/TB', 'fps=fps=1/10:round=down:start_time=0:eof_action=pass', 'trim=end_frame=13'],
    ],
    // A GOP of 30 s at a 10-s interval: c = 15 s is more than an interval, so the shift stays
    // positive (no picture before 0) and the slot in front is trimmed.
    [
      10,
      15,
      5,
      [
        'setpts=PTS+5/TB',
        'fps=fps=1/10:round=down:start_time=0:eof_action=pass',
        'trim=start_frame=1:end_frame=6',
      ],
    ],
    [
      2,
      0.5,
      100,
      ['setpts=PTS+1.5/TB', 'fps=fps=1/2:round=down:start_time=0:eof_action=pass', 'trim=end_frame=100'],
    ],
    [
      10,
      10,
      3,
      [
        'setpts=PTS+10/TB',
        'fps=fps=1/10:round=down:start_time=0:eof_action=pass',
        'trim=start_frame=1:end_frame=4',
      ],
    ],
  ];
  for (const [interval, window, count, expected] of cases) {
    it(`interval ${interval} s, window ${window} s, ${count} thumbnails`, () => {
      assert.deepEqual(selectionFilters(interval, window, count), expected);
    });
  }

  const windows: [string, Partial<SheetCommandInput>, Partial<VideoCapabilities>, number][] = [
    ['keyframes: half the longest GOP', { mode: 'keyframes', maxKeyframeGapSeconds: 4 }, {}, 2],
    ['keyframes: 12-s GOP', { mode: 'keyframes', maxKeyframeGapSeconds: 12 }, {}, 6],
    ['accurate: half a frame at 25 fps', { mode: 'accurate' }, { frame_rate: 25 }, 0.02],
    ['accurate: no frame rate known → 24 fps assumed', { mode: 'accurate' }, { frame_rate: null }, 1 / 48],
  ];
  for (const [name, over, video, expected] of windows) {
    it(`window: ${name}`, () => {
      assert.equal(pickWindowSeconds(input(over, video)), expected);
    });
  }
});

describe('trickplay sheet command: tone-mapping', () => {
  const table: [VideoCapabilities['hdr'], Partial<VideoCapabilities>, boolean][] = [
    ['sdr', {}, false],
    ['sdr', { bit_depth: 10, pix_fmt: 'yuv420p10le', codec: 'hevc' }, false],
    ['hdr10', {}, true],
    ['hdr10plus', {}, true],
    ['hlg', {}, true],
    ['dolby_vision', {}, true],
  ];
  for (const [hdr, over, expected] of table) {
    it(`${hdr}${over.bit_depth === 10 ? ' 10-bit' : ''} → ${expected ? 'tone-mapped' : 'as it is'}`, () => {
      assert.equal(needsToneMap({ video: videoCaps({ hdr, ...over }) }), expected);
    });
  }

  it('HDR10: the conversions’ own chain, after the scale, before the JPEG format', () => {
    const caps = { video: videoCaps({ hdr: 'hdr10', bit_depth: 10, pix_fmt: 'yuv420p10le' }) };
    const graph = sheetFilterGraph(input({ capabilities: caps, thumbnailCount: 30 }));
    assert.equal(
      graph,
      '[0:V:0]setpts=PTS+8/TB,fps=fps=1/10:round=down:start_time=0:eof_action=pass,trim=end_frame=30,' +
        `scale=320:180,${toneMapChain(caps).join(',')},format=yuvj420p,split=2[thumbs][cells];` +
        '[cells]tile=10x10[sheets]',
    );
    assert.match(graph, /zscale=tin=smpte2084:pin=bt2020/);
  });

  it('HLG uses the HLG transfer', () => {
    const graph = sheetFilterGraph(input({ capabilities: { video: videoCaps({ hdr: 'hlg' }) } }));
    assert.match(graph, /zscale=tin=arib-std-b67/);
  });

  it('10-bit SDR is only converted to 8-bit full range', () => {
    const graph = sheetFilterGraph(input({}, { bit_depth: 10, pix_fmt: 'yuv420p10le' }));
    assert.doesNotMatch(graph, /zscale|tonemap/);
    assert.match(graph, /scale=320:180,format=yuvj420p,/);
  });
});

describe('trickplay sheet command: the argv', () => {
  it('keyframe mode is exactly this argv', () => {
    assert.deepEqual(buildSheetArgs(input()), [
      '-hide_banner',
      '-nostdin',
      '-loglevel',
      'error',
      '-nostats',
      '-progress',
      'pipe:1',
      '-threads',
      '2',
      '-skip_frame',
      'nokey',
      '-an',
      '-sn',
      '-dn',
      '-i',
      '/media/Heat (1995).mkv',
      '-filter_complex',
      '[0:V:0]setpts=PTS+8/TB,fps=fps=1/10:round=down:start_time=0:eof_action=pass,trim=end_frame=720,' +
        'scale=320:180,format=yuvj420p,split=2[thumbs][cells];[cells]tile=10x10[sheets]',
      '-map',
      '[sheets]',
      '-an',
      '-sn',
      '-dn',
      '-vsync',
      'passthrough',
      '-c:v',
      'mjpeg',
      '-qscale:v',
      '4',
      '-threads',
      '2',
      '-f',
      'image2',
      '-start_number',
      '0',
      '/data/trickplay/12/320/%d.jpg',
      '-map',
      '[thumbs]',
      '-flush_packets',
      '1',
      '-f',
      'framecrc',
      'pipe:3',
    ]);
  });

  it('accurate mode decodes every frame (no -skip_frame)', () => {
    const args = buildSheetArgs(input({ mode: 'accurate' }, { frame_rate: 25 }));
    assert.ok(!args.includes('-skip_frame'));
    assert.match(args.join(' '), /setpts=PTS\+9\.98\/TB/);
  });

  const paths: [string, string, string][] = [
    ['a relative source is a file: URL', 'films/a:b.mkv', 'file:films/a:b.mkv'],
    ['an absolute source as it is', '/m/a.mkv', '/m/a.mkv'],
  ];
  for (const [name, source, expected] of paths) {
    it(name, () => {
      const args = buildSheetArgs(input({ source }));
      assert.equal(args[args.indexOf('-i') + 1], expected);
    });
  }

  it('a % in the folder is doubled for the image2 pattern; a trailing slash is dropped', () => {
    const args = buildSheetArgs(input({ outputDir: '/data/100%/x/' }));
    assert.ok(args.includes('/data/100%%/x/%d.jpg'));
  });

  it('threads: at least one, whole', () => {
    const args = buildSheetArgs(input({ threads: 0.5 }));
    assert.equal(args[args.indexOf('-threads') + 1], '1');
  });
});
