// Seek thumbnails through the Jellyfin facade, driven by @jellyfin/sdk 1.0.0 as Findroid, Swiftfin
// and jellyfin-androidtv use it: the item's `Trickplay` field when `Fields` asks for it (lists and
// the single item; keyed by the MediaSource id and the thumbnail width), the sheets by
// TrickPlayApi.getTrickplayTileImage and the image playlist by getTrickplayHlsPlaylist (the token
// also as ApiKey, as players fetch them), a wrong width 404, a PG child's 404 for the R film, the
// field appearing once a set is made (the kept catalogue and the kept large answers), and the
// Jellyfin HLS master announcing the sheets. Sets are made by the real ffmpeg pass
// (helpers/trickplay-made.ts).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Jellyfin } from '@jellyfin/sdk/lib/jellyfin.js';
import type { Api } from '@jellyfin/sdk/lib/api.js';
import type { TrickplayInfoDto } from '@jellyfin/sdk/lib/generated-client/models/trickplay-info-dto.js';
import { ItemFields } from '@jellyfin/sdk/lib/generated-client/models/item-fields.js';
import { getTrickPlayApi } from '@jellyfin/sdk/lib/utils/api/trick-play-api.js';
import sharp from 'sharp';
import { peakBandwidth, sheetCount, sheetSize } from '../../src/domain/trickplay/geometry.ts';
import type { TrickplayMade } from '../../src/services/trickplay/trickplay-ports.ts';
import { checkImagePlaylist } from '../helpers/image-playlist-check.ts';
import { CHILD_KID, MEMBER_ANNA, addPeople } from '../helpers/household.ts';
import { registerFiles } from '../helpers/library-fixtures.ts';
import { jsonBody, type TestServer } from '../helpers/test-server.ts';
import { makeColourFilm } from '../helpers/trickplay-fixtures.ts';
import { makeTrickplayFor, startTrickplayServer, trickplayReaderOf } from '../helpers/trickplay-made.ts';

const jellyfin = new Jellyfin({
  clientInfo: { name: 'Findroid', version: '0.15.0' },
  deviceInfo: { name: 'Pixel', id: 'device-pixel' },
});

const OPTIONS = { intervalMs: 2000, width: 64, tileWidth: 20, tileHeight: 1 };
/** Enough items that the whole-library answer is kept (kept-answer.ts keeps 256 KiB and more). */
const FILLERS = 600;

interface Item {
  Id: string;
  Name: string;
  MediaSources?: { Id: string }[];
  Trickplay?: Record<string, Record<string, TrickplayInfoDto>>;
}

