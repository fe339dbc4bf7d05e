// The Jellyfin facade's browsing driven by @jellyfin/sdk 1.0.0 against a real reelshelf on loopback:
// every token form resolving to the person's device session (revoked → 401), the Movies view,
// /Items with paging, sorting and search over /library's listing, a PG child who lists no R film,
// and /Items/{id} with 404 JSON for a hidden or unknown id.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Jellyfin } from '@jellyfin/sdk/lib/jellyfin.js';
import type { Api } from '@jellyfin/sdk/lib/api.js';
import { getLibraryApi } from '@jellyfin/sdk/lib/utils/api/library-api.js';
import { getUserViewApi } from '@jellyfin/sdk/lib/utils/api/user-view-api.js';
import { jsonBody, startTestServer, type TestServer } from '../helpers/test-server.ts';
import { addPeople, CHILD_KID, MEMBER_ANNA } from '../helpers/household.ts';

const jellyfin = new Jellyfin({
  clientInfo: { name: 'Findroid', version: '0.15.0' },
  deviceInfo: { name: 'Living room Shield', id: 'device-1' },
});

const FILMS = [
  { title: 'The Gentle Meadow', certification: 'G' },
  { title: 'Puppy Parade', certification: 'PG' },
  { title: 'Razorwire Nocturne', certification: 'R' },
  { title: 'Anchor Bay', certification: 'PG-13' },
];

interface Page {
  Items: { Id: string; Name: string; Type: string; OfficialRating?: string; ParentId?: string }[];
  TotalRecordCount: number;
  StartIndex: number;
}

/**
 * The SDK's LibraryApi calls used here, typed by hand: under the project's NodeNext resolution the
 * SDK's augmented class loses its generated base's methods (docs/jellyfin.md "SDK types"); the
 * calls themselves are the SDK's own.
 */
interface ItemDto {
  Id?: string | null;
  Name?: string | null;
  Type?: string;
  ParentId?: string | null;
  OfficialRating?: string | null;
  UserData?: { Played?: boolean } | null;
}
interface LibraryCalls {
  getItems(request: Record<string, unknown>): Promise<{
    data: { Items?: ItemDto[] | null; TotalRecordCount?: number; StartIndex?: number };
  }>;
  getItem(request: { itemId: string }): Promise<{ data: ItemDto }>;
}
const libraryOf = (api: Api): LibraryCalls => getLibraryApi(api) as unknown as LibraryCalls;

function statusOf(error: unknown): number | undefined {
  return (error as { response?: { status?: number } }).response?.status;
}

