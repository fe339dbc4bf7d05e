import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  audioDisplayLabel,
  displayLabel,
  hdrDisplayLabel,
  resolutionLabel,
  runtimeText,
  statusTexts,
} from '../../../src/domain/playback/labels.ts';
import { audio, decide, dolbyVision, file, h264, hevc10, profileOf, video, webWithHevc } from './fixtures.ts';

describe('resolutionLabel', () => {
  const cases: [number | null, number | null, string | null][] = [
    [7680, 4320, '8K'],
    [3840, 2160, '4K'],
    [4096, 2160, '4K'],
    [3840, 1608, '4K'],
    [3840, 1600, '4K'],
    [2560, 1440, '1440p'],
    [1920, 1080, '1080p'],
    [1920, 800, '1080p'],
    [1920, 816, '1080p'],
    [1998, 1080, '1080p'],
    [1440, 1080, '1080p'],
    [1280, 720, '720p'],
    [1280, 534, '720p'],
    [1024, 576, '576p'],
    [720, 576, '576p'],
    [704, 576, '576p'],
    [720, 480, '480p'],
    [640, 480, '480p'],
    [640, 360, '360p'],
    [null, 1080, null],
    [1920, null, null],
    [0, 0, null],
  ];
  for (const [width, height, expected] of cases) {
    it(`${width}×${height} → ${expected}`, () => assert.equal(resolutionLabel(width, height), expected));
  }
});

describe('hdrDisplayLabel', () => {
  const cases: [string, Parameters<typeof hdrDisplayLabel>[0], string | null][] = [
    ['SDR', h264(), null],
    ['no video', null, null],
    ['HDR10', hevc10({ hdr: 'hdr10' }), 'HDR10'],
    ['HDR10+', hevc10({ hdr: 'hdr10plus' }), 'HDR10+'],
    ['HLG', hevc10({ hdr: 'hlg' }), 'HLG'],
    ['DV 5', dolbyVision(5, 0), 'Dolby Vision P5'],
    ['DV 7', dolbyVision(7, 6), 'Dolby Vision P7'],
    ['DV 8.1', dolbyVision(8, 1), 'Dolby Vision P8.1'],
    ['DV 8.4', dolbyVision(8, 4), 'Dolby Vision P8.4'],
    ['DV unknown profile', dolbyVision(5, 0, {}, { profile: null }), 'Dolby Vision'],
  ];
  for (const [name, videoStream, expected] of cases) {
    it(`${name} → ${expected}`, () => assert.equal(hdrDisplayLabel(videoStream), expected));
  }
});

describe('audioDisplayLabel', () => {
  const cases: [Parameters<typeof audioDisplayLabel>[0], string | null][] = [
    [audio('truehd', 8, { profile: 'TrueHD Atmos', channel_layout: '7.1' }), 'TrueHD Atmos 7.1'],
    [audio('truehd', 8), 'TrueHD 7.1'],
    [audio('dts', 6, { profile: 'DTS-HD MA', channel_layout: '5.1(side)' }), 'DTS-HD MA 5.1'],
    [audio('dts', 8, { profile: 'DTS:X' }), 'DTS:X 7.1'],
    [audio('dts', 6), 'DTS 5.1'],
    [audio('aac', 2, { channel_layout: 'stereo' }), 'AAC 2.0'],
    [audio('aac', 2, { profile: 'HE-AAC' }), 'HE-AAC 2.0'],
    [audio('eac3', 6), 'E-AC3 5.1'],
    [audio('eac3', 6, { profile: 'E-AC3 Atmos' }), 'E-AC3 Atmos 5.1'],
    [audio('ac3', 1, { channel_layout: 'mono' }), 'AC3 1.0'],
    [audio('pcm_s24le', 2), 'PCM 2.0'],
    [audio('flac', 6, { channel_layout: '5.1' }), 'FLAC 5.1'],
    [audio('opus', 2, { channels: null }), 'Opus'],
    [null, null],
  ];
  for (const [track, expected] of cases) {
    it(`→ ${expected}`, () => assert.equal(audioDisplayLabel(track), expected));
  }
});

