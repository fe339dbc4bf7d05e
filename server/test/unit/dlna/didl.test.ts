import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DIDL_NAMESPACES, renderDidl, type DidlMovie } from '../../../src/domain/dlna/didl.ts';
import { readXml, type XmlElement } from '../../../src/domain/dlna/soap.ts';

const DIDL_NS = DIDL_NAMESPACES.xmlns;
const UPNP_NS = DIDL_NAMESPACES['xmlns:upnp'];
const DC_NS = DIDL_NAMESPACES['xmlns:dc'];

const inception: DidlMovie = {
  kind: 'movie',
  id: 'm12',
  parentId: 'all',
  title: 'Inception',
  year: 2010,
  genres: ['Science Fiction', 'Action'],
  actors: ['Leonardo DiCaprio', 'Elliot Page'],
  directors: ['Christopher Nolan'],
  description: 'A thief who steals corporate secrets…',
  albumArt: { url: 'http://10.0.0.2:8080/dlna/art/m12.jpg?t=abc', profile: 'JPEG_TN' },
  resources: [
    {
      url: 'http://10.0.0.2:8080/dlna/media/f3?t=abc&k=1',
      protocolInfo: 'http-get:*:video/mp4:DLNA.ORG_OP=01;DLNA.ORG_CI=0',
      sizeBytes: 1_234_567_890,
      durationSeconds: 8880.5,
      width: 1920,
      height: 800,
      audioChannels: 6,
      bytesPerSecond: 139_023.4,
    },
  ],
  captions: [{ url: 'http://10.0.0.2:8080/dlna/sub/f3.srt?t=abc', type: 'srt' }],
};

function parse(xml: string): XmlElement {
  const read = readXml(xml);
  assert.ok(read.ok, read.ok ? '' : read.problem);
  return read.root;
}
const child = (element: XmlElement | undefined, name: string): XmlElement | undefined =>
  element?.children.find((c) => c.name === name);
const all = (element: XmlElement | undefined, name: string): string[] =>
  (element?.children ?? []).filter((c) => c.name === name).map((c) => c.text);

describe('renderDidl: a film', () => {
  const root = parse(renderDidl([inception]));
  const item = root.children[0];
  it('is DIDL-Lite with its namespaces', () => {
    assert.equal(root.local, 'DIDL-Lite');
    assert.equal(root.namespace, DIDL_NS);
    assert.equal(item?.namespace, DIDL_NS);
    assert.equal(child(item, 'upnp:class')?.namespace, UPNP_NS);
    assert.equal(child(item, 'dc:title')?.namespace, DC_NS);
    assert.equal(root.attributes.get('xmlns:sec'), 'http://www.sec.co.kr/');
    assert.equal(root.attributes.get('xmlns:dlna'), 'urn:schemas-dlna-org:metadata-1-0/');
  });
  it('carries the film metadata', () => {
    assert.equal(item?.local, 'item');
    assert.equal(item?.attributes.get('id'), 'm12');
    assert.equal(item?.attributes.get('parentID'), 'all');
    assert.equal(item?.attributes.get('restricted'), '1');
    assert.equal(item?.attributes.has('refID'), false);
    assert.equal(child(item, 'upnp:class')?.text, 'object.item.videoItem.movie');
    assert.equal(child(item, 'dc:title')?.text, 'Inception');
    assert.equal(child(item, 'dc:date')?.text, '2010-01-01');
    assert.deepEqual(all(item, 'upnp:genre'), ['Science Fiction', 'Action']);
    assert.deepEqual(all(item, 'upnp:actor'), ['Leonardo DiCaprio', 'Elliot Page']);
    assert.deepEqual(all(item, 'upnp:director'), ['Christopher Nolan']);
    assert.equal(child(item, 'dc:description')?.text, 'A thief who steals corporate secrets…');
    const art = child(item, 'upnp:albumArtURI');
    assert.equal(art?.text, 'http://10.0.0.2:8080/dlna/art/m12.jpg?t=abc');
    assert.equal(art?.attributes.get('dlna:profileID'), 'JPEG_TN');
    const caption = child(item, 'sec:CaptionInfoEx');
    assert.equal(caption?.text, 'http://10.0.0.2:8080/dlna/sub/f3.srt?t=abc');
    assert.equal(caption?.attributes.get('sec:type'), 'srt');
  });
  it('has a res with every attribute, the URL unescaped on reading', () => {
    const [video, art] = (item?.children ?? []).filter((c) => c.name === 'res');
    assert.equal(video?.text, 'http://10.0.0.2:8080/dlna/media/f3?t=abc&k=1');
    assert.deepEqual(Object.fromEntries(video?.attributes ?? []), {
      protocolInfo: 'http-get:*:video/mp4:DLNA.ORG_OP=01;DLNA.ORG_CI=0',
      size: '1234567890',
      duration: '2:28:00.500',
      resolution: '1920x800',
      nrAudioChannels: '6',
      bitrate: '139023',
    });
    assert.match(art?.attributes.get('protocolInfo') ?? '', /^http-get:\*:image\/jpeg:DLNA\.ORG_PN=JPEG_TN;/);
  });
});

describe('renderDidl: the same film in a second container', () => {
  it('points back with refID and keeps the same res URL', () => {
    const again: DidlMovie = { ...inception, id: 'y2010/m12', parentId: 'y2010', refId: 'm12' };
    const root = parse(renderDidl([inception, again]));
    const [first, second] = root.children;
    assert.equal(second?.attributes.get('refID'), 'm12');
    assert.equal(second?.attributes.get('parentID'), 'y2010');
    assert.equal(child(first, 'res')?.text, child(second, 'res')?.text);
  });
});