describe('jellyfin: browsing with @jellyfin/sdk', () => {
  let server: TestServer;
  let anna: Api;
  let kid: Api;
  let annaToken = '';
  let annaUserId = '';
  let viewId = '';

  before(async () => {
    server = await startTestServer();
    for (const film of FILMS) {
      const created = await server.api('/api/movies', jsonBody('POST', { title: film.title }));
      const body = await created.text();
      assert.equal(created.status, 201, body);
      const { id } = JSON.parse(body) as { id: number };
      const set = await server.api(
        `/api/movies/${id}`,
        jsonBody('PATCH', { certification: film.certification }),
      );
      assert.equal(set.status, 200, await set.text());
    }
    await addPeople(server, [MEMBER_ANNA, CHILD_KID]);
    anna = jellyfin.createApi(`${server.url}/jellyfin`);
    const signedIn = await anna.authenticateUserByName('anna', 'correct horse battery');
    annaToken = signedIn.data.AccessToken ?? '';
    annaUserId = signedIn.data.User?.Id ?? '';
    kid = jellyfin.createApi(`${server.url}/jellyfin`);
    await kid.authenticateUserByName('kid', 'kid password 123');
  });
  after(async () => server.close());

  const raw = (path: string, headers: Record<string, string> = {}): Promise<Response> =>
    fetch(`${server.url}/jellyfin${path}`, { headers });

  it('every header form of the token reaches the person; none, or a query token off media routes, is 401', async () => {
    const forms: Record<string, string>[] = [
      {
        authorization: `MediaBrowser Client="Infuse-Direct", Device="Mac", DeviceId="x", Version="8", Token="${annaToken}"`,
      },
      { authorization: `MediaBrowser Token=${encodeURIComponent(annaToken)}, Client=Kodi` },
      { 'x-emby-authorization': `MediaBrowser Token="${annaToken}", Client="Infuse-Direct"` },
      { 'x-emby-token': annaToken },
      { 'x-mediabrowser-token': annaToken },
    ];
    for (const headers of forms) {
      const response = await raw('/UserViews', headers);
      assert.equal(response.status, 200, JSON.stringify(headers));
    }
    assert.equal((await raw('/UserViews')).status, 401);
    assert.equal(
      (await raw(`/UserViews?api_key=${annaToken}`)).status,
      401,
      'a query token opens media only',
    );
    const wrong = await raw('/UserViews', { 'x-emby-token': 'not-a-token' });
    assert.equal(wrong.status, 401);
    assert.equal(((await wrong.json()) as { error: string }).error, 'unauthorized');
  });

  it('a revoked session ends its token at once', async () => {
    const api = jellyfin.createApi(`${server.url}/jellyfin`);
    const { data } = await api.authenticateUserByName('anna', 'correct horse battery');
    const token = data.AccessToken ?? '';
    assert.equal((await raw('/Items?Recursive=true', { 'x-emby-token': token })).status, 200);
    const found = await server.server.services.sessions.authenticate(token);
    assert.ok(found !== null);
    await server.server.services.sessions.signOut(found.session.id);
    await assert.rejects(getUserViewApi(api).getUserViews(), (e: unknown) => statusOf(e) === 401);
    assert.equal((await raw('/Items?Recursive=true', { 'x-emby-token': token })).status, 401);
  });

  it('views: one Movies CollectionFolder, also under /Users/{id}/Views; another person’s id is refused', async () => {
    const { data } = await getUserViewApi(anna).getUserViews({ userId: annaUserId });
    assert.equal(data.TotalRecordCount, 1);
    const view = data.Items?.[0];
    assert.equal(view?.Name, 'Movies');
    assert.equal(view?.Type, 'CollectionFolder');
    assert.equal(view?.CollectionType, 'movies');
    assert.equal(view?.IsFolder, true);
    assert.match(view?.Id ?? '', /^[0-9a-f]{32}$/);
    viewId = view?.Id ?? '';
    const old = await raw(`/Users/${annaUserId}/Views`, { 'x-emby-token': annaToken });
    assert.equal(((await old.json()) as Page).Items[0]?.Id, viewId);
    const text = await (await raw('/UserViews', { 'x-emby-token': annaToken })).text();
    assert.ok(!text.includes('ImageTags') && !text.includes('UserData') && !text.includes('null'));
    const other = await raw(`/Users/${viewId}/Views`, { 'x-emby-token': annaToken });
    assert.equal(other.status, 403);
  });

  it('/Items: the view’s movies as BaseItemDto, sorted, paged, with TotalRecordCount', async () => {
    const library = libraryOf(anna);
    const all = await library.getItems({
      parentId: viewId,
      recursive: true,
      includeItemTypes: ['Movie'],
      sortBy: ['SortName'],
      sortOrder: ['Ascending'],
    });
    assert.equal(all.data.TotalRecordCount, 4);
    // Sort names drop the leading article: "Anchor Bay", "The Gentle Meadow", "Puppy Parade", …
    assert.deepEqual(
      all.data.Items?.map((i) => i.Name),
      ['Anchor Bay', 'The Gentle Meadow', 'Puppy Parade', 'Razorwire Nocturne'],
    );
    for (const item of all.data.Items ?? []) {
      assert.equal(item.Type, 'Movie');
      assert.equal(item.ParentId, viewId);
      assert.match(item.Id ?? '', /^[0-9a-f]{32}$/);
      assert.equal(item.UserData?.Played, false);
    }
    assert.equal(all.data.Items?.find((i) => i.Name === 'Razorwire Nocturne')?.OfficialRating, 'R');

    const page = await library.getItems({
      parentId: viewId,
      recursive: true,
      sortBy: ['SortName'],
      sortOrder: ['Descending'],
      startIndex: 1,
      limit: 2,
    });
    assert.equal(page.data.TotalRecordCount, 4);
    assert.equal(page.data.StartIndex, 1);
    assert.deepEqual(
      page.data.Items?.map((i) => i.Name),
      ['Puppy Parade', 'The Gentle Meadow'],
    );

    const byDate = await library.getItems({ recursive: true, sortBy: ['DateCreated', 'SortName'], limit: 1 });
    assert.equal(byDate.data.TotalRecordCount, 4);
    assert.equal(byDate.data.Items?.length, 1);

    const none = await library.getItems({ recursive: true, includeItemTypes: ['Series'] });
    assert.equal(none.data.TotalRecordCount, 0);
  });

  it('/Items: query keys in any case, Fields as A,B or repeated, the old /Users/{id}/Items form', async () => {
    const auth = { 'x-emby-token': annaToken };
    const forms = [
      `/Items?ParentId=${viewId}&Recursive=true&SortBy=SortName&Limit=2&Fields=Genres,Overview`,
      `/items?parentid=${viewId.toUpperCase()}&recursive=TRUE&sortby=sortname&limit=2&fields=Genres&fields=Overview`,
      `/Users/${annaUserId}/Items?PARENTID=${viewId}&RECURSIVE=true&LIMIT=2`,
    ];
    const answers: Page[] = [];
    for (const form of forms) {
      const response = await raw(form, auth);
      assert.equal(response.status, 200, form);
      answers.push((await response.json()) as Page);
    }
    for (const answer of answers) {
      assert.equal(answer.TotalRecordCount, 4);
      assert.deepEqual(
        answer.Items.map((i) => i.Name),
        ['Anchor Bay', 'The Gentle Meadow'],
      );
    }
    const bad = await raw('/Items?Recursive=true&Limit=-1', auth);
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as { error: string; field: string }).field, 'Limit');
  });

  it('/Items: SearchTerm goes through the search index', async () => {
    const { data } = await libraryOf(anna).getItems({ recursive: true, searchTerm: 'puppy' });
    assert.deepEqual(
      data.Items?.map((i) => i.Name),
      ['Puppy Parade'],
    );
    assert.equal(data.TotalRecordCount, 1);
  });

  it("a PG child's token lists no film above PG, finds none by search, and gets 404 for its id", async () => {
    const { data } = await libraryOf(kid).getItems({ parentId: viewId, recursive: true });
    assert.deepEqual(
      data.Items?.map((i) => i.Name),
      ['The Gentle Meadow', 'Puppy Parade'],
    );
    assert.equal(data.TotalRecordCount, 2);
    const searched = await libraryOf(kid).getItems({ recursive: true, searchTerm: 'razorwire' });
    assert.equal(searched.data.TotalRecordCount, 0);

    const annaAll = await libraryOf(anna).getItems({ recursive: true });
    const rated = annaAll.data.Items?.find((i) => i.Name === 'Razorwire Nocturne')?.Id ?? '';
    await assert.rejects(libraryOf(kid).getItem({ itemId: rated }), (e: unknown) => statusOf(e) === 404);
  });

  it('/Items/{id}: one movie; unknown, forged and hidden ids are 404 with a JSON body', async () => {
    const all = await libraryOf(anna).getItems({ recursive: true });
    const meadow = all.data.Items?.find((i) => i.Name === 'The Gentle Meadow');
    assert.ok(meadow?.Id !== undefined && meadow.Id !== null);
    const { data } = await libraryOf(anna).getItem({ itemId: meadow.Id });
    assert.equal(data.Name, 'The Gentle Meadow');
    assert.equal(data.Type, 'Movie');
    assert.equal(data.OfficialRating, 'G');
    const old = await raw(`/Users/${annaUserId}/Items/${meadow.Id.toUpperCase()}`, {
      'x-emby-token': annaToken,
    });
    assert.equal(((await old.json()) as { Id: string }).Id, meadow.Id);

    for (const id of ['0123456789abcdef0123456789abcdef', 'not-an-id', viewId]) {
      const response = await raw(`/Items/${id}`, { 'x-emby-token': annaToken });
      assert.equal(response.status, 404, id);
      assert.match(response.headers.get('content-type') ?? '', /json/);
      assert.equal(((await response.json()) as { error: string }).error, 'not_found');
    }
  });
});
