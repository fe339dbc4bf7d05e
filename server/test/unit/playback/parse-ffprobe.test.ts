/** parseFfprobe on ffprobe JSON shaped as stack.md §3 describes (ffmpeg 5.1 / 6.x output). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  isImmersiveAudio,
  normaliseLevel,
  parseClockDuration,
  parseFfprobe,
  parseRate,
  ProbeParseError,
} from '../../../src/domain/media/capabilities.ts';
import { hdrDisplayLabel } from '../../../src/domain/playback/labels.ts';

const off = {
  default: 0,
  dub: 0,
  original: 0,
  comment: 0,
  lyrics: 0,
  karaoke: 0,
  forced: 0,
  attached_pic: 0,
};

const mkvH264Dts = {
  streams: [
    {
      index: 0,
      codec_name: 'h264',
      profile: 'High',
      codec_type: 'video',
      codec_tag_string: '[0][0][0][0]',
      codec_tag: '0x0000',
      width: 1920,
      height: 800,
      pix_fmt: 'yuv420p',
      level: 41,
      field_order: 'progressive',
      sample_aspect_ratio: '1:1',
      r_frame_rate: '24000/1001',
      avg_frame_rate: '24000/1001',
      bits_per_raw_sample: '8',
      disposition: { ...off, default: 1 },
      tags: { 'BPS-eng': '10512345', 'DURATION-eng': '02:16:04.123000000' },
    },
    {
      index: 1,
      codec_name: 'dts',
      profile: 'DTS-HD MA',
      codec_type: 'audio',
      codec_tag_string: '[0][0][0][0]',
      sample_rate: '48000',
      channels: 6,
      channel_layout: '5.1(side)',
      bits_per_raw_sample: '24',
      disposition: { ...off, default: 1 },
      tags: { language: 'eng', title: 'DTS-HD MA 5.1', BPS: '3500000', DURATION: '02:16:04.100000000' },
    },
    {
      index: 2,
      codec_name: 'ac3',
      codec_type: 'audio',
      sample_rate: '48000',
      channels: 6,
      channel_layout: '5.1(side)',
      bit_rate: '448000',
      disposition: off,
      tags: { language: 'ger' },
    },
    {
      index: 3,
      codec_name: 'hdmv_pgs_subtitle',
      codec_type: 'subtitle',
      width: 1920,
      height: 1080,
      disposition: off,
      tags: { language: 'eng', title: 'English (Forced)' },
    },
    {
      index: 4,
      codec_name: 'subrip',
      codec_type: 'subtitle',
      disposition: { ...off, default: 1 },
      tags: { language: 'ger' },
    },
    {
      index: 5,
      codec_name: 'ttf',
      codec_type: 'attachment',
      tags: { filename: 'Arial.ttf', mimetype: 'application/x-truetype-font' },
    },
  ],
  format: {
    filename: '/movies/Blade Runner (1982)/Blade Runner (1982).mkv',
    nb_streams: 6,
    format_name: 'matroska,webm',
    format_long_name: 'Matroska / WebM',
    start_time: '0.000000',
    duration: '8164.123000',
    size: '14000000000',
    bit_rate: '13718613',
    probe_score: 100,
    tags: { title: 'Blade Runner', ENCODER: 'libebml v1.4.2 + libmatroska v1.6.4' },
  },
};

/** The stack.md §3 sample: HEVC Main 10 HDR10 + E-AC3 in MKV, stream durations only as tags. */
const mkvHevcHdr10Eac3 = {
  streams: [
    {
      index: 0,
      codec_name: 'hevc',
      profile: 'Main 10',
      codec_type: 'video',
      codec_tag_string: '[0][0][0][0]',
      width: 320,
      height: 240,
      pix_fmt: 'yuv420p10le',
      level: 60,
      color_range: 'tv',
      color_space: 'bt2020nc',
      color_transfer: 'smpte2084',
      color_primaries: 'bt2020',
      r_frame_rate: '25/1',
      avg_frame_rate: '25/1',
      disposition: off,
      tags: { ENCODER: 'Lavc59.37.100 libx265', DURATION: '00:00:02.005000000' },
    },
    {
      index: 1,
      codec_name: 'eac3',
      codec_type: 'audio',
      sample_rate: '48000',
      channels: 6,
      channel_layout: '5.1(side)',
      bit_rate: '448000',
      disposition: off,
      tags: { language: 'eng', DURATION: '00:00:02.016000000' },
    },
  ],
  format: {
    format_name: 'matroska,webm',
    duration: '2.016000',
    size: '126528',
    bit_rate: '502095',
    probe_score: 100,
    tags: { title: 'Test HDR', ENCODER: 'Lavf59.27.100' },
  },
};

