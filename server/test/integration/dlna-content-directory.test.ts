// The DLNA ContentDirectory service over a real reelshelf library (real SQLite, the library, watch
// state, visibility and generation services of a running server), with a small in-test media port:
// the tree a TV browses (every film once after merging by refID), editions, a disc-only film, a film
// that cannot play on the TV, paging and sorting, Search, the faults (701, 402, 401, 708, 710),
// GetSystemUpdateID moving after a library change, X_GetFeatureList, and a child's DLNA view without
// the R-rated film. Answers go through renderSoapResponse and are read back with fast-xml-parser.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { XMLParser } from 'fast-xml-parser';
import { systemClock } from '../../src/adapters/clock.ts';
import type { DidlResource } from '../../src/domain/dlna/didl.ts';
import { renderSoapResponse } from '../../src/domain/dlna/soap.ts';
import { normalizeTitle, sortTitle } from '../../src/domain/titles.ts';
import { JellyfinFactsRepository } from '../../src/repositories/jellyfin-facts.repository.ts';
import { ContentDirectoryService } from '../../src/services/dlna/content-directory.service.ts';
import type { DlnaClient, DlnaFilePresentation, DlnaMediaPort } from '../../src/services/dlna/dlna-ports.ts';
import { LibraryGeneration } from '../../src/services/library/library-generation.ts';
import type { ListingViewer } from '../../src/services/library/library.service.ts';
import { addPeople, CHILD_KID, MEMBER_ANNA } from '../helpers/household.ts';
import { registerFiles } from '../helpers/library-fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/test-server.ts';

const CLIENT: DlnaClient = {
  address: '192.168.1.40',
  userAgent: 'SEC_HHP_[TV] Samsung Q6 Series (55)/1.0 DLNADOC/1.50',
  avClientInfo: null,
  baseUrl: 'http://192.168.1.2:8080',
};

/** The media service as the content directory sees it: a `res` per file, or why it cannot play. */
class InTestMediaPort implements DlnaMediaPort {
  readonly presented: number[] = [];
  constructor(private readonly cannotPlay: Map<number, string>) {}

  async presentFile(fileId: number, client: DlnaClient): Promise<DlnaFilePresentation> {
    this.presented.push(fileId);
    const reason = this.cannotPlay.get(fileId);
    if (reason !== undefined) return { resources: [], captions: [], cannotPlay: reason };
    const resource: DidlResource = {
      url: `${client.baseUrl}/dlna/media/f${fileId}.mkv?t=signed`,
      protocolInfo: 'http-get:*:video/x-matroska:DLNA.ORG_OP=01;DLNA.ORG_CI=0',
      sizeBytes: 1000 + fileId,
      durationSeconds: 3,
    };
    return {
      resources: [resource],
      captions: [{ url: `${client.baseUrl}/dlna/media/f${fileId}.srt`, type: 'srt' }],
      cannotPlay: null,
    };
  }

  albumArt(movieId: number, client: DlnaClient): Promise<{ url: string; profile: 'JPEG_TN' }> {
    return Promise.resolve({ url: `${client.baseUrl}/dlna/media/art/${movieId}.jpg`, profile: 'JPEG_TN' });
  }
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  parseTagValue: false,
  parseAttributeValue: false,
  isArray: (name) => ['container', 'item', 'res', 'upnp:genre', 'Feature'].includes(name),
});

interface DidlNode {
  '@id': string;
  '@parentID': string;
  '@refID'?: string;
  '@childCount'?: string;
  'dc:title': string;
  'upnp:class': string;
  'dc:date'?: string;
  'dc:description'?: string;
  'upnp:genre'?: string[];
  'upnp:albumArtURI'?: { '#text': string };
  res?: ({ '#text': string; '@protocolInfo': string } | string)[];
}

interface Answer {
  objects: DidlNode[];
  numberReturned: number;
  totalMatches: number;
  updateId: number;
}

