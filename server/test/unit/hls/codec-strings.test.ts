import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import {
  audioCodecString,
  type EncodeTarget,
  encodedVideoCodecString,
  type VideoCodecInput,
  videoCodecString,
} from '../../../src/domain/hls/codec-strings.ts';
import { bundledToolPath, findOnPath } from '../../../src/adapters/media-tools.ts';
import { parseFfprobe } from '../../../src/domain/media/capabilities.ts';
import { fixtureFfmpeg, skipWithoutEncoders } from '../../helpers/media.ts';
import { checkMasterPlaylist } from '../../helpers/hls-check.ts';
import { renderMasterPlaylist } from '../../../src/domain/hls/playlists.ts';

const run = promisify(execFile);
/** Found as the server finds it (the analysis reads the files with this ffprobe). */
const ffprobe =
  process.env.REELSHELF_FFPROBE ??
  findOnPath('ffprobe', process.env.PATH) ??
  bundledToolPath('ffprobe') ??
  'ffprobe';

function video(overrides: Partial<VideoCodecInput>): VideoCodecInput {
  return { codec: 'h264', profile: 'High', level: 4.1, bit_depth: 8, codec_tag: null, ...overrides };
}

/** Every codec string the module writes must also pass the checker's CODECS syntax. */
function assertValidInPlaylist(codec: string): void {
  checkMasterPlaylist(
    renderMasterPlaylist({
      video: { uri: 'v.m3u8', codecs: codec, width: 1920, height: 1080, frameRate: 24, bandwidth: 1 },
      audio: [],
    }),
  );
}

