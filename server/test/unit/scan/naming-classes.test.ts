/**
 * The naming classes of issue 12 §5, each as a table: how people name their files (cases from Jellyfin's
 * naming tests and its docs) and what the scan's pure naming decisions make of them.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type GroupableFile, groupEditions } from '../../../src/domain/scan/match.ts';
import {
  type ParsedMovieName,
  parseMoviePath,
  parseMoviePaths,
} from '../../../src/domain/scan/parse-name.ts';

interface ScannedFile extends GroupableFile {
  path: string;
}

/**
 * Movies as [title, year, editions as [label, paths]] for a set of new files, like the scan groups them:
 * each file's name is read knowing the other videos of its folder.
 */
function movies(paths: readonly string[]): [string, number | null, [string | null, string[]][]][] {
  const parsedByPath = parseMoviePaths(paths);
  const files: ScannedFile[] = paths.map((path) => ({
    path,
    parsed: parsedByPath.get(path) ?? parseMoviePath(path),
  }));
  return groupEditions(files).map((g) => [
    g.title,
    g.year,
    g.editions.map((e): [string | null, string[]] => [e.label, e.files.map((f) => f.path)]),
  ]);
}

function fields(path: string, keys: readonly (keyof ParsedMovieName)[]): Partial<ParsedMovieName> {
  const parsed = parseMoviePath(path);
  return Object.fromEntries(keys.map((k) => [k, parsed[k]]));
}

describe('multi-part films stack with or without a year (part/pt glued to its number, cd, disc)', () => {
  const table: [string, string, number | null][] = [
    ['Movie/Movie part1.mkv', 'Movie', 1],
    ['Movie/Movie part2.mkv', 'Movie', 2],
    ['Movie/Movie - part1.mkv', 'Movie', 1],
    ['Movie/Movie.pt1.mkv', 'Movie', 1],
    ['Movie/Movie-part2.mkv', 'Movie', 2],
    ['Batman part3.mkv', 'Batman', 3],
    ['Harry Potter and the Deathly Hallows part4.mkv', 'Harry Potter and the Deathly Hallows', 4],
    ['300 part1.mkv', '300', 1],
    ['Movie cd2.avi', 'Movie', 2],
    ['Movie - disc1.avi', 'Movie', 1],
    ['Bad Boys (2006) part3.mkv', 'Bad Boys', 3],
    ['300 2006 part2.mkv', '300', 2],
    // a part word with a gap and no year is the title's own words
    ['Harry.Potter.and.the.Deathly.Hallows.Part.1.mkv', 'Harry Potter and the Deathly Hallows Part 1', null],
    [
      'Harry Potter and the Deathly Hallows - Part 2.mkv',
      'Harry Potter and the Deathly Hallows - Part 2',
      null,
    ],
    ['Kill Bill Part 1.mkv', 'Kill Bill Part 1', null],
    // letters need a year or a cd/disc word: `Parta` could be a word
    ['Movie parta.mkv', 'Movie parta', null],
    ['300 (2006) partb.mkv', '300', 2],
  ];
  for (const [path, title, part] of table) {
    it(`${path} → ${title}, part ${part ?? '-'}`, () =>
      assert.deepEqual(fields(path, ['title', 'partNumber']), { title, partNumber: part }));
  }

  it('stacks the parts of one version into one edition, the parts in order', () => {
    for (const sep of [' part', ' - part', '.pt', '-part', ' cd']) {
      assert.deepEqual(
        movies([`Movie/Movie${sep}2.mkv`, `Movie/Movie${sep}1.mkv`]),
        [['Movie', null, [[null, [`Movie/Movie${sep}1.mkv`, `Movie/Movie${sep}2.mkv`]]]]],
        sep,
      );
    }
    assert.deepEqual(movies(['Avengers part1.mkv', '300 part1.mkv', 'Avengers part2.mkv', '300 part2.mkv']), [
      ['Avengers', null, [[null, ['Avengers part1.mkv', 'Avengers part2.mkv']]]],
      ['300', null, [[null, ['300 part1.mkv', '300 part2.mkv']]]],
    ]);
  });

  it('stacks a version of parts beside a single-file version', () => {
    assert.deepEqual(
      movies(['Movie/Movie-1080p-part1.mkv', 'Movie/Movie-1080p-part2.mkv', 'Movie/Movie-720p.mkv']),
      [
        [
          'Movie',
          null,
          [
            ['1080p', ['Movie/Movie-1080p-part1.mkv', 'Movie/Movie-1080p-part2.mkv']],
            ['720p', ['Movie/Movie-720p.mkv']],
          ],
        ],
      ],
    );
    assert.deepEqual(
      movies([
        'Inception (2010)/Inception (2010).mkv',
        'Inception (2010)/Inception (2010) - 4k part1.mkv',
        'Inception (2010)/Inception (2010) - 4k part2.mkv',
      ]),
      [
        [
          'Inception',
          2010,
          [
            [null, ['Inception (2010)/Inception (2010).mkv']],
            [
              '4k',
              [
                'Inception (2010)/Inception (2010) - 4k part1.mkv',
                'Inception (2010)/Inception (2010) - 4k part2.mkv',
              ],
            ],
          ],
        ],
      ],
    );
  });

  it('stacks folders named as the parts of a disc set', () => {
    assert.deepEqual(
      fields('The Sound of Music/The Sound of Music (1965) (Disc 02)/VIDEO_TS/VIDEO_TS.IFO', [
        'title',
        'year',
        'partNumber',
      ]),
      { title: 'The Sound of Music', year: 1965, partNumber: 2 },
    );
    for (const folders of [
      ['blah blah - cd 1', 'blah blah - cd 2'],
      ['Sound of Music (1965)/Sound of Music Disc 1', 'Sound of Music (1965)/Sound of Music Disc 2'],
      ['300 (2006) part1', '300 (2006) part2'],
    ]) {
      const paths = folders.map((folder) => `${folder}/VIDEO_TS/VIDEO_TS.IFO`);
      const found = movies(paths);
      assert.equal(found.length, 1, folders[0]);
      assert.deepEqual(found[0]?.[2], [[null, paths]], folders[0]);
    }
  });

  it('does not stack numbered titles without a part word', () => {
    assert.equal(movies(['Harry Potter 1.mkv', 'Harry Potter 2.mkv', 'Harry Potter.mkv']).length, 3);
    assert.equal(movies(['300a.mkv', '300b.mkv', '300c.mkv']).length, 3);
  });
});

