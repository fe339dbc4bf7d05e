// The Jellyfin playback translation, pure: a posted DeviceProfile → reelshelf's (valid, and deciding
// as the matching built-in device does), decisions → MediaSourceInfo, stream indexes both ways,
// TranscodeReasons, EXT-X-START and WebVTT → SubRip.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  isJellyfinDeviceId,
  jellyfinDeviceId,
  translateDeviceProfile,
} from '../../../src/domain/jellyfin/device-profile.ts';
import {
  mediaSourceInfo,
  noCompatibleStreamMessage,
  subtitleStreamIndex,
  trackOfStreamIndex,
  transcodeReasons,
  withDefaultAudio,
  withStartOffset,
} from '../../../src/domain/jellyfin/playback-info.ts';
import { vttToSrt } from '../../../src/domain/subtitles/srt.ts';
import { reasonFor } from '../../../src/domain/playback/codes.ts';
import { validateDeviceProfile } from '../../../src/domain/playback/device-profiles.ts';
import { audio, decide, file, h264, hevc10, subtitle, video } from '../playback/fixtures.ts';

const BROWSER = {
  Name: 'Chrome',
  MaxStreamingBitrate: 120_000_000,
  DirectPlayProfiles: [
    { Container: 'mp4,m4v', Type: 'Video', VideoCodec: 'h264', AudioCodec: 'aac,mp3' },
    { Container: 'webm', Type: 'Video', VideoCodec: 'vp9,av1', AudioCodec: 'opus,vorbis' },
    { Container: 'mp3', Type: 'Audio' },
  ],
  TranscodingProfiles: [
    {
      Container: 'ts',
      Type: 'Video',
      VideoCodec: 'h264',
      AudioCodec: 'aac',
      Protocol: 'hls',
      MaxAudioChannels: '2',
    },
  ],
  CodecProfiles: [
    {
      Type: 'Video',
      Codec: 'h264',
      Conditions: [
        {
          Condition: 'EqualsAny',
          Property: 'VideoProfile',
          Value: 'high|main|baseline|constrained baseline',
        },
        { Condition: 'LessThanEqual', Property: 'VideoLevel', Value: '52' },
        { Condition: 'LessThanEqual', Property: 'VideoBitDepth', Value: '8' },
        { Condition: 'NotEquals', Property: 'IsInterlaced', Value: 'true' },
        { Condition: 'LessThanEqual', Property: 'RefFrames', Value: '16' },
      ],
    },
    {
      Type: 'VideoAudio',
      Codec: 'aac',
      Conditions: [{ Condition: 'LessThanEqual', Property: 'AudioChannels', Value: '6' }],
    },
  ],
  SubtitleProfiles: [
    { Format: 'vtt', Method: 'External' },
    { Format: 'srt', Method: 'External' },
  ],
};

