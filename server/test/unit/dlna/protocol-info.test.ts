import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  contentFeatures,
  DlnaFlag,
  dlnaProfileOf,
  formatFlags,
  imageProtocolInfo,
  protocolInfo,
  type StreamShape,
} from '../../../src/domain/dlna/protocol-info.ts';

const hd: StreamShape = {
  container: 'mp4',
  videoCodec: 'h264',
  videoProfile: 'High',
  width: 1920,
  height: 1080,
  framesPerSecond: 23.976,
  audioCodec: 'aac',
  audioChannels: 2,
};

describe('dlnaProfileOf', () => {
  const cases: [string, Partial<StreamShape>, string | null][] = [
    ['mp4 high 1080p aac', {}, 'AVC_MP4_HP_HD_AAC'],
    ['mp4 main 720p aac', { videoProfile: 'Main', width: 1280, height: 720 }, 'AVC_MP4_MP_HD_720p_AAC'],
    ['mp4 main 1080 aac', { videoProfile: 'Main' }, 'AVC_MP4_MP_HD_1080i_AAC'],
    [
      'mp4 baseline SD aac',
      { videoProfile: 'Constrained Baseline', width: 320, height: 240 },
      'AVC_MP4_MP_SD_AAC_MULT5',
    ],
    [
      'mp4 main SD ac3 5.1',
      { videoProfile: 'Main', width: 720, height: 576, audioCodec: 'ac3', audioChannels: 6 },
      'AVC_MP4_MP_SD_AC3',
    ],
    [
      'ts main SD aac',
      { container: 'mpegts', videoProfile: 'Main', width: 720, height: 480 },
      'AVC_TS_MP_SD_AAC_MULT5_ISO',
    ],
    [
      'ts main HD ac3',
      { container: 'mpegts', videoProfile: 'Main', audioCodec: 'ac3', audioChannels: 6 },
      'AVC_TS_MP_HD_AC3_ISO',
    ],
    [
      'm2ts main HD mp3',
      { container: 'm2ts', videoProfile: 'Main', width: 1280, height: 720, audioCodec: 'mp3' },
      'AVC_TS_MP_HD_MPEG1_L3_T',
    ],
    [
      'ts high 1080p24 ac3',
      { container: 'mpegts', audioCodec: 'ac3', audioChannels: 6 },
      'AVC_TS_HD_24_AC3_ISO',
    ],
    [
      'ts high 1080p25 ac3',
      { container: 'mpegts', audioCodec: 'ac3', framesPerSecond: 25 },
      'AVC_TS_HD_50_AC3_ISO',
    ],
    [
      'm2ts high 720p59.94 ac3',
      { container: 'm2ts', width: 1280, height: 720, audioCodec: 'ac3', framesPerSecond: 59.94 },
      'AVC_TS_HD_60_AC3_T',
    ],
    [
      'mpeg2 NA SD ac3',
      {
        container: 'mpegts',
        videoCodec: 'mpeg2video',
        videoProfile: 'Main',
        width: 720,
        height: 480,
        framesPerSecond: 29.97,
        audioCodec: 'ac3',
      },
      'MPEG_TS_SD_NA_ISO',
    ],
    [
      'mpeg2 EU SD mp2',
      {
        container: 'mpegts',
        videoCodec: 'mpeg2video',
        videoProfile: 'Main',
        width: 720,
        height: 576,
        framesPerSecond: 25,
        audioCodec: 'mp2',
      },
      'MPEG_TS_SD_EU_ISO',
    ],
    [
      'mpeg2 NA HD ac3',
      {
        container: 'm2ts',
        videoCodec: 'mpeg2video',
        videoProfile: 'Main',
        framesPerSecond: 29.97,
        audioCodec: 'ac3',
      },
      'MPEG_TS_HD_NA_T',
    ],
    // Negative cases: nothing truly fits, so nothing is claimed.
    ['matroska h264 aac', { container: 'matroska' }, null],
    ['webm vp9', { container: 'webm', videoCodec: 'vp9', videoProfile: null, audioCodec: 'opus' }, null],
    ['mp4 hevc', { videoCodec: 'hevc', videoProfile: 'Main' }, null],
    ['mp4 dts', { audioCodec: 'dts', audioChannels: 6 }, null],
    ['mp4 aac 7.1', { audioChannels: 8 }, null],
    ['mp4 no audio', { audioCodec: null, audioChannels: null }, null],
    ['mp4 high SD (HP only has HD)', { width: 720, height: 480 }, null],
    ['mp4 high 1080 ac3', { audioCodec: 'ac3' }, null],
    ['mp4 main 1080 mp3', { videoProfile: 'Main', audioCodec: 'mp3' }, null],
    ['mp4 odd size 1920x800', { width: 1920, height: 800 }, null],
    ['mp4 unknown size', { width: null, height: null }, null],
    ['mp4 high 10', { videoProfile: 'High 10' }, null],
    ['ts high 1080 aac (HD broadcast is AC-3)', { container: 'mpegts' }, null],
    ['ts high 1080p23 odd rate ac3', { container: 'mpegts', audioCodec: 'ac3', framesPerSecond: 12 }, null],
    ['ts high 1080 unknown rate', { container: 'mpegts', audioCodec: 'ac3', framesPerSecond: null }, null],
    ['mpeg2 in mp4', { videoCodec: 'mpeg2video', videoProfile: 'Main', audioCodec: 'ac3' }, null],
    [
      'mpeg2 ts aac',
      {
        container: 'mpegts',
        videoCodec: 'mpeg2video',
        videoProfile: 'Main',
        width: 720,
        height: 480,
        framesPerSecond: 29.97,
      },
      null,
    ],
    [
      'mpeg2 SD 480 at 25 fps',
      {
        container: 'mpegts',
        videoCodec: 'mpeg2video',
        width: 720,
        height: 576,
        framesPerSecond: 29.97,
        audioCodec: 'ac3',
      },
      null,
    ],
  ];
  for (const [name, change, expected] of cases) {
    it(`${name} → ${expected}`, () => assert.equal(dlnaProfileOf({ ...hd, ...change }), expected));
  }
});

