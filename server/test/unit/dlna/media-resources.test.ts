import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  cannotPlayReason,
  conversionShape,
  dlnaMediaPath,
  dlnaMimeOf,
  fileShape,
} from '../../../src/domain/dlna/media-resources.ts';
import { progressiveRemuxArgs, segmentsForTimeRange } from '../../../src/domain/dlna/progressive-command.ts';
import { redactUrl } from '../../../src/http/app.ts';
import type { HlsPlan } from '../../../src/domain/hls/hls-plan.ts';
import type { Capabilities } from '../../../src/domain/media/capabilities.ts';

const CAPS: Capabilities = {
  container: 'mkv',
  format_name: 'matroska,webm',
  duration_seconds: 100,
  size_bytes: 1000,
  bitrate_bps: 8000,
  stream_count: 3,
  video: {
    index: 0,
    codec: 'h264',
    profile: 'High',
    level: 4.1,
    width: 1920,
    height: 1080,
    bit_depth: 8,
    pix_fmt: 'yuv420p',
    frame_rate: 24,
    interlaced: false,
    codec_tag: null,
    hdr: 'sdr',
    dolby_vision: null,
    sar: '1:1',
    anamorphic: false,
    rotation: 0,
    bitrate_bps: null,
  },
  audio: [0, 1].map((track) => ({
    index: track + 1,
    track,
    codec: track === 0 ? 'dts' : 'ac3',
    profile: null,
    channels: 6,
    channel_layout: '5.1',
    sample_rate: 48000,
    bitrate_bps: 640000,
    language: 'eng',
    title: null,
    default: track === 0,
    forced: false,
  })),
  subtitles: [],
};

describe('DLNA media resources', () => {
  it('MIME types as DLNA renderers name them', () => {
    const cases: [string, string][] = [
      ['mp4', 'video/mp4'],
      ['mkv', 'video/x-matroska'],
      ['ts', 'video/mpeg'],
      ['m2ts', 'video/vnd.dlna.mpeg-tts'],
      ['webm', 'video/webm'],
      ['avi', 'video/avi'],
      ['weird', 'application/octet-stream'],
    ];
    for (const [container, mime] of cases) assert.equal(dlnaMimeOf(container), mime, container);
  });

  it('the file shape takes the decision’s audio track; protocol-info names containers as muxers do', () => {
    const shape = fileShape(CAPS, 1);
    assert.equal(shape.container, 'matroska');
    assert.equal(shape.audioCodec, 'ac3');
    assert.equal(fileShape({ ...CAPS, container: 'ts' }, null).container, 'mpegts');
    assert.equal(fileShape(CAPS, null).audioCodec, 'dts');
  });

  it('the conversion shape: copied video keeps its size; encoded video says a size only when it is kept', () => {
    const audio: HlsPlan['audio'] = [
      {
        track: 0,
        audio: { codec: 'ac3', channels: 6, bitrate: 448000 },
        codec: 'ac3',
        profile: null,
        channels: 6,
        language: 'eng',
        name: 'x',
        isDefault: true,
        bitrate: 448000,
      },
    ];
    const copy: HlsPlan = {
      container: 'mpegts',
      video: 'copy',
      videoTag: null,
      videoStrip: null,
      audio,
      segmentSeconds: 4,
    };
    const copied = conversionShape(CAPS, copy);
    assert.deepEqual(
      [copied.container, copied.videoCodec, copied.width, copied.audioCodec, copied.audioChannels],
      ['mpegts', 'h264', 1920, 'ac3', 6],
    );
    const encode = (maxWidth: number): HlsPlan => ({
      ...copy,
      video: {
        codec: 'h264',
        bitDepth: 8,
        hdr: 'sdr',
        toneMap: false,
        deinterlace: false,
        maxWidth,
        maxHeight: 1080,
        burnSubtitle: null,
      },
    });
    assert.equal(conversionShape(CAPS, encode(1920)).width, 1920);
    assert.equal(conversionShape(CAPS, encode(1280)).width, null);
  });

  it('why nothing plays, in a few words', () => {
    const cases: [string, string][] = [
      ['DTS audio cannot be decoded by Samsung TV (DLNA).', 'DTS audio'],
      ['HEVC video is not supported by DLNA renderer.', 'HEVC video'],
      ['MKV cannot be played by Sony Bravia (DLNA).', 'MKV'],
      ['TrueHD with 8 channels exceeds the 6-channel limit of X.', 'TrueHD'],
      ['ffprobe could not read the container: invalid data.', 'ffprobe could not read the container'],
    ];
    for (const [detail, words] of cases) {
      assert.equal(cannotPlayReason({ type: 'audio', code: 'audio_codec_unsupported', detail }), words);
    }
    assert.equal(cannotPlayReason(null), 'not playable');
  });

  it('the request log never shows a media URL’s token', () => {
    const path = dlnaMediaPath({ kind: 'file', family: 'lg', fileId: 7, extension: 'mkv' });
    assert.equal(redactUrl(`${path}?token=v2.1.a-.1790000000.secret`), `${path}?token=[redacted]`);
  });

  it('media paths end with the extension renderers look at', () => {
    assert.equal(
      dlnaMediaPath({ kind: 'file', family: 'lg', fileId: 7, extension: 'mkv' }),
      '/dlna/media/lg/7/file.mkv',
    );
    assert.equal(
      dlnaMediaPath({ kind: 'conversion', family: 'samsung', fileId: 7 }),
      '/dlna/media/samsung/7/conversion.ts',
    );
    assert.equal(
      dlnaMediaPath({ kind: 'subtitle', family: 'sony', fileId: 7, index: 2 }),
      '/dlna/media/sony/7/subtitles/2.srt',
    );
    assert.equal(
      dlnaMediaPath({ kind: 'art', family: 'generic', movieId: 3, profile: 'JPEG_TN' }),
      '/dlna/media/generic/art/3/JPEG_TN.jpg',
    );
  });
});

