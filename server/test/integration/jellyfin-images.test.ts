// Jellyfin images by tag, driven by @jellyfin/sdk 1.0.0 as the apps build their <img> URLs
// (getImageApi(api).getItemImageUrl(item)): with the tag from ImageTags no token is needed, on
// /jellyfin and at the root of the Jellyfin port; without a tag or with a wrong one a token is;
// the bytes are the artwork service's (resized when a width is asked); a PG child never gets the
// R film's image, and a child's tag stops working when its film becomes hidden from them.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Jellyfin } from '@jellyfin/sdk/lib/jellyfin.js';
import { getImageApi } from '@jellyfin/sdk/lib/utils/api/image-api.js';
import sharp from 'sharp';
import { jsonBody, startTestServer, type TestServer } from '../helpers/test-server.ts';

const jellyfin = new Jellyfin({
  clientInfo: { name: 'Swiftfin', version: '1.3' },
  deviceInfo: { name: 'iPad', id: 'device-ipad' },
});

interface Item {
  Id: string;
  Name: string;
  ImageTags?: Record<string, string>;
  BackdropImageTags?: string[];
}

describe('jellyfin: images by tag', () => {
  let server: TestServer;
  let root = '';
  let media = '';
  const posters = new Map<string, Buffer>();
  const movieIds = new Map<string, number>();
  const tokens = new Map<string, string>();

  before(async () => {
    server = await startTestServer({ REELSHELF_JELLYFIN_PORT: '0' });
    root = server.server.jellyfin.url ?? '';
    // Library roots may not lie in the data dir.
    media = mkdtempSync(join(tmpdir(), 'reelshelf-jf-images-'));
    for (const [title, colour] of [
      ['Meadow', '#3a7'],
      ['Razorwire', '#a33'],
    ] as const) {
      const folder = join(media, `${title} (2001)`);
      mkdirSync(folder, { recursive: true });
      // Not a real video (its analysis fails): the film, its poster and fanart are what count here.
      await sharp({ create: { width: 16, height: 16, channels: 3, background: '#000' } })
        .png()
        .toFile(join(folder, `${title} (2001).mkv`));
      const poster = join(folder, 'poster.jpg');
      await sharp({ create: { width: 300, height: 450, channels: 3, background: colour } })
        .jpeg()
        .toFile(poster);
      posters.set(title, readFileSync(poster));
      await sharp({ create: { width: 640, height: 360, channels: 3, background: colour } })
        .jpeg()
        .toFile(join(folder, 'fanart.jpg'));
    }
    const created = await server.api('/api/library-roots', jsonBody('POST', { path: media }));
    const { id: rootId } = (await created.json()) as { id: number };
    assert.equal(
      (await server.api(`/api/library-roots/${rootId}/scan?wait=true`, { method: 'POST' })).status,
      200,
    );
    const listed = (await (await server.api('/api/movies')).json()) as {
      items: { id: number; title: string }[];
    };
    for (const movie of listed.items) movieIds.set(movie.title, movie.id);
    assert.deepEqual([...movieIds.keys()].sort(), ['Meadow', 'Razorwire']);
    const art = await server.api('/api/artwork/fetch?wait=true', jsonBody('POST', {}));
    assert.equal(art.status, 200, await art.text());
    for (const [title, certification] of [
      ['Meadow', 'G'],
      ['Razorwire', 'R'],
    ] as const) {
      const set = await server.api(
        `/api/movies/${movieIds.get(title)}`,
        jsonBody('PATCH', { certification }),
      );
      assert.equal(set.status, 200, await set.text());
    }
    for (const person of [
      { name: 'Anna', password: 'correct horse battery', role: 'member' },
      {
        name: 'Kid',
        password: 'kid password 123',
        role: 'child',
        max_certification: 'PG',
        allow_unrated: false,
      },
    ]) {
      assert.equal((await server.api('/api/users', jsonBody('POST', person))).status, 201);
      const api = jellyfin.createApi(`${server.url}/jellyfin`);
      const { data } = await api.authenticateUserByName(person.name, person.password);
      tokens.set(person.name, data.AccessToken ?? '');
    }
  });
  after(async () => {
    await server.close();
    rmSync(media, { recursive: true, force: true });
  });

  const items = async (person: string): Promise<Item[]> => {
    const response = await fetch(`${server.url}/jellyfin/Items?Recursive=true&IncludeItemTypes=Movie`, {
      headers: { 'x-emby-token': tokens.get(person) ?? '' },
    });
    assert.equal(response.status, 200);
    return ((await response.json()) as { Items: Item[] }).Items;
  };
  const itemOf = async (person: string, title: string): Promise<Item> => {
    const found = (await items(person)).find((i) => i.Name === title);
    assert.ok(found !== undefined, `${person} lists ${title}`);
    return found;
  };
  const imageUrl = (
    base: string,
    item: Item,
    type: 'Primary' | 'Backdrop' = 'Primary',
    params = {},
  ): string => {
    const api = jellyfin.createApi(base);
    const images = getImageApi(api);
    const url =
      type === 'Primary'
        ? images.getItemImageUrl(item as never, type as never, params)
        : images.getItemBackdropImageUrls(item as never, params)[0];
    assert.ok(url !== undefined);
    return url;
  };

  it("the SDK's getItemImageUrl(item), fetched without a token: 200 and the poster's bytes, on both ports", async () => {
    const item = await itemOf('Anna', 'Meadow');
    assert.match(item.ImageTags?.Primary ?? '', /^[0-9a-f]{32}$/, 'a short tag, never a URL');
    for (const base of [`${server.url}/jellyfin`, root]) {
      const url = imageUrl(base, item);
      assert.match(url, /\/Items\/[0-9a-f]{32}\/Images\/Primary\?tag=[0-9a-f]{32}$/);
      const response = await fetch(url);
      assert.equal(response.status, 200, url);
      assert.equal(response.headers.get('content-type'), 'image/jpeg');
      assert.match(response.headers.get('cache-control') ?? '', /immutable/);
      assert.ok(Buffer.from(await response.arrayBuffer()).equals(posters.get('Meadow') ?? Buffer.alloc(0)));
      const head = await fetch(url, { method: 'HEAD' });
      assert.equal(head.status, 200);
      assert.equal(head.headers.get('content-length'), String(posters.get('Meadow')?.length));
      assert.equal((await head.arrayBuffer()).byteLength, 0);
    }
  });

  it('backdrop and a width: the fanart, resized by the artwork service; Thumb and Logo are not stored', async () => {
    const item = await itemOf('Anna', 'Meadow');
    const backdrop = await fetch(imageUrl(root, item, 'Backdrop'));
    assert.equal(backdrop.status, 200);
    assert.equal((await sharp(Buffer.from(await backdrop.arrayBuffer())).metadata()).width, 640);
    const small = await fetch(imageUrl(root, item, 'Primary', { maxWidth: 150, quality: 90 }));
    assert.equal(small.status, 200);
    // Rounded up to the artwork service's next width (154), never enlarged.
    assert.equal((await sharp(Buffer.from(await small.arrayBuffer())).metadata()).width, 154);
    const byIndex = await fetch(
      `${root}/Items/${item.Id}/Images/Backdrop/0?tag=${item.BackdropImageTags?.[0]}`,
    );
    assert.equal(byIndex.status, 200);
    const token = { 'x-emby-token': tokens.get('Anna') ?? '' };
    for (const type of ['Thumb', 'Logo', 'Backdrop/1']) {
      const missing = await fetch(`${root}/Items/${item.Id}/Images/${type}`, { headers: token });
      assert.equal(missing.status, 404, type);
      assert.equal(((await missing.json()) as { error: string }).error, 'not_found');
      assert.equal(
        (await fetch(`${root}/Items/${item.Id}/Images/${type}`)).status,
        401,
        `${type} tells nothing without credentials`,
      );
    }
  });

  it('no tag or a wrong one needs a token: 401 JSON; any token form (api_key included) serves it', async () => {
    const item = await itemOf('Anna', 'Meadow');
    const bare = `${root}/Items/${item.Id}/Images/Primary`;
    for (const url of [bare, `${bare}?tag=${'0'.repeat(32)}`, `${bare}?tag=nonsense`]) {
      const response = await fetch(url);
      assert.equal(response.status, 401, url);
      assert.equal(((await response.json()) as { error: string }).error, 'unauthorized');
    }
    const token = tokens.get('Anna') ?? '';
    for (const [url, headers] of [
      [bare, { 'x-emby-token': token }],
      [bare, { authorization: `MediaBrowser Client="Swiftfin", Token="${token}"` }],
      [`${bare}?api_key=${token}`, {}],
      [`${bare}?ApiKey=${token}&tag=${'0'.repeat(32)}`, {}],
    ] as const) {
      const response = await fetch(url, { headers });
      assert.equal(response.status, 200, url);
      assert.equal(response.headers.get('cache-control'), 'private, no-cache', 'no right tag: revalidate');
    }
    assert.equal((await fetch(bare, { headers: { 'x-emby-token': 'not-a-token' } })).status, 401);
    // A forged id or one of no movie: nothing told without credentials, 404 with them.
    assert.equal(
      (await fetch(`${root}/Items/${'f'.repeat(32)}/Images/Primary?tag=${item.ImageTags?.Primary}`)).status,
      401,
    );
    assert.equal(
      (await fetch(`${root}/Items/${'f'.repeat(32)}/Images/Primary`, { headers: { 'x-emby-token': token } }))
        .status,
      404,
    );
  });

  it("a PG child: the R film's image is never served — not by the child's token, and the child holds no tag for it", async () => {
    const kidItems = await items('Kid');
    assert.deepEqual(
      kidItems.map((i) => i.Name),
      ['Meadow'],
    );
    const razorwire = await itemOf('Anna', 'Razorwire');
    const kid = { 'x-emby-token': tokens.get('Kid') ?? '' };
    for (const url of [
      `${root}/Items/${razorwire.Id}/Images/Primary`,
      `${root}/Items/${razorwire.Id}/Images/Primary?tag=${razorwire.ImageTags?.Primary}`,
      `${server.url}/jellyfin/Items/${razorwire.Id}/Images/Backdrop?api_key=${tokens.get('Kid')}`,
    ]) {
      const response = await fetch(url, url.includes('api_key') ? {} : { headers: kid });
      assert.equal(response.status, 404, url);
    }
    // Tags name their person: the adult's tag is not the child's (the child's Meadow tag differs too).
    const annaMeadow = await itemOf('Anna', 'Meadow');
    const kidMeadow = kidItems[0];
    assert.notEqual(kidMeadow?.ImageTags?.Primary, annaMeadow.ImageTags?.Primary);
  });

  it("a child's tag stops working once the film is hidden from the child; the adult's keeps working", async () => {
    const kidMeadow = await itemOf('Kid', 'Meadow');
    const annaMeadow = await itemOf('Anna', 'Meadow');
    const kidUrl = imageUrl(root, kidMeadow);
    const annaUrl = imageUrl(root, annaMeadow);
    assert.equal((await fetch(kidUrl)).status, 200);
    const meadow = movieIds.get('Meadow');
    assert.equal(
      (await server.api(`/api/movies/${meadow}`, jsonBody('PATCH', { certification: 'R' }))).status,
      200,
    );
    try {
      assert.equal((await fetch(kidUrl)).status, 401, 'the tag no longer opens the image');
      assert.equal((await fetch(annaUrl)).status, 200);
      assert.equal((await items('Kid')).length, 0);
    } finally {
      await server.api(`/api/movies/${meadow}`, jsonBody('PATCH', { certification: 'G' }));
    }
    assert.equal((await fetch(kidUrl)).status, 200, 'visible again: the same tag works again');
  });
});