describe('versions: the folder name, then " - ", "-", ".", "_" or "[…]" and anything', () => {
  const table: [string, string, number | null, string | null][] = [
    ['Movie/Movie.mkv', 'Movie', null, null],
    ['Movie/Movie-2.mkv', 'Movie', null, '2'],
    ['Movie/Movie - bluray.mkv', 'Movie', null, 'bluray'],
    ['Movie/Movie-3d.mkv', 'Movie', null, '3d'],
    ['Movie/Movie - apple.mkv', 'Movie', null, 'apple'],
    ['Iron Man/Iron Man_test.mkv', 'Iron Man', null, 'test'],
    ['Iron Man/Iron Man_3d.hsbs.mkv', 'Iron Man', null, '3d.hsbs'],
    ['Iron Man/Iron Man[test].mkv', 'Iron Man', null, 'test'],
    ['Iron Man/iron man - 720p.mkv', 'Iron Man', null, '720p'],
    ['Movie (2020)/Movie (2020)_4K.mkv', 'Movie', 2020, '4K'],
    ['Movie (2020)/Movie (2020).UHD.mkv', 'Movie', 2020, 'UHD'],
    [
      'The Phantom of the Opera (1925)/The Phantom of the Opera (1925) - 1929 version.mkv',
      'The Phantom of the Opera',
      1925,
      '1929 version',
    ],
    // not versions: no separator, another year, a release name's own year, a letter folder
    ['Movie/Movie 2.mkv', 'Movie 2', null, null],
    ['Iron Man/Iron Man (2010).mkv', 'Iron Man', 2010, null],
    ['Iron Man/Iron Man - B (2006).mkv', 'Iron Man - B', 2006, null],
    ['Arrival/Arrival.2016.2160p.Blu-Ray.HEVC.mkv', 'Arrival', 2016, null],
    ['M/Movie 1.mkv', 'Movie 1', null, null],
    ['The Matrix/The Matrix Reloaded.mkv', 'The Matrix Reloaded', null, null],
  ];
  for (const [path, title, year, label] of table) {
    it(`${path} → ${title} (${year ?? '-'}) [${label ?? ''}]`, () =>
      assert.deepEqual(fields(path, ['title', 'year', 'editionLabel']), {
        title,
        year,
        editionLabel: label,
      }));
  }

  it('groups a folder of free-suffix versions into one movie', () => {
    assert.deepEqual(
      movies([
        'Movie/Movie - bluray.mkv',
        'Movie/Movie-2.mkv',
        'Movie/Movie.mkv',
        'Movie/Movie-3d.mkv',
        'Movie/Movie - apple.mkv',
      ]),
      [
        [
          'Movie',
          null,
          [
            [null, ['Movie/Movie.mkv']],
            ['2', ['Movie/Movie-2.mkv']],
            ['3d', ['Movie/Movie-3d.mkv']],
            ['apple', ['Movie/Movie - apple.mkv']],
            ['bluray', ['Movie/Movie - bluray.mkv']],
          ],
        ],
      ],
    );
  });

  it('keeps films of different years or names in one folder apart', () => {
    assert.equal(movies(['Iron Man/Iron Man - B (2006).mkv', 'Iron Man/Iron Man - C (2007).mkv']).length, 2);
    assert.equal(
      movies(['Iron Man/Iron Man.mkv', 'Iron Man/Iron Man (2008).mkv', 'Iron Man/Iron Man (2010).mkv'])
        .length,
      3,
    );
    assert.equal(movies(['Movie/Movie 1.mkv', 'Movie/Movie 2.mkv', 'Movie/Movie 3.mkv']).length, 3);
    assert.equal(movies(['M/Movie 1.mkv', 'M/Movie 2.mkv']).length, 2);
  });
});

