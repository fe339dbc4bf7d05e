import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type GroupableFile,
  type MatchCandidate,
  type MovieMatch,
  groupEditions,
  matchMovie,
} from '../../../src/domain/scan/match.ts';
import { type NfoInfo, parseMoviePath } from '../../../src/domain/scan/parse-name.ts';

const library: MatchCandidate[] = [
  { id: 1, tmdbId: 603, imdbId: 'tt0133093', normalizedTitle: 'matrix', year: 1999 },
  { id: 2, tmdbId: 949, imdbId: null, normalizedTitle: 'heat', year: 1995 },
  { id: 3, tmdbId: null, imdbId: 'tt0211915', normalizedTitle: 'amelie', year: 2001 },
  { id: 4, tmdbId: null, imdbId: null, normalizedTitle: 'seven samurai', year: null },
  { id: 5, tmdbId: 1091, imdbId: null, normalizedTitle: 'thing', year: 1982 },
  { id: 6, tmdbId: 60935, imdbId: null, normalizedTitle: 'thing', year: 2011 },
  { id: 7, tmdbId: null, imdbId: null, normalizedTitle: 'blade runner 2049', year: 2017 },
  { id: 8, tmdbId: 11, imdbId: null, normalizedTitle: 'star wars', year: 1977 },
  { id: 9, tmdbId: null, imdbId: null, normalizedTitle: 'dune', year: 1984 },
];

const nfo = (fields: Partial<NfoInfo>): NfoInfo => ({
  title: null,
  year: null,
  tmdbId: null,
  imdbId: null,
  ...fields,
});

describe('matchMovie precedence (metadata.md §4.4)', () => {
  const table: [string, string, NfoInfo | null, MovieMatch | null][] = [
    ['NFO TMDb id', 'Some Film (2000).mkv', nfo({ tmdbId: 603 }), { movieId: 1, reason: 'nfo_tmdb_id' }],
    [
      'NFO TMDb id beats the name tag',
      'Heat (1995) [tmdbid-949].mkv',
      nfo({ tmdbId: 603 }),
      { movieId: 1, reason: 'nfo_tmdb_id' },
    ],
    [
      'TMDb tag in the file name',
      'Whatever (2000) [tmdbid-949].mkv',
      null,
      { movieId: 2, reason: 'tmdb_id' },
    ],
    ['TMDb tag in the folder', 'Heat (1995) {tmdb-949}/movie.mkv', null, { movieId: 2, reason: 'tmdb_id' }],
    ['NFO IMDb id', 'x.mkv', nfo({ imdbId: 'tt0211915' }), { movieId: 3, reason: 'nfo_imdb_id' }],
    ['IMDb tag in the name', 'Film (2001) [imdbid-tt0211915].mkv', null, { movieId: 3, reason: 'imdb_id' }],
    ['IMDb tag, upper-case', 'Film (2001) [imdbid-TT0211915].mkv', null, { movieId: 3, reason: 'imdb_id' }],
    ['TMDb beats IMDb', 'Film [tmdbid-949] [imdbid-tt0133093].mkv', null, { movieId: 2, reason: 'tmdb_id' }],
    [
      'title and year',
      'Movies/Heat (1995)/Heat (1995) - 1080p.mkv',
      null,
      { movieId: 2, reason: 'title_year' },
    ],
    [
      'scene name, article and case ignored',
      'The.Matrix.1999.1080p.BluRay.x264-GROUP.mkv',
      null,
      { movieId: 1, reason: 'title_year' },
    ],
    ['accents ignored', 'Amélie (2001)/Amélie (2001).mkv', null, { movieId: 3, reason: 'title_year' }],
    ['remakes told apart by year', 'The Thing (2011).mkv', null, { movieId: 6, reason: 'title_year' }],
    ['year in the title', 'Blade Runner 2049 (2017).mkv', null, { movieId: 7, reason: 'title_year' }],
    ['no ±1 year: off by one is left to the TMDb search', 'Heat (1996).mkv', null, null],
    ['title alone, unique', 'Heat.mkv', null, { movieId: 2, reason: 'title_only_unique' }],
    ['title alone, ambiguous (two remakes)', 'The Thing.mkv', null, null],
    [
      'the file has a year, the movie has none',
      'Seven Samurai (1954).mkv',
      null,
      { movieId: 4, reason: 'title_only_unique' },
    ],
    [
      'NFO title and year are used too',
      'movie.mkv',
      nfo({ title: 'Heat', year: 1995 }),
      { movieId: 2, reason: 'title_year' },
    ],
    [
      'an unknown TMDb id never attaches to a movie with another TMDb id',
      'Heat (1995) [tmdbid-12345].mkv',
      null,
      null,
    ],
    [
      'an unknown TMDb id may attach to a same title+year movie without one',
      'Blade Runner 2049 (2017) [tmdbid-335984].mkv',
      null,
      { movieId: 7, reason: 'title_year' },
    ],
    [
      'an IMDb match is refused when the TMDb ids contradict',
      'Film [tmdbid-42] [imdbid-tt0133093].mkv',
      null,
      null,
    ],
    ['nothing known', 'Unknown.Film.2020.1080p.mkv', null, null],
    ['Dune (2021) is not Dune (1984)', 'Dune (2021).mkv', null, null],
  ];
  for (const [name, path, nfoInfo, expected] of table) {
    it(name, () => assert.deepEqual(matchMovie(parseMoviePath(path), nfoInfo, library), expected));
  }

  it('several movies with one title and year are ambiguous', () => {
    const twins: MatchCandidate[] = [
      { id: 1, tmdbId: null, imdbId: null, normalizedTitle: 'heat', year: 1995 },
      { id: 2, tmdbId: null, imdbId: null, normalizedTitle: 'heat', year: 1995 },
    ];
    assert.equal(matchMovie(parseMoviePath('Heat (1995).mkv'), null, twins), null);
  });
  it('an empty library matches nothing', () => {
    assert.equal(matchMovie(parseMoviePath('Heat (1995) [tmdbid-949].mkv'), null, []), null);
  });
});

