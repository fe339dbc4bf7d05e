import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type SidecarName,
  type SidecarVideo,
  isSubtitleFile,
  languageCode,
  matchSidecars,
  readSidecarName,
  sidecarFormat,
} from '../../../src/domain/subtitles/sidecar-name.ts';

const SRT: SidecarName = {
  format: 'srt',
  kind: 'text',
  language: null,
  title: null,
  forced: false,
  default: false,
  sdh: false,
};

describe('readSidecarName: a candidate beside `Movie (2010).mkv`', () => {
  /** [candidate, expected (fields that differ from a plain .srt), or null: not its sidecar] */
  const table: [string, Partial<SidecarName> | null][] = [
    ['Movie (2010).srt', {}],
    ['movie (2010).SRT', {}],
    ['Movie (2010).en.srt', { language: 'eng' }],
    ['Movie (2010).eng.srt', { language: 'eng' }],
    ['Movie (2010).EN.srt', { language: 'eng' }],
    ['Movie (2010).eng.forced.srt', { language: 'eng', forced: true }],
    ['Movie (2010).forced.eng.srt', { language: 'eng', forced: true }],
    ['Movie (2010).en.foreign.srt', { language: 'eng', forced: true }],
    ['Movie (2010).en.sdh.srt', { language: 'eng', sdh: true }],
    ['Movie (2010).en.cc.srt', { language: 'eng', sdh: true }],
    ['Movie (2010).cc.en.srt', { language: 'eng', sdh: true }],
    ['Movie (2010).en.hi.srt', { language: 'eng', sdh: true }],
    ['Movie (2010).hi.en.srt', { language: 'eng', sdh: true }],
    // Jellyfin: `hi` alone is Hindi
    ['Movie (2010).hi.srt', { language: 'hin' }],
    ['Movie (2010).hin.srt', { language: 'hin' }],
    ['Movie (2010).fr.default.ass', { format: 'ass', language: 'fre', default: true }],
    ['Movie (2010).default.en.forced.ass', { format: 'ass', language: 'eng', default: true, forced: true }],
    ['Movie (2010).en.sdh.forced.default.srt', { language: 'eng', sdh: true, forced: true, default: true }],
    ['Movie (2010).ssa', { format: 'ssa' }],
    ['Movie (2010).de.vtt', { format: 'webvtt', language: 'ger' }],
    ['Movie (2010).sup', { format: 'pgs', kind: 'image' }],
    ['Movie (2010).en.sup', { format: 'pgs', kind: 'image', language: 'eng' }],
    ['Movie (2010).idx', { format: 'vobsub', kind: 'image' }],
    ['Movie (2010).sub', { format: 'microdvd' }],
    // ISO 639-1, 639-2/B and 639-2/T all become 639-2/B
    ['Movie (2010).fr.srt', { language: 'fre' }],
    ['Movie (2010).fre.srt', { language: 'fre' }],
    ['Movie (2010).fra.srt', { language: 'fre' }],
    ['Movie (2010).de.srt', { language: 'ger' }],
    ['Movie (2010).ger.srt', { language: 'ger' }],
    ['Movie (2010).deu.srt', { language: 'ger' }],
    ['Movie (2010).es.srt', { language: 'spa' }],
    ['Movie (2010).nl.srt', { language: 'dut' }],
    ['Movie (2010).nld.srt', { language: 'dut' }],
    ['Movie (2010).zh.srt', { language: 'chi' }],
    ['Movie (2010).zho.srt', { language: 'chi' }],
    ['Movie (2010).ja.srt', { language: 'jpn' }],
    ['Movie (2010).sv.srt', { language: 'swe' }],
    ['Movie (2010).el.srt', { language: 'gre' }],
    // English language names, any case; the languages' own names
    ['Movie (2010).English.srt', { language: 'eng' }],
    ['Movie (2010).french.forced.srt', { language: 'fre', forced: true }],
    ['Movie (2010).German.srt', { language: 'ger' }],
    ['Movie (2010).Spanish.srt', { language: 'spa' }],
    ['Movie (2010).Castilian.srt', { language: 'spa' }],
    ['Movie (2010).Greek.srt', { language: 'gre' }],
    ['Movie (2010).Flemish.srt', { language: 'dut' }],
    ['Movie (2010).Deutsch.srt', { language: 'ger' }],
    ['Movie (2010).Français.srt', { language: 'fre' }],
    // a region or script is read as its language and kept as the title
    ['Movie (2010).pt-BR.srt', { language: 'por', title: 'pt-BR' }],
    ['Movie (2010).zh-Hant.ass', { format: 'ass', language: 'chi', title: 'zh-Hant' }],
    ['Movie (2010).es_419.forced.srt', { language: 'spa', title: 'es_419', forced: true }],
    // unknown parts are the title
    ['Movie (2010).en.Director Commentary.srt', { language: 'eng', title: 'Director Commentary' }],
    ['Movie (2010).Director.Commentary.en.srt', { language: 'eng', title: 'Director Commentary' }],
    ['Movie (2010).English Commentary.en.srt', { language: 'eng', title: 'English Commentary' }],
    ['Movie (2010).Commentary.srt', { title: 'Commentary' }],
    ['Movie (2010).2.en.srt', { language: 'eng', title: '2' }],
    // a part of several words that are all tags
    ['Movie (2010).English - SDH.srt', { language: 'eng', sdh: true }],
    ['Movie (2010).English (Forced).srt', { language: 'eng', forced: true }],
    // the rightmost language wins; another one is title text
    ['Movie (2010).en.fr.srt', { language: 'fre', title: 'en' }],
    ['Movie (2010).English.en.srt', { language: 'eng' }],
    ['Movie (2010).und.srt', {}],
    ['Movie (2010)..en.srt', { language: 'eng' }],
    // not its sidecar: the name must follow with `.` or end
    ['Movie (2010) - Extended.srt', null],
    ['Movie (2010)-trailer.srt', null],
    ['Movie (2010)x.en.srt', null],
    ['Movie.en.srt', null],
    ['Other Movie (2010).srt', null],
    // not a subtitle
    ['Movie (2010).nfo', null],
    ['Movie (2010).mkv', null],
    ['Movie (2010).en.txt', null],
    ['._Movie (2010).srt', null],
  ];
  for (const [candidate, expected] of table) {
    it(`${candidate} → ${expected === null ? 'not a sidecar' : JSON.stringify(expected)}`, () => {
      const got = readSidecarName('Movie (2010).mkv', candidate);
      assert.deepEqual(got, expected === null ? null : { ...SRT, ...expected });
    });
  }

  it('release names: the whole video name, then the tags', () => {
    const video = 'The.Matrix.1999.1080p.BluRay.x264-GROUP.mkv';
    assert.deepEqual(readSidecarName(video, 'The.Matrix.1999.1080p.BluRay.x264-GROUP.eng.srt'), {
      ...SRT,
      language: 'eng',
    });
    assert.equal(readSidecarName(video, 'The.Matrix.1999.720p.BluRay.x264-GROUP.eng.srt'), null);
  });

  it('accents compare composed and decomposed alike (macOS writes NFD names)', () => {
    assert.deepEqual(readSidecarName('Amélie (2001).mkv', 'Ame\u0301lie (2001).fr.srt'), {
      ...SRT,
      language: 'fre',
    });
  });

  it('takes paths as well as names', () => {
    assert.deepEqual(readSidecarName('Heat (1995)/Heat (1995).mkv', 'Heat (1995)/Heat (1995).en.srt'), {
      ...SRT,
      language: 'eng',
    });
  });
});

