import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type CatalogueEntry,
  entryJson,
  entryOf,
  filterEntries,
  gatedFieldsOf,
  genreNumber,
  latestEntries,
  legacyFilters,
  selectionOf,
  similarEntries,
} from '../../../src/domain/jellyfin/catalogue.ts';
import type { MovieDto } from '../../../src/domain/jellyfin/dto.ts';
import { parseItemsQuery, sortItems } from '../../../src/domain/jellyfin/items-query.ts';

function dto(id: string, extra: Partial<MovieDto> = {}): MovieDto {
  return {
    Type: 'Movie',
    Id: id,
    ServerId: 'server',
    ParentId: 'view',
    Name: id,
    SortName: id,
    Overview: `About ${id}`,
    ProductionYear: 2000,
    PremiereDate: null,
    DateCreated: '2024-01-01T00:00:00.0000000Z',
    OfficialRating: 'PG',
    CommunityRating: null,
    CriticRating: null,
    Genres: [],
    People: [],
    Studios: [],
    RunTimeTicks: null,
    IsFolder: false,
    IsPlaceHolder: null,
    LocationType: 'FileSystem',
    MediaType: 'Video',
    VideoType: 'VideoFile',
    ImageTags: null,
    BackdropImageTags: [],
    PrimaryImageAspectRatio: null,
    MediaSources: null,
    UserData: {
      PlaybackPositionTicks: 0,
      PlayedPercentage: null,
      PlayCount: 0,
      IsFavorite: false,
      Played: false,
      LastPlayedDate: null,
      Key: id,
      ItemId: id,
    },
    ...extra,
  };
}

const userData = (over: Partial<MovieDto['UserData']>, id: string): MovieDto['UserData'] => ({
  ...dto(id).UserData,
  ...over,
});

const entries: CatalogueEntry[] = [
  entryOf(
    dto('a', {
      Genres: ['Action', 'Drama'],
      ProductionYear: 1999,
      CommunityRating: 7.8,
      UserData: userData({ PlaybackPositionTicks: 10, PlayedPercentage: 5 }, 'a'),
    }),
    { key: 'm1', movieId: 1, personIds: [7, 9], studioIds: [] },
  ),
  entryOf(
    dto('b', {
      Genres: ['Drama'],
      ProductionYear: 2004,
      CommunityRating: 6.1,
      OfficialRating: 'G',
      Studios: [{ Name: 'Village Roadshow', Id: 's3' }],
      UserData: userData({ Played: true, PlayCount: 1 }, 'b'),
    }),
    { key: 'm2', movieId: 2, personIds: [], studioIds: [3] },
  ),
  entryOf(
    dto('c', {
      Genres: ['Action'],
      ProductionYear: 2004,
      CommunityRating: 8.9,
      OfficialRating: 'R',
      DateCreated: '2024-03-01T00:00:00.0000000Z',
      UserData: userData({ IsFavorite: true }, 'c'),
    }),
    { key: 'm3', movieId: 3, personIds: [7], studioIds: [] },
  ),
  entryOf(dto('d', { Genres: ['Comedy'], ProductionYear: null }), {
    key: 'f4',
    movieId: null,
    personIds: [],
    studioIds: [],
  }),
];

const decodeTable: Record<string, number> = { p7: 7, p9: 9, s3: 3, gaction: genreNumber('action') };

function select(raw: Record<string, string>): string[] {
  const parsed = parseItemsQuery(raw);
  assert.ok(parsed.ok, JSON.stringify(raw));
  const selection = selectionOf(parsed.query, (_kind, id) => decodeTable[id] ?? null);
  return [...filterEntries(entries, selection)].map((e) => e.Id);
}