const webmVp9Opus = {
  streams: [
    {
      index: 0,
      codec_name: 'vp9',
      profile: 'Profile 0',
      codec_type: 'video',
      codec_tag_string: '[0][0][0][0]',
      width: 320,
      height: 240,
      pix_fmt: 'yuv420p',
      level: -99,
      color_range: 'tv',
      field_order: 'progressive',
      r_frame_rate: '25/1',
      avg_frame_rate: '25/1',
      disposition: { ...off, default: 1 },
      tags: { DURATION: '00:00:02.000000000' },
    },
    {
      index: 1,
      codec_name: 'opus',
      codec_type: 'audio',
      sample_rate: '48000',
      channels: 2,
      channel_layout: 'stereo',
      disposition: { ...off, default: 1 },
      tags: { DURATION: '00:00:02.007000000' },
    },
  ],
  format: { format_name: 'matroska,webm', duration: '2.007000', size: '80123', probe_score: 100 },
};

const tsMpeg2Interlaced = {
  streams: [
    {
      index: 0,
      codec_name: 'mpeg2video',
      profile: 'Main',
      codec_type: 'video',
      codec_tag_string: '[2][0][0][0]',
      width: 1920,
      height: 1080,
      sample_aspect_ratio: '1:1',
      pix_fmt: 'yuv420p',
      level: 4,
      field_order: 'tt',
      r_frame_rate: '30000/1001',
      avg_frame_rate: '30000/1001',
      disposition: off,
    },
    {
      index: 1,
      codec_name: 'ac3',
      codec_type: 'audio',
      codec_tag_string: '[129][0][0][0]',
      sample_rate: '48000',
      channels: 6,
      channel_layout: '5.1(side)',
      bit_rate: '384000',
      disposition: off,
      tags: { language: 'eng' },
    },
  ],
  format: { format_name: 'mpegts', duration: '3600.000000', size: '9000000000', bit_rate: '20000000' },
};

/** Dolby Vision 8.1 in MP4 with its configuration record and HDR10 mastering metadata (ffmpeg 6). */
const mp4DolbyVision81 = {
  streams: [
    {
      index: 0,
      codec_name: 'hevc',
      profile: 'Main 10',
      codec_type: 'video',
      codec_tag_string: 'dvh1',
      width: 3840,
      height: 1608,
      pix_fmt: 'yuv420p10le',
      level: 153,
      color_transfer: 'smpte2084',
      color_primaries: 'bt2020',
      r_frame_rate: '24000/1001',
      avg_frame_rate: '24000/1001',
      bit_rate: '15000000',
      disposition: { ...off, default: 1 },
      tags: { language: 'und', handler_name: 'VideoHandler' },
      side_data_list: [
        {
          side_data_type: 'DOVI configuration record',
          dv_version_major: 1,
          dv_version_minor: 0,
          dv_profile: 8,
          dv_level: 6,
          rpu_present_flag: 1,
          el_present_flag: 0,
          bl_present_flag: 1,
          dv_bl_signal_compatibility_id: 1,
        },
        { side_data_type: 'Mastering display metadata' },
        { side_data_type: 'Content light level metadata', max_content: 1000, max_average: 400 },
      ],
    },
    {
      index: 1,
      codec_name: 'eac3',
      profile: 'Dolby Digital Plus + Dolby Atmos',
      codec_type: 'audio',
      codec_tag_string: 'ec-3',
      sample_rate: '48000',
      channels: 6,
      channel_layout: '5.1(side)',
      bit_rate: '768000',
      disposition: { ...off, default: 1 },
      tags: { language: 'eng' },
    },
  ],
  format: {
    format_name: 'mov,mp4,m4a,3gp,3g2,mj2',
    duration: '7200.000000',
    size: '14400000000',
    tags: { major_brand: 'isom', minor_version: '512', compatible_brands: 'isomiso2mp41' },
  },
};

