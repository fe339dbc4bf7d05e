import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkMasterPlaylist, checkMediaPlaylist, HlsCheckError } from '../../helpers/hls-check.ts';

const GOOD_MEDIA = [
  '#EXTM3U',
  '#EXT-X-VERSION:7',
  '#EXT-X-TARGETDURATION:4',
  '#EXT-X-MEDIA-SEQUENCE:0',
  '#EXT-X-PLAYLIST-TYPE:VOD',
  '#EXT-X-INDEPENDENT-SEGMENTS',
  '#EXT-X-MAP:URI="init.mp4"',
  '#EXTINF:4.000000,',
  'seg-0.m4s',
  '#EXTINF:3.500000,',
  'seg-1.m4s',
  '#EXT-X-ENDLIST',
  '',
].join('\n');

const GOOD_MASTER = [
  '#EXTM3U',
  '#EXT-X-VERSION:7',
  '#EXT-X-INDEPENDENT-SEGMENTS',
  '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="6",URI="a0.m3u8"',
  '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio",NAME="Français",LANGUAGE="fr",DEFAULT=NO,AUTOSELECT=YES,CHANNELS="2",URI="a1.m3u8"',
  '#EXT-X-STREAM-INF:BANDWIDTH=3448000,AVERAGE-BANDWIDTH=2448000,CODECS="avc1.64001f,ac-3,mp4a.40.2",RESOLUTION=1280x720,FRAME-RATE=23.976,AUDIO="audio"',
  'video.m3u8',
  '',
].join('\n');

/** The rule ids the checker reports for `text`, or [] when it passes. */
function firedRules(check: (text: string) => unknown, text: string): string[] {
  try {
    check(text);
    return [];
  } catch (error) {
    assert.ok(error instanceof HlsCheckError, `an HlsCheckError, got ${String(error)}`);
    return error.rules;
  }
}

function edit(text: string, from: string | RegExp, to: string): string {
  const edited = text.replace(from, to);
  assert.notEqual(edited, text, `the edit ${String(from)} applies`);
  return edited;
}