interface ScannedFile extends GroupableFile {
  path: string;
}

const scanned = (path: string, nfoInfo: NfoInfo | null = null): ScannedFile => ({
  path,
  parsed: parseMoviePath(path),
  nfo: nfoInfo,
});

const shape = (files: readonly ScannedFile[]) =>
  groupEditions(files).map((g) => ({
    title: g.title,
    year: g.year,
    tmdbId: g.tmdbId,
    imdbId: g.imdbId,
    editions: g.editions.map((e) => ({ label: e.label, paths: e.files.map((f) => f.path) })),
  }));

describe('groupEditions', () => {
  it('makes one movie with one edition per version, Jellyfin order', () => {
    const files = [
      scanned("Heat (1995)/Heat (1995) - Director's Cut.mkv"),
      scanned('Heat (1995)/Heat (1995) - 720p.mkv'),
      scanned('Heat (1995)/Heat (1995) - 2160p.mkv'),
      scanned('Heat (1995)/Heat (1995).mkv'),
    ];
    assert.deepEqual(shape(files), [
      {
        title: 'Heat',
        year: 1995,
        tmdbId: null,
        imdbId: null,
        editions: [
          { label: null, paths: ['Heat (1995)/Heat (1995).mkv'] },
          { label: '2160p', paths: ['Heat (1995)/Heat (1995) - 2160p.mkv'] },
          { label: '720p', paths: ['Heat (1995)/Heat (1995) - 720p.mkv'] },
          { label: "Director's Cut", paths: ["Heat (1995)/Heat (1995) - Director's Cut.mkv"] },
        ],
      },
    ]);
  });

  it('stacks parts of one version into one edition, sorted by part', () => {
    const files = [
      scanned('Lawrence of Arabia (1962)/Lawrence of Arabia (1962) - cd2.avi'),
      scanned('Lawrence of Arabia (1962)/Lawrence of Arabia (1962) - cd1.avi'),
      scanned('Lawrence of Arabia (1962)/Lawrence of Arabia (1962) - 1080p.mkv'),
    ];
    assert.deepEqual(shape(files)[0]?.editions, [
      {
        label: null,
        paths: [
          'Lawrence of Arabia (1962)/Lawrence of Arabia (1962) - cd1.avi',
          'Lawrence of Arabia (1962)/Lawrence of Arabia (1962) - cd2.avi',
        ],
      },
      { label: '1080p', paths: ['Lawrence of Arabia (1962)/Lawrence of Arabia (1962) - 1080p.mkv'] },
    ]);
  });

  it('joins by id across different names, and by title+year', () => {
    const files = [
      scanned(
        'Blade Runner 2049 (2017) [tmdbid-335984]/Blade Runner 2049 (2017) [tmdbid-335984] - 2160p.mkv',
      ),
      scanned('Blade.Runner.2049.2017.1080p.BluRay.x264-GRP.mkv'),
      scanned('BR2049/movie.mkv', nfo({ tmdbId: 335984 })),
      scanned('The.Matrix.1999.1080p.BluRay.x264-GROUP.mkv'),
      scanned('The Matrix (1999)/The Matrix (1999) - 720p.mkv'),
    ];
    const groups = shape(files);
    assert.equal(groups.length, 2);
    assert.deepEqual(
      groups.map((g) => [g.title, g.year, g.tmdbId, g.editions.length]),
      [
        ['Blade Runner 2049', 2017, 335984, 3],
        ['The Matrix', 1999, null, 2],
      ],
    );
  });

  it('never merges files whose ids contradict', () => {
    const files = [
      scanned('The Thing (1982) [tmdbid-1091].mkv'),
      scanned('The Thing (1982) [tmdbid-99999].mkv'),
      scanned('The Thing (1982).mkv'),
    ];
    const groups = shape(files);
    assert.deepEqual(
      groups.map((g) => [g.tmdbId, g.editions.flatMap((e) => e.paths)]),
      [
        [1091, ['The Thing (1982) [tmdbid-1091].mkv', 'The Thing (1982).mkv']],
        [99999, ['The Thing (1982) [tmdbid-99999].mkv']],
      ],
    );
  });

  it('keeps remakes and different titles apart', () => {
    const files = [
      scanned('The Thing (1982).mkv'),
      scanned('The Thing (2011).mkv'),
      scanned('Heat (1995).mkv'),
    ];
    assert.deepEqual(
      shape(files).map((g) => [g.title, g.year]),
      [
        ['The Thing', 1982],
        ['The Thing', 2011],
        ['Heat', 1995],
      ],
    );
  });

  it('returns nothing for nothing', () => assert.deepEqual(groupEditions([]), []));
});