/** MP4 whose cover art (an attached picture) comes before the movie's video stream. */
const mp4WithCoverArt = {
  streams: [
    {
      index: 0,
      codec_name: 'mjpeg',
      profile: 'Baseline',
      codec_type: 'video',
      codec_tag_string: '[0][0][0][0]',
      width: 600,
      height: 900,
      disposition: { ...off, attached_pic: 1 },
    },
    {
      index: 1,
      codec_name: 'h264',
      profile: 'Main',
      codec_type: 'video',
      codec_tag_string: 'avc1',
      width: 1280,
      height: 720,
      pix_fmt: 'yuv420p',
      level: 31,
      r_frame_rate: '25/1',
      avg_frame_rate: '25/1',
      disposition: { ...off, default: 1 },
      tags: { language: 'und' },
    },
    {
      index: 2,
      codec_name: 'aac',
      profile: 'LC',
      codec_type: 'audio',
      codec_tag_string: 'mp4a',
      sample_rate: '44100',
      channels: 2,
      channel_layout: 'stereo',
      bit_rate: '128000',
      disposition: { ...off, default: 1 },
      tags: { language: 'und' },
    },
    { index: 3, codec_name: 'bin_data', codec_type: 'data', codec_tag_string: 'text' },
  ],
  format: { format_name: 'mov,mp4,m4a,3gp,3g2,mj2', duration: '5400.5', size: '1000000000' },
};

describe('parseFfprobe: MKV H.264 + DTS-HD MA with PGS, SRT and a font attachment', () => {
  const caps = parseFfprobe(mkvH264Dts, 14_000_000_000);
  it('reads the container and the format facts', () => {
    assert.equal(caps.container, 'mkv');
    assert.equal(caps.format_name, 'matroska,webm');
    assert.equal(caps.duration_seconds, 8164.123);
    assert.equal(caps.size_bytes, 14_000_000_000);
    assert.equal(caps.bitrate_bps, 13_718_613);
    assert.equal(caps.stream_count, 6);
    assert.equal(caps.stream_errors, undefined);
  });
  it('maps the video stream', () => {
    assert.deepEqual(caps.video, {
      index: 0,
      codec: 'h264',
      profile: 'High',
      level: 4.1,
      width: 1920,
      height: 800,
      bit_depth: 8,
      pix_fmt: 'yuv420p',
      frame_rate: 23.976,
      interlaced: false,
      codec_tag: null,
      hdr: 'sdr',
      dolby_vision: null,
      sar: '1:1',
      anamorphic: false,
      rotation: 0,
      bitrate_bps: 10_512_345,
    });
  });
  it('maps both audio tracks in order, with the DTS variant as profile', () => {
    assert.deepEqual(
      caps.audio.map((a) => [
        a.index,
        a.track,
        a.codec,
        a.profile,
        a.channels,
        a.language,
        a.default,
        a.bitrate_bps,
      ]),
      [
        [1, 0, 'dts', 'DTS-HD MA', 6, 'eng', true, 3_500_000],
        [2, 1, 'ac3', null, 6, 'ger', false, 448_000],
      ],
    );
    assert.equal(caps.audio[0]?.title, 'DTS-HD MA 5.1');
    assert.equal(caps.audio[0]?.sample_rate, 48000);
    assert.equal(caps.audio[0]?.channel_layout, '5.1(side)');
  });
  it('normalises subtitle codecs and reads forced from the title', () => {
    assert.deepEqual(
      caps.subtitles.map((s) => [s.index, s.track, s.codec, s.kind, s.language, s.forced, s.default]),
      [
        [3, 0, 'pgs', 'image', 'eng', true, false],
        [4, 1, 'srt', 'text', 'ger', false, true],
      ],
    );
  });
});

describe('parseFfprobe: HEVC Main 10 HDR10 + E-AC3 (stack.md sample)', () => {
  it('classifies HDR10 from the PQ transfer and divides the HEVC level by 30', () => {
    const caps = parseFfprobe(mkvHevcHdr10Eac3, 126528);
    assert.equal(caps.container, 'mkv');
    assert.equal(caps.video?.hdr, 'hdr10');
    assert.equal(caps.video?.level, 2);
    assert.equal(caps.video?.bit_depth, 10);
    assert.equal(caps.video?.frame_rate, 25);
    assert.equal(caps.audio[0]?.codec, 'eac3');
    assert.equal(caps.audio[0]?.profile, null);
    assert.equal(caps.audio[0]?.default, false);
  });
  it('takes the duration from MKV DURATION tags when the format has none', () => {
    const { duration: _d, bit_rate: _b, ...format } = mkvHevcHdr10Eac3.format;
    const caps = parseFfprobe({ ...mkvHevcHdr10Eac3, format }, 126528);
    assert.equal(caps.duration_seconds, 2.016);
    assert.equal(caps.bitrate_bps, Math.round((126528 * 8) / 2.016));
  });
  it('uses ffprobe size only when the file size is unknown', () => {
    assert.equal(parseFfprobe(mkvHevcHdr10Eac3, 0).size_bytes, 126528);
  });
  it('reads HLG and HDR10+', () => {
    const [video, audio] = mkvHevcHdr10Eac3.streams;
    const hlg = { ...mkvHevcHdr10Eac3, streams: [{ ...video, color_transfer: 'arib-std-b67' }, audio] };
    assert.equal(parseFfprobe(hlg, 1).video?.hdr, 'hlg');
    const plus = {
      ...mkvHevcHdr10Eac3,
      streams: [
        { ...video, side_data_list: [{ side_data_type: 'HDR Dynamic Metadata SMPTE2094-40 (HDR10+)' }] },
        audio,
      ],
    };
    assert.equal(parseFfprobe(plus, 1).video?.hdr, 'hdr10plus');
  });
});