describe('videoCodecString from a capability record', () => {
  const rows: [string, Partial<VideoCodecInput>, string | null][] = [
    ['H.264 High 4.1', {}, 'avc1.640029'],
    ['H.264 High 3.1', { level: 3.1 }, 'avc1.64001F'],
    ['H.264 High 4.0', { level: 4 }, 'avc1.640028'],
    ['H.264 High 5.1', { level: 5.1 }, 'avc1.640033'],
    ['H.264 Main 3.0', { profile: 'Main', level: 3 }, 'avc1.4D401E'],
    ['H.264 Baseline 3.0', { profile: 'Baseline', level: 3 }, 'avc1.42001E'],
    ['H.264 Constrained Baseline 3.0', { profile: 'Constrained Baseline', level: 3 }, 'avc1.42E01E'],
    ['H.264 High 10 5.0', { profile: 'High 10', level: 5, bit_depth: 10 }, 'avc1.6E0032'],
    ['H.264 High 4:2:2 4.1', { profile: 'High 4:2:2', level: 4.1 }, 'avc1.7A0029'],
    ['H.264 in an avc3 sample entry stays avc1 as we write it', { codec_tag: 'avc3' }, 'avc1.640029'],
    ['H.264 without a level', { level: null }, null],
    ['H.264 without a profile', { profile: null }, null],
    ['H.264 with an unknown profile', { profile: 'Super High' }, null],
    ['HEVC Main 3.1', { codec: 'hevc', profile: 'Main', level: 3.1 }, 'hvc1.1.6.L93.B0'],
    ['HEVC Main 4.0', { codec: 'hevc', profile: 'Main', level: 4 }, 'hvc1.1.6.L120.B0'],
    [
      'HEVC Main 10 5.1',
      { codec: 'hevc', profile: 'Main 10', level: 5.1, bit_depth: 10 },
      'hvc1.2.4.L153.B0',
    ],
    [
      'HEVC hev1 in the source is written as hvc1',
      { codec: 'hevc', profile: 'Main', level: 4, codec_tag: 'hev1' },
      'hvc1.1.6.L120.B0',
    ],
    ['HEVC Rext: not sure enough', { codec: 'hevc', profile: 'Rext', level: 5.1 }, null],
    ['HEVC without a level', { codec: 'hevc', profile: 'Main', level: null }, null],
    [
      'HEVC Dolby Vision 8.1: the HDR10 base layer',
      {
        codec: 'hevc',
        profile: 'Main 10',
        level: 5.1,
        bit_depth: 10,
        hdr: 'dolby_vision',
        dolby_vision: { profile: 8, level: 6, fallback: 'hdr10' },
      },
      'hvc1.2.4.L153.B0',
    ],
    [
      'HEVC Dolby Vision 5: only the DV string is right',
      {
        codec: 'hevc',
        profile: 'Main 10',
        level: 5.1,
        bit_depth: 10,
        hdr: 'dolby_vision',
        dolby_vision: { profile: 5, level: 6, fallback: 'none' },
      },
      'dvh1.05.06',
    ],
    [
      'HEVC Dolby Vision 5 without its level',
      {
        codec: 'hevc',
        profile: 'Main 10',
        level: 5.1,
        bit_depth: 10,
        dolby_vision: { profile: 5, level: null, fallback: 'none' },
      },
      null,
    ],
    ['AV1 Main 4.0 8-bit', { codec: 'av1', profile: 'Main', level: 4, bit_depth: 8 }, 'av01.0.08M.08'],
    ['AV1 Main 5.1 10-bit', { codec: 'av1', profile: 'Main', level: 5.1, bit_depth: 10 }, 'av01.0.13M.10'],
    ['AV1 High 2.0', { codec: 'av1', profile: 'High', level: 2, bit_depth: 8 }, 'av01.1.00M.08'],
    ['AV1 without a bit depth', { codec: 'av1', profile: 'Main', level: 4, bit_depth: null }, null],
    [
      'VP9 Profile 0 1080p24: level from the picture',
      {
        codec: 'vp9',
        profile: 'Profile 0',
        level: null,
        bit_depth: 8,
        width: 1920,
        height: 1080,
        frame_rate: 24,
      },
      'vp09.00.40.08',
    ],
    [
      'VP9 Profile 2 2160p60 10-bit',
      {
        codec: 'vp9',
        profile: 'Profile 2',
        level: null,
        bit_depth: 10,
        width: 3840,
        height: 2160,
        frame_rate: 60,
      },
      'vp09.02.51.10',
    ],
    ['VP9 without a size', { codec: 'vp9', profile: 'Profile 0', level: null }, null],
    ['MPEG-4 Part 2', { codec: 'mpeg4', profile: 'Simple Profile', level: null }, 'mp4v.20.9'],
    ['MPEG-2: no HLS codec string', { codec: 'mpeg2video', profile: 'Main', level: null }, null],
    ['unknown codec', { codec: 'unknown', profile: null, level: null }, null],
  ];
  for (const [name, overrides, expected] of rows) {
    it(`${name} → ${String(expected)}`, () => {
      const codec = videoCodecString(video(overrides));
      assert.equal(codec, expected);
      if (codec !== null) assertValidInPlaylist(codec);
    });
  }

  it('writes the sample entry the caller says the segments carry', () => {
    const hevc = video({ codec: 'hevc', profile: 'Main', level: 4 });
    assert.equal(videoCodecString(hevc, { sampleEntry: 'hev1' }), 'hev1.1.6.L120.B0');
    const dv = video({
      codec: 'hevc',
      profile: 'Main 10',
      level: 5.1,
      dolby_vision: { profile: 8, level: 6, fallback: 'hdr10' },
    });
    assert.equal(videoCodecString(dv, { sampleEntry: 'dvh1' }), 'dvh1.08.06');
  });
});