describe('displayLabel', () => {
  it('joins resolution, HDR and the default audio track', () => {
    const caps = file('mkv', hevc10({ hdr: 'hdr10' }), [
      audio('ac3', 6),
      audio('truehd', 8, { default: true, channel_layout: '7.1' }),
    ]);
    assert.equal(displayLabel(caps), '4K · HDR10 · TrueHD 7.1');
    assert.equal(displayLabel(caps, 0), '4K · HDR10 · AC3 5.1');
  });
  it('names Dolby Vision without its profile', () => {
    assert.equal(
      displayLabel(file('mp4', dolbyVision(8, 1), [audio('eac3', 6)])),
      '4K · Dolby Vision · E-AC3 5.1',
    );
  });
  it('SDR without audio is the resolution alone', () => {
    assert.equal(displayLabel(file('mkv', h264({ width: 1920, height: 800 }))), '1080p');
  });
  it('falls back to the container, and to "Not analyzed"', () => {
    assert.equal(displayLabel(file('avi', video('mpeg4', { width: null, height: null }))), 'AVI');
    assert.equal(displayLabel(null), 'Not analyzed');
  });
});

describe('runtimeText', () => {
  const cases: [number | null | undefined, string | null][] = [
    [8160, '2 h 16 min'],
    [8164.123, '2 h 16 min'],
    [2700, '45 min'],
    [3600, '1 h'],
    [3629, '1 h'],
    [3630, '1 h 1 min'],
    // An 8-second file reads in seconds, not "1m".
    [8, '8 s'],
    [20, '20 s'],
    [0, null],
    [-5, null],
    [null, null],
    [undefined, null],
    [Number.NaN, null],
  ];
  for (const [seconds, expected] of cases) {
    it(`${seconds} → ${expected}`, () => assert.equal(runtimeText(seconds), expected));
  }
});

describe('statusTexts', () => {
  const tv = profileOf('tv');
  const web = profileOf('web');
  const dtsMkv = file('mkv', h264(), [audio('dts', 6, { default: true })]);
  const cases: [
    string,
    ReturnType<typeof decide>,
    Parameters<typeof statusTexts>[1],
    typeof tv,
    string,
    string | null,
  ][] = [
    [
      'direct',
      decide(file('mp4', h264(), [audio('aac', 2)]), 'tv'),
      file('mp4', h264(), [audio('aac', 2)]),
      tv,
      'Plays directly',
      null,
    ],
    [
      'remux',
      decide(file('mkv', h264(), [audio('aac', 2)]), 'tv'),
      file('mkv', h264(), [audio('aac', 2)]),
      tv,
      'Plays after a quick remux to MP4',
      'Matroska (MKV) cannot be played by Apple TV.',
    ],
    [
      'adaptive',
      decide(dtsMkv, 'tv'),
      dtsMkv,
      tv,
      'Converts audio: DTS 5.1 → E-AC3 5.1',
      'DTS audio cannot be decoded by Apple TV.',
    ],
    [
      'transcode',
      decide(file('mkv', hevc10(), [audio('aac', 2)]), 'web'),
      file('mkv', hevc10(), [audio('aac', 2)]),
      web,
      'Converts video: HEVC → H.264',
      'HEVC video is not supported by Chrome/Firefox.',
    ],
    [
      're-encode',
      decide(file('mp4', h264(), [audio('aac', 2)], [], { bitrate_bps: 30_000_000 }), 'web', {
        maxBitrateBps: 8_000_000,
      }),
      file('mp4', h264(), [audio('aac', 2)]),
      web,
      'Re-encodes H.264 video',
      'File bitrate 30.0 Mbit/s exceeds the 8.0 Mbit/s limit of this session.',
    ],
    [
      'strict',
      decide(dtsMkv, 'tv', { policy: 'strict' }),
      dtsMkv,
      tv,
      "Can't play on Apple TV",
      'DTS audio cannot be decoded by Apple TV.',
    ],
    [
      'transcoding off',
      decide(file('mkv', dolbyVision(5, 0), [audio('eac3', 6)]), webWithHevc, { transcodeAvailable: false }),
      null,
      webWithHevc,
      "Can't play on Chrome/Firefox",
      'Dolby Vision profile 5 has no HDR10 fallback and Chrome/Firefox has no Dolby Vision.',
    ],
    [
      'not analysed',
      decide(null, 'tv', { analysis: 'not_analyzed' }),
      null,
      tv,
      'Not analyzed yet',
      'The file has not been analysed yet.',
    ],
    [
      'probe failed',
      decide(null, 'tv', { analysis: 'failed', analysisError: 'Invalid data found when processing input' }),
      null,
      tv,
      'Analysis failed',
      'ffprobe failed: Invalid data found when processing input',
    ],
    [
      'missing',
      decide(null, 'tv', { analysis: 'missing' }),
      null,
      tv,
      'File missing',
      'The file was not found at its recorded path.',
    ],
  ];
  for (const [name, decision, caps, profile, primary, secondary] of cases) {
    it(`${name}: ${primary}`, () =>
      assert.deepEqual(statusTexts(decision, caps, profile), { primary, secondary }));
  }
});