describe('the progressive conversion', () => {
  const segments = [0, 4, 8, 12, 16].map((start, index) => ({ index, start, duration: index === 4 ? 2 : 4 }));

  it('a time range is served from the segment holding its start through the one holding its end', () => {
    assert.deepEqual(segmentsForTimeRange(segments, { start: 0, end: null }), {
      first: 0,
      last: 4,
      start: 0,
      end: 18,
    });
    assert.deepEqual(segmentsForTimeRange(segments, { start: 13.5, end: null }), {
      first: 3,
      last: 4,
      start: 12,
      end: 18,
    });
    assert.deepEqual(segmentsForTimeRange(segments, { start: 4, end: 8 }), {
      first: 1,
      last: 1,
      start: 4,
      end: 8,
    });
    assert.deepEqual(segmentsForTimeRange(segments, { start: 4, end: 8.5 }), {
      first: 1,
      last: 2,
      start: 4,
      end: 12,
    });
    assert.deepEqual(segmentsForTimeRange(segments, { start: 17.9, end: 18 }), {
      first: 4,
      last: 4,
      start: 16,
      end: 18,
    });
    assert.equal(segmentsForTimeRange([], { start: 0, end: null }), null);
  });

  it('ffmpeg copies video and audio from pipes 3 and 4 into MPEG-TS on stdout, at the film’s times', () => {
    const args = progressiveRemuxArgs({ container: 'mpegts', video: true, audio: true });
    const text = args.join(' ');
    assert.match(
      text,
      /-f mpegts -i pipe:3 .*-f mpegts -i pipe:4 -map 0:v:0 -map 1:a:0 -c copy -copyts -output_ts_offset -10 -muxdelay 0 -muxpreload 0/,
    );
    assert.deepEqual(args.slice(-3), ['-f', 'mpegts', 'pipe:1']);
    const fmp4 = progressiveRemuxArgs({ container: 'fmp4', video: true, audio: false }).join(' ');
    assert.match(fmp4, /-f mp4 -i pipe:3 -map 0:v:0 -c copy/);
    assert.doesNotMatch(fmp4, /pipe:4/);
  });
});