describe('sidecarFormat: VobSub pairs and MicroDVD', () => {
  it('.idx + .sub is one VobSub track: the .idx', () => {
    const folder = ['Movie.idx', 'Movie.sub', 'Movie.mkv'];
    assert.deepEqual(sidecarFormat('Movie.idx', folder), { format: 'vobsub', kind: 'image' });
    assert.equal(sidecarFormat('Movie.sub', folder), null);
  });
  it('pairs case-insensitively', () => {
    assert.equal(sidecarFormat('Movie.en.SUB', ['Movie.en.idx', 'Movie.en.SUB']), null);
  });
  it('a .sub alone is MicroDVD text; an .idx alone has no pictures', () => {
    assert.deepEqual(sidecarFormat('Movie.sub', ['Movie.sub']), { format: 'microdvd', kind: 'text' });
    assert.equal(sidecarFormat('Movie.idx', ['Movie.idx']), null);
  });
  it('readSidecarName with the folder: the .sub of a pair is no track of its own', () => {
    const folder = ['Movie.en.idx', 'Movie.en.sub'];
    assert.deepEqual(readSidecarName('Movie.mkv', 'Movie.en.idx', folder), {
      ...SRT,
      format: 'vobsub',
      kind: 'image',
      language: 'eng',
    });
    assert.equal(readSidecarName('Movie.mkv', 'Movie.en.sub', folder), null);
  });
});