describe('jellyfin: seek thumbnails (Trickplay field, /Videos/{id}/Trickplay/…)', () => {
  let server: TestServer;
  let media = '';
  let fillers = '';
  const files = new Map<string, number>();
  const apis = new Map<string, Api>();
  const made = new Map<string, TrickplayMade>();

  const apiOf = (person: string): Api => {
    const api = apis.get(person);
    assert.ok(api !== undefined, person);
    return api;
  };
  const tokenOf = (person: string): string => apiOf(person).accessToken;
  const request = (person: string, path: string) =>
    fetch(`${server.url}/jellyfin${path}`, { headers: { 'x-emby-token': tokenOf(person) } });
  const list = async (person: string, fields: string): Promise<Item[]> => {
    const response = await request(
      person,
      `/Items?Recursive=true&IncludeItemTypes=Movie${fields === '' ? '' : `&Fields=${fields}`}`,
    );
    assert.equal(response.status, 200);
    return ((await response.json()) as { Items: Item[] }).Items;
  };
  const itemOf = async (
    person: string,
    name: string,
    fields: string = ItemFields.Trickplay,
  ): Promise<Item> => {
    const found = (await list(person, fields)).find((i) => i.Name === name);
    assert.ok(found !== undefined, `${person} lists ${name}`);
    return found;
  };
  const dto = (set: TrickplayMade): TrickplayInfoDto => ({
    Width: set.layout.thumbnailWidth,
    Height: set.layout.thumbnailHeight,
    TileWidth: set.layout.tileWidth,
    TileHeight: set.layout.tileHeight,
    ThumbnailCount: set.layout.thumbnailCount,
    Interval: set.layout.intervalMs,
    Bandwidth: peakBandwidth(set.layout, set.sheetBytes),
  });

  before(async () => {
    server = await startTrickplayServer({ REELSHELF_JELLYFIN_PORT: '0' });
    media = mkdtempSync(join(tmpdir(), 'reelshelf-jf-trickplay-'));
    for (const title of ['Meadow', 'Razorwire', 'Plain']) {
      await makeColourFilm(media, `${title} (2001).mp4`, {
        durationSeconds: 45,
        offsetSeconds: 0,
        gopSeconds: 2,
        codec: 'h264',
      });
    }
    const created = await server.api('/api/library-roots', jsonBody('POST', { path: media }));
    const { id: rootId } = (await created.json()) as { id: number };
    assert.equal(
      (await server.api(`/api/library-roots/${rootId}/scan?wait=true`, { method: 'POST' })).status,
      200,
    );
    const movies = (await (await server.api('/api/movies')).json()) as {
      items: { id: number; title: string }[];
    };
    for (const movie of movies.items) {
      const detail = (await (await server.api(`/api/movies/${movie.id}`)).json()) as {
        media_files: { id: number }[];
      };
      files.set(movie.title, detail.media_files[0]?.id ?? 0);
      const certification = movie.title === 'Razorwire' ? 'R' : 'G';
      assert.equal(
        (await server.api(`/api/movies/${movie.id}`, jsonBody('PATCH', { certification }))).status,
        200,
      );
    }
    // Fillers (files on disk, never analysed): only there to make the whole-library answer large.
    fillers = mkdtempSync(join(tmpdir(), 'reelshelf-jf-trickplay-fillers-'));
    const names: Record<string, string> = {};
    for (let i = 0; i < FILLERS; i++) {
      const path = join(fillers, `filler-${String(i).padStart(4, '0')}.mp4`);
      writeFileSync(path, '');
      names[`filler ${i}`] = path;
    }
    await registerFiles(server.server.database.db, fillers, names);
    for (const [name, fileId] of files) {
      if (name !== 'Plain') made.set(name, await makeTrickplayFor(server, fileId, { options: OPTIONS }));
    }
    await addPeople(server, [MEMBER_ANNA, CHILD_KID]);
    for (const person of [MEMBER_ANNA, CHILD_KID]) {
      const api = jellyfin.createApi(`${server.url}/jellyfin`);
      const { data } = await api.authenticateUserByName(person.name, person.password);
      apis.set(person.name, jellyfin.createApi(`${server.url}/jellyfin`, data.AccessToken ?? ''));
    }
  });
  after(async () => {
    await server?.close();
    rmSync(media, { recursive: true, force: true });
    rmSync(fillers, { recursive: true, force: true });
  });

  it('Fields=Trickplay: the made set under its MediaSource id and width; {} without one; absent unless asked', async () => {
    const meadow = await itemOf('Anna', 'Meadow', `${ItemFields.Trickplay},${ItemFields.MediaSources}`);
    const sourceId = meadow.MediaSources?.[0]?.Id ?? '';
    assert.match(sourceId, /^[0-9a-f]{32}$/);
    const set = made.get('Meadow');
    assert.ok(set !== undefined);
    assert.deepEqual(meadow.Trickplay, { [sourceId]: { '64': dto(set) } });
    assert.deepEqual((await itemOf('Anna', 'Plain')).Trickplay, {});
    assert.equal((await itemOf('Anna', 'Meadow', ItemFields.Overview)).Trickplay, undefined);
    // The single item carries every field, Trickplay among them (as Jellyfin's).
    const single = await request('Anna', `/Items/${meadow.Id}`);
    assert.deepEqual(((await single.json()) as Item).Trickplay, meadow.Trickplay);
    // The other lists ask the same way.
    const latest = await request('Anna', `/Items/Latest?Fields=Trickplay&Limit=1000`);
    const fromLatest = ((await latest.json()) as Item[]).find((i) => i.Name === 'Meadow');
    assert.deepEqual(fromLatest?.Trickplay, meadow.Trickplay);
  });

  it('TrickPlayApi.getTrickplayTileImage: each sheet as image/jpeg, revalidated by its ETag; a wrong width or index 404', async () => {
    const meadow = await itemOf('Anna', 'Meadow');
    const set = made.get('Meadow');
    assert.ok(set !== undefined);
    const trickplay = getTrickPlayApi(apiOf('Anna'));
    for (let index = 0; index < sheetCount(set.layout); index++) {
      const response = await trickplay.getTrickplayTileImage(
        { itemId: meadow.Id, width: 64, index },
        { responseType: 'arraybuffer' },
      );
      assert.equal(response.status, 200);
      assert.equal(response.headers['content-type'], 'image/jpeg');
      const bytes = Buffer.from(response.data as unknown as ArrayBuffer);
      assert.equal(bytes.length, set.sheetBytes[index]);
      const meta = await sharp(bytes).metadata();
      assert.deepEqual({ width: meta.width, height: meta.height }, sheetSize(set.layout));
      const etag = String(response.headers.etag);
      const again = await fetch(`${server.url}/jellyfin/Videos/${meadow.Id}/Trickplay/64/${index}.jpg`, {
        headers: { 'x-emby-token': tokenOf('Anna'), 'if-none-match': etag },
      });
      assert.equal(again.status, 304);
    }
    for (const path of [
      'Trickplay/320/0.jpg',
      `Trickplay/64/${sheetCount(set.layout)}.jpg`,
      'Trickplay/64/x.png',
    ]) {
      const response = await request('Anna', `/Videos/${meadow.Id}/${path}`);
      assert.equal(response.status, 404, path);
      assert.equal(((await response.json()) as { error: string }).error, 'not_found');
    }
    const plain = await itemOf('Anna', 'Plain');
    assert.equal((await request('Anna', `/Videos/${plain.Id}/Trickplay/64/0.jpg`)).status, 404);
  });

  it('getTrickplayHlsPlaylist: the sheets as an image playlist whose URIs (ApiKey in the query) serve without headers', async () => {
    const meadow = await itemOf('Anna', 'Meadow', `${ItemFields.Trickplay},${ItemFields.MediaSources}`);
    const sourceId = meadow.MediaSources?.[0]?.Id ?? '';
    const set = made.get('Meadow');
    assert.ok(set !== undefined);
    const response = await getTrickPlayApi(apiOf('Anna')).getTrickplayHlsPlaylist(
      { itemId: meadow.Id, width: 64, mediaSourceId: sourceId },
      { responseType: 'text' },
    );
    assert.equal(response.status, 200);
    const text = response.data as unknown as string;
    const checked = checkImagePlaylist(text);
    assert.equal(checked.segments.length, sheetCount(set.layout));
    assert.deepEqual(
      checked.segments.map((s) => s.duration),
      [40, 6],
    );
    const base = `${server.url}/jellyfin/Videos/${meadow.Id}/Trickplay/64/tiles.m3u8`;
    for (const [index, segment] of checked.segments.entries()) {
      assert.deepEqual(segment.tiles, { width: 64, height: 36, columns: 20, rows: 1, duration: 2 });
      const url = new URL(segment.uri, base);
      assert.equal(url.pathname, `/jellyfin/Videos/${meadow.Id}/Trickplay/64/${index}.jpg`);
      assert.equal(url.searchParams.get('MediaSourceId'), sourceId);
      assert.equal(url.searchParams.get('ApiKey'), tokenOf('Anna'));
      const image = await fetch(url);
      assert.equal(image.status, 200, url.pathname);
      assert.equal(Buffer.from(await image.arrayBuffer()).length, set.sheetBytes[index]);
    }
    // At the root of the Jellyfin port too.
    const root = server.server.jellyfin.url ?? '';
    const onPort = await fetch(
      `${root}/Videos/${meadow.Id}/Trickplay/64/tiles.m3u8?api_key=${tokenOf('Anna')}`,
    );
    assert.equal(onPort.status, 200);
    checkImagePlaylist(await onPort.text());
  });

  it('a PG child: the R film is a 404 on every trickplay URL, and the G film serves', async () => {
    const razorwire = await itemOf('Anna', 'Razorwire', `${ItemFields.Trickplay},${ItemFields.MediaSources}`);
    const sourceId = razorwire.MediaSources?.[0]?.Id ?? '';
    assert.ok(Object.keys(razorwire.Trickplay ?? {}).length === 1, 'Anna sees its thumbnails');
    for (const path of [
      `/Videos/${razorwire.Id}/Trickplay/64/0.jpg`,
      `/Videos/${razorwire.Id}/Trickplay/64/tiles.m3u8`,
      `/Videos/${razorwire.Id}/Trickplay/64/0.jpg?MediaSourceId=${sourceId}`,
      `/Videos/${sourceId}/Trickplay/64/0.jpg`,
    ]) {
      const response = await request(CHILD_KID.name, path);
      assert.equal(response.status, 404, path);
      const viaKey = await fetch(
        `${server.url}/jellyfin${path}${path.includes('?') ? '&' : '?'}ApiKey=${tokenOf(CHILD_KID.name)}`,
      );
      assert.equal(viaKey.status, 404, `${path} with ApiKey`);
    }
    assert.equal(
      (await list(CHILD_KID.name, ItemFields.Trickplay)).some((i) => i.Name === 'Razorwire'),
      false,
    );
    const meadow = await itemOf(CHILD_KID.name, 'Meadow');
    assert.equal((await request(CHILD_KID.name, `/Videos/${meadow.Id}/Trickplay/64/0.jpg`)).status, 200);
    // Without any token: 401, not the sheet.
    assert.equal((await fetch(`${server.url}/jellyfin/Videos/${meadow.Id}/Trickplay/64/0.jpg`)).status, 401);
  });

  it('a set made after the lists were answered shows in the next answer (the kept catalogue and the kept whole-library answer)', async () => {
    const sync = `/Items?Recursive=true&IncludeItemTypes=Movie&Fields=${ItemFields.Trickplay},${ItemFields.MediaSources},${ItemFields.Overview}`;
    const first = await request('Anna', sync);
    const firstText = await first.text();
    assert.ok(firstText.length > 256 * 1024, `a kept answer (${firstText.length} chars)`);
    const plainBefore = (JSON.parse(firstText) as { Items: Item[] }).Items.find((i) => i.Name === 'Plain');
    assert.deepEqual(plainBefore?.Trickplay, {});
    // Asked again unchanged: the same bytes (kept).
    assert.equal(await (await request('Anna', sync)).text(), firstText);

    const set = await makeTrickplayFor(server, files.get('Plain') ?? 0, { options: OPTIONS });
    const after = (JSON.parse(await (await request('Anna', sync)).text()) as { Items: Item[] }).Items;
    const plain = after.find((i) => i.Name === 'Plain');
    const sourceId = plain?.MediaSources?.[0]?.Id ?? '';
    assert.deepEqual(plain?.Trickplay, { [sourceId]: { '64': dto(set) } });
    // And a remake (a new generation) too.
    const remade = await makeTrickplayFor(server, files.get('Plain') ?? 0, {
      options: { ...OPTIONS, tileWidth: 10 },
    });
    const again = (JSON.parse(await (await request('Anna', sync)).text()) as { Items: Item[] }).Items;
    assert.deepEqual(again.find((i) => i.Name === 'Plain')?.Trickplay, { [sourceId]: { '64': dto(remade) } });
    const small = await itemOf('Anna', 'Plain');
    assert.deepEqual(small.Trickplay, { [sourceId]: { '64': dto(remade) } });
  });

  it('the Jellyfin HLS master announces the sheets at Trickplay/{width}/tiles.m3u8, which serves', async () => {
    const meadow = await itemOf('Anna', 'Meadow', `${ItemFields.Trickplay},${ItemFields.MediaSources}`);
    const sourceId = meadow.MediaSources?.[0]?.Id ?? '';
    const masterUrl = `${server.url}/jellyfin/Videos/${meadow.Id}/master.m3u8?MediaSourceId=${sourceId}&device=roku&ApiKey=${tokenOf('Anna')}`;
    const master = await fetch(masterUrl);
    assert.equal(master.status, 200);
    const line =
      (await master.text()).split('\n').find((l) => l.startsWith('#EXT-X-IMAGE-STREAM-INF:')) ?? '';
    const set = made.get('Meadow');
    assert.ok(set !== undefined);
    assert.match(
      line,
      new RegExp(`BANDWIDTH=${peakBandwidth(set.layout, set.sheetBytes)},RESOLUTION=64x36,CODECS="jpeg"`),
    );
    const uri = /URI="([^"]+)"/.exec(line)?.[1] ?? '';
    const tiles = new URL(uri, masterUrl);
    assert.equal(tiles.pathname, `/jellyfin/Videos/${meadow.Id}/Trickplay/64/tiles.m3u8`);
    const playlist = await fetch(tiles);
    assert.equal(playlist.status, 200);
    checkImagePlaylist(await playlist.text());
    // The media playlists and segments name their file as before: no thumbnails are read for them.
    const reader = trickplayReaderOf(server);
    const calls = reader.calls;
    const media = await fetch(
      new URL(`hls/v/index.m3u8?${new URL(masterUrl).searchParams.toString()}`, masterUrl),
    );
    assert.equal(media.status, 200);
    await media.text();
    assert.equal(reader.calls, calls);
  });
});
