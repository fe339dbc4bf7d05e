import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type ExtraKind,
  discStructureRoot,
  extraKind,
  isIgnoreMarker,
  isSkippedEntryName,
  isVideoFile,
  VIDEO_EXTENSIONS,
} from '../../../src/domain/scan/video-files.ts';

describe('isVideoFile', () => {
  const table: [string, boolean][] = [
    ['Heat (1995).mkv', true],
    ['HEAT (1995).MKV', true],
    ['The.Matrix.1999.1080p.BluRay.x264-GROUP.mp4', true],
    ['Movie (2021)/VIDEO_TS/VTS_01_1.VOB', true],
    ['Avatar (2009)/BDMV/STREAM/00001.m2ts', true],
    ['Old Recording.dvr-ms', true],
    ['Movie.iso', true],
    ['Heat (1995).nfo', false],
    ['Heat (1995).en.srt', false],
    ['poster.jpg', false],
    ['theme.mp3', false],
    ['._Heat (1995).mkv', false],
    ['mkv', false],
    ['Heat (1995).mkv.part', false],
  ];
  for (const [name, expected] of table) {
    it(`${name} → ${expected}`, () => assert.equal(isVideoFile(name), expected));
  }
  it("has Jellyfin's list, lower-case with dots", () => {
    assert.equal(VIDEO_EXTENSIONS.length, 54);
    assert.ok(VIDEO_EXTENSIONS.every((ext) => /^\.[0-9a-z-]+$/.test(ext)));
  });
});

describe('extraKind', () => {
  const table: [string, ExtraKind | null][] = [
    // folders
    ['Movie (2000)/extras/Making of.mkv', 'extra'],
    ['Movie (2000)/Extras/Disc 2/Commentary.mkv', 'extra'],
    ['Movie (2000)/trailers/Teaser.mp4', 'trailer'],
    ['Movie (2000)/Behind The Scenes/Stunts.mkv', 'behind_the_scenes'],
    ['Movie (2000)/deleted scenes/Alternate Ending.mkv', 'deleted_scene'],
    ['Movie (2000)/featurettes/Score.mkv', 'featurette'],
    ['Movie (2000)/interviews/Director.mkv', 'interview'],
    ['Movie (2000)/scenes/Opening.mkv', 'scene'],
    ['Movie (2000)/samples/x.mkv', 'sample'],
    ['Movie (2000)/shorts/Short.mkv', 'short'],
    ['Movie (2000)/clips/Clip.mkv', 'clip'],
    ['Movie (2000)/other/Whatever.mkv', 'extra'],
    ['Movie (2000)/backdrops/loop.mp4', 'theme_video'],
    ['The.Matrix.1999.1080p.BluRay.x264-GROUP/Sample/the.matrix.sample.mkv', 'sample'],
    // whole names
    ['Movie (2000)/sample.mkv', 'sample'],
    ['Movie (2000)/Trailer.mp4', 'trailer'],
    ['sample.mkv', 'sample'],
    // suffixes
    ['Movie (2000)/Movie (2000)-trailer.mp4', 'trailer'],
    ['Movie (2000)/Movie (2000)-trailer2.mp4', 'trailer'],
    ['Movie (2000)/Movie (2000).trailer.mkv', 'trailer'],
    ['Movie (2000)/Movie (2000)_sample.mkv', 'sample'],
    ['Movie (2000)/Movie (2000) sample.mkv', 'sample'],
    ['The.Matrix.1999.1080p.BluRay.x264-GROUP-sample.mkv', 'sample'],
    ['Movie (2000)/Movie (2000)-featurette.mkv', 'featurette'],
    ['Movie (2000)/Making Of-behindthescenes.mkv', 'behind_the_scenes'],
    ['Movie (2000)/Alt Ending-deleted.mkv', 'deleted_scene'],
    ['Movie (2000)/Alt Ending-deletedscene.mkv', 'deleted_scene'],
    ['Movie (2000)/Cast-interview.mkv', 'interview'],
    ['Movie (2000)/Car Chase-scene.mkv', 'scene'],
    ['Movie (2000)/Prequel-short.mkv', 'short'],
    ['Movie (2000)/Bloopers-clip.mkv', 'clip'],
    ['Movie (2000)/Gag Reel-extra.mkv', 'extra'],
    ['Movie (2000)/Stuff-other.mkv', 'extra'],
    // not extras
    ['Movie (2000)/Movie (2000).mkv', null],
    ["Heat (1995)/Heat (1995) - Director's Cut.mkv", null],
    ['Movie (2000)/Movie (2000) - 1080p.mkv', null],
    ['Shorts/Paperman (2012)/Paperman (2012).mkv', null],
    ['Other/Heat (1995).mkv', null],
    ['The Others (2001)/The Others (2001).mkv', null],
    ['Movie (2000)/Movie (2000) featurette.mkv', null], // only trailer/sample accept a space
    ['Sample Size (2015).mkv', null],
    ['Movie (2000)/Movie (2000) - Extended.mkv', null],
  ];
  for (const [path, expected] of table) {
    it(`${path} → ${expected}`, () => assert.equal(extraKind(path), expected));
  }
});

