import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type AudioRendition,
  hlsLanguageTag,
  playlistTimelineStart,
  renderMasterPlaylist,
  renderMediaPlaylist,
  type VideoVariant,
} from '../../../src/domain/hls/playlists.ts';
import { planSegments } from '../../../src/domain/hls/segment-plan.ts';
import { checkMasterPlaylist, checkMediaPlaylist } from '../../helpers/hls-check.ts';

const segmentUri = (index: number): string => `seg-${index}.m4s?token=abc`;

describe('renderMediaPlaylist', () => {
  it('writes the whole VOD playlist, EXT-X-MAP first, 6-decimal EXTINFs', () => {
    const segments = planSegments({ durationSeconds: 10.3, keyframes: null });
    const text = renderMediaPlaylist({ segments, initUri: 'init.mp4?token=abc', segmentUri });
    assert.equal(
      text,
      [
        '#EXTM3U',
        '#EXT-X-VERSION:7',
        '#EXT-X-TARGETDURATION:4',
        '#EXT-X-MEDIA-SEQUENCE:0',
        '#EXT-X-PLAYLIST-TYPE:VOD',
        '#EXT-X-INDEPENDENT-SEGMENTS',
        '#EXT-X-MAP:URI="init.mp4?token=abc"',
        '#EXTINF:4.000000,',
        'seg-0.m4s?token=abc',
        '#EXTINF:4.000000,',
        'seg-1.m4s?token=abc',
        '#EXTINF:2.300000,',
        'seg-2.m4s?token=abc',
        '#EXT-X-ENDLIST',
        '',
      ].join('\n'),
    );
    const checked = checkMediaPlaylist(text);
    assert.equal(checked.mapUri, 'init.mp4?token=abc');
    assert.deepEqual(
      checked.segments.map((segment) => segment.duration),
      [4, 4, 2.3],
    );
  });

  // Target duration: the largest EXTINF rounded to the nearest integer (§4.3.3.1).
  const targetRows: [string, number, number[] | null, number][] = [
    ['fixed 4 s', 100, null, 4],
    ['a 12 s GOP', 30, [0, 12, 14, 16], 14],
    ['4.4 s segments round down to 4', 13.2, [0, 4.4, 8.8], 4],
    ['4.5 s rounds up to 5', 9, [0, 4.5], 5],
    ['4.004 s segments round to 4', 9, [0, 2.002, 4.004, 6.006, 8.008], 4],
    ['a single 0.3 s segment still has a target of 1', 0.3, null, 1],
    ['a tail merged into 4.3 s', 8.3, null, 4],
    ['a tail merged into 4.6 s', 8.6, [0, 4], 5],
  ];
  for (const [name, durationSeconds, keyframes, expected] of targetRows) {
    it(`target duration: ${name} → ${expected}`, () => {
      const segments = planSegments({ durationSeconds, keyframes });
      const text = renderMediaPlaylist({ segments, initUri: 'init.mp4', segmentUri });
      const checked = checkMediaPlaylist(text);
      assert.equal(checked.targetDuration, expected);
      assert.equal(checked.segments.length, segments.length);
    });
  }

  it('sums to the film’s duration over a 2-hour plan (1,800 segments)', () => {
    const segments = planSegments({ durationSeconds: 7199.36, keyframes: null });
    const checked = checkMediaPlaylist(renderMediaPlaylist({ segments, initUri: 'init.mp4', segmentUri }));
    const total = checked.segments.reduce((sum, segment) => sum + segment.duration, 0);
    assert.equal(checked.segments.length, 1800);
    assert.ok(Math.abs(total - 7199.36) < 1e-6, `total ${total}`);
  });

  it('refuses an empty plan and URIs that would break the playlist', () => {
    assert.throws(
      () => renderMediaPlaylist({ segments: [], initUri: 'init.mp4', segmentUri }),
      /at least one/,
    );
    const segments = planSegments({ durationSeconds: 8, keyframes: null });
    for (const bad of ['', 'a"b', 'a\nb', 'a\rb']) {
      assert.throws(() => renderMediaPlaylist({ segments, initUri: bad, segmentUri }), /HLS URI/);
      assert.throws(
        () => renderMediaPlaylist({ segments, initUri: 'init.mp4', segmentUri: () => bad }),
        /HLS URI/,
      );
    }
  });
});