describe('audioCodecString', () => {
  const rows: [string, string | null, string | null][] = [
    ['aac', null, 'mp4a.40.2'],
    ['aac', 'LC', 'mp4a.40.2'],
    ['aac', 'HE-AAC', 'mp4a.40.5'],
    ['aac', 'HE-AACv2', 'mp4a.40.29'],
    ['aac', 'LTP', 'mp4a.40.4'],
    ['aac', 'Something New', null],
    ['mp3', null, 'mp4a.40.34'],
    ['ac3', null, 'ac-3'],
    ['eac3', null, 'ec-3'],
    ['eac3', 'E-AC3 Atmos', 'ec-3'],
    ['opus', null, 'Opus'],
    ['flac', null, 'fLaC'],
    ['alac', null, 'alac'],
    ['dts', 'DTS-HD MA', null],
    ['truehd', 'TrueHD Atmos', null],
    ['pcm_s16le', null, null],
    ['unknown', null, null],
  ];
  for (const [codec, profile, expected] of rows) {
    it(`${codec}${profile === null ? '' : ` (${profile})`} → ${String(expected)}`, () => {
      const value = audioCodecString({ codec, profile });
      assert.equal(value, expected);
      if (value !== null) assertValidInPlaylist(`avc1.640029,${value}`);
    });
  }
});

describe('encodedVideoCodecString (the level the encoder picks)', () => {
  const target = (overrides: Partial<EncodeTarget>): EncodeTarget => ({
    codec: 'h264',
    width: 1920,
    height: 1080,
    frameRate: 30,
    bitDepth: 8,
    ...overrides,
  });
  const rows: [string, Partial<EncodeTarget>, string | null][] = [
    ['H.264 640x360@25 → 3.0', { width: 640, height: 360, frameRate: 25 }, 'avc1.64001E'],
    ['H.264 854x480@30 → 3.1', { width: 854, height: 480 }, 'avc1.64001F'],
    ['H.264 720p30 → 3.1', { width: 1280, height: 720 }, 'avc1.64001F'],
    [
      'H.264 720p30 capped at 20 Mb/s → 4.1 (VBV)',
      { width: 1280, height: 720, maxBitrateBps: 20_000_000 },
      'avc1.640029',
    ],
    [
      'H.264 720p30 capped at 8 Mb/s → 3.1',
      { width: 1280, height: 720, maxBitrateBps: 8_000_000 },
      'avc1.64001F',
    ],
    ['H.264 1080p24 → 4.0', { frameRate: 24 }, 'avc1.640028'],
    ['H.264 1080p30 → 4.0', {}, 'avc1.640028'],
    ['H.264 1080p, rate unknown → as 30 fps', { frameRate: null }, 'avc1.640028'],
    ['H.264 1080p60 → 4.2', { frameRate: 60 }, 'avc1.64002A'],
    ['H.264 2160p30 → 5.1', { width: 3840, height: 2160 }, 'avc1.640033'],
    ['H.264 1080p30 10-bit → High 10', { bitDepth: 10 }, 'avc1.6E0028'],
    ['H.264 beyond every level', { width: 16384, height: 16384, frameRate: 120 }, null],
    ['HEVC 640x360@25 → 2.1', { codec: 'hevc', width: 640, height: 360, frameRate: 25 }, 'hvc1.1.6.L63.B0'],
    ['HEVC 720p30 → 3.1', { codec: 'hevc', width: 1280, height: 720 }, 'hvc1.1.6.L93.B0'],
    ['HEVC 1080p30 → 4.0', { codec: 'hevc' }, 'hvc1.1.6.L120.B0'],
    ['HEVC 1080p60 → 4.1', { codec: 'hevc', frameRate: 60 }, 'hvc1.1.6.L123.B0'],
    ['HEVC 2160p30 → 5.0', { codec: 'hevc', width: 3840, height: 2160 }, 'hvc1.1.6.L150.B0'],
    ['HEVC 1080p30 Main 10', { codec: 'hevc', bitDepth: 10 }, 'hvc1.2.4.L120.B0'],
    [
      'HEVC 1080p30 at 25 Mb/s → High tier 4.0',
      { codec: 'hevc', maxBitrateBps: 25_000_000 },
      'hvc1.1.6.H120.B0',
    ],
    ['AV1 640x360@25 → 2.1', { codec: 'av1', width: 640, height: 360, frameRate: 25 }, 'av01.0.01M.08'],
    ['AV1 720p30 → 3.1', { codec: 'av1', width: 1280, height: 720 }, 'av01.0.05M.08'],
    ['AV1 1080p60 10-bit → 4.1', { codec: 'av1', frameRate: 60, bitDepth: 10 }, 'av01.0.09M.10'],
    ['AV1 2160p30 → 5.0', { codec: 'av1', width: 3840, height: 2160 }, 'av01.0.12M.08'],
    ['no size', { width: 0 }, null],
  ];
  for (const [name, overrides, expected] of rows) {
    it(name, () => {
      const codec = encodedVideoCodecString(target(overrides));
      assert.equal(codec, expected);
      if (codec !== null) assertValidInPlaylist(codec);
    });
  }
});