describe('parseFfprobe: other containers', () => {
  it('VP9/Opus in Matroska with only WebM codecs is webm; unknown VP9 level is null', () => {
    const caps = parseFfprobe(webmVp9Opus, 80123);
    assert.equal(caps.container, 'webm');
    assert.equal(caps.video?.codec, 'vp9');
    assert.equal(caps.video?.profile, 'Profile 0');
    assert.equal(caps.video?.level, null);
    assert.equal(caps.audio[0]?.codec, 'opus');
    assert.equal(caps.audio[0]?.language, null);
    assert.equal(caps.bitrate_bps, Math.round((80123 * 8) / 2.007));
  });
  it('the file extension wins over the codec heuristic', () => {
    assert.equal(parseFfprobe(webmVp9Opus, 80123, { fileName: 'clip.MKV' }).container, 'mkv');
  });
  it('MPEG-2 1080i + AC3 in TS: interlaced from field_order, no codec tag', () => {
    const caps = parseFfprobe(tsMpeg2Interlaced, 9_000_000_000);
    assert.equal(caps.container, 'ts');
    assert.equal(caps.video?.codec, 'mpeg2video');
    assert.equal(caps.video?.interlaced, true);
    assert.equal(caps.video?.frame_rate, 29.97);
    assert.equal(caps.video?.codec_tag, null);
    assert.equal(caps.video?.level, null);
    assert.equal(caps.audio[0]?.codec, 'ac3');
    assert.equal(parseFfprobe(tsMpeg2Interlaced, 1, { fileName: 'x.m2ts' }).container, 'm2ts');
  });
  it('QuickTime brand gives mov', () => {
    const mov = { ...mp4WithCoverArt, format: { ...mp4WithCoverArt.format, tags: { major_brand: 'qt  ' } } };
    assert.equal(parseFfprobe(mov, 1).container, 'mov');
  });
});

describe('parseFfprobe: Dolby Vision', () => {
  const caps = parseFfprobe(mp4DolbyVision81, 14_400_000_000);
  it('reads the DOVI configuration record', () => {
    assert.equal(caps.container, 'mp4');
    assert.equal(caps.video?.hdr, 'dolby_vision');
    assert.deepEqual(caps.video?.dolby_vision, {
      profile: 8,
      level: 6,
      compat_id: 1,
      bl_present: true,
      el_present: false,
      rpu_present: true,
      fallback: 'hdr10',
    });
    assert.equal(caps.video?.codec_tag, 'dvh1');
    assert.equal(caps.video?.level, 5.1);
    assert.equal(hdrDisplayLabel(caps.video), 'Dolby Vision P8.1');
  });
  it('reads E-AC3 JOC as E-AC3 Atmos and derives the bitrate from size ÷ duration', () => {
    assert.equal(caps.audio[0]?.profile, 'E-AC3 Atmos');
    assert.ok(caps.audio[0] !== undefined && isImmersiveAudio(caps.audio[0]), 'immersive');
    assert.equal(caps.bitrate_bps, 16_000_000);
  });
  it('a dvhe tag without a record is Dolby Vision of unknown profile, judged by its transfer', () => {
    const [video, audio] = mp4DolbyVision81.streams;
    const tagOnly = { ...video, codec_tag_string: 'dvhe', side_data_list: [], color_transfer: undefined };
    const parsed = parseFfprobe({ ...mp4DolbyVision81, streams: [tagOnly, audio] }, 1);
    assert.equal(parsed.video?.hdr, 'dolby_vision');
    assert.equal(parsed.video?.dolby_vision?.profile, null);
    assert.equal(parsed.video?.dolby_vision?.fallback, 'none');
    assert.equal(hdrDisplayLabel(parsed.video), 'Dolby Vision');
  });
  it('profile 7 with an enhancement layer', () => {
    const [video, audio] = mp4DolbyVision81.streams;
    const record = {
      side_data_type: 'DOVI configuration record',
      dv_profile: 7,
      dv_level: 6,
      rpu_present_flag: 1,
      el_present_flag: 1,
      bl_present_flag: 1,
      dv_bl_signal_compatibility_id: 6,
    };
    const parsed = parseFfprobe(
      { ...mp4DolbyVision81, streams: [{ ...video, side_data_list: [record] }, audio] },
      1,
    );
    assert.equal(parsed.video?.dolby_vision?.el_present, true);
    assert.equal(parsed.video?.dolby_vision?.fallback, 'hdr10');
  });
});