const CDS = 'urn:schemas-upnp-org:service:ContentDirectory:1';
const TITLE_WITH_MARKUP = 'Paddington 2: "Marmalade" & <Friends> \'n\' Co';

describe('dlna: the content directory over a real library', () => {
  let server: TestServer;
  let root: string;
  let service: ContentDirectoryService;
  let media: InTestMediaPort;
  let viewer: ListingViewer | null = null;
  let anna: ListingViewer;
  let kid: ListingViewer;
  const movie: Record<string, number> = {};
  const file: Record<string, number> = {};

  /** Calls an action and reads the SOAP answer back as a TV would (escaped once, parsed twice). */
  async function call(action: string, args: Record<string, string>): Promise<Record<string, string>> {
    // As every HTTP request does (the control route's too): writes committed before it are heard.
    await server.server.database.changes.catchUp();
    const outcome = await service.handle(action, args, CLIENT);
    if (!outcome.ok) throw Object.assign(new Error(`fault ${outcome.code}`), { code: outcome.code });
    const soap = renderSoapResponse(CDS, action, outcome.values);
    const envelope = parser.parse(soap) as Record<
      string,
      Record<string, Record<string, Record<string, string>>>
    >;
    const response = envelope['s:Envelope']?.['s:Body']?.[`u:${action}Response`];
    assert.ok(response, soap);
    return response;
  }

  async function fault(action: string, args: Record<string, string>): Promise<number> {
    const outcome = await service.handle(action, args, CLIENT);
    assert.equal(outcome.ok, false, `${action} ${JSON.stringify(args)} should fault`);
    return outcome.ok ? 0 : outcome.code;
  }

  function answerOf(response: Record<string, string>): Answer {
    const didl = parser.parse(response.Result ?? '') as {
      'DIDL-Lite': { container?: DidlNode[]; item?: DidlNode[] };
    };
    const lite = didl['DIDL-Lite'];
    // Containers and items keep their document order through their ids' order in the Result text.
    const objects = [...(lite.container ?? []), ...(lite.item ?? [])].sort(
      (a, b) =>
        (response.Result ?? '').indexOf(`id="${a['@id']}"`) -
        (response.Result ?? '').indexOf(`id="${b['@id']}"`),
    );
    return {
      objects,
      numberReturned: Number(response.NumberReturned),
      totalMatches: Number(response.TotalMatches),
      updateId: Number(response.UpdateID),
    };
  }

  async function browse(
    objectId: string,
    flag: 'BrowseMetadata' | 'BrowseDirectChildren' = 'BrowseDirectChildren',
    options: { start?: number; count?: number; sort?: string } = {},
  ): Promise<Answer> {
    return answerOf(
      await call('Browse', {
        ObjectID: objectId,
        BrowseFlag: flag,
        Filter: '*',
        StartingIndex: String(options.start ?? 0),
        RequestedCount: String(options.count ?? 0),
        SortCriteria: options.sort ?? '',
      }),
    );
  }

  async function search(containerId: string, criteria: string, sort = ''): Promise<Answer> {
    return answerOf(
      await call('Search', {
        ContainerID: containerId,
        SearchCriteria: criteria,
        Filter: '*',
        StartingIndex: '0',
        RequestedCount: '0',
        SortCriteria: sort,
      }),
    );
  }

  /** Every object under the root, browsed in pages of `pageSize` as a TV walks it. */
  async function walk(pageSize = 3): Promise<DidlNode[]> {
    const found: DidlNode[] = [];
    const queue = ['0'];
    while (queue.length > 0) {
      const id = queue.shift() ?? '';
      for (let start = 0; ; start += pageSize) {
        const page = await browse(id, 'BrowseDirectChildren', { start, count: pageSize });
        for (const object of page.objects) {
          assert.equal(object['@parentID'], id);
          found.push(object);
          if (object['upnp:class'].startsWith('object.container')) queue.push(object['@id']);
        }
        if (start + pageSize >= page.totalMatches) break;
      }
    }
    return found;
  }

  const resUrls = (node: DidlNode | undefined): string[] =>
    (node?.res ?? []).map((r) => (typeof r === 'string' ? r : r['#text']));
  const titles = (answer: Answer): string[] => answer.objects.map((o) => o['dc:title']);

  before(async () => {
    server = await startTestServer();
    const db = server.server.database.db;
    await addPeople(server, [MEMBER_ANNA, CHILD_KID]);
    const users = (await (await server.api('/api/users')).json()) as {
      items: { id: number; name: string }[];
    };
    const idOf = (name: string): number => users.items.find((u) => u.name === name)?.id ?? 0;
    const credential = { kind: 'admin-token', id: null } as const;
    anna = { userId: idOf('Anna'), limit: null, credential };
    kid = {
      userId: idOf('Kid'),
      limit: { maxCertification: CHILD_KID.max_certification, allowUnrated: CHILD_KID.allow_unrated },
      credential,
    };

    root = mkdtempSync(join(tmpdir(), 'reelshelf-dlna-cds-'));
    const paths: Record<string, string> = {};
    for (const name of ['alien', 'aliensDc', 'aliensTh', 'prometheus', 'paddington', 'heat']) {
      paths[name] = join(root, `${name}.mkv`);
      writeFileSync(paths[name], `not really ${name}`);
    }
    const registered = await registerFiles(db, root, paths);
    for (const [name, ids] of Object.entries(registered)) {
      movie[name] = ids.movieId;
      file[name] = ids.fileId;
    }
    // Aliens: two editions of one movie.
    await db
      .updateTable('media_files')
      .set({ movie_id: movie.aliensDc ?? 0, edition_label: "Director's Cut" })
      .where('id', '=', file.aliensDc ?? 0)
      .execute();
    await db
      .updateTable('media_files')
      .set({ movie_id: movie.aliensDc ?? 0, edition_label: 'Theatrical' })
      .where('id', '=', file.aliensTh ?? 0)
      .execute();
    await db
      .deleteFrom('movies')
      .where('id', '=', movie.aliensTh ?? 0)
      .execute();
    // Heat: disc only (its file row goes; the disc sits in binder A, slot 12).
    await db
      .deleteFrom('media_files')
      .where('id', '=', file.heat ?? 0)
      .execute();
    const now = new Date().toISOString();
    const binder = await db
      .insertInto('binders')
      .values({ name: 'A', capacity: 100, created_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db
      .insertInto('physical_copies')
      .values({
        movie_id: movie.heat ?? 0,
        edition_id: null,
        binder_id: binder.id,
        slot: '12',
        notes: null,
        created_at: now,
      })
      .execute();
    const facts: Record<string, [string, number, string[], string, number | null, string]> = {
      alien: ['Alien', 1979, ['Horror', 'Science Fiction'], 'R', 8091, '2026-01-03T00:00:00.000Z'],
      aliensDc: ['Aliens', 1986, ['Science Fiction', 'Action'], 'PG', 8091, '2026-01-01T00:00:00.000Z'],
      heat: ['Heat', 1995, ['Crime', 'Drama'], 'PG', null, '2026-01-02T00:00:00.000Z'],
      prometheus: ['Prometheus', 2012, ['Science Fiction'], 'PG', 8091, '2026-01-04T00:00:00.000Z'],
      paddington: ['Paddington', 2014, ['Family', 'Comedy'], 'G', null, '2026-01-05T00:00:00.000Z'],
    };
    for (const [name, [title, year, genres, certification, collection, added]] of Object.entries(facts)) {
      await db
        .updateTable('movies')
        .set({
          title,
          sort_title: sortTitle(title),
          normalized_title: normalizeTitle(title),
          year,
          genres_json: JSON.stringify(genres),
          certification,
          tmdb_collection_id: collection,
          tmdb_collection_name: collection === null ? null : 'Alien Collection',
          overview: `${title}, the film.`,
          created_at: added,
        })
        .where('id', '=', movie[name] ?? 0)
        .execute();
    }

    media = new InTestMediaPort(new Map([[file.prometheus ?? 0, 'DTS audio']]));
    const services = server.server.services;
    service = new ContentDirectoryService({
      person: { viewer: async () => viewer },
      library: services.library,
      facts: new JellyfinFactsRepository(db),
      watch: services.watch,
      visibility: services.visibility,
      // The database's change feed, as services/index.ts wires the server's own generation.
      generation: new LibraryGeneration(server.server.database.changes, () => 0),
      media,
      device: services.devices.resolve(undefined).id,
      clock: systemClock,
      rootTitle: 'reelshelf on test',
    });
    viewer = anna;
  });

  after(async () => {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('the root: BrowseMetadata of 0 and its six folders with child counts', async () => {
    const meta = await browse('0', 'BrowseMetadata');
    assert.equal(meta.numberReturned, 1);
    assert.equal(meta.totalMatches, 1);
    const rootObject = meta.objects[0];
    assert.equal(rootObject?.['@id'], '0');
    assert.equal(rootObject?.['@parentID'], '-1');
    assert.equal(rootObject?.['dc:title'], 'reelshelf on test');
    assert.equal(rootObject?.['@childCount'], '6');
    const children = await browse('0');
    assert.deepEqual(titles(children), [
      'All films',
      'Recently added',
      'Continue watching',
      'Collections',
      'By year',
      'By genre',
    ]);
    const counts = Object.fromEntries(children.objects.map((o) => [o['dc:title'], o['@childCount']]));
    assert.equal(counts['All films'], '5');
    assert.equal(counts['Continue watching'], '0');
    assert.equal(counts.Collections, '1');
  });

  it('All films: items, the editions container, the disc-only film and the one that cannot play', async () => {
    const all = await browse('all');
    assert.deepEqual(titles(all), [
      'Alien',
      'Aliens',
      'Heat — on disc: binder A, slot 12',
      'Paddington',
      'Prometheus — cannot play on this TV: DTS audio',
    ]);
    const [alien, aliens, heat, , prometheus] = all.objects;
    assert.equal(alien?.['upnp:class'], 'object.item.videoItem.movie');
    assert.equal(alien?.['@refID'], undefined);
    assert.deepEqual(alien?.['upnp:genre'], ['Horror', 'Science Fiction']);
    assert.equal(alien?.['dc:date'], '1979-01-01');
    assert.equal(alien?.['dc:description'], 'Alien, the film.');
    assert.equal(
      alien?.['upnp:albumArtURI']?.['#text'],
      `${CLIENT.baseUrl}/dlna/media/art/${movie.alien}.jpg`,
    );
    assert.ok(resUrls(alien).includes(`${CLIENT.baseUrl}/dlna/media/f${file.alien}.mkv?t=signed`));
    assert.equal(aliens?.['upnp:class'], 'object.container.storageFolder');
    assert.equal(aliens?.['@childCount'], '2');
    assert.equal(heat?.res, undefined, 'a disc-only film has no res');
    assert.match(heat?.['dc:description'] ?? '', /^On disc: binder A, slot 12\./);
    assert.deepEqual(resUrls(prometheus), [], 'a file that cannot play gets no res, not one that fails');

    const editions = await browse(aliens?.['@id'] ?? '');
    assert.deepEqual(titles(editions), ["Aliens — Director's Cut", 'Aliens — Theatrical']);
    assert.deepEqual(
      editions.objects.map((o) => resUrls(o)[0]),
      [file.aliensDc, file.aliensTh].map((f) => `${CLIENT.baseUrl}/dlna/media/f${f}.mkv?t=signed`),
    );
  });

  it('a page renders only its own items (the media port is asked for the page)', async () => {
    media.presented.length = 0;
    const page = await browse('all', 'BrowseDirectChildren', { start: 1, count: 2 });
    assert.deepEqual(titles(page), ['Aliens', 'Heat — on disc: binder A, slot 12']);
    assert.equal(page.numberReturned, 2);
    assert.equal(page.totalMatches, 5);
    assert.deepEqual(media.presented, [], 'a container and a disc-only film present no file');
    await browse('all', 'BrowseDirectChildren', { start: 0, count: 1 });
    assert.deepEqual(media.presented, [file.alien]);
  });

  it('paging past the end and sorting', async () => {
    const past = await browse('all', 'BrowseDirectChildren', { start: 9, count: 5 });
    assert.equal(past.numberReturned, 0);
    assert.equal(past.totalMatches, 5);
    const byDate = await browse('all', 'BrowseDirectChildren', { sort: '-dc:date', count: 3 });
    assert.deepEqual(
      byDate.objects.map((o) => o['dc:title'].split(' — ')[0]),
      ['Paddington', 'Prometheus', 'Heat'],
    );
    const byTitle = await browse('all', 'BrowseDirectChildren', {
      sort: '+upnp:originalTrackNumber,-dc:title',
    });
    assert.deepEqual(
      byTitle.objects.map((o) => o['dc:title'].split(' — ')[0]),
      ['Prometheus', 'Paddington', 'Heat', 'Aliens', 'Alien'],
    );
    const years = await browse('year');
    assert.deepEqual(titles(years), ['2014', '2012', '1995', '1986', '1979']);
    const collection = await browse('coll');
    assert.deepEqual(titles(collection), ['Alien Collection']);
    const inCollection = await browse(collection.objects[0]?.['@id'] ?? '');
    assert.deepEqual(
      inCollection.objects.map((o) => o['dc:title'].split(' — ')[0]),
      ['Alien', 'Aliens', 'Prometheus'],
    );
    const recent = await browse('recent');
    assert.deepEqual(
      recent.objects.map((o) => o['dc:title'].split(' — ')[0]),
      ['Paddington', 'Prometheus', 'Alien', 'Heat', 'Aliens'],
    );
  });

  it('the whole tree, walked in pages: every film and edition once after merging by refID', async () => {
    const everything = await walk(3);
    const items = everything.filter((o) => o['upnp:class'] === 'object.item.videoItem.movie');
    const byId = new Map(everything.map((o) => [o['@id'], o]));
    const mains = new Map<string, DidlNode>();
    for (const item of items) {
      const mainId = item['@refID'] ?? item['@id'];
      const main = byId.get(mainId);
      assert.ok(main, `${item['@id']} refers to ${mainId}, which the walk found`);
      assert.equal(main['@refID'], undefined, 'a main placement carries no refID');
      assert.deepEqual(resUrls(item), resUrls(main), `${item['@id']} offers its main placement's res`);
      mains.set(mainId, main);
    }
    assert.ok(items.length > mains.size, 'films are placed more than once');
    assert.deepEqual(
      [...mains.values()].map((m) => m['dc:title'].split(' — ').slice(0, 2).join(' — ')).sort(),
      [
        'Alien',
        "Aliens — Director's Cut",
        'Aliens — Theatrical',
        'Heat — on disc: binder A, slot 12',
        'Paddington',
        'Prometheus — cannot play on this TV: DTS audio',
      ],
    );
    // BrowseMetadata of any object answers that object alone.
    for (const object of everything.slice(0, 40)) {
      const meta = await browse(object['@id'], 'BrowseMetadata');
      assert.equal(meta.objects[0]?.['@id'], object['@id']);
      assert.equal(meta.objects[0]?.['@parentID'], object['@parentID']);
    }
  });

  it('faults: 701 unknown object, 402 bad flag or index, 401 unknown action, 708 and 710 for Search', async () => {
    const args = {
      ObjectID: '0',
      BrowseFlag: 'BrowseDirectChildren',
      Filter: '*',
      StartingIndex: '0',
      RequestedCount: '0',
      SortCriteria: '',
    };
    for (const id of ['no-such-object-4711', '4711', 'all/m999999', '', '0/all']) {
      assert.equal(await fault('Browse', { ...args, ObjectID: id }), 701, id);
    }
    const huge = await service.handle('Browse', { ...args, ObjectID: 'x'.repeat(100_000) }, CLIENT);
    assert.ok(!huge.ok && huge.code === 701);
    assert.ok((huge.description ?? '').length < 120, 'the description quotes a bounded part of the id');
    assert.equal(await fault('Browse', { ...args, BrowseFlag: 'BrowseEverything' }), 402);
    const { ObjectID: _omitted, ...withoutId } = args;
    assert.equal(await fault('Browse', withoutId), 402);
    for (const bad of ['-1', 'ten', '1e3', '4294967296', '0x10']) {
      assert.equal(await fault('Browse', { ...args, StartingIndex: bad }), 402, bad);
      assert.equal(await fault('Browse', { ...args, RequestedCount: bad }), 402, bad);
    }
    assert.equal(await fault('DestroyObject', { ObjectID: 'all' }), 401);
    const searchArgs = {
      ContainerID: '0',
      Filter: '*',
      StartingIndex: '0',
      RequestedCount: '0',
      SortCriteria: '',
    };
    assert.equal(await fault('Search', { ...searchArgs, SearchCriteria: 'dc:creator = "x"' }), 708);
    assert.equal(await fault('Search', { ...searchArgs, SearchCriteria: 'dc:title contains "x' }), 708);
    assert.equal(await fault('Search', { ...searchArgs, ContainerID: 'nope', SearchCriteria: '*' }), 701);
    assert.equal(
      await fault('Search', { ...searchArgs, ContainerID: `all/m${movie.alien}`, SearchCriteria: '*' }),
      710,
    );
  });

  it('Search: videos by title, under a container, sorted and paged', async () => {
    const found = await search(
      '0',
      'upnp:class derivedfrom "object.item.videoItem" and dc:title contains "alien"',
    );
    assert.deepEqual(titles(found), ['Alien', "Aliens — Director's Cut", 'Aliens — Theatrical']);
    assert.ok(found.objects.every((o) => o['@refID'] === undefined));
    const all = await search('0', '*', '-dc:date');
    assert.equal(all.totalMatches, 6);
    assert.equal(all.objects[0]?.['dc:title'], 'Paddington');
    const genre = await search('genre', 'dc:title contains "prometheus"');
    assert.equal(genre.totalMatches, 1);
    assert.ok(genre.objects[0]?.['@refID']?.startsWith('all/'));
    const none = await search('0', '(upnp:class derivedfrom "object.item.audioItem")');
    assert.equal(none.totalMatches, 0);
    const paged = answerOf(
      await call('Search', {
        ContainerID: '0',
        SearchCriteria: '*',
        Filter: 'dc:title,res',
        StartingIndex: '4',
        RequestedCount: '10',
        SortCriteria: '+dc:title',
      }),
    );
    assert.equal(paged.numberReturned, 2);
    assert.equal(paged.totalMatches, 6);
  });

  it('capabilities and Samsung’s feature list (pointing at a browsable video container)', async () => {
    assert.equal((await call('GetSearchCapabilities', {})).SearchCaps, 'dc:title,upnp:class');
    assert.equal((await call('GetSortCapabilities', {})).SortCaps, 'dc:title,dc:date,upnp:genre');
    const features = parser.parse((await call('X_GetFeatureList', {})).FeatureList ?? '') as {
      Features: { Feature: { '@name': string; container: { '@id': string; '@type': string }[] }[] };
    };
    const basic = features.Features.Feature.find((f) => f['@name'] === 'samsung.com_BASICVIEW');
    assert.equal(basic?.container[0]?.['@type'], 'object.item.videoItem');
    const videos = await browse(basic?.container[0]?.['@id'] ?? '');
    assert.equal(videos.totalMatches, 5);
  });

  it('GetSystemUpdateID stays while nothing changes and moves after a library change; the tree follows', async () => {
    const first = Number((await call('GetSystemUpdateID', {})).Id);
    assert.ok(first > 0);
    const builds = service.buildCount();
    const browsed = await browse('all');
    assert.equal(browsed.updateId, first);
    assert.equal(Number((await call('GetSystemUpdateID', {})).Id), first);
    assert.equal(service.buildCount(), builds, 'the kept tree answers');

    const db = server.server.database.db;
    await db
      .updateTable('movies')
      .set({ title: TITLE_WITH_MARKUP, sort_title: sortTitle(TITLE_WITH_MARKUP) })
      .where('id', '=', movie.paddington ?? 0)
      .execute();
    const moved = Number((await call('GetSystemUpdateID', {})).Id);
    assert.ok(moved > first, `${moved} > ${first}`);
    const after = await browse('all');
    assert.equal(after.updateId, moved);
    assert.ok(
      titles(after).includes(TITLE_WITH_MARKUP),
      'escaped once in DIDL, once in SOAP: read back whole',
    );
    assert.equal(service.buildCount(), builds + 1);
  });

  it('Continue watching: the person’s resume points, referring to their films', async () => {
    await server.server.services.watch.save(anna.userId, file.aliensTh ?? 0, { position_seconds: 600 });
    await server.server.services.watch.save(anna.userId, file.alien ?? 0, { position_seconds: 300 });
    const resume = await browse('resume');
    assert.deepEqual(titles(resume), ['Alien', 'Aliens — Theatrical']);
    assert.deepEqual(
      resume.objects.map((o) => o['@refID']),
      [`all/m${movie.alien}`, `all/m${movie.aliensDc}/f${file.aliensTh}`],
    );
    // Another person's resume point is not Anna's.
    viewer = kid;
    try {
      assert.deepEqual(titles(await browse('resume')), []);
    } finally {
      viewer = anna;
    }
  });

  it('a child as the DLNA person: no R-rated film anywhere, not by id, not by Search', async () => {
    viewer = kid;
    try {
      const everything = await walk(4);
      const names = everything.map((o) => o['dc:title']);
      assert.ok(names.includes("Aliens — Director's Cut"));
      assert.ok(!names.some((n) => n.startsWith('Alien —') || n === 'Alien'), names.join(', '));
      assert.equal(
        await fault('Browse', {
          ObjectID: `all/m${movie.alien}`,
          BrowseFlag: 'BrowseMetadata',
          Filter: '*',
          StartingIndex: '0',
          RequestedCount: '0',
          SortCriteria: '',
        }),
        701,
      );
      const found = await search('0', 'dc:title contains "alien"');
      assert.deepEqual(titles(found), ["Aliens — Director's Cut", 'Aliens — Theatrical']);
    } finally {
      viewer = anna;
    }
  });

  it('no DLNA person: an empty root that says why, and nothing else', async () => {
    viewer = null;
    try {
      const meta = await browse('0', 'BrowseMetadata');
      assert.match(meta.objects[0]?.['dc:title'] ?? '', /no DLNA person/);
      assert.equal(meta.objects[0]?.['@childCount'], '0');
      const children = await browse('0');
      assert.equal(children.totalMatches, 0);
      assert.equal(
        await fault('Browse', {
          ObjectID: 'all',
          BrowseFlag: 'BrowseDirectChildren',
          Filter: '*',
          StartingIndex: '0',
          RequestedCount: '0',
          SortCriteria: '',
        }),
        701,
      );
      assert.equal((await search('0', '*')).totalMatches, 0);
    } finally {
      viewer = anna;
    }
  });
});
