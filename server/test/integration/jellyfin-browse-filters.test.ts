// The Jellyfin facade's browse lists driven by @jellyfin/sdk 1.0.0 against a real reelshelf on
// loopback with real media (ffmpeg): /Items filters (played, resumable, favourite, genres, years,
// people, studios) and sorts, the DTO's facts, /Items/Latest, /UserItems/Resume from reelshelf's own
// "continue watching", favourites as the person's own state, /Genres, /Persons, /Items/Filters[2],
// Similar and the empty trailer/extras/theme lists; a PG child's token sees nothing above PG in any
// of them and a hidden id answers like an unknown one. The catalogue is kept per library generation.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Jellyfin } from '@jellyfin/sdk/lib/jellyfin.js';
import type { Api } from '@jellyfin/sdk/lib/api.js';
import { getFilterApi } from '@jellyfin/sdk/lib/utils/api/filter-api.js';
import { getGenreApi } from '@jellyfin/sdk/lib/utils/api/genre-api.js';
import { getLibraryApi } from '@jellyfin/sdk/lib/utils/api/library-api.js';
import { getPersonApi } from '@jellyfin/sdk/lib/utils/api/person-api.js';
import { getUserDataApi } from '@jellyfin/sdk/lib/utils/api/user-data-api.js';
import { registerFiles } from '../helpers/library-fixtures.ts';
import { makeFixture } from '../helpers/media.ts';
import { jsonBody, startTestServer, type TestServer } from '../helpers/test-server.ts';

const jellyfin = new Jellyfin({
  clientInfo: { name: 'Findroid', version: '0.15.0' },
  deviceInfo: { name: 'Living room Shield', id: 'device-2' },
});

interface ItemDto {
  Id?: string;
  Name?: string;
  Overview?: string;
  Genres?: string[];
  People?: { Name: string; Id: string; Type: string; Role?: string }[];
  Studios?: { Name: string; Id: string }[];
  CommunityRating?: number;
  CriticRating?: number;
  OfficialRating?: string;
  ProductionYear?: number;
  UserData?: { Played?: boolean; IsFavorite?: boolean; PlaybackPositionTicks?: number };
}
interface Page {
  Items?: ItemDto[];
  TotalRecordCount?: number;
}
type Call<R> = (request?: Record<string, unknown>) => Promise<{ data: R }>;
/**
 * The SDK calls used here, typed by hand: under the project's NodeNext resolution the SDK's classes
 * lose their generated methods' types (docs/jellyfin.md "SDK types"); the calls are the SDK's own.
 */
interface Calls {
  getItems: Call<Page>;
  getLatestMedia: Call<ItemDto[]>;
  getResumeItems: Call<Page>;
  getSimilarItems: Call<Page>;
  getLocalTrailers: Call<ItemDto[]>;
  getSpecialFeatures: Call<ItemDto[]>;
  getThemeMedia: Call<{ ThemeVideosResult?: Page; ThemeSongsResult?: Page }>;
  markFavoriteItem: Call<{ IsFavorite?: boolean }>;
  unmarkFavoriteItem: Call<{ IsFavorite?: boolean }>;
  getGenres: Call<Page>;
  getPersons: Call<Page>;
  getQueryFiltersLegacy: Call<{ Genres?: string[]; OfficialRatings?: string[]; Years?: number[] }>;
  getQueryFilters: Call<{ Genres?: { Name: string; Id: string }[] }>;
}
const sdk = (api: Api): Calls =>
  ({
    ...bind(getLibraryApi(api)),
    ...bind(getUserDataApi(api)),
    ...bind(getGenreApi(api)),
    ...bind(getPersonApi(api)),
    ...bind(getFilterApi(api)),
  }) as unknown as Calls;
function bind(api: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let proto: object | null = Object.getPrototypeOf(api) as object | null;
  while (proto !== null && proto !== Object.prototype) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      const fn = (api as Record<string, unknown>)[name];
      if (name !== 'constructor' && typeof fn === 'function' && !(name in out)) out[name] = fn.bind(api);
    }
    proto = Object.getPrototypeOf(proto) as object | null;
  }
  return out;
}
const statusOf = (e: unknown) => (e as { response?: { status?: number } }).response?.status;
const names = (items: ItemDto[] | undefined) => (items ?? []).map((i) => i.Name).sort();