/**
 * The real encoders, run as artifact-command runs them, read back through the analysis (ffprobe +
 * parseFfprobe): the codec string of what was written must equal the one predicted for the target.
 */
describe('encodedVideoCodecString agrees with what the real encoders write', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'reelshelf-codecs-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const encoderArgs: Record<EncodeTarget['codec'], string[]> = {
    h264: ['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '21'],
    hevc: [
      '-c:v',
      'libx265',
      '-preset',
      'fast',
      '-crf',
      '23',
      '-tag:v',
      'hvc1',
      '-x265-params',
      'log-level=error',
    ],
    av1: ['-c:v', 'libsvtav1', '-preset', '10', '-crf', '32'],
  };
  const encoderNames: Record<EncodeTarget['codec'], string> = {
    h264: 'libx264',
    hevc: 'libx265',
    av1: 'libsvtav1',
  };
  const cases: EncodeTarget[] = [
    { codec: 'h264', width: 1280, height: 720, frameRate: 30, bitDepth: 8 },
    { codec: 'h264', width: 1920, height: 1080, frameRate: 60, bitDepth: 8 },
    { codec: 'h264', width: 1280, height: 720, frameRate: 30, bitDepth: 8, maxBitrateBps: 20_000_000 },
    { codec: 'h264', width: 854, height: 480, frameRate: 30, bitDepth: 10 },
    { codec: 'hevc', width: 1920, height: 1080, frameRate: 30, bitDepth: 10 },
    { codec: 'hevc', width: 640, height: 360, frameRate: 25, bitDepth: 8 },
    { codec: 'av1', width: 1280, height: 720, frameRate: 30, bitDepth: 8 },
  ];
  for (const target of cases) {
    const label = `${target.codec} ${target.width}x${target.height}@${target.frameRate} ${target.bitDepth}-bit${target.maxBitrateBps ? ` ≤${target.maxBitrateBps / 1e6} Mb/s` : ''}`;
    it(label, { skip: skipWithoutEncoders(encoderNames[target.codec]) }, async () => {
      const file = join(dir, `${label.replace(/\W+/g, '_')}.mp4`);
      const rateArgs =
        target.maxBitrateBps === undefined
          ? []
          : ['-maxrate', String(target.maxBitrateBps), '-bufsize', String(target.maxBitrateBps * 2)];
      const pixFmt = target.bitDepth === 10 ? 'yuv420p10le' : 'yuv420p';
      await run(fixtureFfmpeg, [
        ...[
          '-v',
          'error',
          '-f',
          'lavfi',
          '-i',
          `testsrc2=s=${target.width}x${target.height}:r=${target.frameRate}`,
        ],
        ...['-frames:v', '2', ...encoderArgs[target.codec], ...rateArgs, '-pix_fmt', pixFmt, '-y', file],
      ]);
      const { stdout } = await run(ffprobe, [
        '-v',
        'error',
        '-show_format',
        '-show_streams',
        '-of',
        'json',
        file,
      ]);
      const capabilities = parseFfprobe(JSON.parse(stdout), statSync(file).size);
      assert.ok(capabilities.video !== null);
      const written = videoCodecString(capabilities.video);
      const predicted = encodedVideoCodecString(target);
      // The HEVC tier is not in ffprobe's output; none of these targets is High tier.
      assert.equal(
        predicted,
        written,
        `profile ${capabilities.video.profile}, level ${capabilities.video.level}`,
      );
    });
  }
});