describe('a collection folder of films with their own years is not a folder of versions', () => {
  // A label that carries another year than the folder's (or any year when the folder has none) continues
  // another film's name: Jellyfin reads the year from the whole name and groups only files of one year.
  const table: [string, string, number | null, string | null][] = [
    ['Alien/Alien.1979.mkv', 'Alien', 1979, null],
    ['Alien/Aliens.1986.mkv', 'Aliens', 1986, null],
    ['Alien/Alien.Resurrection.1997.mkv', 'Alien Resurrection', 1997, null],
    ['Alien/Alien.Resurrection.1997.1080p.BluRay.x264-GRP.mkv', 'Alien Resurrection', 1997, null],
    ['Alien/Alien - Resurrection (1997).mkv', 'Alien - Resurrection', 1997, null],
    ['Alien/Alien - Resurrection [1997].mkv', 'Alien - Resurrection', 1997, null],
    ['Alien/Alien_3_1992.mkv', 'Alien 3', 1992, null],
    ['Scream/Scream.1996.mkv', 'Scream', 1996, null],
    ['Scream/Scream.2.1997.mkv', 'Scream 2', 1997, null],
    ['Scream/Scream - 3 (2000).mkv', 'Scream - 3', 2000, null],
    [
      'Harry Potter/Harry Potter and the Chamber of Secrets (2002).mkv',
      'Harry Potter and the Chamber of Secrets',
      2002,
      null,
    ],
    ['Heat (1995) - Remake (2003).mkv', 'Heat (1995) - Remake', 2003, null],
    // the folder's own year in the label keeps it a version
    ['Heat (1995)/Heat (1995) - 1080p (1995).mkv', 'Heat', 1995, '1080p (1995)'],
    ["Heat 1995/Heat 1995 - Director's Cut.mkv", 'Heat', 1995, "Director's Cut"],
  ];
  for (const [path, title, year, label] of table) {
    it(`${path} → ${title} (${year ?? '-'}) [${label ?? ''}]`, () =>
      assert.deepEqual(fields(path, ['title', 'year', 'editionLabel']), {
        title,
        year,
        editionLabel: label,
      }));
  }

  it('lists each film of a collection folder with its own title and year', () => {
    assert.deepEqual(
      movies([
        'Alien/Alien.1979.mkv',
        'Alien/Aliens.1986.mkv',
        'Alien/Alien.Resurrection.1997.mkv',
        'Scream/Scream.1996.mkv',
        'Scream/Scream.2.1997.mkv',
        'Harry Potter/Harry Potter and the Chamber of Secrets (2002).mkv',
      ]),
      [
        ['Alien', 1979, [[null, ['Alien/Alien.1979.mkv']]]],
        ['Aliens', 1986, [[null, ['Alien/Aliens.1986.mkv']]]],
        ['Alien Resurrection', 1997, [[null, ['Alien/Alien.Resurrection.1997.mkv']]]],
        ['Scream', 1996, [[null, ['Scream/Scream.1996.mkv']]]],
        ['Scream 2', 1997, [[null, ['Scream/Scream.2.1997.mkv']]]],
        [
          'Harry Potter and the Chamber of Secrets',
          2002,
          [[null, ['Harry Potter/Harry Potter and the Chamber of Secrets (2002).mkv']]],
        ],
      ],
    );
  });

  it("groups versions only when every video of the folder is one (Jellyfin's IsEligibleForMultiVersion)", () => {
    // one film with a year makes the folder a collection: `Scream.2` is then a film, not a version
    assert.deepEqual(movies(['Scream/Scream.1996.mkv', 'Scream/Scream.2.mkv']), [
      ['Scream', 1996, [[null, ['Scream/Scream.1996.mkv']]]],
      ['Scream 2', null, [[null, ['Scream/Scream.2.mkv']]]],
    ]);
    assert.deepEqual(
      movies(['Star Wars/Star Wars (1977).mkv', 'Star Wars/Star Wars - The Empire Strikes Back.mkv']),
      [
        ['Star Wars', 1977, [[null, ['Star Wars/Star Wars (1977).mkv']]]],
        [
          'Star Wars - The Empire Strikes Back',
          null,
          [[null, ['Star Wars/Star Wars - The Empire Strikes Back.mkv']]],
        ],
      ],
    );
    // a file of another name in the folder, too
    assert.equal(movies(['Movie/Movie - apple.mkv', 'Movie/Other Film.mkv']).length, 2);
    // extras and the parts of a stack do not count against it
    assert.deepEqual(
      movies([
        'Movie/Movie-1080p-part1.mkv',
        'Movie/Movie-1080p-part2.mkv',
        'Movie/Movie - apple.mkv',
        'Movie/Movie.mkv',
      ]),
      [
        [
          'Movie',
          null,
          [
            [null, ['Movie/Movie.mkv']],
            ['1080p', ['Movie/Movie-1080p-part1.mkv', 'Movie/Movie-1080p-part2.mkv']],
            ['apple', ['Movie/Movie - apple.mkv']],
          ],
        ],
      ],
    );
    assert.equal(movies(['Movie/Movie - apple.mkv', 'Movie/Movie - bluray.mkv']).length, 1);
    // the files of other folders do not count
    assert.equal(movies(['Movie/Movie - apple.mkv', 'Movie/Movie.mkv', 'Other/Film.mkv']).length, 2);
  });

  it("keeps the issue's classes: free suffixes in a folder named like the film are versions", () => {
    assert.deepEqual(movies(['Iron Man/Iron Man - bluray.mkv']), [
      ['Iron Man', null, [['bluray', ['Iron Man/Iron Man - bluray.mkv']]]],
    ]);
    assert.equal(
      movies([
        'Heat (1995)/Heat (1995).mkv',
        'Heat (1995)/Heat (1995) - 2160p.mkv',
        "Heat (1995)/Heat (1995) - Director's Cut.mkv",
      ]).length,
      1,
    );
  });
});