describe('jellyfin DeviceProfile → reelshelf device profile', () => {
  const { profile, ignored, externalSubtitleFormats, hls } = translateDeviceProfile(BROWSER);

  it('reads containers, codecs with their containers, conditions, targets and subtitles', () => {
    assert.deepEqual(profile.containers, ['mp4', 'webm']);
    const h264Rule = profile.video.codecs.find((r) => r.codec === 'h264');
    assert.deepEqual(h264Rule, {
      codec: 'h264',
      containers: ['mp4'],
      profiles: ['high', 'main', 'baseline', 'constrained baseline'],
      max_level: 5.2,
      max_bit_depth: 8,
      allow_interlaced: false,
      max_bitrate_bps: 120_000_000,
    });
    assert.deepEqual(
      profile.audio.codecs.map((r) => [r.codec, r.containers, r.max_channels]),
      [
        ['aac', ['mp4'], 6],
        ['mp3', ['mp4'], undefined],
        ['opus', ['webm'], undefined],
        ['vorbis', ['webm'], undefined],
      ],
    );
    assert.deepEqual(profile.conversion, {
      container: 'mp4',
      video: [{ codec: 'h264' }],
      audio: [{ codec: 'aac', min_source_channels: 1, max_channels: 2 }],
    });
    assert.deepEqual(profile.subtitles.sidecar, ['webvtt', 'srt']);
    assert.deepEqual(externalSubtitleFormats, ['webvtt', 'srt']);
    assert.equal(hls, true);
    assert.deepEqual(ignored, ['video h264: RefFrames LessThanEqual 16']);
  });

  it('is a valid reelshelf profile under a content id', () => {
    const check = validateDeviceProfile(JSON.parse(JSON.stringify(profile)));
    assert.ok(check.ok, check.ok ? '' : check.errors.join('; '));
    assert.ok(isJellyfinDeviceId(profile.id));
    assert.equal(jellyfinDeviceId(BROWSER), profile.id, 'the same profile, the same device');
    assert.notEqual(jellyfinDeviceId({ ...BROWSER, MaxStreamingBitrate: 1 }), profile.id);
  });

  it('maps Jellyfin names: matroska, h265, dca, empty codec lists, VideoRangeType, HEVC levels', () => {
    const t = translateDeviceProfile({
      DirectPlayProfiles: [
        { Container: 'matroska,mpegts', Type: 'Video', VideoCodec: 'h265', AudioCodec: 'dca,e-ac3' },
        { Container: 'mov', Type: 'Video' },
      ],
      CodecProfiles: [
        {
          Type: 'Video',
          Codec: 'hevc',
          Conditions: [
            { Condition: 'LessThanEqual', Property: 'VideoLevel', Value: '153' },
            { Condition: 'EqualsAny', Property: 'VideoRangeType', Value: 'SDR|HDR10|DOVIWithHDR10' },
          ],
        },
      ],
    }).profile;
    assert.deepEqual(t.containers, ['mkv', 'ts', 'mov']);
    assert.deepEqual(t.video.codecs, [
      { codec: 'hevc', containers: ['mkv', 'ts'], max_level: 5.1 },
      { codec: '*', containers: ['mov'] },
    ]);
    assert.deepEqual(
      t.audio.codecs.map((r) => r.codec),
      ['dts', 'eac3', '*'],
    );
    assert.deepEqual(t.video.hdr, ['hdr10']);
    assert.notEqual(t.video.dolby_vision, null);
    assert.deepEqual(t.conversion.video, [], 'no TranscodingProfile: nothing to convert to');
  });

  it('decides as the built-in web device for the files both describe alike', () => {
    const cases = [
      ['H.264/AAC MP4', file('mp4', h264(), [audio('aac', 2)])],
      ['H.264/AC-3 MKV', file('mkv', h264(), [audio('ac3', 6)])],
      ['H.264/DTS MP4', file('mp4', h264(), [audio('dts', 6)])],
      ['HEVC 10-bit MP4', file('mp4', hevc10(), [audio('aac', 2)])],
      ['MPEG-2 MKV', file('mkv', video('mpeg2video'), [audio('ac3', 2)])],
      ['interlaced H.264 MP4', file('mp4', h264({ interlaced: true }), [audio('aac', 2)])],
      ['no analysis', null],
    ] as const;
    const converted = new Set(['remux', 'adaptive', 'transcode']);
    const kind = (p: string) => (converted.has(p) ? 'converted' : p);
    for (const [name, caps] of cases) {
      const ours = decide(caps, profile);
      const web = decide(caps, 'web');
      assert.equal(kind(ours.prediction), kind(web.prediction), name);
      assert.equal(ours.isPlayable, web.isPlayable, name);
    }
    // Where they differ, by what each declares: web opens MKV, this app only MP4 and WebM.
    assert.equal(decide(file('mkv', h264(), [audio('aac', 2)]), 'web').prediction, 'direct');
    assert.equal(decide(file('mkv', h264(), [audio('aac', 2)]), profile).prediction, 'remux');
  });
});

describe('jellyfin MediaSourceInfo from a decision', () => {
  const caps = file(
    'mkv',
    h264(),
    [audio('ac3', 6), audio('aac', 2, { language: 'fre' })],
    [subtitle('srt'), subtitle('pgs'), subtitle('srt', { external: true, language: 'ger' })],
  );
  const urls = {
    direct: '/Videos/i/stream.mkv?x',
    transcoding: '/Videos/i/master.m3u8?x',
    subtitle: (index: number, format: string) => `/sub/${index}.${format}`,
  };
  const facts = (decision: ReturnType<typeof decide>) => ({
    id: 's1',
    name: '1080p',
    container: 'mkv',
    sizeBytes: 100,
    etag: 'e',
    caps,
    decision,
    externalFormats: ['webvtt'],
    deliverable: ['vtt', 'srt'],
  });

  it('numbers video, audio, then subtitles (embedded, then external), both ways', () => {
    assert.deepEqual(trackOfStreamIndex(caps, 0), { kind: 'video' });
    assert.deepEqual(trackOfStreamIndex(caps, 2), { kind: 'audio', track: 1 });
    assert.deepEqual(trackOfStreamIndex(caps, 3), { kind: 'subtitle', track: 0 });
    assert.deepEqual(trackOfStreamIndex(caps, 5), { kind: 'subtitle', track: 2 });
    assert.equal(trackOfStreamIndex(caps, 6), null);
    assert.equal(trackOfStreamIndex(caps, -1), null);
    assert.equal(subtitleStreamIndex(caps, 2), 5);
  });

  it('a conversion: TranscodingUrl, hls, reasons; text subtitles External with a DeliveryUrl, images Encode', () => {
    const decision = decide(caps, translateDeviceProfile(BROWSER).profile);
    const dto = mediaSourceInfo(facts(decision), urls);
    assert.equal(dto.SupportsDirectPlay, false);
    assert.equal(dto.SupportsTranscoding, true);
    assert.equal(dto.TranscodingUrl, urls.transcoding);
    assert.equal(dto.TranscodingSubProtocol, 'hls');
    assert.deepEqual(dto.TranscodeReasons, ['AudioCodecNotSupported', 'ContainerNotSupported']);
    assert.equal(dto.DirectStreamUrl, undefined);
    const subs = dto.MediaStreams.filter((s) => s.Type === 'Subtitle');
    assert.deepEqual(
      subs.map((s) => [s.Index, s.Codec, s.DeliveryMethod, s.DeliveryUrl, s.IsExternal]),
      [
        [3, 'srt', 'External', '/sub/3.vtt', false],
        [4, 'pgssub', 'Encode', undefined, false],
        [5, 'srt', 'External', '/sub/5.vtt', true],
      ],
    );
    assert.equal(dto.DefaultAudioStreamIndex, 1);
  });

  it('direct: SupportsDirectPlay and the static URL; nothing plays: neither', () => {
    const direct = mediaSourceInfo(facts(decide(caps, 'full')), urls);
    assert.equal(direct.SupportsDirectPlay, true);
    assert.equal(direct.DirectStreamUrl, urls.direct);
    assert.equal(direct.TranscodingUrl, undefined);
    const none = mediaSourceInfo(facts(decide(null, 'web', { analysis: 'failed' })), urls);
    assert.equal(none.SupportsDirectPlay || none.SupportsTranscoding, false);
  });

  it('TranscodeReasons once each; the NoCompatibleStream message is the detail and the hint', () => {
    const reasons = [
      reasonFor('container_unsupported', { container: 'MKV', device: 'x' }),
      reasonFor('audio_container_unsupported', {
        codec: 'AC-3',
        container: 'MP4',
        device: 'x',
        target: 'AAC',
      }),
      reasonFor('not_analyzed'),
    ];
    assert.deepEqual(transcodeReasons(reasons), ['ContainerNotSupported']);
    assert.equal(noCompatibleStreamMessage({ detail: 'A.', hint: 'B.' }), 'A. B.');
    assert.equal(noCompatibleStreamMessage({ detail: 'A.' }), 'A.');
  });
});

