/**
 * Measures how movie files named the way people name them come out of the scan's naming rules, against
 * the expectations of Jellyfin's own naming tests. Not part of `npm test`; run it by hand:
 *
 *   node --import tsx scripts/naming-check.ts [--verbose]
 *
 * Each case is laid out as empty files in a temporary library, walked with the scan's real directory
 * walker and then put through the same pure decisions the scan makes for a fresh library (extraKind →
 * parseMoviePaths → groupEditions). No ffprobe: naming never needs it.
 *
 * The cases are transcribed (inputs and expected outcomes only, no code) from jellyfin/jellyfin,
 * tests/Jellyfin.Naming.Tests/Video/{CleanDateTimeTests,CleanStringTests,VideoResolverTests,ExtraTests,
 * StackTests,VideoListResolverTests,MultiVersionTests}.cs (GPL-2.0; commit c3ed1407ca69). Absolute paths
 * become library-relative (`/movies/X/Y.mkv` → `X/Y.mkv`), names without an extension get `.mkv`, folder
 * stacks hold a `VIDEO_TS/VIDEO_TS.IFO`. Episode/anime cases and `.disc` stubs are left out (TV is not a
 * movie library; stubs are not supported). Cases where reelshelf deviates from Jellyfin on purpose are
 * marked `deviation` and counted apart (docs/naming.md explains each).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { walkDirectory } from '../server/src/adapters/directory-walker.ts';
import { type MovieGroup, groupEditions } from '../server/src/domain/scan/match.ts';
import {
  type ParsedMovieName,
  parseMoviePath,
  parseMoviePaths,
} from '../server/src/domain/scan/parse-name.ts';
import {
  extraKind,
  isIgnoreMarker,
  isSkippedEntryName,
  isVideoFile,
} from '../server/src/domain/scan/video-files.ts';
import { normalizeTitle } from '../server/src/domain/titles.ts';

interface TitleCase {
  kind: 'title';
  source: string;
  file: string;
  title: string;
  /** Omitted when the Jellyfin test does not assert the year. */
  year?: number | null;
  deviation?: string;
}

interface ExtraCase {
  kind: 'extra';
  source: string;
  file: string;
  extra: boolean;
  deviation?: string;
}

interface GroupCase {
  kind: 'group';
  source: string;
  files: string[];
  /** Movies (non-extra results). */
  movies?: number;
  /** Files that must be recognised as extras; every other file must not be. */
  extras?: string[];
  /** Each list must be exactly one edition (a stack of parts). */
  stacks?: string[][];
  /** No edition holds more than one file. */
  noStacks?: boolean;
  /** [a file, how many editions its movie has]. */
  versions?: [string, number];
  deviation?: string;
}

type Case = TitleCase | ExtraCase | GroupCase;

const t = (source: string, file: string, title: string, year?: number | null): TitleCase => ({
  kind: 'title',
  source,
  file,
  title,
  ...(year === undefined ? {} : { year }),
});
const x = (source: string, file: string, extra: boolean, deviation?: string): ExtraCase => ({
  kind: 'extra',
  source,
  file,
  extra,
  ...(deviation === undefined ? {} : { deviation }),
});
const g = (
  source: string,
  files: string[],
  expect: Omit<GroupCase, 'kind' | 'source' | 'files'>,
): GroupCase => ({
  kind: 'group',
  source,
  files,
  ...expect,
});
const range = (n: number, make: (i: number) => string): string[] =>
  Array.from({ length: n }, (_v, i) => make(i + 1));

const CDT = 'CleanDateTimeTests';
const CS = 'CleanStringTests';
const VR = 'VideoResolverTests';
const EX = 'ExtraTests';
const ST = 'StackTests';
const VLR = 'VideoListResolverTests';
const MV = 'MultiVersionTests';

const EXTRA_DIRS = [
  'behind the scenes',
  'deleted scenes',
  'interviews',
  'scenes',
  'samples',
  'shorts',
  'trailers',
  'featurettes',
  'clips',
  'backdrops',
  'extra',
  'extras',
  'other',
];