describe("release and quality words end the title (Jellyfin's CleanStrings)", () => {
  const table: [string, string, number | null][] = [
    ['Crouching.Tiger.Hidden.Dragon.4k.mkv', 'Crouching Tiger Hidden Dragon', null],
    ['Crouching.Tiger.Hidden.Dragon.UltraHD.mkv', 'Crouching Tiger Hidden Dragon', null],
    ['Crouching.Tiger.Hidden.Dragon.UHD.mkv', 'Crouching Tiger Hidden Dragon', null],
    ['Crouching.Tiger.Hidden.Dragon.HDR.mkv', 'Crouching Tiger Hidden Dragon', null],
    ['Crouching.Tiger.Hidden.Dragon.HDC.mkv', 'Crouching Tiger Hidden Dragon', null],
    ['Crouching.Tiger.Hidden.Dragon-HDC.mkv', 'Crouching Tiger Hidden Dragon', null],
    ['Crouching.Tiger.Hidden.Dragon.BDrip.mkv', 'Crouching Tiger Hidden Dragon', null],
    ['Crouching.Tiger.Hidden.Dragon.BDrip-HDC.mkv', 'Crouching Tiger Hidden Dragon', null],
    ['Crouching.Tiger.Hidden.Dragon.4K.UltraHD.HDR.BDrip-HDC.mkv', 'Crouching Tiger Hidden Dragon', null],
    ['Last.Call.for.Nowhere.WEB-DL.1080p.mkv', 'Last Call for Nowhere', null],
    ['Movie.Name.UHD.BluRay.2160p.mkv', 'Movie Name', null],
    ['Super movie 480p.mp4', 'Super movie', null],
    ['Super movie Multi.mp4', 'Super movie', null],
    ['Super movie 480p 2001.mp4', 'Super movie', 2001],
    ['Super movie [480p].mp4', 'Super movie', null],
    ['Some Film DVDRip XviD.avi', 'Some Film', null],
    ['Some Film Limited Proper.avi', 'Some Film', null],
    // ordinary words stay when a title word follows them, or when they are the title
    ['My.Pal.Gus.mkv', 'My Pal Gus', null],
    ['Internal Affairs.mkv', 'Internal Affairs', null],
    ['The Proper Way.mkv', 'The Proper Way', null],
    ['Swedish Auto.mkv', 'Swedish Auto', null],
    ['Dutch.mkv', 'Dutch', null],
    ['The Cam.mkv', 'The Cam', null],
    ['Bdsets.mkv', 'Bdsets', null],
    ['480 Super movie [tmdbid=12345].mp4', '480 Super movie', null],
    // the Jellyfin form is the user's own spelling: nothing is cut from it
    ['My Pal Gus (1952).mkv', 'My Pal Gus', 1952],
    ['The Limited (2019).mkv', 'The Limited', 2019],
  ];
  for (const [path, title, year] of table) {
    it(`${path} → ${title} (${year ?? '-'})`, () =>
      assert.deepEqual(fields(path, ['title', 'year']), { title, year }));
  }
});