describe('EXT-X-START and SubRip', () => {
  it('puts EXT-X-START after #EXTM3U only for a positive offset', () => {
    const master = '#EXTM3U\n#EXT-X-VERSION:7\n';
    assert.equal(
      withStartOffset(master, 90),
      '#EXTM3U\n#EXT-X-START:TIME-OFFSET=90.000,PRECISE=YES\n#EXT-X-VERSION:7\n',
    );
    for (const none of [null, 0, -1, Number.NaN]) assert.equal(withStartOffset(master, none), master);
  });

  it("makes the app's AudioStreamIndex track the default audio rendition, keeping every other listed", () => {
    const a0 =
      '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio",NAME="English",DEFAULT=YES,AUTOSELECT=YES,URI="hls/a0/index.m3u8?x=1"';
    const a1 =
      '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio",NAME="Français",DEFAULT=NO,AUTOSELECT=NO,URI="hls/a1/index.m3u8?x=1"';
    const sub =
      '#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",DEFAULT=NO,AUTOSELECT=YES,URI="hls/s0/index.m3u8"';
    const master = ['#EXTM3U', a0, a1, sub, '#EXT-X-STREAM-INF:BANDWIDTH=1', 'hls/v/index.m3u8', ''].join(
      '\n',
    );
    const chosen = withDefaultAudio(master, 1).split('\n');
    assert.match(chosen[1] ?? '', /DEFAULT=NO,AUTOSELECT=YES,URI="hls\/a0\//);
    assert.match(chosen[2] ?? '', /DEFAULT=YES,AUTOSELECT=YES,URI="hls\/a1\//);
    assert.equal(chosen[3], sub, 'subtitles untouched');
    assert.equal(chosen.filter((l) => l.includes('DEFAULT=YES') && l.includes('TYPE=AUDIO')).length, 1);
    // The default already, no track, a track not listed (a10 is not a1), nonsense: unchanged.
    for (const none of [0, null, 10, -1, 1.5]) assert.equal(withDefaultAudio(master, none), master);
  });

  it('turns WebVTT into numbered SubRip cues without header, settings or notes', () => {
    const cases: [string, string][] = [
      [
        'WEBVTT\n\n00:01.000 --> 00:03.000 align:start\nHello.\n',
        '1\n00:00:01,000 --> 00:00:03,000\nHello.\n',
      ],
      [
        'WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:900000,LOCAL:00:00:00.000\n\nNOTE a note\n\nSTYLE\n::cue {}\n\ncue-1\n01:02:03.004 --> 01:02:05.000\n<i>Two</i>\nlines\n\n00:00:09.000 --> 00:00:10.500\nThird\n',
        '1\n01:02:03,004 --> 01:02:05,000\n<i>Two</i>\nlines\n\n2\n00:00:09,000 --> 00:00:10,500\nThird\n',
      ],
      ['\uFEFFWEBVTT\r\n\r\n00:00.000 --> 00:01.000\r\nCRLF\r\n', '1\n00:00:00,000 --> 00:00:01,000\nCRLF\n'],
      ['WEBVTT\n', ''],
    ];
    for (const [vtt, srt] of cases) assert.equal(vttToSrt(vtt), srt, JSON.stringify(vtt));
  });
});