describe('jellyfin catalogue', () => {
  it('filters: each list filter is any-of, the filters together all-of', () => {
    const cases: [Record<string, string>, string[]][] = [
      [{}, ['a', 'b', 'c', 'd']],
      [{ Filters: 'IsPlayed' }, ['b']],
      [{ Filters: 'IsUnplayed' }, ['a', 'c', 'd']],
      [{ Filters: 'IsResumable' }, ['a']],
      [{ Filters: 'IsFavorite' }, ['c']],
      [{ Filters: 'IsFavoriteOrLikes' }, ['c']],
      [{ Filters: 'IsUnplayed,IsFavorite' }, ['c']],
      [{ Filters: 'Likes' }, ['a', 'b', 'c', 'd']],
      [{ IsPlayed: 'false' }, ['a', 'c', 'd']],
      [{ IsFavorite: 'false' }, ['a', 'b', 'd']],
      [{ Genres: 'drama' }, ['a', 'b']],
      [{ Genres: 'Comedy|Action' }, ['a', 'c', 'd']],
      // Ids arrive in any case and are folded (real ids are hex).
      [{ GenreIds: 'gAction' }, ['a', 'c']],
      [{ Years: '2004' }, ['b', 'c']],
      [{ Years: '1999,2004', Genres: 'Action' }, ['a', 'c']],
      [{ PersonIds: 'p9' }, ['a']],
      [{ PersonIds: 'p7' }, ['a', 'c']],
      [{ PersonIds: 'unknown' }, []],
      [{ Studios: 'village roadshow' }, ['b']],
      [{ StudioIds: 's3' }, ['b']],
      [{ Studios: 'Nobody' }, []],
    ];
    for (const [raw, expected] of cases) assert.deepEqual(select(raw), expected, JSON.stringify(raw));
  });

  it('refuses a year that is not one; reads the new sort keys', () => {
    const bad = parseItemsQuery({ Years: '99x' });
    assert.ok(!bad.ok);
    assert.equal(bad.field, 'Years');
    const badBool = parseItemsQuery({ IsFavorite: 'maybe' });
    assert.ok(!badBool.ok);
    const ok = parseItemsQuery({ SortBy: 'CommunityRating,ProductionYear,Random' });
    assert.ok(ok.ok);
    assert.deepEqual(ok.query.sortBy, ['CommunityRating', 'ProductionYear', 'Random']);
  });

  it('sorts by CommunityRating (unrated first ascending) and shuffles for Random with the given source', () => {
    const byRating = sortItems(entries, { sortBy: ['CommunityRating'], descending: true }).map((e) => e.Id);
    assert.deepEqual(byRating, ['c', 'a', 'b', 'd']);
    const zero = sortItems(entries, { sortBy: ['Random'], descending: false }, () => 0).map((e) => e.Id);
    assert.deepEqual(zero, ['b', 'c', 'd', 'a']);
    const other = sortItems(entries, { sortBy: ['Random'], descending: false }, () => 0.999).map((e) => e.Id);
    assert.deepEqual(other, ['a', 'b', 'c', 'd']);
  });

  it('Fields adds the gated parts; the whole item has them all; the JSON is the DTO', () => {
    assert.deepEqual(gatedFieldsOf(['overview', 'PrimaryImageAspectRatio', 'Genres']), [
      'Overview',
      'Genres',
    ]);
    const [a] = entries;
    assert.ok(a !== undefined);
    const lean = JSON.parse(entryJson(a, [])) as Record<string, unknown>;
    assert.equal(lean.Overview, undefined);
    assert.equal(lean.Genres, undefined);
    assert.equal(lean.Name, 'a');
    const some = JSON.parse(entryJson(a, ['Genres'])) as Record<string, unknown>;
    assert.deepEqual(some.Genres, ['Action', 'Drama']);
    assert.equal(some.Overview, undefined);
    const all = JSON.parse(entryJson(a)) as Record<string, unknown>;
    assert.equal(all.Overview, 'About a');
    assert.equal(all.MediaSources, undefined, 'null parts stay out');
  });

  it('latest, similar and the legacy filters', () => {
    assert.deepEqual(
      latestEntries(entries, 2).map((e) => e.Id),
      // Same date: by name, as every order's tie-breaker.
      ['c', 'a'],
    );
    const [a] = entries;
    assert.ok(a !== undefined);
    // Shares two genres with nobody, one with b and c: the better rated first.
    assert.deepEqual(
      similarEntries(entries, a, 10).map((e) => e.Id),
      ['c', 'b'],
    );
    assert.deepEqual(
      similarEntries(entries, entries[3] as CatalogueEntry, 10).map((e) => e.Id),
      [],
    );
    assert.deepEqual(legacyFilters(entries), {
      Genres: ['Action', 'Comedy', 'Drama'],
      Tags: [],
      OfficialRatings: ['G', 'PG', 'R'],
      Years: [1999, 2004],
    });
  });

  it('genre numbers are stable and fold case', () => {
    assert.equal(genreNumber('Science Fiction'), genreNumber(' science fiction '));
    assert.notEqual(genreNumber('Drama'), genreNumber('Comedy'));
    assert.ok(genreNumber('Drama') < 2 ** 48);
  });
});
