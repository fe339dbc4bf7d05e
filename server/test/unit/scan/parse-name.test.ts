import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type NfoInfo,
  type ParsedMovieName,
  nfoPathsFor,
  parseMoviePath,
  parseNfo,
} from '../../../src/domain/scan/parse-name.ts';

const none: ParsedMovieName = {
  title: '',
  year: null,
  tmdbId: null,
  imdbId: null,
  editionLabel: null,
  resolution: null,
  source: null,
  partNumber: null,
};

/** [path, expected fields (the rest must be null)] */
const table: [string, Partial<ParsedMovieName>][] = [
  // Jellyfin layouts
  [
    'Movies/Blade Runner 2049 (2017) [tmdbid-335984]/Blade Runner 2049 (2017) [tmdbid-335984] - 2160p.mkv',
    { title: 'Blade Runner 2049', year: 2017, tmdbId: 335984, editionLabel: '2160p', resolution: '2160p' },
  ],
  [
    'Blade Runner 2049 (2017) [tmdbid-335984] - 2160p.HDR.DV.HEVC.TrueHD.Atmos.7.1.mkv',
    {
      title: 'Blade Runner 2049',
      year: 2017,
      tmdbId: 335984,
      editionLabel: '2160p.HDR.DV.HEVC.TrueHD.Atmos.7.1',
      resolution: '2160p',
    },
  ],
  ['Amélie (2001)/Amélie (2001).mkv', { title: 'Amélie', year: 2001 }],
  [
    "Le Fabuleux Destin d'Amélie Poulain (2001)/Le Fabuleux Destin d'Amélie Poulain (2001).mkv",
    { title: "Le Fabuleux Destin d'Amélie Poulain", year: 2001 },
  ],
  ['2001 A Space Odyssey (1968).mkv', { title: '2001 A Space Odyssey', year: 1968 }],
  ['Blade Runner 2049 (2017).mkv', { title: 'Blade Runner 2049', year: 2017 }],
  ['Death Race 2000 (1975).mkv', { title: 'Death Race 2000', year: 1975 }],
  ['1917 (2019)/1917 (2019).mp4', { title: '1917', year: 2019 }],
  [
    "Movies/Heat (1995)/Heat (1995) - Director's Cut.mkv",
    { title: 'Heat', year: 1995, editionLabel: "Director's Cut" },
  ],
  [
    'Heat (1995)/Heat (1995) - 1080p.mkv',
    { title: 'Heat', year: 1995, editionLabel: '1080p', resolution: '1080p' },
  ],
  [
    'Heat (1995)/Heat (1995) - [720P].mp4',
    { title: 'Heat', year: 1995, editionLabel: '720P', resolution: '720p' },
  ],
  ['Heat (1995)/Heat (1995).mkv', { title: 'Heat', year: 1995 }],
  [
    'Heat (1995) [tmdbid=949]/Heat (1995) - 2160p.mkv',
    { title: 'Heat', year: 1995, tmdbId: 949, editionLabel: '2160p', resolution: '2160p' },
  ],
  ['Title (2017) - 1080p.mkv', { title: 'Title', year: 2017, editionLabel: '1080p', resolution: '1080p' }],
  ['The Thing (1982) - Remastered.mkv', { title: 'The Thing', year: 1982, editionLabel: 'Remastered' }],
  [
    'Best_Movie_Ever (2019)/Best_Movie_Ever (2019) - 720P.mp4',
    { title: 'Best Movie Ever', year: 2019, editionLabel: '720P', resolution: '720p' },
  ],
  ['Mr. & Mrs. Smith (2005).mkv', { title: 'Mr. & Mrs. Smith', year: 2005 }],
  ['Up (2009).mkv', { title: 'Up', year: 2009 }],
  [
    'Harry Potter and the Deathly Hallows Part 2 (2011)/Harry Potter and the Deathly Hallows Part 2 (2011).mkv',
    { title: 'Harry Potter and the Deathly Hallows Part 2', year: 2011 },
  ],
  // id tags
  ['The Matrix (1999) {tmdb-603}/movie.mkv', { title: 'The Matrix', year: 1999, tmdbId: 603 }],
  ['The Matrix (1999) [tmdb-603].mkv', { title: 'The Matrix', year: 1999, tmdbId: 603 }],
  [
    'The Matrix (1999) [imdbid-tt0133093]/The Matrix (1999) [imdbid-tt0133093].mkv',
    { title: 'The Matrix', year: 1999, imdbId: 'tt0133093' },
  ],
  ['The Matrix (1999) {imdb-tt0133093}.mkv', { title: 'The Matrix', year: 1999, imdbId: 'tt0133093' }],
  [
    'Best_Movie_Ever (1994) [tmdbid-680] [imdbid-tt0110912]/Best_Movie_Ever (1994) [tmdbid-680] [imdbid-tt0110912].mkv',
    { title: 'Best Movie Ever', year: 1994, tmdbId: 680, imdbId: 'tt0110912' },
  ],
  // Plex edition tag
  [
    'Blade Runner (1982) {edition-Final Cut}/Blade Runner (1982) {edition-Final Cut} {tmdb-78}.mkv',
    { title: 'Blade Runner', year: 1982, tmdbId: 78, editionLabel: 'Final Cut' },
  ],
  // the file's tag beats the folder's
  ['Heat (1995) [tmdbid-1]/Heat (1995) [tmdbid-949].mkv', { title: 'Heat', year: 1995, tmdbId: 949 }],
  [
    'Inception.2010.tt1375666.1080p.BluRay.mkv',
    { title: 'Inception', year: 2010, imdbId: 'tt1375666', resolution: '1080p', source: 'bluray' },
  ],
  // scene names
  [
    'The.Matrix.1999.1080p.BluRay.x264-GROUP.mkv',
    { title: 'The Matrix', year: 1999, resolution: '1080p', source: 'bluray' },
  ],
  [
    '2001.A.Space.Odyssey.1968.1080p.BluRay.x264-AMIABLE.mkv',
    { title: '2001 A Space Odyssey', year: 1968, resolution: '1080p', source: 'bluray' },
  ],
  [
    'Blade.Runner.2049.2017.2160p.UHD.BluRay.REMUX.HDR.HEVC.Atmos-EPSiLON.mkv',
    { title: 'Blade Runner 2049', year: 2017, resolution: '2160p', source: 'bluray' },
  ],
  [
    '1917.2019.1080p.WEB-DL.DD5.1.H264-FGT.mkv',
    { title: '1917', year: 2019, resolution: '1080p', source: 'webdl' },
  ],
  [
    'Alien.Romulus.2024.1080p.WEB.H264-GRP.mkv',
    { title: 'Alien Romulus', year: 2024, resolution: '1080p', source: 'webdl' },
  ],
  [
    'This.is.40.2012.PROPER.UNRATED.720p.BluRay.x264-Felony.mkv',
    { title: 'This is 40', year: 2012, editionLabel: 'Unrated', resolution: '720p', source: 'bluray' },
  ],
  [
    'Léon.The.Professional.1994.Extended.1080p.BluRay.x264.mkv',
    {
      title: 'Léon The Professional',
      year: 1994,
      editionLabel: 'Extended',
      resolution: '1080p',
      source: 'bluray',
    },
  ],
  [
    'Seven Samurai 1954 Criterion 1080p BluRay.mkv',
    { title: 'Seven Samurai', year: 1954, editionLabel: 'Criterion', resolution: '1080p', source: 'bluray' },
  ],
  [
    'Apocalypse.Now.1979.Redux.1080p.BluRay.mkv',
    { title: 'Apocalypse Now', year: 1979, editionLabel: 'Redux', resolution: '1080p', source: 'bluray' },
  ],
  [
    'The.Dark.Knight.2008.IMAX.2160p.WEB-DL.mkv',
    { title: 'The Dark Knight', year: 2008, editionLabel: 'IMAX', resolution: '2160p', source: 'webdl' },
  ],
  [
    'Se7en.1995.REMASTERED.1080p.BluRay.mkv',
    { title: 'Se7en', year: 1995, editionLabel: 'Remastered', resolution: '1080p', source: 'bluray' },
  ],
  [
    'Blade.Runner.1982.Final.Cut.Extended.720p.BluRay.mkv',
    {
      title: 'Blade Runner',
      year: 1982,
      editionLabel: 'Final Cut, Extended',
      resolution: '720p',
      source: 'bluray',
    },
  ],
  [
    'Mission.Impossible.3.Special.Edition.2011.mkv',
    { title: 'Mission Impossible 3', year: 2011, editionLabel: 'Special Edition' },
  ],
  // the parser's "edition before year" cuts "The Ultimate Gift" to "The"; we keep the whole title
  ['The.Ultimate.Gift.2006.DVDRip.XviD.avi', { title: 'The Ultimate Gift', year: 2006, source: 'dvd' }],
  ['The.Final.Cut.2004.DVDRip.avi', { title: 'The Final Cut', year: 2004, source: 'dvd' }],
  ['S.W.A.T.2017.1080p.WEB-DL.mkv', { title: 'S.W.A.T.', year: 2017, resolution: '1080p', source: 'webdl' }],
  ['Cam.2018.1080p.NF.WEB-DL.mkv', { title: 'Cam', year: 2018, resolution: '1080p', source: 'webdl' }],
  ['Pal.Joey.1957.mkv', { title: 'Pal Joey', year: 1957 }],
  ['Akira.1988.4K.HDR.mkv', { title: 'Akira', year: 1988, resolution: '2160p' }],
  ['[HorribleSubs] Akira (1988) [1080p].mkv', { title: 'Akira', year: 1988, resolution: '1080p' }],
  [
    'Avatar.2009.3D.HSBS.1080p.BluRay.mkv',
    { title: 'Avatar', year: 2009, editionLabel: '3D', resolution: '1080p', source: 'bluray' },
  ],
  // no source token → no source (the parser guesses WEBDL), no resolution token → none (it guesses 480p/720p)
  [
    'Spider-Man.Far.From.Home.2019.1080p.mkv',
    { title: 'Spider-Man Far From Home', year: 2019, resolution: '1080p' },
  ],
  ['Amelie.2001.BluRay.mkv', { title: 'Amelie', year: 2001, source: 'bluray' }],
  ['Movie.Name.2003.NTSC.DVD9.iso', { title: 'Movie Name', year: 2003, source: 'dvd' }],
  // folder gives title/year
  [
    'Heat (1995)/Heat.1995.Directors.Cut.1080p.BluRay.x264-GRP.mkv',
    { title: 'Heat', year: 1995, editionLabel: "Director's Cut", resolution: '1080p', source: 'bluray' },
  ],
  [
    'Inception (2010)/Inception.2010.UHD.BluRay.2160p.REMUX.mkv',
    { title: 'Inception', year: 2010, resolution: '2160p', source: 'bluray' },
  ],
  [
    'The.Matrix.1999.1080p.BluRay.x264-GROUP/tm-1080p.mkv',
    { title: 'The Matrix', year: 1999, resolution: '1080p', source: 'bluray' },
  ],
  ['Inception (2010)/title_t00.mkv', { title: 'Inception', year: 2010 }],
  [
    'Movie (2021) [imdbid-tt12801262]/VIDEO_TS/VTS_01_1.VOB',
    { title: 'Movie', year: 2021, imdbId: 'tt12801262' },
  ],
  ['Avatar (2009)/BDMV/STREAM/00001.m2ts', { title: 'Avatar', year: 2009 }],
  // a plain category folder does not name the movie
  ['Action/Heat.1995.mkv', { title: 'Heat', year: 1995 }],
  ['Movies 2020/Amelie.mkv', { title: 'Amelie' }],
  ['Amélie.mkv', { title: 'Amélie' }],
  // multi-part
  [
    'The Lord of the Rings (2001)/The Lord of the Rings (2001) - part1.mkv',
    { title: 'The Lord of the Rings', year: 2001, partNumber: 1 },
  ],
  [
    'Lawrence of Arabia (1962)/Lawrence of Arabia (1962) - Disc 2.mkv',
    { title: 'Lawrence of Arabia', year: 1962, partNumber: 2 },
  ],
  ['Lawrence of Arabia (1962) pt1.mkv', { title: 'Lawrence of Arabia', year: 1962, partNumber: 1 }],
  ['Lawrence of Arabia (1962) (cd b).avi', { title: 'Lawrence of Arabia', year: 1962, partNumber: 2 }],
  [
    'Movie.Name.2003.DVDRip.XviD-GRP/Movie.Name.2003.DVDRip.XviD.CD1-GRP.avi',
    { title: 'Movie Name', year: 2003, source: 'dvd', partNumber: 1 },
  ],
  ['Kill Bill (2003)/CD2/movie.avi', { title: 'Kill Bill', year: 2003, partNumber: 2 }],
  ['Kill Bill (2003)/cd1.avi', { title: 'Kill Bill', year: 2003, partNumber: 1 }],
  // "Part 1" without a year is part of the title, not a stack
  [
    'Harry.Potter.and.the.Deathly.Hallows.Part.1.mkv',
    { title: 'Harry Potter and the Deathly Hallows Part 1' },
  ],
  [
    'Dune.Part.Two.2024.2160p.WEB-DL.mkv',
    { title: 'Dune Part Two', year: 2024, resolution: '2160p', source: 'webdl' },
  ],
  // backslashes from Windows shares
  [
    'Heat (1995)\\Heat (1995) - 1080p.mkv',
    { title: 'Heat', year: 1995, editionLabel: '1080p', resolution: '1080p' },
  ],
];