const video: VideoVariant = {
  uri: 'video.m3u8?token=t',
  codecs: 'avc1.64001f',
  width: 1280,
  height: 720,
  frameRate: 23.976,
  bandwidth: 3_000_000,
  averageBandwidth: 2_000_000,
};

function rendition(overrides: Partial<AudioRendition>): AudioRendition {
  return {
    uri: 'audio-0.m3u8?token=t',
    groupId: 'audio',
    name: 'English',
    language: 'eng',
    isDefault: false,
    channels: 2,
    codecs: 'mp4a.40.2',
    bandwidth: 128_000,
    ...overrides,
  };
}

describe('renderMasterPlaylist', () => {
  it('lists every audio track as a rendition and the video once, with both codecs', () => {
    const text = renderMasterPlaylist({
      video,
      audio: [
        rendition({
          name: 'English',
          language: 'eng',
          codecs: 'ac-3',
          channels: 6,
          bandwidth: 448_000,
          uri: 'a0.m3u8',
        }),
        rendition({ name: 'Français', language: 'fre', isDefault: true, uri: 'a1.m3u8' }),
      ],
    });
    assert.equal(
      text,
      [
        '#EXTM3U',
        '#EXT-X-VERSION:7',
        '#EXT-X-INDEPENDENT-SEGMENTS',
        // The variant first: FFmpeg's HLS demuxer takes its timeline's zero from the first playlist.
        '#EXT-X-STREAM-INF:BANDWIDTH=3448000,AVERAGE-BANDWIDTH=2448000,CODECS="avc1.64001f,ac-3,mp4a.40.2",RESOLUTION=1280x720,FRAME-RATE=23.976,AUDIO="audio"',
        'video.m3u8?token=t',
        '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio",NAME="English",LANGUAGE="en",DEFAULT=NO,AUTOSELECT=YES,CHANNELS="6",URI="a0.m3u8"',
        '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio",NAME="Français",LANGUAGE="fr",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="2",URI="a1.m3u8"',
        '',
      ].join('\n'),
    );
    const checked = checkMasterPlaylist(text);
    assert.deepEqual(
      checked.audio.map((a) => [a.name, a.language, a.isDefault]),
      [
        ['English', 'en', false],
        ['Français', 'fr', true],
      ],
    );
  });

  // Each row: the renditions in, then what the checked playlist must say.
  const rows: {
    name: string;
    audio: AudioRendition[];
    video?: Partial<VideoVariant>;
    defaults: boolean[];
    names: string[];
    languages: (string | null)[];
    bandwidth: number;
    codecs: string[] | null;
    audioGroup: string | null;
  }[] = [
    {
      name: 'no default flagged: the first one becomes the default',
      audio: [rendition({ uri: 'a0' }), rendition({ name: 'Deutsch', language: 'ger', uri: 'a1' })],
      defaults: [true, false],
      names: ['English', 'Deutsch'],
      languages: ['en', 'de'],
      bandwidth: 3_128_000,
      codecs: ['avc1.64001f', 'mp4a.40.2'],
      audioGroup: 'audio',
    },
    {
      name: 'two flagged: only the first keeps DEFAULT=YES',
      audio: [
        rendition({ uri: 'a0', isDefault: true }),
        rendition({ name: 'Dub', uri: 'a1', isDefault: true }),
      ],
      defaults: [true, false],
      names: ['English', 'Dub'],
      languages: ['en', 'en'],
      bandwidth: 3_128_000,
      codecs: ['avc1.64001f', 'mp4a.40.2'],
      audioGroup: 'audio',
    },
    {
      name: 'equal names are made unique',
      audio: [
        rendition({ uri: 'a0', name: 'English' }),
        rendition({ uri: 'a1', name: 'English' }),
        rendition({ uri: 'a2', name: 'english' }),
        rendition({ uri: 'a3', name: '  ' }),
      ],
      defaults: [true, false, false, false],
      names: ['English', 'English (2)', 'english (3)', 'Audio'],
      languages: ['en', 'en', 'en', 'en'],
      bandwidth: 3_128_000,
      codecs: ['avc1.64001f', 'mp4a.40.2'],
      audioGroup: 'audio',
    },
    {
      name: 'quotes and line breaks in a track title cannot break the quoted-string',
      audio: [rendition({ uri: 'a0', name: 'Director\'s "cut"\r\ncommentary' })],
      defaults: [true],
      names: ["Director's 'cut' commentary"],
      languages: ['en'],
      bandwidth: 3_128_000,
      codecs: ['avc1.64001f', 'mp4a.40.2'],
      audioGroup: 'audio',
    },
    {
      name: 'languages: 639-2 to 639-1, und and missing omitted, 639-2 without a 639-1 kept',
      audio: [
        rendition({ uri: 'a0', name: 'a', language: 'jpn' }),
        rendition({ uri: 'a1', name: 'b', language: 'und' }),
        rendition({ uri: 'a2', name: 'c', language: null }),
        rendition({ uri: 'a3', name: 'd', language: 'gsw' }),
        rendition({ uri: 'a4', name: 'e', language: 'spa' }),
        rendition({ uri: 'a5', name: 'f', language: 'pt-BR' }),
      ],
      defaults: [true, false, false, false, false, false],
      names: ['a', 'b', 'c', 'd', 'e', 'f'],
      languages: ['ja', null, null, 'gsw', 'es', 'pt-BR'],
      bandwidth: 3_128_000,
      codecs: ['avc1.64001f', 'mp4a.40.2'],
      audioGroup: 'audio',
    },
    {
      name: 'an unknown audio codec string: CODECS left out entirely',
      audio: [
        rendition({ uri: 'a0' }),
        rendition({ uri: 'a1', name: 'DTS', codecs: null, bandwidth: 1_509_000 }),
      ],
      defaults: [true, false],
      names: ['English', 'DTS'],
      languages: ['en', 'en'],
      bandwidth: 4_509_000,
      codecs: null,
      audioGroup: 'audio',
    },
    {
      name: 'an unknown video codec string: CODECS left out entirely',
      audio: [rendition({ uri: 'a0' })],
      video: { codecs: null },
      defaults: [true],
      names: ['English'],
      languages: ['en'],
      bandwidth: 3_128_000,
      codecs: null,
      audioGroup: 'audio',
    },
    {
      name: 'without audio: no AUDIO attribute, video codec only',
      audio: [],
      defaults: [],
      names: [],
      languages: [],
      bandwidth: 3_000_000,
      codecs: ['avc1.64001f'],
      audioGroup: null,
    },
    {
      name: 'the same codec twice is listed once',
      audio: [rendition({ uri: 'a0' }), rendition({ uri: 'a1', name: 'Commentary', bandwidth: 96_000 })],
      defaults: [true, false],
      names: ['English', 'Commentary'],
      languages: ['en', 'en'],
      bandwidth: 3_128_000,
      codecs: ['avc1.64001f', 'mp4a.40.2'],
      audioGroup: 'audio',
    },
    {
      name: 'a fractional bandwidth is rounded up, a zero one becomes 1',
      audio: [rendition({ uri: 'a0', bandwidth: 0 })],
      video: { bandwidth: 1234.2 },
      defaults: [true],
      names: ['English'],
      languages: ['en'],
      bandwidth: 1235,
      codecs: ['avc1.64001f', 'mp4a.40.2'],
      audioGroup: 'audio',
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const text = renderMasterPlaylist({ video: { ...video, ...row.video }, audio: row.audio });
      const checked = checkMasterPlaylist(text);
      assert.deepEqual(
        checked.audio.map((a) => a.isDefault),
        row.defaults,
      );
      assert.deepEqual(
        checked.audio.map((a) => a.name),
        row.names,
      );
      assert.deepEqual(
        checked.audio.map((a) => a.language),
        row.languages,
      );
      assert.equal(checked.variants.length, 1);
      assert.equal(checked.variants[0]?.bandwidth, row.bandwidth);
      assert.deepEqual(checked.variants[0]?.codecs, row.codecs);
      assert.equal(checked.variants[0]?.audioGroup, row.audioGroup);
      if (row.codecs === null) assert.doesNotMatch(text, /CODECS=/);
      if (row.audioGroup === null) assert.doesNotMatch(text, /AUDIO=|EXT-X-MEDIA:/);
    });
  }

  it('leaves out RESOLUTION, FRAME-RATE, CHANNELS and AVERAGE-BANDWIDTH it does not know', () => {
    const text = renderMasterPlaylist({
      video: {
        uri: 'v.m3u8',
        codecs: 'mp4v.20.9',
        width: null,
        height: 480,
        frameRate: null,
        bandwidth: 800_000,
      },
      audio: [rendition({ uri: 'a0', channels: null })],
    });
    checkMasterPlaylist(text);
    assert.doesNotMatch(text, /RESOLUTION|FRAME-RATE|CHANNELS|AVERAGE-BANDWIDTH/);
  });

  it('writes one variant per audio group', () => {
    const text = renderMasterPlaylist({
      video,
      audio: [
        rendition({ uri: 'a0', groupId: 'aac' }),
        rendition({ uri: 'a1', groupId: 'ac3', codecs: 'ac-3', bandwidth: 448_000, isDefault: true }),
        rendition({
          uri: 'a2',
          groupId: 'ac3',
          name: 'Français',
          language: 'fra',
          codecs: 'ac-3',
          bandwidth: 384_000,
        }),
      ],
    });
    const checked = checkMasterPlaylist(text);
    assert.deepEqual(
      checked.variants.map((v) => [v.audioGroup, v.bandwidth, v.codecs?.join(',')]),
      [
        ['aac', 3_128_000, 'avc1.64001f,mp4a.40.2'],
        ['ac3', 3_448_000, 'avc1.64001f,ac-3'],
      ],
    );
    assert.deepEqual(
      checked.audio.map((a) => [a.groupId, a.name, a.isDefault]),
      [
        ['aac', 'English', true],
        ['ac3', 'English', true],
        ['ac3', 'Français', false],
      ],
    );
  });

  it('refuses a variant URI that would break the playlist', () => {
    assert.throws(
      () => renderMasterPlaylist({ video: { ...video, uri: 'v\n#EXT-X-ENDLIST' }, audio: [] }),
      /HLS URI/,
    );
    assert.throws(() => renderMasterPlaylist({ video, audio: [rendition({ uri: 'a"b' })] }), /HLS URI/);
  });
});