describe('formatFlags', () => {
  const cases: [number, string][] = [
    [0, '00000000000000000000000000000000'],
    // minidlna's and xupnpd's Samsung value for video.
    [
      DlnaFlag.Streaming | DlnaFlag.Background | DlnaFlag.ConnectionStall | DlnaFlag.DlnaV15,
      '01700000000000000000000000000000',
    ],
    // Jellyfin's direct-play value.
    [
      DlnaFlag.ByteBasedSeek |
        DlnaFlag.Streaming |
        DlnaFlag.Interactive |
        DlnaFlag.Background |
        DlnaFlag.DlnaV15,
      '21D00000000000000000000000000000',
    ],
    [1 << 31, '80000000000000000000000000000000'],
  ];
  for (const [flags, expected] of cases) {
    it(expected, () => {
      assert.equal(formatFlags(flags), expected);
      assert.equal(formatFlags(flags).length, 32);
    });
  }
});

describe('protocolInfo', () => {
  const cases: [Parameters<typeof protocolInfo>[0], string][] = [
    [
      { mime: 'video/mp4', profile: 'AVC_MP4_HP_HD_AAC', seek: 'byte', converted: false },
      'http-get:*:video/mp4:DLNA.ORG_PN=AVC_MP4_HP_HD_AAC;DLNA.ORG_OP=01;DLNA.ORG_CI=0;DLNA.ORG_FLAGS=01700000000000000000000000000000',
    ],
    [
      { mime: 'video/x-matroska', profile: null, seek: 'byte', converted: false },
      'http-get:*:video/x-matroska:DLNA.ORG_OP=01;DLNA.ORG_CI=0;DLNA.ORG_FLAGS=01700000000000000000000000000000',
    ],
    [
      { mime: 'video/mpeg', profile: 'AVC_TS_MP_HD_AC3_ISO', seek: 'time', converted: true },
      'http-get:*:video/mpeg:DLNA.ORG_PN=AVC_TS_MP_HD_AC3_ISO;DLNA.ORG_OP=10;DLNA.ORG_CI=1;DLNA.ORG_FLAGS=01700000000000000000000000000000',
    ],
    [
      { mime: 'video/mpeg', profile: null, seek: 'none', converted: true },
      'http-get:*:video/mpeg:DLNA.ORG_OP=00;DLNA.ORG_CI=1;DLNA.ORG_FLAGS=01700000000000000000000000000000',
    ],
  ];
  for (const [input, expected] of cases) {
    it(`${input.mime} ${input.seek}`, () => {
      assert.equal(protocolInfo(input), expected);
      // contentFeatures.dlna.org is the same 4th field.
      assert.equal(`http-get:*:${input.mime}:${contentFeatures(input)}`, expected);
    });
  }
  it('album art names its JPEG profile', () =>
    assert.match(
      imageProtocolInfo('JPEG_TN'),
      /^http-get:\*:image\/jpeg:DLNA\.ORG_PN=JPEG_TN;DLNA\.ORG_OP=01;/,
    ));
});