describe('renderDidl: an item with nothing to play (disc only, cannot play on this TV)', () => {
  it('keeps its cover as albumArtURI but offers no res at all, not even the cover', () => {
    const discOnly: DidlMovie = { ...inception, resources: [], captions: [] };
    const item = parse(renderDidl([discOnly])).children[0];
    assert.equal(child(item, 'upnp:albumArtURI')?.text, 'http://10.0.0.2:8080/dlna/art/m12.jpg?t=abc');
    assert.deepEqual(all(item, 'res'), [], 'a TV would "play" an image res as the film');
  });
});

describe('renderDidl: containers', () => {
  const cases: [Parameters<typeof renderDidl>[0][number], Record<string, string>, string][] = [
    [
      { kind: 'container', id: '0', parentId: '-1', title: 'reelshelf', childCount: 6 },
      { id: '0', parentID: '-1', restricted: '1', searchable: '1', childCount: '6' },
      'object.container.storageFolder',
    ],
    [
      {
        kind: 'container',
        id: 'g:drama',
        parentId: 'genres',
        title: 'Drama',
        childCount: null,
        upnpClass: 'object.container.genre.movieGenre',
      },
      { id: 'g:drama', parentID: 'genres', restricted: '1', searchable: '1' },
      'object.container.genre.movieGenre',
    ],
    [
      { kind: 'container', id: 'c', parentId: '0', title: 'x', childCount: -1 },
      { id: 'c', parentID: '0', restricted: '1', searchable: '1' },
      'object.container.storageFolder',
    ],
  ];
  for (const [container, attributes, upnpClass] of cases) {
    it(container.id, () => {
      const element = parse(renderDidl([container])).children[0];
      assert.equal(element?.local, 'container');
      assert.deepEqual(Object.fromEntries(element?.attributes ?? []), attributes);
      assert.equal(child(element, 'upnp:class')?.text, upnpClass);
      assert.equal(child(element, 'dc:title')?.text, container.title);
    });
  }
  it('an empty list is an empty document', () => assert.equal(parse(renderDidl([])).children.length, 0));
});

describe('renderDidl: hostile text', () => {
  const cases: [string, string][] = [
    [`Tom & Jerry <3 "the 'movie'"`, `Tom & Jerry <3 "the 'movie'"`],
    ['</dc:title><item id="evil">', '</dc:title><item id="evil">'],
    ['bell\u0007 null\u0000 esc\u001b tab\tend', 'bell null esc tab\tend'],
    ['lone \uD800 surrogate \uFFFE', 'lone  surrogate '],
    ['emoji 🎬 kept', 'emoji 🎬 kept'],
    [']]> and &amp; literally', ']]> and &amp; literally'],
  ];
  for (const [title, expected] of cases) {
    it(JSON.stringify(title), () => {
      const hostile: DidlMovie = {
        ...inception,
        id: `id"${title}`,
        title,
        genres: [title],
        actors: [title],
        description: title,
        resources: [{ url: `http://h/x?a=1&b="${title}"`, protocolInfo: 'http-get:*:video/mp4:*' }],
      };
      const root = parse(renderDidl([hostile]));
      assert.equal(root.children.length, 1, 'one item, nothing injected');
      const item = root.children[0];
      assert.equal(child(item, 'dc:title')?.text, expected);
      assert.equal(child(item, 'dc:description')?.text, expected);
      assert.deepEqual(all(item, 'upnp:genre'), [expected]);
      assert.equal(item?.attributes.get('id'), `id"${expected}`);
      assert.equal(child(item, 'res')?.text, `http://h/x?a=1&b="${expected}"`);
    });
  }
});

describe('renderDidl: doubtful numbers are left out, not written wrong', () => {
  const cases: [Partial<DidlMovie['resources'][number]>, Record<string, string>][] = [
    [
      { sizeBytes: 0, durationSeconds: 0, width: 0, height: 0, audioChannels: 0, bytesPerSecond: 0 },
      { size: '0' },
    ],
    [{ sizeBytes: -5, durationSeconds: Number.NaN, width: 1920, height: null, audioChannels: 2.5 }, {}],
    [{ durationSeconds: 3 }, { duration: '0:00:03.000' }],
  ];
  for (const [resource, expected] of cases) {
    it(JSON.stringify(resource), () => {
      const movie: DidlMovie = {
        ...inception,
        albumArt: null,
        resources: [{ url: 'http://h/x', protocolInfo: 'http-get:*:video/mp4:*', ...resource }],
      };
      const res = child(parse(renderDidl([movie])).children[0], 'res');
      const { protocolInfo, ...rest } = Object.fromEntries(res?.attributes ?? []);
      assert.equal(protocolInfo, 'http-get:*:video/mp4:*');
      assert.deepEqual(rest, expected);
    });
  }
  const dates: [Partial<DidlMovie>, string | undefined][] = [
    [{ releaseDate: '2010-07-16', year: 2010 }, '2010-07-16'],
    [{ releaseDate: '16/07/2010', year: 2010 }, '2010-01-01'],
    [{ releaseDate: null, year: null }, undefined],
    [{ year: 10 }, undefined],
  ];
  for (const [change, expected] of dates) {
    it(`date ${JSON.stringify(change)}`, () =>
      assert.equal(
        child(parse(renderDidl([{ ...inception, ...change }])).children[0], 'dc:date')?.text,
        expected,
      ));
  }
});