describe('parseMoviePath', () => {
  it('has a table of at least 40 names', () => assert.ok(table.length >= 40));
  for (const [path, expected] of table) {
    it(path, () => assert.deepEqual(parseMoviePath(path), { ...none, ...expected }));
  }
  it('reads NFC and NFD spellings alike', () => {
    const nfd = 'Ame\u0301lie (2001)/Ame\u0301lie (2001) - 1080p.mkv';
    assert.equal(parseMoviePath(nfd).title, 'Amélie');
    assert.equal(parseMoviePath(nfd).editionLabel, '1080p');
  });
  it('returns a year as a number, never a string', () => {
    assert.equal(typeof parseMoviePath('The.Matrix.1999.mkv').year, 'number');
  });
});

describe('nfoPathsFor', () => {
  it('lists the Kodi locations, most specific first', () => {
    assert.deepEqual(nfoPathsFor('Heat (1995)/Heat (1995) - 1080p.mkv'), [
      'Heat (1995)/Heat (1995) - 1080p.nfo',
      'Heat (1995)/movie.nfo',
    ]);
    assert.deepEqual(nfoPathsFor('Movie (2000)/Movie (2000)-cd1.avi'), [
      'Movie (2000)/Movie (2000)-cd1.nfo',
      'Movie (2000)/Movie (2000).nfo',
      'Movie (2000)/movie.nfo',
    ]);
    assert.deepEqual(nfoPathsFor('Movie (2021)/VIDEO_TS/VTS_01_1.VOB'), [
      'Movie (2021)/VIDEO_TS/VIDEO_TS.nfo',
      'Movie (2021)/movie.nfo',
    ]);
    assert.deepEqual(nfoPathsFor('Avatar (2009)/BDMV/STREAM/00001.m2ts'), [
      'Avatar (2009)/BDMV/index.nfo',
      'Avatar (2009)/movie.nfo',
    ]);
  });
});

