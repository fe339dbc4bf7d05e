// The Jellyfin facade's kept catalogue after a change, against a real reelshelf on loopback (real
// SQLite, real media made by ffmpeg): a person's own change (a progress report, a favourite) re-presents
// the items it touched on their kept catalogue and shows in their next answer, byte for byte what a
// full build makes; another person's change leaves it alone; a change everyone sees (a certification
// above a child's limit, a new film, a deleted one) is applied without a full build.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { CatalogueStats, JellyfinCatalogue } from '../../src/services/jellyfin/jellyfin-catalogue.ts';
import { registerFiles } from '../helpers/library-fixtures.ts';
import { makeFixture } from '../helpers/media.ts';
import { jsonBody, startTestServer, type TestServer } from '../helpers/test-server.ts';

interface Item {
  Id: string;
  Name: string;
  UserData: { PlaybackPositionTicks: number; IsFavorite: boolean; Played: boolean };
}

const SYNC =
  '/jellyfin/Items?Recursive=true&IncludeItemTypes=Movie&Fields=Overview,Genres,MediaSources,People,Studios';

describe('jellyfin: the kept catalogue after a change', () => {
  let server: TestServer;
  let root: string;
  let catalogue: JellyfinCatalogue;
  const tokens: Record<string, string> = {};
  const ids: Record<string, string> = {};
  const movieIds: Record<string, number> = {};

  const request = async (who: string, path: string, init: RequestInit = {}): Promise<Response> =>
    fetch(`${server.url}${path}`, {
      ...init,
      headers: { 'x-emby-token': tokens[who] ?? '', 'content-type': 'application/json' },
    });
  /** The whole-library sync as the apps ask it (text: compared byte for byte). */
  const sync = async (who: string): Promise<string> => {
    const res = await request(who, SYNC);
    assert.equal(res.status, 200);
    return res.text();
  };
  const items = (text: string): Item[] => (JSON.parse(text) as { Items: Item[] }).Items;
  const named = (text: string, name: string): Item | undefined => items(text).find((i) => i.Name === name);
  /** What changed in the counters since `before`. */
  const since = (before: CatalogueStats): CatalogueStats => {
    const now = catalogue.stats();
    return {
      builds: now.builds - before.builds,
      fullBuilds: now.fullBuilds - before.fullBuilds,
      presented: now.presented - before.presented,
    };
  };
  /** The answer a catalogue built from scratch gives (every kept one dropped first). */
  const fromScratch = async (who: string): Promise<string> => {
    catalogue.clear();
    return sync(who);
  };

  before(async () => {
    server = await startTestServer();
    catalogue = (server.server.services.jellyfin as unknown as { deps: { catalogue: JellyfinCatalogue } })
      .deps.catalogue;
    root = mkdtempSync(join(tmpdir(), 'reelshelf-jf-catalogue-'));
    const registered = await registerFiles(server.server.database.db, root, {
      alpha: await makeFixture('h264_aac.mp4', join(root, 'alpha.mp4')),
      beta: await makeFixture('h264_aac.mp4', join(root, 'beta.mp4')),
    });
    movieIds.alpha = registered.alpha?.movieId ?? 0;
    movieIds.beta = registered.beta?.movieId ?? 0;
    for (const [title, certification] of [
      ['Gamma Ray', 'PG'],
      ['Delta Dawn', 'PG'],
    ] as const) {
      const created = await server.api('/api/movies', jsonBody('POST', { title }));
      assert.equal(created.status, 201);
      const movieId = ((await created.json()) as { id: number }).id;
      movieIds[title.split(' ')[0]?.toLowerCase() ?? ''] = movieId;
      const patched = await server.api(`/api/movies/${movieId}`, jsonBody('PATCH', { certification }));
      assert.equal(patched.status, 200);
    }
    for (const alpha of ['alpha', 'beta']) {
      const patched = await server.api(
        `/api/movies/${movieIds[alpha]}`,
        jsonBody('PATCH', { certification: 'PG' }),
      );
      assert.equal(patched.status, 200);
    }
    const people = [
      { name: 'Anna', password: 'correct horse battery', role: 'member' },
      { name: 'Bob', password: 'bob password 12345', role: 'member' },
      {
        name: 'Kid',
        password: 'kid password 123',
        role: 'child',
        max_certification: 'PG',
        allow_unrated: false,
      },
    ];
    for (const person of people) {
      const created = await server.api('/api/users', jsonBody('POST', person));
      assert.equal(created.status, 201, await created.text());
      const signedIn = await fetch(`${server.url}/jellyfin/Users/AuthenticateByName`, {
        method: 'POST',
        headers: {
          authorization: `MediaBrowser Client="Findroid", Device="Shield", DeviceId="${person.name}", Version="0.15.0"`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ Username: person.name, Pw: person.password }),
      });
      assert.equal(signedIn.status, 200);
      tokens[person.name] = ((await signedIn.json()) as { AccessToken: string }).AccessToken;
    }
    for (const item of items(await sync('Anna'))) ids[item.Name] = item.Id;
    assert.deepEqual(Object.keys(ids).sort(), ['Delta Dawn', 'Gamma Ray', 'Movie alpha', 'Movie beta']);
    await sync('Bob');
    await sync('Kid');
  });
  after(async () => {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('a progress report shows in the next answer, re-presenting that one item, as a full build would', async () => {
    const before = catalogue.stats();
    const reported = await request('Anna', '/jellyfin/Sessions/Playing/Progress', {
      method: 'POST',
      body: JSON.stringify({ ItemId: ids['Movie alpha'], PositionTicks: 2 * 10_000_000 }),
    });
    assert.equal(reported.status, 204);
    const answer = await sync('Anna');
    const alpha = named(answer, 'Movie alpha');
    assert.ok(
      alpha !== undefined && (alpha.UserData.PlaybackPositionTicks > 0 || alpha.UserData.Played),
      JSON.stringify(alpha),
    );
    assert.deepEqual(since(before), { builds: 1, fullBuilds: 0, presented: 1 });
    assert.equal(await fromScratch('Anna'), answer, 'the kept catalogue after the change = a full build');
  });

  it("a favourite is the person's own: it shows in their next answer and never rebuilds another person's", async () => {
    await sync('Anna');
    await sync('Bob');
    const before = catalogue.stats();
    const marked = await request('Bob', `/jellyfin/UserFavoriteItems/${ids['Gamma Ray']}`, {
      method: 'POST',
    });
    assert.equal(marked.status, 200);
    const annas = await sync('Anna');
    assert.deepEqual(since(before), { builds: 0, fullBuilds: 0, presented: 0 }, 'Anna’s catalogue is kept');
    assert.equal(named(annas, 'Gamma Ray')?.UserData.IsFavorite, false);
    const bobs = await sync('Bob');
    assert.equal(named(bobs, 'Gamma Ray')?.UserData.IsFavorite, true);
    assert.deepEqual(since(before), { builds: 1, fullBuilds: 0, presented: 1 });
    assert.equal(await fromScratch('Bob'), bobs);
  });

  it('a change everyone sees: hidden above the limit, a new film, a deleted one — applied without a full build', async () => {
    await sync('Kid');
    await sync('Anna');
    const before = catalogue.stats();
    const patched = await server.api(
      `/api/movies/${movieIds.delta}`,
      jsonBody('PATCH', { certification: 'R' }),
    );
    assert.equal(patched.status, 200);
    const created = await server.api('/api/movies', jsonBody('POST', { title: 'Epsilon Eye' }));
    assert.equal(created.status, 201);
    const epsilon = ((await created.json()) as { id: number }).id;
    const certified = await server.api(`/api/movies/${epsilon}`, jsonBody('PATCH', { certification: 'G' }));
    assert.equal(certified.status, 200);
    const deleted = await server.api(`/api/movies/${movieIds.gamma}`, { method: 'DELETE' });
    assert.ok(deleted.status === 200 || deleted.status === 204, String(deleted.status));

    const kids = await sync('Kid');
    const annas = await sync('Anna');
    assert.deepEqual(
      items(kids).map((i) => i.Name),
      ['Epsilon Eye', 'Movie alpha', 'Movie beta'],
    );
    assert.deepEqual(
      items(annas).map((i) => i.Name),
      ['Delta Dawn', 'Epsilon Eye', 'Movie alpha', 'Movie beta'],
    );
    assert.deepEqual(since(before), { builds: 2, fullBuilds: 0, presented: 1 + 2 });
    assert.equal(await fromScratch('Kid'), kids);
    assert.equal(await fromScratch('Anna'), annas);
  });
});