const CASES: Case[] = [
  // --- titles and years
  t(CDT, 'The Wolf of Wall Street (2013).mkv', 'The Wolf of Wall Street', 2013),
  t(CDT, 'The Wolf of Wall Street 2 (2013).mkv', 'The Wolf of Wall Street 2', 2013),
  t(CDT, 'The Wolf of Wall Street - 2 (2013).mkv', 'The Wolf of Wall Street - 2', 2013),
  t(CDT, 'The Wolf of Wall Street 2001 (2013).mkv', 'The Wolf of Wall Street 2001', 2013),
  t(CDT, '300 (2006).mkv', '300', 2006),
  t(CDT, '300 2 (2006).mkv', '300 2', 2006),
  t(CDT, '300 - 2 (2006).mkv', '300 - 2', 2006),
  t(CDT, '300 2001 (2006).mkv', '300 2001', 2006),
  t(CDT, 'curse.of.chucky.2013.stv.unrated.multi.1080p.bluray.x264-rough.mkv', 'curse of chucky', 2013),
  t(CDT, 'curse.of.chucky.2013.stv.unrated.multi.2160p.bluray.x264-rough.mkv', 'curse of chucky', 2013),
  t(CDT, 'Arrival.2016.2160p.Blu-Ray.HEVC.mkv', 'Arrival', 2016),
  t(CDT, 'American.Psycho.mkv', 'American Psycho', null),
  t(CDT, 'American Psycho.mkv', 'American Psycho', null),
  t(CDT, '[rec].mkv', '[rec]', null),
  t(CDT, 'St. Vincent (2014).mkv', 'St. Vincent', 2014),
  t(CDT, 'Super movie(2009).mp4', 'Super movie', 2009),
  t(CDT, 'Drug War 2013.mp4', 'Drug War', 2013),
  t(CDT, 'My Movie (1997) - GreatestReleaseGroup 2019.mp4', 'My Movie', 1997),
  t(CDT, 'First Man 2018 1080p.mkv', 'First Man', 2018),
  t(CDT, 'First Man (2018) 1080p.mkv', 'First Man', 2018),
  t(CDT, 'Maximum Ride - 2016 - WEBDL-1080p - x264 AC3.mkv', 'Maximum Ride', 2016),
  t(CDT, '3.Days.to.Kill.2014.720p.BluRay.x264.YIFY.mkv', '3 Days to Kill', 2014),
  t(CDT, '3 days to kill (2005).mkv', '3 days to kill', 2005),
  t(CDT, 'Rain Man 1988 REMASTERED 1080p BluRay x264 AAC - Ozlem.mp4', 'Rain Man', 1988),
  t(CDT, 'My Movie 2013.12.09.mkv', 'My Movie 2013.12.09', null),
  t(CDT, 'My Movie 2013-12-09.mkv', 'My Movie 2013-12-09', null),
  t(CDT, 'My Movie 20131209.mkv', 'My Movie 20131209', null),
  t(CDT, 'My Movie 2013-12-09 2013.mkv', 'My Movie 2013-12-09', 2013),
  t(CS, 'Super movie 480p.mp4', 'Super movie'),
  t(CS, 'Super movie Multi.mp4', 'Super movie'),
  t(CS, 'Super movie 480p 2001.mp4', 'Super movie'),
  t(CS, 'Super movie [480p].mp4', 'Super movie'),
  t(CS, '480 Super movie [tmdbid=12345].mp4', '480 Super movie'),
  t(CS, 'Crouching.Tiger.Hidden.Dragon.4k.mkv', 'Crouching Tiger Hidden Dragon'),
  t(CS, 'Crouching.Tiger.Hidden.Dragon.UltraHD.mkv', 'Crouching Tiger Hidden Dragon'),
  t(CS, 'Crouching.Tiger.Hidden.Dragon.UHD.mkv', 'Crouching Tiger Hidden Dragon'),
  t(CS, 'Crouching.Tiger.Hidden.Dragon.HDR.mkv', 'Crouching Tiger Hidden Dragon'),
  t(CS, 'Crouching.Tiger.Hidden.Dragon.HDC.mkv', 'Crouching Tiger Hidden Dragon'),
  t(CS, 'Crouching.Tiger.Hidden.Dragon-HDC.mkv', 'Crouching Tiger Hidden Dragon'),
  t(CS, 'Crouching.Tiger.Hidden.Dragon.BDrip.mkv', 'Crouching Tiger Hidden Dragon'),
  t(CS, 'Crouching.Tiger.Hidden.Dragon.BDrip-HDC.mkv', 'Crouching Tiger Hidden Dragon'),
  t(CS, 'Crouching.Tiger.Hidden.Dragon.4K.UltraHD.HDR.BDrip-HDC.mkv', 'Crouching Tiger Hidden Dragon'),
  t(CS, 'Last.Call.for.Nowhere.WEB-DL.1080p.mkv', 'Last Call for Nowhere'),
  t(CS, 'Run lola run (lola rennt) (2009).mp4', 'Run lola run (lola rennt)', 2009),
  t(VR, '7 Psychos.mkv/7 Psychos.mkv', '7 Psychos', null),
  t(VR, '3 days to kill (2005)/3 days to kill (2005).mkv', '3 days to kill', 2005),
  t(VR, 'American Psycho/American.Psycho.mkv', 'American Psycho', null),
  t(VR, 'brave (2006).3d.sbs.mkv', 'brave', 2006),
  t(VR, '300 (2006).3d1.sbas.mkv', '300', 2006),
  t(VR, '300 (2006).3d.sbs.mkv', '300', 2006),
  t(VR, 'Bad Boys (1995)/Bad Boys (1995).mkv', 'Bad Boys', 1995),
  t(
    VR,
    'Rain Man 1988 REMASTERED 1080p BluRay x264 AAC - JEFF/Rain Man 1988 REMASTERED 1080p BluRay x264 AAC - JEFF.mp4',
    'Rain Man',
    1988,
  ),

  // --- extras
  x(EX, 'trailer.mp4', true),
  x(EX, '300-trailer.mp4', true),
  x(EX, '300.trailer.mp4', true),
  x(EX, '300_trailer.mp4', true),
  x(EX, '300 - trailer.mp4', true),
  x(EX, 'stuff trailerthings.mkv', false),
  ...[
    'scene',
    'scene2',
    'clip',
    'deleted',
    'deletedscene',
    'interview',
    'behindthescenes',
    'featurette',
    'short',
    'extra',
    'other',
  ].map((suffix) => x(EX, `300-${suffix}.mp4`, true)),
  ...EXTRA_DIRS.flatMap((dir) => [
    x(EX, `300/${dir}/something.mkv`, true),
    x(EX, `Movies/300/${dir}/whoknows.mp4`, true),
    x(EX, `${dir}/300.mp4`, true, 'a first-level folder is the user’s own grouping, never an extras folder'),
  ]),
  ...['gibberish', 'not a scene', 'The Big Short'].flatMap((dir) => [
    x(EX, `${dir}/300.mp4`, false),
    x(EX, `300/${dir}/something.mkv`, false),
    x(EX, `Movies/300/${dir}/whoknows.mp4`, false),
    x(EX, `Movies/${dir}/${dir}.mp4`, false),
  ]),
  x(EX, 'sample.mp4', true),
  x(EX, '300-sample.mp4', true),
  x(EX, '300.sample.mp4', true),
  x(EX, '300_sample.mp4', true),
  x(EX, '300 - sample.mp4', true),
  x(EX, 'I Live In A Trailer.mp4', false),
  x(EX, 'The DNA Sample.mp4', false),
  x(VR, '300 (2007)/300 (2006)-trailer.mkv', true),
  x(VR, 'Brave (2007)/Brave (2006)-trailer.mkv', true),

  // --- stacks
  g(ST, [...range(4, (i) => `Bad Boys (2006) part${i}.mkv`), 'Bad Boys (2006)-trailer.mkv'], {
    stacks: [range(4, (i) => `Bad Boys (2006) part${i}.mkv`)],
    extras: ['Bad Boys (2006)-trailer.mkv'],
  }),
  g(ST, ['Bad Boys (2006).mkv', 'Bad Boys (2007).mkv'], { movies: 2, noStacks: true }),
  g(ST, ['Bad Boys 2006.mkv', 'Bad Boys 2007.mkv'], { movies: 2, noStacks: true }),
  g(ST, ['300 (2006).mkv', '300 (2007).mkv'], { movies: 2, noStacks: true }),
  g(ST, ['300 2006.mkv', '300 2007.mkv'], { movies: 2, noStacks: true }),
  g(ST, ['Star Trek 1 - The motion picture.mkv', 'Star Trek 2- The wrath of khan.mkv'], {
    movies: 2,
    noStacks: true,
  }),
  g(
    ST,
    ['1983', '1980', '1974'].map((y) => `Red Riding in the Year of Our Lord ${y} (2009).mkv`),
    {
      movies: 3,
      noStacks: true,
    },
  ),
  g(ST, ['300 2006 part1.mkv', '300 2006 part2.mkv'], {
    stacks: [['300 2006 part1.mkv', '300 2006 part2.mkv']],
  }),
  g(
    ST,
    [
      ...range(4, (i) => `Bad Boys (2006).part${i}.stv.unrated.multi.1080p.bluray.x264-rough.mkv`),
      'Bad Boys (2006)-trailer.mkv',
    ],
    { noStacks: true, extras: ['Bad Boys (2006)-trailer.mkv'] },
  ),
  g(
    ST,
    ['Bad Boys (2006).mkv', ...range(3, (i) => `Bad Boys (2006) ${i}.mkv`), 'Bad Boys (2006)-trailer.mkv'],
    { noStacks: true, extras: ['Bad Boys (2006)-trailer.mkv'] },
  ),
  g(ST, [...range(4, (i) => `300 (2006) part${i}.mkv`), '300 (2006)-trailer.mkv'], {
    stacks: [range(4, (i) => `300 (2006) part${i}.mkv`)],
    extras: ['300 (2006)-trailer.mkv'],
  }),
  g(
    ST,
    [
      ...range(3, (i) => `Bad Boys (2006) part${i}.mkv`),
      'Bad Boys (2006) parta.mkv',
      'Bad Boys (2006)-trailer.mkv',
    ],
    {
      stacks: [range(3, (i) => `Bad Boys (2006) part${i}.mkv`)],
      extras: ['Bad Boys (2006)-trailer.mkv'],
    },
  ),
  g(
    ST,
    [
      ...range(4, (i) => `Bad Boys (2006) part${i}.mkv`),
      'Bad Boys (2006)-trailer.mkv',
      ...range(3, (i) => `300 (2006) part${i}.mkv`),
      '300 (2006)-trailer.mkv',
    ],
    {
      stacks: [range(4, (i) => `Bad Boys (2006) part${i}.mkv`), range(3, (i) => `300 (2006) part${i}.mkv`)],
      extras: ['Bad Boys (2006)-trailer.mkv', '300 (2006)-trailer.mkv'],
    },
  ),
  g(ST, ['blah blah - cd 1/VIDEO_TS/VIDEO_TS.IFO', 'blah blah - cd 2/VIDEO_TS/VIDEO_TS.IFO'], {
    stacks: [['blah blah - cd 1/VIDEO_TS/VIDEO_TS.IFO', 'blah blah - cd 2/VIDEO_TS/VIDEO_TS.IFO']],
  }),
  g(ST, ['300a.mkv', '300b.mkv', '300c.mkv', '300-trailer.mkv'], {
    movies: 3,
    noStacks: true,
    extras: ['300-trailer.mkv'],
  }),
  g(ST, ['300 part1.mkv', '300 part2.mkv', ...range(3, (i) => `Avengers part${i}.mkv`)], {
    stacks: [['300 part1.mkv', '300 part2.mkv'], range(3, (i) => `Avengers part${i}.mkv`)],
  }),
  g(
    ST,
    [
      ...range(4, (i) => `Bad Boys (2006) part${i}.mkv`),
      'Bad Boys (2006)-trailer.mkv',
      ...['a', 'b', 'c', 'd'].map((l) => `300 (2006) part${l}.mkv`),
      '300 (2006)-trailer.mkv',
      '300a.mkv',
      '300b.mkv',
      '300c.mkv',
      '300-trailer.mkv',
    ],
    {
      stacks: [
        ['a', 'b', 'c', 'd'].map((l) => `300 (2006) part${l}.mkv`),
        range(4, (i) => `Bad Boys (2006) part${i}.mkv`),
      ],
      extras: ['Bad Boys (2006)-trailer.mkv', '300 (2006)-trailer.mkv', '300-trailer.mkv'],
    },
  ),
  g(
    ST,
    [...['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((l) => `300 (2006) part${l}.mkv`), '300 (2006)-trailer.mkv'],
    {
      stacks: [['a', 'b', 'c', 'd'].map((l) => `300 (2006) part${l}.mkv`)],
      extras: ['300 (2006)-trailer.mkv'],
    },
  ),
  g(
    ST,
    [
      'Bad Boys (2006) part1.mkv',
      'Bad Boys (2006) part2.mkv',
      ...range(3, (i) => `300 (2006) part${i}/VIDEO_TS/VIDEO_TS.IFO`),
    ],
    {
      stacks: [
        range(3, (i) => `300 (2006) part${i}/VIDEO_TS/VIDEO_TS.IFO`),
        ['Bad Boys (2006) part1.mkv', 'Bad Boys (2006) part2.mkv'],
      ],
    },
  ),
  g(
    ST,
    [
      'Harry Potter and the Deathly Hallows.mkv',
      ...range(4, (i) => `Harry Potter and the Deathly Hallows ${i}.mkv`),
    ],
    { noStacks: true },
  ),
  g(
    ST,
    range(2, (i) => `Neverland (2011)[720p][PG][Voted 6.5][Family-Fantasy]part${i}.mkv`),
    {
      stacks: [range(2, (i) => `Neverland (2011)[720p][PG][Voted 6.5][Family-Fantasy]part${i}.mkv`)],
    },
  ),
  g(
    ST,
    range(2, (i) => `The Sound of Music/The Sound of Music (1965) (Disc 0${i})/VIDEO_TS/VIDEO_TS.IFO`),
    {
      stacks: [
        range(2, (i) => `The Sound of Music/The Sound of Music (1965) (Disc 0${i})/VIDEO_TS/VIDEO_TS.IFO`),
      ],
    },
  ),

  // --- lists: stacks, extras and versions together
  g(
    VLR,
    [
      'Harry Potter and the Deathly Hallows-trailer.mkv',
      'Harry Potter and the Deathly Hallows.trailer.mkv',
      ...range(4, (i) => `Harry Potter and the Deathly Hallows part${i}.mkv`),
      'Batman-deleted.mkv',
      'Batman-sample.mkv',
      'Batman-trailer.mkv',
      ...range(3, (i) => `Batman part${i}.mkv`),
      'Avengers.mkv',
      'Avengers-trailer.mkv',
      'trailer.mkv',
      'WillyWonka-trailer.mkv',
    ],
    {
      movies: 3,
      stacks: [
        range(4, (i) => `Harry Potter and the Deathly Hallows part${i}.mkv`),
        range(3, (i) => `Batman part${i}.mkv`),
      ],
      extras: [
        'Harry Potter and the Deathly Hallows-trailer.mkv',
        'Harry Potter and the Deathly Hallows.trailer.mkv',
        'Batman-deleted.mkv',
        'Batman-sample.mkv',
        'Batman-trailer.mkv',
        'Avengers-trailer.mkv',
        'trailer.mkv',
        'WillyWonka-trailer.mkv',
      ],
    },
  ),
  g(VLR, ['300.mkv'], { movies: 1 }),
  g(VLR, ['300.mkv', '300 - trailer.mkv'], { movies: 1, extras: ['300 - trailer.mkv'] }),
  g(VLR, ['X-Men Days of Future Past - 1080p.mkv', 'X-Men Days of Future Past-trailer.mp4'], {
    movies: 1,
    extras: ['X-Men Days of Future Past-trailer.mp4'],
  }),
  g(
    VLR,
    [
      'X-Men Days of Future Past - 1080p.mkv',
      'X-Men Days of Future Past-trailer.mp4',
      'X-Men Days of Future Past-trailer2.mp4',
    ],
    {
      movies: 1,
      extras: ['X-Men Days of Future Past-trailer.mp4', 'X-Men Days of Future Past-trailer2.mp4'],
    },
  ),
  g(VLR, ['Looper (2012)-trailer.mkv', 'Looper 2012-trailer.mkv', 'Looper.2012.bluray.720p.x264.mkv'], {
    movies: 1,
    extras: ['Looper (2012)-trailer.mkv', 'Looper 2012-trailer.mkv'],
  }),
  g(VLR, ['Looper (2012)/Looper (2012)-trailer.mkv', 'Looper (2012)/Looper.bluray.720p.x264.mkv'], {
    movies: 1,
    extras: ['Looper (2012)/Looper (2012)-trailer.mkv'],
  }),
  g(
    VLR,
    range(5, (i) => `My video ${i}.mkv`),
    { movies: 5 },
  ),
  g(
    VLR,
    range(2, (i) => `Sound of Music (1965)/Sound of Music Disc ${i}/VIDEO_TS/VIDEO_TS.IFO`),
    { movies: 1 },
  ),
  g(VLR, ['My movie #1.mp4', 'My movie #2.mp4'], { movies: 2 }),
  g(
    VLR,
    ['No (2012) part1.mp4', 'No (2012) part2.mp4', 'No (2012) part1-trailer.mp4', 'No (2012)-trailer.mp4'],
    {
      movies: 1,
      stacks: [['No (2012) part1.mp4', 'No (2012) part2.mp4']],
      extras: ['No (2012) part1-trailer.mp4', 'No (2012)-trailer.mp4'],
    },
  ),
  g(
    VLR,
    [
      'Top Gun (1984)/movie.mp4',
      'Top Gun (1984)/Top Gun (1984)-trailer.mp4',
      'Top Gun (1984)/Top Gun (1984)-trailer2.mp4',
      'trailer.mp4',
    ],
    {
      movies: 1,
      extras: [
        'Top Gun (1984)/Top Gun (1984)-trailer.mp4',
        'Top Gun (1984)/Top Gun (1984)-trailer2.mp4',
        'trailer.mp4',
      ],
    },
  ),
  // TestDoubleTags, with a neutral title in place of the original.
  g(
    VLR,
    [
      'Film In Class 2 Subtitle (2011)/Film In Class 2 Subtitle (2011) Disc 1 cd1.avi',
      'Film In Class 2 Subtitle (2011)/Film In Class 2 Subtitle (2011) Disc 1 cd2.avi',
      'Film In Class 2 Subtitle (2011)/Film In Class 2 Disc 2 cd1.avi',
      'Film In Class 2 Subtitle (2011)/Film In Class 2 Disc 2 cd2.avi',
    ],
    {
      stacks: [
        [
          'Film In Class 2 Subtitle (2011)/Film In Class 2 Subtitle (2011) Disc 1 cd1.avi',
          'Film In Class 2 Subtitle (2011)/Film In Class 2 Subtitle (2011) Disc 1 cd2.avi',
        ],
        [
          'Film In Class 2 Subtitle (2011)/Film In Class 2 Disc 2 cd1.avi',
          'Film In Class 2 Subtitle (2011)/Film In Class 2 Disc 2 cd2.avi',
        ],
      ],
    },
  ),
  g(VLR, ['Videos/INDEX HTPC/Movies/Watched/3 - ACTION/Argo (2012)/movie.mkv'], { movies: 1 }),
  g(VLR, ['The Colony.mkv'], { movies: 1 }),
  g(VLR, ['Four Sisters and a Wedding - A.avi', 'Four Sisters and a Wedding - B.avi'], { movies: 2 }),
  g(VLR, ['Four Rooms - A.avi', 'Four Rooms - A.mp4'], { movies: 2 }),
  g(VLR, ['Despicable Me/Despicable Me (2010).mkv', 'Despicable Me/trailer.mkv'], {
    movies: 1,
    extras: ['Despicable Me/trailer.mkv'],
  }),
  g(VLR, ['Despicable Me/Despicable Me (2010).mkv', 'Despicable Me/trailers/some title.mkv'], {
    movies: 1,
    extras: ['Despicable Me/trailers/some title.mkv'],
  }),
  g(VLR, ['Despicable Me/Despicable Me.mkv', 'Despicable Me/trailers/trailer.mkv'], {
    movies: 1,
    extras: ['Despicable Me/trailers/trailer.mkv'],
  }),

  // --- versions
  g(
    MV,
    ['- 1080p.mkv', '-trailer.mp4', '- [hsbs].mkv', '[hsbs].mkv'].map(
      (rest) =>
        `X-Men Days of Future Past/X-Men Days of Future Past${rest.startsWith('-t') ? '' : ' '}${rest}`,
    ),
    { movies: 1, extras: ['X-Men Days of Future Past/X-Men Days of Future Past-trailer.mp4'] },
  ),
  g(
    MV,
    [
      'X-Men Days of Future Past/X-Men Days of Future Past - apple.mkv',
      'X-Men Days of Future Past/X-Men Days of Future Past-trailer.mp4',
      'X-Men Days of Future Past/X-Men Days of Future Past - banana.mkv',
      'X-Men Days of Future Past/X-Men Days of Future Past [banana].mp4',
    ],
    {
      movies: 1,
      extras: ['X-Men Days of Future Past/X-Men Days of Future Past-trailer.mp4'],
      versions: ['X-Men Days of Future Past/X-Men Days of Future Past - apple.mkv', 3],
    },
  ),
  g(
    MV,
    [
      'The Phantom of the Opera (1925)/The Phantom of the Opera (1925) - 1925 version.mkv',
      'The Phantom of the Opera (1925)/The Phantom of the Opera (1925) - 1929 version.mkv',
    ],
    {
      movies: 1,
      versions: ['The Phantom of the Opera (1925)/The Phantom of the Opera (1925) - 1925 version.mkv', 2],
    },
  ),
  g(
    MV,
    range(7, (i) => `M/Movie ${i}.mkv`),
    { movies: 7 },
  ),
  g(MV, ['Movie/Movie.mkv', ...range(7, (i) => `Movie/Movie-${i + 1}.mkv`)], {
    movies: 1,
    versions: ['Movie/Movie.mkv', 8],
  }),
  g(
    MV,
    range(9, (i) => `Mo/Movie ${i}.mkv`),
    { movies: 9 },
  ),
  g(
    MV,
    range(5, (i) => `Movie/Movie ${i}.mkv`),
    { movies: 5 },
  ),
  g(MV, ['Iron Man/Iron Man.mkv', ...range(4, (i) => `Iron Man/Iron Man (${2007 + i}).mkv`)], { movies: 5 }),
  ...[
    ['-720p', '-test', '-bluray', '-3d', '-3d-hsbs', '[test]'],
    [' - 720p', ' - test', ' - bluray', ' - 3d', ' - 3d-hsbs', ' [test]'],
    ['_720p', '_test', '_bluray', '_3d', '_3d-hsbs', '_3d.hsbs'],
  ].map((suffixes) =>
    g(MV, ['Iron Man/Iron Man.mkv', ...suffixes.map((s) => `Iron Man/Iron Man${s}.mkv`)], {
      movies: 1,
      versions: ['Iron Man/Iron Man.mkv', 7],
    }),
  ),
  g(MV, ['Iron Man/Iron Man - B (2006).mkv', 'Iron Man/Iron Man - C (2007).mkv'], { movies: 2 }),
  g(
    MV,
    range(5, (i) => `Iron Man/Iron Man (${2006 + i}).mkv`),
    { movies: 5 },
  ),
  g(
    MV,
    [
      'Blade Runner (1982)/Blade Runner (1982) [Final Cut] [1080p HEVC AAC].mkv',
      'Blade Runner (1982)/Blade Runner (1982) [EE by ADM] [480p HEVC AAC,AAC,AAC].mkv',
    ],
    { movies: 1, versions: ['Blade Runner (1982)/Blade Runner (1982) [Final Cut] [1080p HEVC AAC].mkv', 2] },
  ),
  g(
    MV,
    [
      'X-Men Apocalypse (2016)/X-Men Apocalypse (2016) [1080p] Blu-ray.x264.DTS.mkv',
      'X-Men Apocalypse (2016)/X-Men Apocalypse (2016) [2160p] Blu-ray.x265.AAC.mkv',
    ],
    {
      movies: 1,
      versions: ['X-Men Apocalypse (2016)/X-Men Apocalypse (2016) [1080p] Blu-ray.x264.DTS.mkv', 2],
    },
  ),
  g(
    MV,
    ['', ' - Theatrical Release', ' - Directors Cut', ' - 1080p', ' - 2160p', ' - 720p'].map(
      (s) => `X-Men Apocalypse (2016)/X-Men Apocalypse (2016)${s}.mkv`,
    ),
    { movies: 1, versions: ['X-Men Apocalypse (2016)/X-Men Apocalypse (2016).mkv', 6] },
  ),
  g(
    MV,
    [
      '',
      ' - Theatrical Release',
      ' - Directors Cut',
      ' - 1080p',
      ' - 2160p',
      ' - 1080p Directors Cut',
      ' - 2160p Remux',
      ' - 1080p Theatrical Release',
      ' - 720p',
      ' - 1080p Remux',
      ' - 720p Directors Cut',
      ' - 1080p High Bitrate',
    ].map((s) => `X-Men Apocalypse (2016)/X-Men Apocalypse (2016)${s}.mkv`),
    { movies: 1, versions: ['X-Men Apocalypse (2016)/X-Men Apocalypse (2016).mkv', 12] },
  ),
  g(
    MV,
    range(
      2,
      (i) =>
        `John Wick - Kapitel 3 (2019) [imdbid=tt6146586]/John Wick - Kapitel 3 (2019) [imdbid=tt6146586] - Version ${i}.mkv`,
    ),
    {
      movies: 1,
      versions: [
        'John Wick - Kapitel 3 (2019) [imdbid=tt6146586]/John Wick - Kapitel 3 (2019) [imdbid=tt6146586] - Version 1.mkv',
        2,
      ],
    },
  ),
  g(
    MV,
    [
      'John Wick - Chapter 3 (2019)/John Wick - Chapter 3 (2019) [Version 1].mkv',
      'John Wick - Chapter 3 (2019)/John Wick - Chapter 3 (2019) [Version 2.mkv',
    ],
    { movies: 2 },
  ),
  g(MV, ['Movie (2020)/Movie (2020)_4K.mkv', 'Movie (2020)/Movie (2020)_1080p.mkv'], {
    movies: 1,
    versions: ['Movie (2020)/Movie (2020)_4K.mkv', 2],
  }),
  g(MV, ['Movie (2020)/Movie (2020).UHD.mkv', 'Movie (2020)/Movie (2020).1080p.mkv'], {
    movies: 1,
    versions: ['Movie (2020)/Movie (2020).UHD.mkv', 2],
  }),
  ...[' part', ' - part', '.pt', '-part'].map((sep) =>
    g(
      MV,
      range(2, (i) => `Movie/Movie${sep}${i}.mkv`),
      {
        movies: 1,
        stacks: [range(2, (i) => `Movie/Movie${sep}${i}.mkv`)],
      },
    ),
  ),
  g(MV, ['Movie/Movie-1080p-part1.mkv', 'Movie/Movie-1080p-part2.mkv', 'Movie/Movie-720p.mkv'], {
    movies: 1,
    stacks: [['Movie/Movie-1080p-part1.mkv', 'Movie/Movie-1080p-part2.mkv']],
    versions: ['Movie/Movie-720p.mkv', 2],
  }),
  g(
    MV,
    [
      'Inception (2010)/Inception (2010).mkv',
      'Inception (2010)/Inception (2010) - 4k part1.mkv',
      'Inception (2010)/Inception (2010) - 4k part2.mkv',
    ],
    {
      movies: 1,
      stacks: [
        [
          'Inception (2010)/Inception (2010) - 4k part1.mkv',
          'Inception (2010)/Inception (2010) - 4k part2.mkv',
        ],
      ],
      versions: ['Inception (2010)/Inception (2010).mkv', 2],
    },
  ),
];

interface FileResult {
  path: string;
  parsed: ParsedMovieName;
}

interface Outcome {
  extras: Set<string>;
  groups: MovieGroup<FileResult>[];
}

/** Lays the files out in a fresh temporary library and runs the scan's naming decisions over them. */
async function scanLayout(files: readonly string[]): Promise<Outcome> {
  const root = mkdtempSync(join(tmpdir(), 'reelshelf-naming-'));
  try {
    for (const file of files) {
      mkdirSync(dirname(join(root, file)), { recursive: true });
      writeFileSync(join(root, file), '');
    }
    const walk = await walkDirectory(root, {
      keepFile: (_rel, name) => isVideoFile(name),
      skipEntry: isSkippedEntryName,
      isIgnoreMarker,
      links: { followSymlinks: true, dataDir: null },
    });
    const extras = new Set<string>();
    const main: FileResult[] = [];
    // Walk order is not the input order; the scan's grouping takes the input order for titles only.
    const order = new Map(files.map((f, i) => [f, i]));
    const found = walk.files
      .map((f) => f.relativePath)
      .sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
    // Each name is read knowing the other videos of its folder, as the scan reads them.
    const parsedByPath = parseMoviePaths(found);
    for (const path of found) {
      if (extraKind(path) !== null) extras.add(path);
      else main.push({ path, parsed: parsedByPath.get(path) ?? parseMoviePath(path) });
    }
    return { extras, groups: groupEditions(main) };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const sameSet = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((item) => b.includes(item));

/** Why a case fails, or null when it comes out as Jellyfin's test expects. */
async function check(c: Case): Promise<string | null> {
  if (c.kind === 'title') {
    const parsed = parseMoviePath(c.file);
    const titleOk = normalizeTitle(parsed.title) === normalizeTitle(c.title);
    const yearOk = c.year === undefined || parsed.year === c.year;
    return titleOk && yearOk ? null : `got "${parsed.title}" (${parsed.year ?? '-'})`;
  }
  if (c.kind === 'extra') {
    const kind = extraKind(c.file);
    return (kind !== null) === c.extra ? null : `extraKind → ${kind ?? 'null'}`;
  }
  const { extras, groups } = await scanLayout(c.files);
  const problems: string[] = [];
  const wantedExtras = c.extras ?? [];
  if (!sameSet([...extras], wantedExtras)) problems.push(`extras ${JSON.stringify([...extras])}`);
  if (c.movies !== undefined && groups.length !== c.movies) problems.push(`${groups.length} movies`);
  const editions = groups.flatMap((group) => group.editions.map((e) => e.files.map((f) => f.path)));
  for (const stack of c.stacks ?? []) {
    if (!editions.some((e) => sameSet(e, stack))) problems.push(`no edition is ${JSON.stringify(stack)}`);
  }
  if (c.noStacks === true && editions.some((e) => e.length > 1)) problems.push('stacked');
  if (c.versions !== undefined) {
    const [file, count] = c.versions;
    const group = groups.find((gr) => gr.editions.some((e) => e.files.some((f) => f.path === file)));
    if (group?.editions.length !== count)
      problems.push(`${group?.editions.length ?? 0} editions, want ${count}`);
  }
  if (problems.length === 0) return null;
  const summary = groups.map(
    (gr) =>
      `${gr.title} (${gr.year ?? '-'}): ${gr.editions.map((e) => `[${e.label ?? ''}]×${e.files.length}`).join(' ')}`,
  );
  return `${problems.join('; ')} — got ${summary.join(' | ')}`;
}

const verbose = process.argv.includes('--verbose');
const tally = new Map<string, { pass: number; total: number }>();
let pass = 0;
let total = 0;
let deviationPass = 0;
let deviationTotal = 0;
for (const c of CASES) {
  const failure = await check(c);
  const label = c.kind === 'group' ? c.files.slice(0, 3).join(', ') : c.file;
  if (c.deviation !== undefined) {
    deviationTotal++;
    if (failure === null) deviationPass++;
    if (verbose) console.log(`  ~ ${c.source}: ${label} (deviation: ${c.deviation})`);
    continue;
  }
  total++;
  const entry = tally.get(c.source) ?? { pass: 0, total: 0 };
  entry.total++;
  if (failure === null) {
    pass++;
    entry.pass++;
  } else {
    console.log(
      `  ✗ ${c.source}: ${label}${c.kind === 'group' && c.files.length > 3 ? ', …' : ''}\n      ${failure}`,
    );
  }
  tally.set(c.source, entry);
}
console.log('');
for (const [source, { pass: p, total: n }] of tally) console.log(`${source.padEnd(24)} ${p}/${n}`);
console.log(
  `\nJellyfin movie naming cases as Jellyfin expects: ${pass}/${total} = ${((100 * pass) / total).toFixed(1)} %` +
    ` (plus ${deviationPass}/${deviationTotal} deliberate deviations, not counted)`,
);
