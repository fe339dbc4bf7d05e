import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import {
  type CatalogueEntry,
  GATED_FIELDS,
  entryOf,
  queryResultJson,
} from '../../../src/domain/jellyfin/catalogue.ts';
import type { MovieDto } from '../../../src/domain/jellyfin/dto.ts';
import { type QueryResult, itemOrder, mergeOrdered } from '../../../src/domain/jellyfin/items-query.ts';
import { type Catalogue, type KeptAnswer, keptAnswer } from '../../../src/services/jellyfin/kept-answer.ts';

/** A film whose JSON is a few hundred bytes (its id is unique hex, as real ids are). */
function entry(n: number, favourite = false): CatalogueEntry {
  const id = n.toString(16).padStart(32, '0');
  const dto: MovieDto = {
    Type: 'Movie',
    Id: id,
    UserData: {
      Key: id,
      ItemId: id,
      PlaybackPositionTicks: 0,
      PlayedPercentage: null,
      PlayCount: 0,
      IsFavorite: favourite,
      Played: false,
      LastPlayedDate: null,
    },
    ServerId: 'server',
    ParentId: 'view',
    Name: `Film ${n}`,
    SortName: `film ${String(n).padStart(5, '0')}`,
    Overview: `On disc: Blu-ray, binder ${n % 50}, slot ${n % 100}.\n\nA film numbered ${n}, described at some length.`,
    ProductionYear: 1950 + (n % 75),
    PremiereDate: null,
    DateCreated: '2024-01-01T00:00:00.0000000Z',
    OfficialRating: 'PG',
    CommunityRating: null,
    CriticRating: null,
    Genres: ['Drama'],
    People: [],
    Studios: [],
    RunTimeTicks: null,
    IsFolder: false,
    IsPlaceHolder: true,
    LocationType: 'Virtual',
    MediaType: 'Video',
    VideoType: 'VideoFile',
    ImageTags: null,
    BackdropImageTags: [],
    PrimaryImageAspectRatio: null,
    MediaSources: null,
  };
  return entryOf(dto, { key: `m${n}`, movieId: n, personIds: [], studioIds: [] });
}

function catalogueOf(entries: CatalogueEntry[], previous: ReadonlyMap<string, KeptAnswer>): Catalogue {
  return {
    entries,
    byId: new Map(entries.map((e) => [e.Id, e])),
    byMovie: new Map(entries.map((e) => [e.movieId ?? 0, e])),
    orders: new Map(),
    answers: new Map(),
    previous,
  };
}

const all = (entries: readonly CatalogueEntry[]): QueryResult<CatalogueEntry> => ({
  Items: [...entries],
  TotalRecordCount: entries.length,
  StartIndex: 0,
});

describe('the kept whole-library answer', () => {
  const films = Array.from({ length: 3_000 }, (_, n) => entry(n));
  const fields = [...GATED_FIELDS];

  it('is the JSON queryResultJson makes, as bytes and as a gzip member of pieces; small answers are not kept', async () => {
    const catalogue = catalogueOf(films, new Map());
    const expected = queryResultJson(all(films), fields);
    assert.ok(expected.length > 256 * 1024, 'large enough to be kept');
    const gzipped = await keptAnswer(catalogue, 'sync', async () => all(films), fields, true);
    assert.equal(gzipped.gzip, true);
    assert.equal(gunzipSync(gzipped.body as Buffer).toString(), expected);
    const plain = await keptAnswer(catalogue, 'sync', async () => all([]), fields, false);
    assert.equal(plain.body.toString(), expected, 'kept: the second request selects nothing');

    const page = all(films.slice(0, 100));
    const small = await keptAnswer(catalogue, 'page', async () => page, fields, true);
    assert.deepEqual(small, { body: queryResultJson(page, fields), gzip: false });
    assert.equal(catalogue.answers.has('page'), false);
  });

  it('after an update reuses the pieces of the films left alone, and says the change', async () => {
    const first = catalogueOf(films, new Map());
    await keptAnswer(first, 'sync', async () => all(films), fields, true);
    const base = first.answers.get('sync');
    const basePieces = new Set(base?.pieces?.values() ?? []);
    assert.ok(base !== undefined && basePieces.size > 20, `${basePieces.size} pieces`);

    // Film 1234 becomes a favourite, film 99 is gone, film 5000 is new (as rebuildChanged makes them).
    const changed = [entry(1234, true), entry(5_000)];
    const kept = films.filter((e) => e.movieId !== 1234 && e.movieId !== 99);
    const order = itemOrder<CatalogueEntry>({ sortBy: [], descending: false });
    const next = mergeOrdered(kept, [...changed].sort(order), order);
    const updated = catalogueOf(next, new Map([['sync', base]]));
    const answer = await keptAnswer(updated, 'sync', async () => all(next), fields, true);
    const text = gunzipSync(answer.body as Buffer).toString();
    assert.equal(text, queryResultJson(all(next), fields));
    assert.match(text, /"IsFavorite":true/);

    const pieces = [...(updated.answers.get('sync')?.pieces?.values() ?? [])];
    const reused = pieces.filter((p) => basePieces.has(p)).length;
    // Each change recompresses its piece and the next (its dictionary): at most 2 per change.
    assert.ok(pieces.length - reused <= 6, `${pieces.length - reused} of ${pieces.length} recompressed`);
  });
});