describe('a date in the name is part of the title, not its year (CleanDateTime)', () => {
  const table: [string, string, number | null][] = [
    ['My Movie 2013.12.09.mkv', 'My Movie 2013.12.09', null],
    ['My Movie 2013-12-09.mkv', 'My Movie 2013-12-09', null],
    ['My Movie 20131209.mkv', 'My Movie 20131209', null],
    ['My.Movie.2013.12.09.mkv', 'My Movie 2013.12.09', null],
    ['My Movie 2013-12-09 2013.mkv', 'My Movie 2013-12-09', 2013],
    ['Wedding 2019-06-01 (2019).mkv', 'Wedding 2019-06-01', 2019],
    ['2013-12-09 Birthday.mkv', '2013-12-09 Birthday', null],
    ['Holiday 2019_06_01/Holiday 2019_06_01.mkv', 'Holiday 2019_06_01', null],
    // a year alone, or numbers that are no date, stay what they were
    ['Drug War 2013.mp4', 'Drug War', 2013],
    ['The Wolf of Wall Street 2001 (2013).mkv', 'The Wolf of Wall Street 2001', 2013],
    ['Movie 2013.13.40.mkv', 'Movie', 2013],
  ];
  for (const [path, title, year] of table) {
    it(`${path} → ${title} (${year ?? '-'})`, () =>
      assert.deepEqual(fields(path, ['title', 'year']), { title, year }));
  }
});