describe('isSubtitleFile and languageCode', () => {
  const files: [string, boolean][] = [
    ['a.srt', true],
    ['a.SRT', true],
    ['a.ass', true],
    ['a.ssa', true],
    ['a.vtt', true],
    ['a.sub', true],
    ['a.idx', true],
    ['a.sup', true],
    ['dir/a.en.srt', true],
    ['a.smi', false],
    ['a.txt', false],
    ['a.mkv', false],
    ['._a.srt', false],
    ['srt', false],
  ];
  for (const [name, expected] of files)
    it(`${name} → ${expected}`, () => assert.equal(isSubtitleFile(name), expected));

  const codes: [string, string | null][] = [
    ['en', 'eng'],
    ['eng', 'eng'],
    ['English', 'eng'],
    ['fra', 'fre'],
    ['deu', 'ger'],
    ['ces', 'cze'],
    ['ron', 'rum'],
    ['fas', 'per'],
    ['Farsi', 'per'],
    ['Portuguese', 'por'],
    ['und', null],
    ['xx', null],
    ['qaa-qtz', null],
  ];
  for (const [text, code] of codes) it(`${text} → ${code}`, () => assert.equal(languageCode(text), code));
});

describe('matchSidecars: which video a subtitle file belongs to', () => {
  const v = (relativePath: string, extra = false): SidecarVideo => ({ relativePath, extra });
  const run = (videos: SidecarVideo[], subtitles: string[]) =>
    matchSidecars(videos, subtitles)
      .map((m) => [m.sidecarPath, m.videoPath, m.name.language, m.name.title] as const)
      .sort((a, b) => (a[0] < b[0] ? -1 : 1));

  it('Jellyfin: the file name starts with the video name, followed by `.` or the end', () => {
    assert.deepEqual(
      run(
        [v('Iron Man/Iron Man.mkv'), v('Iron Man/Iron Man - 720p.mkv')],
        ['Iron Man/Iron Man.en.srt', 'Iron Man/Iron Man - 720p.fr.srt', 'Iron Man/Other.srt'],
      ),
      [
        ['Iron Man/Iron Man - 720p.fr.srt', 'Iron Man/Iron Man - 720p.mkv', 'fre', null],
        ['Iron Man/Iron Man.en.srt', 'Iron Man/Iron Man.mkv', 'eng', null],
      ],
    );
  });

  it('two videos whose names fit: the longer name takes it', () => {
    assert.deepEqual(
      run([v('M/Movie.mkv'), v('M/Movie.2010.mkv')], ['M/Movie.2010.en.srt', 'M/Movie.en.srt']),
      [
        ['M/Movie.2010.en.srt', 'M/Movie.2010.mkv', 'eng', null],
        ['M/Movie.en.srt', 'M/Movie.mkv', 'eng', null],
      ],
    );
  });

  it('the only video of its folder takes subtitles named otherwise, reading only their tags', () => {
    assert.deepEqual(
      run(
        [
          v('Heat (1995)/Heat.1995.1080p.BluRay.x264-GRP.mkv'),
          v('Heat (1995)/Heat (1995)-trailer.mp4', true),
        ],
        [
          'Heat (1995)/English.srt',
          'Heat (1995)/Heat.1995.fre.forced.srt',
          'Heat (1995)/Commentary.srt',
          'Heat (1995)/Heat (1995)-trailer.en.srt',
        ],
      ),
      [
        ['Heat (1995)/Commentary.srt', 'Heat (1995)/Heat.1995.1080p.BluRay.x264-GRP.mkv', null, null],
        ['Heat (1995)/English.srt', 'Heat (1995)/Heat.1995.1080p.BluRay.x264-GRP.mkv', 'eng', null],
        [
          'Heat (1995)/Heat.1995.fre.forced.srt',
          'Heat (1995)/Heat.1995.1080p.BluRay.x264-GRP.mkv',
          'fre',
          null,
        ],
      ],
    );
    const forced = matchSidecars(
      [v('Heat (1995)/Heat.1995.1080p.BluRay.x264-GRP.mkv')],
      ['Heat (1995)/Heat.1995.fre.forced.srt'],
    );
    assert.equal(forced[0]?.name.forced, true);
  });

  it('with several videos in the folder, a subtitle named after none of them is left alone', () => {
    assert.deepEqual(
      run([v('Batman/Batman part1.mkv'), v('Batman/Batman part2.mkv')], ['Batman/English.srt']),
      [],
    );
    assert.deepEqual(run([v('A.mkv'), v('B.mkv')], ['English.srt']), []);
  });

  it('a subtitle of an extra is not recorded; nor one in a folder without videos', () => {
    assert.deepEqual(
      run(
        [v('Heat/Heat.mkv'), v('Heat/extras/Making of.mkv', true)],
        ['Heat/extras/Making of.en.srt', 'Heat/extras/English.srt', 'Empty/Movie.en.srt'],
      ),
      [],
    );
  });

  it('a Subs/ folder belongs to the videos of the folder above it', () => {
    assert.deepEqual(
      run(
        [v('Movie.2010.1080p-GRP/Movie.2010.1080p-GRP.mkv')],
        [
          'Movie.2010.1080p-GRP/Subs/2_English.srt',
          'Movie.2010.1080p-GRP/Subs/3_French.srt',
          'Movie.2010.1080p-GRP/Subs/Movie.2010.1080p-GRP.de.srt',
        ],
      ),
      [
        [
          'Movie.2010.1080p-GRP/Subs/2_English.srt',
          'Movie.2010.1080p-GRP/Movie.2010.1080p-GRP.mkv',
          'eng',
          null,
        ],
        [
          'Movie.2010.1080p-GRP/Subs/3_French.srt',
          'Movie.2010.1080p-GRP/Movie.2010.1080p-GRP.mkv',
          'fre',
          null,
        ],
        [
          'Movie.2010.1080p-GRP/Subs/Movie.2010.1080p-GRP.de.srt',
          'Movie.2010.1080p-GRP/Movie.2010.1080p-GRP.mkv',
          'ger',
          null,
        ],
      ],
    );
  });

  it('VobSub: the .idx is recorded, its .sub is not; a lone .sub is MicroDVD', () => {
    const got = matchSidecars(
      [v('M (2010)/M (2010).mkv'), v('M (2010)/M (2010) - 720p.mkv')],
      ['M (2010)/M (2010).en.idx', 'M (2010)/M (2010).en.sub', 'M (2010)/M (2010) - 720p.sub'],
    ).map((m) => [m.sidecarPath, m.name.format] as const);
    assert.deepEqual(got.sort(), [
      ['M (2010)/M (2010) - 720p.sub', 'microdvd'],
      ['M (2010)/M (2010).en.idx', 'vobsub'],
    ]);
  });

  it('files in the library root: the same rules (the root is a folder like any other)', () => {
    assert.deepEqual(run([v('Heat (1995).mkv')], ['Heat (1995).en.srt', 'English.srt']), [
      ['English.srt', 'Heat (1995).mkv', 'eng', null],
      ['Heat (1995).en.srt', 'Heat (1995).mkv', 'eng', null],
    ]);
  });
});