describe('checkMediaPlaylist', () => {
  it('accepts a good VOD fMP4 playlist and returns what it lists', () => {
    assert.deepEqual(checkMediaPlaylist(GOOD_MEDIA), {
      segments: [
        { uri: 'seg-0.m4s', duration: 4 },
        { uri: 'seg-1.m4s', duration: 3.5 },
      ],
      targetDuration: 4,
      mapUri: 'init.mp4',
    });
  });

  const broken: [string, string, string][] = [
    ['no #EXTM3U', edit(GOOD_MEDIA, '#EXTM3U\n', ''), 'extm3u'],
    ['#EXTM3U not first', edit(GOOD_MEDIA, '#EXTM3U\n', '\n#EXTM3U\n'), 'extm3u'],
    ['version 6', edit(GOOD_MEDIA, 'VERSION:7', 'VERSION:6'), 'version'],
    ['no version', edit(GOOD_MEDIA, '#EXT-X-VERSION:7\n', ''), 'version'],
    [
      'two versions',
      edit(GOOD_MEDIA, '#EXT-X-VERSION:7\n', '#EXT-X-VERSION:7\n#EXT-X-VERSION:7\n'),
      'version',
    ],
    [
      'target duration below a segment',
      edit(GOOD_MEDIA, 'EXTINF:3.500000', 'EXTINF:4.500000'),
      'target-duration',
    ],
    ['no target duration', edit(GOOD_MEDIA, '#EXT-X-TARGETDURATION:4\n', ''), 'target-duration'],
    ['media sequence 1', edit(GOOD_MEDIA, 'SEQUENCE:0', 'SEQUENCE:1'), 'media-sequence'],
    ['no media sequence', edit(GOOD_MEDIA, '#EXT-X-MEDIA-SEQUENCE:0\n', ''), 'media-sequence'],
    ['a discontinuity', edit(GOOD_MEDIA, '#EXTINF:3.5', '#EXT-X-DISCONTINUITY\n#EXTINF:3.5'), 'sequential'],
    ['a segment listed twice', edit(GOOD_MEDIA, 'seg-1.m4s', 'seg-0.m4s'), 'sequential'],
    [
      'EXT-X-MAP after the first segment',
      edit(
        edit(GOOD_MEDIA, '#EXT-X-MAP:URI="init.mp4"\n', ''),
        'seg-0.m4s\n',
        'seg-0.m4s\n#EXT-X-MAP:URI="init.mp4"\n',
      ),
      'map',
    ],
    ['no EXT-X-MAP', edit(GOOD_MEDIA, '#EXT-X-MAP:URI="init.mp4"\n', ''), 'map'],
    ['EXT-X-MAP URI unquoted', edit(GOOD_MEDIA, 'URI="init.mp4"', 'URI=init.mp4'), 'quoted-string'],
    ['no ENDLIST', edit(GOOD_MEDIA, '#EXT-X-ENDLIST\n', ''), 'endlist'],
    [
      'ENDLIST before the last segment',
      edit(edit(GOOD_MEDIA, '#EXT-X-ENDLIST\n', ''), '#EXTINF:3.5', '#EXT-X-ENDLIST\n#EXTINF:3.5'),
      'endlist',
    ],
    ['playlist type EVENT', edit(GOOD_MEDIA, 'TYPE:VOD', 'TYPE:EVENT'), 'playlist-type'],
    ['no playlist type', edit(GOOD_MEDIA, '#EXT-X-PLAYLIST-TYPE:VOD\n', ''), 'playlist-type'],
    ['an EXTINF without a URI', edit(GOOD_MEDIA, 'seg-0.m4s\n', ''), 'extinf-uri'],
    ['a URI without an EXTINF', edit(GOOD_MEDIA, '#EXTINF:4.000000,\n', ''), 'extinf-uri'],
    ['the last EXTINF without a URI', edit(GOOD_MEDIA, 'seg-1.m4s\n', ''), 'extinf-uri'],
    ['no segments', edit(GOOD_MEDIA, /#EXTINF[^]*m4s\n/, ''), 'segments'],
    ['a zero duration', edit(GOOD_MEDIA, 'EXTINF:3.500000', 'EXTINF:0'), 'extinf'],
    [
      'a master tag in a media playlist',
      edit(GOOD_MEDIA, '#EXT-X-ENDLIST', '#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\n#EXT-X-ENDLIST'),
      'mixed-playlist',
    ],
    ['an unterminated quoted-string', edit(GOOD_MEDIA, 'URI="init.mp4"', 'URI="init.mp4'), 'quoted-string'],
  ];
  for (const [name, text, rule] of broken) {
    it(`fires [${rule}] on ${name}`, () => {
      assert.ok(
        firedRules(checkMediaPlaylist, text).includes(rule),
        firedRules(checkMediaPlaylist, text).join(),
      );
    });
  }

  it('lists every broken rule at once, in a readable message', () => {
    const text = edit(edit(GOOD_MEDIA, 'VERSION:7', 'VERSION:3'), '#EXT-X-ENDLIST\n', '');
    assert.throws(
      () => checkMediaPlaylist(text),
      (error: unknown) =>
        error instanceof HlsCheckError &&
        error.rules.includes('version') &&
        error.rules.includes('endlist') &&
        /media playlist breaks RFC 8216:\n- \[version\]/.test(error.message),
    );
  });

  it('rejects a master playlist given as a media playlist', () => {
    assert.ok(firedRules(checkMediaPlaylist, GOOD_MASTER).length > 0);
  });
});

describe('checkMasterPlaylist', () => {
  it('accepts a good master playlist and returns what it lists', () => {
    const checked = checkMasterPlaylist(GOOD_MASTER);
    assert.deepEqual(checked.variants, [
      {
        uri: 'video.m3u8',
        bandwidth: 3_448_000,
        averageBandwidth: 2_448_000,
        codecs: ['avc1.64001f', 'ac-3', 'mp4a.40.2'],
        resolution: { width: 1280, height: 720 },
        frameRate: 23.976,
        audioGroup: 'audio',
      },
    ]);
    assert.deepEqual(
      checked.audio.map((a) => [a.groupId, a.name, a.language, a.isDefault, a.channels, a.uri]),
      [
        ['audio', 'English', 'en', true, '6', 'a0.m3u8'],
        ['audio', 'Français', 'fr', false, '2', 'a1.m3u8'],
      ],
    );
  });

  const broken: [string, string, string][] = [
    ['no #EXTM3U', edit(GOOD_MASTER, '#EXTM3U\n', ''), 'extm3u'],
    ['version 3', edit(GOOD_MASTER, 'VERSION:7', 'VERSION:3'), 'version'],
    ['no BANDWIDTH', edit(GOOD_MASTER, 'BANDWIDTH=3448000,', ''), 'bandwidth'],
    ['BANDWIDTH 0', edit(GOOD_MASTER, 'BANDWIDTH=3448000', 'BANDWIDTH=0'), 'bandwidth'],
    [
      'a fractional AVERAGE-BANDWIDTH',
      edit(GOOD_MASTER, 'AVERAGE-BANDWIDTH=2448000', 'AVERAGE-BANDWIDTH=2.5'),
      'bandwidth',
    ],
    ['an AUDIO group that does not exist', edit(GOOD_MASTER, 'AUDIO="audio"', 'AUDIO="aac"'), 'audio-group'],
    ['no DEFAULT=YES in a group', edit(GOOD_MASTER, 'DEFAULT=YES', 'DEFAULT=NO'), 'default'],
    ['two DEFAULT=YES in a group', edit(GOOD_MASTER, 'DEFAULT=NO', 'DEFAULT=YES'), 'default'],
    [
      'DEFAULT=YES with AUTOSELECT=NO',
      edit(GOOD_MASTER, 'DEFAULT=YES,AUTOSELECT=YES', 'DEFAULT=YES,AUTOSELECT=NO'),
      'default',
    ],
    ['a NAME repeated in a group', edit(GOOD_MASTER, 'NAME="Français"', 'NAME="English"'), 'name-unique'],
    ['an EXT-X-MEDIA without NAME', edit(GOOD_MASTER, 'NAME="Français",', ''), 'media-attributes'],
    ['LANGUAGE as ISO 639-2', edit(GOOD_MASTER, 'LANGUAGE="fr"', 'LANGUAGE="fre"'), 'language'],
    ['LANGUAGE not a tag', edit(GOOD_MASTER, 'LANGUAGE="fr"', 'LANGUAGE="French!"'), 'language'],
    ['CODECS with a space', edit(GOOD_MASTER, 'avc1.64001f,ac-3', 'avc1.64001f, ac-3'), 'codecs'],
    ['CODECS with a short avc1', edit(GOOD_MASTER, 'avc1.64001f', 'avc1.64'), 'codecs'],
    ['CODECS with a decimal avc1 level', edit(GOOD_MASTER, 'avc1.64001f', 'avc1.100.41'), 'codecs'],
    ['CODECS with a bad hvc1', edit(GOOD_MASTER, 'avc1.64001f', 'hvc1.1.6.93.B0'), 'codecs'],
    ['CODECS with a bad dvh1', edit(GOOD_MASTER, 'avc1.64001f', 'dvh1.5.6'), 'codecs'],
    ['CODECS with a bad av01', edit(GOOD_MASTER, 'avc1.64001f', 'av01.0.8M.08'), 'codecs'],
    ['CODECS with a bad mp4a', edit(GOOD_MASTER, 'mp4a.40.2', 'mp4a.aac'), 'codecs'],
    ['CODECS empty entry', edit(GOOD_MASTER, ',ac-3,', ',,'), 'codecs'],
    [
      'CODECS unquoted',
      edit(GOOD_MASTER, 'CODECS="avc1.64001f,ac-3,mp4a.40.2"', 'CODECS=avc1.64001f'),
      'quoted-string',
    ],
    ['CHANNELS unquoted', edit(GOOD_MASTER, 'CHANNELS="6"', 'CHANNELS=6'), 'quoted-string'],
    ['a bad RESOLUTION', edit(GOOD_MASTER, 'RESOLUTION=1280x720', 'RESOLUTION=1280'), 'resolution'],
    ['a bad FRAME-RATE', edit(GOOD_MASTER, 'FRAME-RATE=23.976', 'FRAME-RATE=fast'), 'frame-rate'],
    ['an EXT-X-STREAM-INF without a URI', edit(GOOD_MASTER, 'video.m3u8\n', ''), 'stream-inf-uri'],
    ['a URI without an EXT-X-STREAM-INF', `${GOOD_MASTER}other.m3u8\n`, 'stream-inf-uri'],
    ['no variant', edit(GOOD_MASTER, /#EXT-X-STREAM-INF[^]*$/, ''), 'variants'],
    [
      'a media tag in a master playlist',
      edit(GOOD_MASTER, '#EXT-X-INDEPENDENT-SEGMENTS', '#EXT-X-TARGETDURATION:4'),
      'mixed-playlist',
    ],
  ];
  for (const [name, text, rule] of broken) {
    it(`fires [${rule}] on ${name}`, () => {
      assert.ok(
        firedRules(checkMasterPlaylist, text).includes(rule),
        firedRules(checkMasterPlaylist, text).join(),
      );
    });
  }

  it('accepts codec strings of every kind the server writes', () => {
    const codecs = [
      'avc1.42E01E',
      'avc1.4D401F',
      'avc1.640029',
      'hvc1.1.6.L93.B0',
      'hvc1.2.4.L153.B0',
      'hev1.1.6.L120.90',
      'dvh1.05.06',
      'dvh1.08.06',
      'av01.0.08M.08',
      'av01.0.13M.10',
      'vp09.00.40.08',
      'mp4v.20.9',
      'mp4a.40.2',
      'mp4a.40.5',
      'mp4a.40.29',
      'mp4a.40.34',
      'mp4a.6B',
      'ac-3',
      'ec-3',
      'Opus',
      'fLaC',
      'alac',
    ];
    for (const codec of codecs) {
      const text = edit(GOOD_MASTER, 'avc1.64001f', codec);
      assert.deepEqual(firedRules(checkMasterPlaylist, text), [], codec);
    }
  });

  it('accepts a master playlist without audio renditions', () => {
    const text = ['#EXTM3U', '#EXT-X-VERSION:7', '#EXT-X-STREAM-INF:BANDWIDTH=1000', 'v.m3u8', ''].join('\n');
    assert.equal(checkMasterPlaylist(text).variants.length, 1);
  });

  it('rejects a media playlist given as a master playlist', () => {
    assert.ok(firedRules(checkMasterPlaylist, GOOD_MEDIA).includes('mixed-playlist'));
  });
});