const FULL_NFO = `<?xml version="1.0" encoding="UTF-8" standalone="yes" ?>
<movie>
  <title>The Matrix</title>
  <originaltitle>The Matrix</originaltitle>
  <sorttitle>Matrix 1</sorttitle>
  <ratings>
    <rating name="imdb" max="10" default="true"><value>8.7</value><votes>2100000</votes></rating>
  </ratings>
  <plot>Neo &amp; friends &lt;fight&gt; machines.</plot>
  <runtime>136</runtime>
  <uniqueid type="imdb" default="true">tt0133093</uniqueid>
  <uniqueid type="tmdb">603</uniqueid>
  <genre>Action</genre>
  <set><name>The Matrix Collection</name><uniqueid type="tmdb">2344</uniqueid></set>
  <premiered>1999-03-31</premiered>
  <year>1999</year>
  <actor><name>Keanu Reeves</name><role>Neo</role><order>0</order></actor>
</movie>
`;

describe('parseNfo', () => {
  const table: [string, string, NfoInfo | null][] = [
    [
      'full Kodi XML with uniqueid',
      FULL_NFO,
      { title: 'The Matrix', year: 1999, tmdbId: 603, imdbId: 'tt0133093' },
    ],
    [
      'uniqueid only inside <set> is the collection, not the movie',
      '<movie><title>Alien</title><set><name>Alien Collection</name><uniqueid type="tmdb">8091</uniqueid></set></movie>',
      { title: 'Alien', year: null, tmdbId: null, imdbId: null },
    ],
    [
      'legacy <id>tt…</id>',
      '<movie>\n<title>Heat</title>\n<year>1995</year>\n<id>tt0113277</id>\n</movie>',
      { title: 'Heat', year: 1995, tmdbId: null, imdbId: 'tt0113277' },
    ],
    [
      'legacy numeric <id> is TMDb',
      '<movie><title>Heat</title><id>949</id></movie>',
      { title: 'Heat', year: null, tmdbId: 949, imdbId: null },
    ],
    [
      'numeric <id> ignored when the default uniqueid is another provider',
      '<movie><title>Home Video</title><uniqueid type="home" default="true">42</uniqueid><id>42</id></movie>',
      { title: 'Home Video', year: null, tmdbId: null, imdbId: null },
    ],
    [
      'Jellyfin/Emby tags, year from premiered',
      '<movie><title>Amélie</title><premiered>2001-04-25</premiered><tmdbid>194</tmdbid><imdb_id>tt0211915</imdb_id></movie>',
      { title: 'Amélie', year: 2001, tmdbId: 194, imdbId: 'tt0211915' },
    ],
    [
      'entities, CDATA, comments, attributes in single quotes, upper-case TYPE',
      "<movie><!-- <title>Wrong</title> --><title><![CDATA[Fast & Furious]]></title><uniqueid type='TMDB'>13804</uniqueid></movie>",
      { title: 'Fast & Furious', year: null, tmdbId: 13804, imdbId: null },
    ],
    [
      'only originaltitle',
      '<movie><originaltitle>Le Fabuleux Destin d&apos;Amélie Poulain</originaltitle></movie>',
      { title: "Le Fabuleux Destin d'Amélie Poulain", year: null, tmdbId: null, imdbId: null },
    ],
    [
      'URL-only TMDb',
      'https://www.themoviedb.org/movie/603-the-matrix\n',
      { title: null, year: null, tmdbId: 603, imdbId: null },
    ],
    [
      'URL-only IMDb',
      'http://www.imdb.com/title/tt0133093/\r\n',
      { title: null, year: null, tmdbId: null, imdbId: 'tt0133093' },
    ],
    [
      'XML followed by a URL: the URL fills the gap',
      '<movie><title>Heat</title><uniqueid type="imdb">tt0113277</uniqueid></movie>\nhttps://www.themoviedb.org/movie/949',
      { title: 'Heat', year: null, tmdbId: 949, imdbId: 'tt0113277' },
    ],
    [
      'XML beats a contradicting URL after it',
      '<movie><uniqueid type="tmdb">603</uniqueid></movie>\nhttps://www.themoviedb.org/movie/604',
      { title: null, year: null, tmdbId: 603, imdbId: null },
    ],
    [
      'truncated XML still yields what is there',
      '<?xml version="1.0"?>\n<movie>\n  <title>Heat</title>\n  <year>1995</year>\n  <plot>Half a plo',
      { title: 'Heat', year: 1995, tmdbId: null, imdbId: null },
    ],
    [
      'a BOM is ignored',
      '\uFEFF<movie><title>Up</title></movie>',
      { title: 'Up', year: null, tmdbId: null, imdbId: null },
    ],
    [
      'an episode NFO is not a movie',
      '<episodedetails><title>Pilot</title><id>tt0000001</id></episodedetails>',
      null,
    ],
    ['empty', '', null],
    ['garbage', 'not an nfo at all', null],
  ];
  for (const [name, text, expected] of table) {
    it(name, () => assert.deepEqual(parseNfo(text), expected));
  }
});
