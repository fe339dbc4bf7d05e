/**
 * The ffmpeg in use decides which conversions exist: a decision never promises a target whose
 * encoder ffmpeg lacks (it takes the next target, or says what is missing), and the encoder names
 * the decision counts on are exactly the ones the artifact command runs.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildArtifactArgs } from '../../../src/domain/ffmpeg/artifact-command.ts';
import type { PlaybackDecision, PlaybackInput } from '../../../src/domain/playback/decision-types.ts';
import {
  AUDIO_ENCODERS,
  encodableCodecs,
  missingEncoders,
  noEncoderHint,
  VIDEO_ENCODERS,
} from '../../../src/domain/playback/encoders.ts';
import { audioCaps, caps, encode, plan } from '../ffmpeg/fixtures.ts';
import { audio, decide, file, h264, hevc10 } from './fixtures.ts';

/** Encoder lists as `ffmpeg -encoders` prints them (the parts that matter). */
const DEBIAN_5_1 = ['aac', 'ac3', 'alac', 'dca', 'eac3', 'flac', 'libaom-av1', 'libmp3lame'].concat([
  'libopus',
  'libsvtav1',
  'libvorbis',
  'libvpx-vp9',
  'libx264',
  'libx265',
]);
/** The static 2018 build of @ffmpeg-installer/ffmpeg: libaom but no SVT-AV1. */
const BUNDLED_4_1 = DEBIAN_5_1.filter((name) => name !== 'libsvtav1');
/** A minimal LGPL build: native encoders only. */
const NATIVE_ONLY = ['aac', 'ac3', 'alac', 'eac3', 'flac', 'mpeg4'];

describe('encodableCodecs: encoder names → codec ids the decision may target', () => {
  const table: [string, string[], { audio: string[]; video: string[] }][] = [
    [
      'Debian 5.1',
      DEBIAN_5_1,
      {
        audio: ['aac', 'ac3', 'alac', 'dts', 'eac3', 'flac', 'mp3', 'opus', 'vorbis'],
        video: ['av1', 'h264', 'hevc'],
      },
    ],
    [
      'bundled 4.1: libaom-av1 is not the libsvtav1 the AV1 command runs',
      BUNDLED_4_1,
      {
        audio: ['aac', 'ac3', 'alac', 'dts', 'eac3', 'flac', 'mp3', 'opus', 'vorbis'],
        video: ['h264', 'hevc'],
      },
    ],
    ['native only', NATIVE_ONLY, { audio: ['aac', 'ac3', 'alac', 'eac3', 'flac'], video: [] }],
    ['no ffmpeg', [], { audio: [], video: [] }],
  ];
  for (const [name, encoders, expected] of table) {
    it(name, () => assert.deepEqual(encodableCodecs(encoders), expected));
  }

  it('names what a build lacks, video first', () => {
    assert.deepEqual(missingEncoders(BUNDLED_4_1), [{ kind: 'video', codec: 'av1', encoder: 'libsvtav1' }]);
    assert.deepEqual(missingEncoders(DEBIAN_5_1), []);
    assert.deepEqual(
      missingEncoders(NATIVE_ONLY).map((m) => m.encoder),
      ['libx264', 'libx265', 'libsvtav1', 'libmp3lame', 'libopus', 'libvorbis', 'dca'],
    );
  });
});

describe('the encoder the decision counts on is the one the command runs', () => {
  for (const [codec, encoder] of Object.entries(VIDEO_ENCODERS)) {
    it(`video ${codec} → -c:v ${encoder}`, () => {
      const args = buildArtifactArgs({
        source: '/m/a.mkv',
        output: '/d/a.mp4.part',
        plan: plan({ video: encode({ codec }) }),
        capabilities: caps(),
      });
      assert.equal(args[args.indexOf('-c:v') + 1], encoder);
    });
  }
  for (const [codec, encoder] of Object.entries(AUDIO_ENCODERS)) {
    it(`audio ${codec} → -c:a ${encoder}`, () => {
      const args = buildArtifactArgs({
        source: '/m/a.mkv',
        output: '/d/a.mp4.part',
        plan: plan({ audio: { codec, channels: 2, bitrate: 256_000 } }),
        capabilities: caps({ audio: [audioCaps(0, 'truehd')] }),
      });
      assert.equal(args[args.indexOf('-c:a') + 1], encoder);
    });
  }
});

const dtsMkv = () => file('mkv', h264(), [audio('dts', 6, { default: true })]);
const hevcHdrMkv = () => file('mkv', hevc10({ hdr: 'hdr10' }), [audio('aac', 2)]);
const mkvAac = () => file('mkv', h264(), [audio('aac', 2, { default: true })], [], { container: 'avi' });