describe('parseFfprobe: attached pictures and languages', () => {
  const caps = parseFfprobe(mp4WithCoverArt, 1_000_000_000);
  it('ignores the cover art and data streams', () => {
    assert.equal(caps.video?.codec, 'h264');
    assert.equal(caps.video?.index, 1);
    assert.equal(caps.video?.codec_tag, 'avc1');
    assert.equal(caps.video?.level, 3.1);
    assert.equal(caps.audio.length, 1);
    assert.equal(caps.subtitles.length, 0);
  });
  it('treats MP4 "und" as no language and AAC-LC as the plain codec', () => {
    assert.equal(caps.audio[0]?.language, null);
    assert.equal(caps.audio[0]?.profile, null);
    assert.equal(caps.audio[0]?.sample_rate, 44100);
  });
  it('a file whose only video is cover art has no video', () => {
    const [cover, , aac] = mp4WithCoverArt.streams;
    const audioOnly = parseFfprobe({ ...mp4WithCoverArt, streams: [cover, aac] }, 1);
    assert.equal(audioOnly.video, null);
  });
  it('records a stream whose codec ffprobe could not identify', () => {
    const [, video, aac] = mp4WithCoverArt.streams;
    const unknown = { ...aac, codec_name: undefined };
    const parsed = parseFfprobe({ ...mp4WithCoverArt, streams: [video, unknown] }, 1);
    assert.equal(parsed.audio[0]?.codec, 'unknown');
    assert.deepEqual(parsed.stream_errors, ['stream 2: audio codec not identified']);
  });
});

describe('parseFfprobe: unusable output throws ProbeParseError', () => {
  const garbage: [string, unknown][] = [
    ['null', null],
    ['a string', 'Invalid data found when processing input'],
    ['an array', []],
    ['an empty object', {}],
    ['no format name', { streams: mkvH264Dts.streams, format: {} }],
    [
      'only subtitles',
      { streams: [{ codec_type: 'subtitle', codec_name: 'subrip' }], format: { format_name: 'srt' } },
    ],
    ['streams not an array', { streams: 'x', format: { format_name: 'matroska,webm' } }],
  ];
  for (const [name, json] of garbage) {
    it(name, () => {
      assert.throws(
        () => parseFfprobe(json, 100),
        (error: unknown) => {
          return (
            error instanceof ProbeParseError &&
            error.code === 'probe_failed' &&
            error.name === 'ProbeParseError'
          );
        },
      );
    });
  }
});

describe('ffprobe value helpers', () => {
  it('levels: H.264 ÷10, HEVC ÷30, AV1 seq_level_idx, others and negatives null', () => {
    const cases: [string, number | null, number | null][] = [
      ['h264', 41, 4.1],
      ['h264', 13, 1.3],
      ['h264', 51, 5.1],
      ['hevc', 153, 5.1],
      ['hevc', 120, 4],
      ['hevc', 93, 3.1],
      ['av1', 13, 5.1],
      ['av1', 8, 4],
      ['vp9', -99, null],
      ['mpeg2video', 4, null],
      ['h264', null, null],
    ];
    for (const [codec, level, expected] of cases)
      assert.equal(normaliseLevel(codec, level), expected, `${codec} ${level}`);
  });
  it('frame rates', () => {
    assert.equal(parseRate('24000/1001'), 23.976);
    assert.equal(parseRate('25/1'), 25);
    assert.equal(parseRate('0/0'), null);
    assert.equal(parseRate('30'), 30);
    assert.equal(parseRate(null), null);
  });
  it('MKV clock durations', () => {
    assert.equal(parseClockDuration('00:00:02.005000000'), 2.005);
    assert.equal(parseClockDuration('02:16:04.5'), 8164.5);
    assert.equal(parseClockDuration('garbage'), null);
  });
});