describe('extraKind: Jellyfin folder names, singular included', () => {
  // Jellyfin's ExtraRuleType.DirectoryName list (video): `extra` sits beside `extras`.
  const table: [string, ExtraKind][] = [
    ['extra', 'extra'],
    ['Extra', 'extra'],
    ['extras', 'extra'],
    ['other', 'extra'],
    ['trailers', 'trailer'],
    ['backdrops', 'theme_video'],
    ['behind the scenes', 'behind_the_scenes'],
    ['deleted scenes', 'deleted_scene'],
    ['interviews', 'interview'],
    ['scenes', 'scene'],
    ['samples', 'sample'],
    ['shorts', 'short'],
    ['featurettes', 'featurette'],
    ['clips', 'clip'],
  ];
  for (const [folder, kind] of table) {
    it(`${folder}/ → ${kind}`, () => {
      assert.equal(extraKind(`300/${folder}/something.mkv`), kind);
      assert.equal(extraKind(`Movies/300 (2006)/${folder}/whoknows.mp4`), kind);
    });
  }
  it('a folder merely containing the word is no extras folder', () => {
    assert.equal(extraKind('300/not a scene/something.mkv'), null);
    assert.equal(extraKind('300/extra stuff/something.mkv'), null);
    assert.equal(extraKind('Movies/The Big Short/The Big Short.mp4'), null);
  });
});

describe('extraKind: a word inside a title never makes an extra', () => {
  const table: [string, ExtraKind | null][] = [
    // films whose titles end in (or contain) the word
    ['I Live In A Trailer.mp4', null],
    ['I Live In A Trailer (2011).mkv', null],
    ['I Live In A Trailer (2011)/I Live In A Trailer (2011).mkv', null],
    ['The DNA Sample.mp4', null],
    ['Movies/The DNA Sample (2010).mkv', null],
    ['Trailer Park Boys The Movie (2006).mkv', null],
    ['stuff trailerthings.mkv', null],
    ['The Sample Trailer (2019)/The Sample Trailer (2019).mkv', null],
    // suffixes, whole names and the folder's own name followed by the word
    ['trailer.mp4', 'trailer'],
    ['300-trailer.mp4', 'trailer'],
    ['300.trailer.mp4', 'trailer'],
    ['300_trailer.mp4', 'trailer'],
    ['300 - trailer.mp4', 'trailer'],
    ['300 -trailer2.mp4', 'trailer'],
    ['sample.mp4', 'sample'],
    ['300 - sample.mp4', 'sample'],
    ['300.sample.mp4', 'sample'],
    ['Heat (1995)/Heat (1995) trailer.mkv', 'trailer'],
    ['Heat (1995)/Heat (1995) Trailer 2.mkv', 'trailer'],
    ['Heat (1995)/heat (1995) SAMPLE.mkv', 'sample'],
  ];
  for (const [path, expected] of table) {
    it(`${path} → ${expected}`, () => assert.equal(extraKind(path), expected));
  }
});