describe('jellyfin: filters, lists and favourites with @jellyfin/sdk', () => {
  let server: TestServer;
  let root: string;
  let anna: Calls;
  let kid: Calls;
  let bob: Calls;
  let annaApi: Api;
  let kidApi: Api;
  let annaUserId = 0;
  let annaJellyfinId = '';
  const id: Record<string, string> = {};
  const movieIds: Record<string, number> = {};
  const fileIds: Record<string, number> = {};

  before(async () => {
    server = await startTestServer();
    const db = server.server.database.db;
    root = mkdtempSync(join(tmpdir(), 'reelshelf-jf-filters-'));
    const files = {
      alpha: await makeFixture('h264_aac.mp4', join(root, 'alpha.mp4')),
      beta: await makeFixture('h264_aac.mp4', join(root, 'beta.mp4')),
    };
    const registered = await registerFiles(db, root, files);
    for (const [key, ids] of Object.entries(registered)) {
      movieIds[key] = ids.movieId;
      fileIds[key] = ids.fileId;
    }
    for (const title of ['Gamma Ray', 'Delta Dawn']) {
      const created = await server.api('/api/movies', jsonBody('POST', { title }));
      assert.equal(created.status, 201);
      movieIds[title.split(' ')[0]?.toLowerCase() ?? ''] = ((await created.json()) as { id: number }).id;
    }
    // Facts as enrichment writes them: genres, year, certification, ratings, people, studios.
    const facts: Record<string, [string[], number, string, string | null, string]> = {
      alpha: [['Action', 'Drama'], 1999, 'PG', '7.8/10', '2024-01-01T00:00:00.000Z'],
      beta: [['Drama'], 2004, 'G', '6.1/10', '2024-02-01T00:00:00.000Z'],
      gamma: [['Action'], 2004, 'R', '8.9/10', '2024-03-01T00:00:00.000Z'],
      delta: [['Comedy'], 2010, 'PG', null, '2024-04-01T00:00:00.000Z'],
    };
    for (const [key, [genres, year, certification, imdb, added]] of Object.entries(facts)) {
      const movieId = movieIds[key] ?? 0;
      await db
        .updateTable('movies')
        .set({ genres_json: JSON.stringify(genres), year, certification, created_at: added })
        .where('id', '=', movieId)
        .execute();
      if (imdb !== null) {
        await db
          .insertInto('movie_ratings')
          .values([
            { movie_id: movieId, source: 'Internet Movie Database', value: imdb, fetched_at: added },
            { movie_id: movieId, source: 'Rotten Tomatoes', value: '91%', fetched_at: added },
          ])
          .execute();
      }
    }
    const keanu = await db
      .insertInto('persons')
      .values({ tmdb_id: 6384, name: 'Keanu Reeves', profile_path: null })
      .returning('id')
      .executeTakeFirstOrThrow();
    const lana = await db
      .insertInto('persons')
      .values({ tmdb_id: 9339, name: 'Lana Wachowski', profile_path: null })
      .returning('id')
      .executeTakeFirstOrThrow();
    const credit = (
      movie: string,
      personId: number,
      role: string,
      character: string | null,
      job: string | null,
    ) => ({
      movie_id: movieIds[movie] ?? 0,
      person_id: personId,
      role,
      character,
      job,
      department: job === null ? null : 'Directing',
      sort_order: 0,
    });
    await db
      .insertInto('person_movie')
      .values([
        credit('alpha', keanu.id, 'cast', 'Neo', null),
        credit('gamma', keanu.id, 'cast', 'John', null),
        credit('alpha', lana.id, 'crew', null, 'Director'),
      ])
      .execute();
    const studio = await db
      .insertInto('studios')
      .values({ tmdb_id: 79, name: 'Village Roadshow' })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db
      .insertInto('movie_studio')
      .values({ movie_id: movieIds.beta ?? 0, studio_id: studio.id })
      .execute();

    for (const person of [
      { name: 'Anna', password: 'correct horse battery', role: 'member' },
      { name: 'Bob', password: 'bob password 12345', role: 'member' },
      {
        name: 'Kid',
        password: 'kid password 123',
        role: 'child',
        max_certification: 'PG',
        allow_unrated: false,
      },
    ]) {
      const created = await server.api('/api/users', jsonBody('POST', person));
      const text = await created.text();
      assert.equal(created.status, 201, text);
      if (person.name === 'Anna') annaUserId = (JSON.parse(text) as { id: number }).id;
    }
    const signIn = async (name: string, password: string) => {
      const api = jellyfin.createApi(`${server.url}/jellyfin`);
      const { data } = await api.authenticateUserByName(name, password);
      return { api, userId: data.User?.Id ?? '' };
    };
    const a = await signIn('anna', 'correct horse battery');
    annaApi = a.api;
    annaJellyfinId = a.userId;
    anna = sdk(a.api);
    bob = sdk((await signIn('bob', 'bob password 12345')).api);
    kidApi = (await signIn('kid', 'kid password 123')).api;
    kid = sdk(kidApi);
    const all = await anna.getItems({ recursive: true });
    for (const item of all.data.Items ?? []) {
      const key = Object.entries({
        alpha: 'Movie alpha',
        beta: 'Movie beta',
        gamma: 'Gamma Ray',
        delta: 'Delta Dawn',
      }).find(([, title]) => title === item.Name)?.[0];
      if (key !== undefined) id[key] = item.Id ?? '';
    }
    assert.equal(Object.keys(id).length, 4, JSON.stringify(all.data));
  });
  after(async () => {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('the DTO carries the facts reelshelf keeps; Fields adds Overview, People, Studios, Genres', async () => {
    const lean = await anna.getItems({ recursive: true, sortBy: ['SortName'] });
    const alpha = lean.data.Items?.find((i) => i.Id === id.alpha);
    assert.equal(alpha?.CommunityRating, 7.8);
    assert.equal(alpha?.CriticRating, 91);
    assert.equal(alpha?.OfficialRating, 'PG');
    assert.equal(alpha?.ProductionYear, 1999);
    assert.equal(alpha?.People, undefined, 'People only when asked');
    assert.equal(alpha?.Genres, undefined, 'Genres only when asked');
    const full = await anna.getItems({ recursive: true, fields: ['People', 'Studios', 'Genres'] });
    const rich = full.data.Items?.find((i) => i.Id === id.alpha);
    assert.deepEqual(rich?.Genres, ['Action', 'Drama']);
    assert.deepEqual(
      rich?.People?.map((p) => [p.Name, p.Type, p.Role ?? null]),
      [
        ['Keanu Reeves', 'Actor', 'Neo'],
        ['Lana Wachowski', 'Director', null],
      ],
    );
    assert.deepEqual(
      full.data.Items?.find((i) => i.Id === id.beta)?.Studios?.map((s) => s.Name),
      ['Village Roadshow'],
    );
    const detail = await anna.getItems({ ids: [id.alpha] });
    assert.ok(detail.data.Items !== undefined);
  });

  it('filters: Genres (pipe or repeated), Years, PersonIds, Studios; SortBy CommunityRating and Random', async () => {
    assert.deepEqual(names((await anna.getItems({ recursive: true, genres: ['Drama'] })).data.Items), [
      'Movie alpha',
      'Movie beta',
    ]);
    const piped = await fetch(`${server.url}/jellyfin/Items?Recursive=true&Genres=comedy|ACTION`, {
      headers: authOf(annaApi),
    });
    assert.deepEqual(names(((await piped.json()) as Page).Items), ['Delta Dawn', 'Gamma Ray', 'Movie alpha']);
    assert.deepEqual(names((await anna.getItems({ recursive: true, years: [2004] })).data.Items), [
      'Gamma Ray',
      'Movie beta',
    ]);
    const withPeople = await anna.getItems({ recursive: true, fields: ['People'], ids: undefined });
    const keanu = withPeople.data.Items?.flatMap((i) => i.People ?? []).find(
      (p) => p.Name === 'Keanu Reeves',
    );
    assert.ok(keanu !== undefined);
    assert.deepEqual(names((await anna.getItems({ recursive: true, personIds: [keanu.Id] })).data.Items), [
      'Gamma Ray',
      'Movie alpha',
    ]);
    assert.deepEqual(
      names((await anna.getItems({ recursive: true, studios: ['Village Roadshow'] })).data.Items),
      ['Movie beta'],
    );
    const forged = await anna.getItems({ recursive: true, personIds: ['0123456789abcdef0123456789abcdef'] });
    assert.equal(forged.data.TotalRecordCount, 0, 'an unknown person id matches nothing');
    const rated = await anna.getItems({
      recursive: true,
      sortBy: ['CommunityRating'],
      sortOrder: ['Descending'],
    });
    assert.deepEqual(
      rated.data.Items?.map((i) => i.Name),
      ['Gamma Ray', 'Movie alpha', 'Movie beta', 'Delta Dawn'],
    );
    const random = await anna.getItems({ recursive: true, sortBy: ['Random'] });
    assert.deepEqual(names(random.data.Items), ['Delta Dawn', 'Gamma Ray', 'Movie alpha', 'Movie beta']);
  });

  it('played, resumable and the resume list come from the person’s own watch state and reelshelf’s continue row', async () => {
    const watch = server.server.services.watch;
    await watch.save(annaUserId, fileIds.alpha ?? 0, { position_seconds: 1 });
    await watch.save(annaUserId, fileIds.beta ?? 0, { position_seconds: 0, watched: true });
    assert.deepEqual(names((await anna.getItems({ recursive: true, filters: ['IsResumable'] })).data.Items), [
      'Movie alpha',
    ]);
    assert.deepEqual(names((await anna.getItems({ recursive: true, filters: ['IsPlayed'] })).data.Items), [
      'Movie beta',
    ]);
    assert.deepEqual(names((await anna.getItems({ recursive: true, isPlayed: false })).data.Items), [
      'Delta Dawn',
      'Gamma Ray',
      'Movie alpha',
    ]);
    const resume = await anna.getResumeItems({ userId: annaJellyfinId, limit: 10 });
    assert.deepEqual(
      resume.data.Items?.map((i) => i.Id),
      [id.alpha],
    );
    assert.equal(resume.data.Items?.[0]?.UserData?.PlaybackPositionTicks, 10_000_000);
    // The same list reelshelf's own pages show.
    const own = await watch.continueWatching(annaUserId);
    assert.deepEqual(
      own.map((c) => c.movie_id),
      [movieIds.alpha],
    );
    // Another person's state is theirs alone.
    assert.equal((await bob.getResumeItems({})).data.TotalRecordCount, 0);
    assert.equal((await bob.getItems({ recursive: true, filters: ['IsPlayed'] })).data.TotalRecordCount, 0);
  });

  it('favourites: the person’s own, in UserData and the IsFavorite filter; the old /Users form too', async () => {
    const marked = await anna.markFavoriteItem({ itemId: id.gamma });
    assert.equal(marked.data.IsFavorite, true);
    const favs = await anna.getItems({ recursive: true, filters: ['IsFavorite'] });
    assert.deepEqual(
      favs.data.Items?.map((i) => i.Id),
      [id.gamma],
    );
    assert.equal(favs.data.Items?.[0]?.UserData?.IsFavorite, true);
    assert.equal((await bob.getItems({ recursive: true, filters: ['IsFavorite'] })).data.TotalRecordCount, 0);
    const old = await fetch(`${server.url}/jellyfin/Users/${annaJellyfinId}/FavoriteItems/${id.delta}`, {
      method: 'POST',
      headers: authOf(annaApi),
    });
    assert.equal(old.status, 200);
    assert.equal(((await old.json()) as { IsFavorite: boolean }).IsFavorite, true);
    assert.equal((await anna.getItems({ recursive: true, isFavorite: true })).data.TotalRecordCount, 2);
    const unmarked = await anna.unmarkFavoriteItem({ itemId: id.gamma });
    assert.equal(unmarked.data.IsFavorite, false);
    assert.deepEqual(names((await anna.getItems({ recursive: true, filters: ['IsFavorite'] })).data.Items), [
      'Delta Dawn',
    ]);
    await assert.rejects(
      anna.markFavoriteItem({ itemId: '0123456789abcdef0123456789abcdef' }),
      (e) => statusOf(e) === 404,
    );
  });

  it('/Items/Latest is a plain array, newest first; /Genres, /Persons, /Items/Filters[2], Similar and the empty lists', async () => {
    const latest = await anna.getLatestMedia({ limit: 2 });
    assert.ok(Array.isArray(latest.data));
    assert.deepEqual(
      latest.data.map((i) => i.Name),
      ['Delta Dawn', 'Gamma Ray'],
    );
    const genres = await anna.getGenres({});
    assert.deepEqual(
      genres.data.Items?.map((g) => g.Name),
      ['Action', 'Comedy', 'Drama'],
    );
    const action = genres.data.Items?.[0]?.Id ?? '';
    assert.deepEqual(names((await anna.getItems({ recursive: true, genreIds: [action] })).data.Items), [
      'Gamma Ray',
      'Movie alpha',
    ]);
    const persons = await anna.getPersons({});
    assert.deepEqual(
      persons.data.Items?.map((p) => p.Name),
      ['Keanu Reeves', 'Lana Wachowski'],
    );
    const legacy = await anna.getQueryFiltersLegacy({});
    assert.deepEqual(legacy.data.Genres, ['Action', 'Comedy', 'Drama']);
    assert.deepEqual(legacy.data.OfficialRatings, ['G', 'PG', 'R']);
    assert.deepEqual(legacy.data.Years, [1999, 2004, 2010]);
    const filters2 = await anna.getQueryFilters({});
    assert.deepEqual(
      filters2.data.Genres?.map((g) => g.Id),
      genres.data.Items?.map((g) => g.Id),
    );
    const similar = await anna.getSimilarItems({ itemId: id.alpha });
    assert.deepEqual(
      similar.data.Items?.map((i) => i.Name),
      ['Gamma Ray', 'Movie beta'],
    );
    assert.deepEqual((await anna.getLocalTrailers({ itemId: id.alpha })).data, []);
    assert.deepEqual((await anna.getSpecialFeatures({ itemId: id.alpha })).data, []);
    const theme = await anna.getThemeMedia({ itemId: id.alpha });
    assert.equal(theme.data.ThemeVideosResult?.TotalRecordCount, 0);
    assert.equal(theme.data.ThemeSongsResult?.TotalRecordCount, 0);
  });

  it("a PG child's token: no film above PG in any list; a hidden id answers like an unknown one", async () => {
    const hidden = id.gamma ?? '';
    const unknown = '0123456789abcdef0123456789abcdef';
    assert.deepEqual(names((await kid.getItems({ recursive: true })).data.Items), [
      'Delta Dawn',
      'Movie alpha',
      'Movie beta',
    ]);
    assert.ok(!(await kid.getLatestMedia({ limit: 10 })).data.some((i) => i.Id === hidden));
    assert.deepEqual(names((await kid.getItems({ recursive: true, years: [2004] })).data.Items), [
      'Movie beta',
    ]);
    const persons = await kid.getPersons({});
    assert.deepEqual(
      persons.data.Items?.map((p) => p.Name),
      ['Keanu Reeves', 'Lana Wachowski'],
    );
    assert.deepEqual((await kid.getQueryFiltersLegacy({})).data.OfficialRatings, ['G', 'PG']);
    const similar = await kid.getSimilarItems({ itemId: id.alpha });
    assert.deepEqual(
      similar.data.Items?.map((i) => i.Name),
      ['Movie beta'],
    );
    for (const call of [
      () => kid.getSimilarItems({ itemId: hidden }),
      () => kid.getLocalTrailers({ itemId: hidden }),
      () => kid.getSpecialFeatures({ itemId: hidden }),
      () => kid.getThemeMedia({ itemId: hidden }),
      () => kid.markFavoriteItem({ itemId: hidden }),
    ]) {
      await assert.rejects(call(), (e) => statusOf(e) === 404);
    }
    for (const path of [`/Items/${hidden}/Similar`, `/UserFavoriteItems/${hidden}`]) {
      const headers = authOf(kidApi);
      const method = path.startsWith('/UserFavoriteItems') ? 'POST' : 'GET';
      const a = await fetch(`${server.url}/jellyfin${path}`, { method, headers });
      const b = await fetch(`${server.url}/jellyfin${path.replace(hidden, unknown)}`, { method, headers });
      assert.equal(a.status, 404);
      assert.equal(b.status, 404);
      const body = (r: string, x: string) => r.replaceAll(x, '<id>');
      assert.equal(body(await a.text(), hidden), body(await b.text(), unknown), path);
    }
  });

  it('the catalogue is kept: another request builds nothing; a change anybody sees, or the person’s own, rebuilds', async () => {
    const catalogue = server.server.services.jellyfin;
    const count = () =>
      (catalogue as unknown as { deps: { catalogue: { buildCount(): number } } }).deps.catalogue.buildCount();
    await anna.getItems({ recursive: true });
    const before = count();
    await anna.getItems({ recursive: true, limit: 1 });
    await anna.getLatestMedia({});
    assert.equal(count(), before, 'kept');
    await bob.markFavoriteItem({ itemId: id.alpha });
    await anna.getItems({ recursive: true });
    const afterBob = count();
    // Bob's own catalogue was built; Anna's was kept.
    assert.equal(
      (await anna.getItems({ recursive: true, filters: ['IsFavorite'] })).data.TotalRecordCount,
      1,
    );
    assert.equal(count(), afterBob);
    const patched = await server.api(
      `/api/movies/${movieIds.delta}`,
      jsonBody('PATCH', { certification: 'R' }),
    );
    assert.equal(patched.status, 200);
    assert.equal(
      (await kid.getItems({ recursive: true })).data.Items?.some((i) => i.Id === id.delta),
      false,
      'the child’s kept catalogue follows the certification change',
    );
  });
});

function authOf(api: Api): Record<string, string> {
  return { 'x-emby-token': api.accessToken };
}