interface Row {
  name: string;
  decision: () => PlaybackDecision;
  prediction: PlaybackDecision['prediction'];
  /** The plan's audio codec / video codec, when a conversion is planned. */
  audio?: string;
  video?: string;
  hint?: RegExp;
}

const on = (encoders: string[]): Partial<PlaybackInput> => ({ encoders: encodableCodecs(encoders) });

const rows: Row[] = [
  {
    name: 'tv, DTS 5.1, full ffmpeg: E-AC3 5.1',
    decision: () => decide(dtsMkv(), 'tv', on(DEBIAN_5_1)),
    prediction: 'adaptive',
    audio: 'eac3',
  },
  {
    name: 'tv, DTS 5.1, no eac3 encoder: the next target, AAC stereo',
    decision: () => decide(dtsMkv(), 'tv', on(DEBIAN_5_1.filter((e) => e !== 'eac3'))),
    prediction: 'adaptive',
    audio: 'aac',
  },
  {
    name: 'tv, DTS 5.1, neither eac3 nor aac: not playable, naming both encoders',
    decision: () => decide(dtsMkv(), 'tv', on(['libx264'])),
    prediction: 'strict_incompatible',
    hint: /no encoder for E-AC3 \(eac3\) or AAC \(aac\), which Apple TV/,
  },
  {
    name: 'web, HEVC 10-bit: H.264 with libx264',
    decision: () => decide(hevcHdrMkv(), 'web', on(BUNDLED_4_1)),
    prediction: 'transcode',
    video: 'h264',
  },
  {
    name: 'web, HEVC 10-bit, no libx264: not playable, naming libx264',
    decision: () => decide(hevcHdrMkv(), 'web', on(NATIVE_ONLY)),
    prediction: 'strict_incompatible',
    hint: /cannot encode any video format.*H\.264 \(libx264\).*apt-get install ffmpeg/,
  },
  {
    name: 'tv, HDR10 HEVC at 120 fps: HDR-keeping HEVC with libx265',
    decision: () => decide(file('mkv', hevc10({ hdr: 'hdr10', frame_rate: 120 }), [audio('aac', 2)]), 'tv'),
    prediction: 'transcode',
    video: 'hevc',
  },
  {
    name: 'tv, HDR10 HEVC at 120 fps, no libx265: falls to H.264 (tone-mapped)',
    decision: () =>
      decide(
        file('mkv', hevc10({ hdr: 'hdr10', frame_rate: 120 }), [audio('aac', 2)]),
        'tv',
        on(DEBIAN_5_1.filter((e) => e !== 'libx265')),
      ),
    prediction: 'transcode',
    video: 'h264',
  },
  {
    name: 'no ffmpeg at all: a remux is not promised',
    decision: () => decide(mkvAac(), 'web', { ffmpegAvailable: false, ...on([]) }),
    prediction: 'strict_incompatible',
    hint: /ffmpeg is not installed/,
  },
  {
    name: 'no ffmpeg at all: a file that needs nothing still plays',
    decision: () =>
      decide(file('mp4', h264(), [audio('aac', 2)]), 'web', { ffmpegAvailable: false, ...on([]) }),
    prediction: 'direct',
  },
  {
    name: 'no ffmpeg, but a finished artifact: it plays',
    decision: () => decide(mkvAac(), 'web', { ffmpegAvailable: false, artifactReady: true }),
    prediction: 'remux',
  },
];

describe('decisions follow the encoders of the ffmpeg in use', () => {
  for (const row of rows) {
    it(row.name, () => {
      const decision = row.decision();
      assert.equal(decision.prediction, row.prediction, JSON.stringify(decision.incompatibility));
      const planned = decision.plan;
      if (row.audio !== undefined) {
        assert.ok(planned !== null && typeof planned.audio === 'object');
        assert.equal(planned.audio.codec, row.audio);
      }
      if (row.video !== undefined) {
        assert.ok(planned !== null && typeof planned.video === 'object');
        assert.equal(planned.video.codec, row.video);
      }
      if (row.hint !== undefined) assert.match(decision.incompatibility?.hint ?? '', row.hint);
      if (decision.prediction === 'strict_incompatible') assert.equal(decision.plan, null);
    });
  }

  it('the hint names every target of the device with its encoder', () => {
    assert.equal(
      noEncoderHint('video', ['hevc', 'h264', 'hevc'], 'Apple TV'),
      'The ffmpeg in use has no encoder for HEVC (libx265) or H.264 (libx264), which Apple TV needs. ' +
        'Install a full ffmpeg (Debian: apt-get install ffmpeg) or point REELSHELF_FFMPEG at one.',
    );
    assert.match(noEncoderHint('video', ['vp9'], 'X'), /no encoder for VP9, which X needs/);
  });
});