describe("extraKind: `.`/`_` before the word is a suffix only when it is not the title's word separator", () => {
  const table: [string, ExtraKind | null][] = [
    // titles written with dots or underscores between their words: the word is the title's last
    ['The.DNA.Sample.mkv', null],
    ['The.DNA.Sample.2014.mkv', null],
    ['The.DNA.Sample.2014.1080p.BluRay.x264-GRP.mkv', null],
    ['I_Live_In_A_Trailer.mkv', null],
    ['Movies/I_Live_In_A_Trailer/I_Live_In_A_Trailer.mkv', null],
    ['The.Last.Trailer.mkv', null],
    // after a year or a release token the word is a real sample or trailer
    ['Movie.2010.1080p.sample.mkv', 'sample'],
    ['Movie.2010.sample.mkv', 'sample'],
    ['Movie.2010.1080p.BluRay.x264-GRP.sample.mkv', 'sample'],
    ['Some.Movie.BluRay.sample.mkv', 'sample'],
    ['The_Matrix_1999_trailer.mkv', 'trailer'],
    ['The.Matrix.(1999).trailer2.mkv', 'trailer'],
    // the separator differs from the title's (spaces, a single word, or the other character)
    ['300.trailer.mp4', 'trailer'],
    ['300_sample.mp4', 'sample'],
    ['Harry Potter and the Deathly Hallows.trailer.mkv', 'trailer'],
    ['Dr. Strangelove.trailer.mkv', 'trailer'],
    ['Movie (2000)/Movie (2000).trailer.mkv', 'trailer'],
    ['Harry_Potter.trailer.mkv', 'trailer'],
    ['The.Matrix_sample.mkv', 'sample'],
    // a hyphen is never a title's word separator here: always a suffix
    ['The.DNA-sample.mkv', 'sample'],
    ['The.DNA.Sample-trailer.mkv', 'trailer'],
    // a scene release's `Sample/` folder below the movie folder
    ['The.Matrix.1999.1080p.BluRay.x264-GROUP/Sample/the.matrix.sample.mkv', 'sample'],
    ['The.Matrix.1999.1080p.BluRay.x264-GROUP/Sample/grp-thematrix.mkv', 'sample'],
    ['Sample/The DNA Sample (2014).mkv', null],
  ];
  for (const [path, expected] of table) {
    it(`${path} → ${expected}`, () => assert.equal(extraKind(path), expected));
  }
});

describe('walker helpers', () => {
  it('finds the folder holding a disc structure', () => {
    assert.equal(discStructureRoot('Movie (2021)/VIDEO_TS/VTS_01_1.VOB'), 'Movie (2021)');
    assert.equal(discStructureRoot('Sci-Fi/Avatar (2009)/BDMV/STREAM/00001.m2ts'), 'Sci-Fi/Avatar (2009)');
    assert.equal(discStructureRoot('video_ts/VIDEO_TS.IFO'), '');
    assert.equal(discStructureRoot('Avatar (2009)/Avatar (2009).m2ts'), null);
  });
  it('reads .ignore markers and skips hidden and NAS folders', () => {
    assert.equal(isIgnoreMarker('.ignore'), true);
    assert.equal(isIgnoreMarker('.IGNORE'), true);
    assert.equal(isIgnoreMarker('ignore.txt'), false);
    for (const name of [
      '.git',
      '@eaDir',
      '#recycle',
      '$RECYCLE.BIN',
      'System Volume Information',
      'lost+found',
    ]) {
      assert.equal(isSkippedEntryName(name), true, name);
    }
    assert.equal(isSkippedEntryName('Heat (1995)'), false);
  });
});