describe('hlsLanguageTag', () => {
  const rows: [string | null, string | null][] = [
    ['eng', 'en'],
    ['fre', 'fr'],
    ['fra', 'fr'],
    ['ger', 'de'],
    ['deu', 'de'],
    ['spa', 'es'],
    ['ita', 'it'],
    ['jpn', 'ja'],
    ['chi', 'zh'],
    ['dut', 'nl'],
    ['ENG', 'en'],
    ['en', 'en'],
    ['pt-br', 'pt-BR'],
    ['gsw', 'gsw'],
    ['und', null],
    ['UND', null],
    ['mul', null],
    ['zxx', null],
    ['', null],
    [null, null],
    ['e n', null],
    ['english!', null],
  ];
  for (const [input, expected] of rows) {
    it(`${JSON.stringify(input)} → ${JSON.stringify(expected)}`, () => {
      assert.equal(hlsLanguageTag(input), expected);
    });
  }
});

describe('subtitles as WebVTT renditions', () => {
  const video = {
    uri: 'v.m3u8',
    codecs: 'avc1.64001f',
    width: 1280,
    height: 720,
    frameRate: 25,
    bandwidth: 3e6,
  };
  const audio = [
    {
      uri: 'a0.m3u8',
      groupId: 'audio',
      name: 'English',
      language: 'eng',
      isDefault: true,
      channels: 2,
      codecs: 'mp4a.40.2',
      bandwidth: 128e3,
    },
  ];
  it('every text track is an EXT-X-MEDIA TYPE=SUBTITLES; the variant names the group; one default at most', () => {
    const text = renderMasterPlaylist({
      video,
      audio,
      subtitles: [
        { uri: 's0/index.m3u8', name: 'English', language: 'eng', isDefault: false, forced: false },
        { uri: 's1/index.m3u8', name: 'French (forced)', language: 'fre', isDefault: true, forced: true },
        { uri: 's2/index.m3u8', name: 'English', language: 'eng', isDefault: true, forced: false },
      ],
    });
    checkMasterPlaylist(text);
    const tags = text.split('\n').filter((line) => line.includes('TYPE=SUBTITLES'));
    assert.equal(tags.length, 3);
    assert.match(
      tags[1] ?? '',
      /NAME="French \(forced\)",LANGUAGE="fr",DEFAULT=YES,AUTOSELECT=YES,FORCED=YES/,
    );
    assert.match(tags[2] ?? '', /NAME="English \(2\)",LANGUAGE="en",DEFAULT=NO/);
    assert.equal(tags.filter((tag) => tag.includes('DEFAULT=YES')).length, 1);
    assert.match(text, /#EXT-X-STREAM-INF:[^\n]*SUBTITLES="subs"/);
  });
  it('the variant comes before every EXT-X-MEDIA (audio and subtitles)', () => {
    const lines = renderMasterPlaylist({
      video,
      audio,
      subtitles: [
        { uri: 's0/index.m3u8', name: 'English', language: 'eng', isDefault: false, forced: false },
      ],
    }).split('\n');
    const variant = lines.findIndex((line) => line.startsWith('#EXT-X-STREAM-INF:'));
    const firstMedia = lines.findIndex((line) => line.startsWith('#EXT-X-MEDIA:'));
    assert.ok(variant > 0 && firstMedia > variant + 1, lines.join('\n'));
  });
  it('without text tracks, no SUBTITLES attribute', () => {
    assert.doesNotMatch(renderMasterPlaylist({ video, audio, subtitles: [] }), /SUBTITLES/);
  });
  it('a subtitle playlist: WebVTT segments on the media boundaries, no EXT-X-MAP, valid RFC 8216', () => {
    const text = renderMediaPlaylist({
      segments: [
        { index: 0, start: 0, duration: 4 },
        { index: 1, start: 4, duration: 4 },
        { index: 2, start: 8, duration: 2.5 },
      ],
      initUri: null,
      segmentUri: (i) => `${i}.vtt?t=1`,
    });
    const checked = checkMediaPlaylist(text);
    assert.deepEqual(
      checked.segments.map((s) => s.uri.split('?')[0]),
      ['0.vtt', '1.vtt', '2.vtt'],
    );
    assert.doesNotMatch(text, /EXT-X-MAP/);
  });
});

describe('playlistTimelineStart and the first EXTINF', () => {
  // FFmpeg's HLS demuxer (≤ 7.0) puts segment n at the first packet's decode time + the EXTINFs
  // before it and drops video until a keyframe decoded at or after that: the timeline starts at the
  // first frame plus one frame, so each boundary is at or before its keyframe's decode time.
  const rows: { name: string; input: Parameters<typeof playlistTimelineStart>[0]; start: number }[] = [
    {
      name: 'copied, first keyframe at 0.023 s (MKV), 25 fps',
      input: { hasVideo: true, firstKeyframe: 0.023, frameRate: 25 },
      start: 0.063,
    },
    {
      name: 'copied, first keyframe at 0',
      input: { hasVideo: true, firstKeyframe: 0, frameRate: 25 },
      start: 0.04,
    },
    {
      name: 'encoded (no index): one frame',
      input: { hasVideo: true, firstKeyframe: null, frameRate: 24000 / 1001 },
      start: 0.041708,
    },
    {
      name: 'no frame rate: one frame at 24 fps',
      input: { hasVideo: true, firstKeyframe: 0.01, frameRate: null },
      start: 0.051667,
    },
    {
      name: 'a first keyframe far from the start is not the first frame',
      input: { hasVideo: true, firstKeyframe: 2, frameRate: 25 },
      start: 0.04,
    },
    {
      name: 'audio only: no keyframes to miss',
      input: { hasVideo: false, firstKeyframe: null, frameRate: null },
      start: 0,
    },
  ];
  for (const row of rows) {
    it(row.name, () => assert.equal(playlistTimelineStart(row.input), row.start));
  }
  it('the lead comes off the first EXTINF only', () => {
    const text = renderMediaPlaylist({
      segments: [
        { index: 0, start: 0, duration: 4.023 },
        { index: 1, start: 4.023, duration: 4 },
      ],
      initUri: null,
      segmentUri: (i) => `${i}.ts`,
      timelineStart: 0.063,
    });
    assert.deepEqual(
      text.split('\n').filter((line) => line.startsWith('#EXTINF:')),
      ['#EXTINF:3.960000,', '#EXTINF:4.000000,'],
    );
  });
});
