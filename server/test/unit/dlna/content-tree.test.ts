import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  buildContentTree,
  type ContentTree,
  emptyContentTree,
  itemDescription,
  itemTitle,
  pageOf,
  type TreeContainer,
  type TreeFilm,
  type TreeItem,
  type TreeNode,
} from '../../../src/domain/dlna/content-tree.ts';
import { parseSearchCriteria } from '../../../src/domain/dlna/search-criteria.ts';
import { parseSortCriteria, sortSpec } from '../../../src/domain/dlna/sort-criteria.ts';

/** Films in the listing's title order (order = index). */
type FilmSpec = Pick<TreeFilm, 'title' | 'year' | 'addedAt' | 'genres' | 'collection' | 'editions'> &
  Partial<TreeFilm>;

function films(list: readonly FilmSpec[]): TreeFilm[] {
  return list.map((f, order) => ({
    key: `m${order + 1}`,
    movieId: order + 1,
    overview: null,
    actors: [],
    directors: [],
    discs: [],
    order,
    ...f,
  }));
}

const FILMS = films([
  {
    title: 'Alien',
    year: 1979,
    addedAt: '2026-01-03T00:00:00Z',
    genres: ['Horror', 'Science Fiction'],
    collection: { id: 8091, name: 'Alien Collection' },
    editions: [{ fileId: 11, label: '1080p' }],
  },
  {
    title: 'Aliens',
    year: 1986,
    addedAt: '2026-01-01T00:00:00Z',
    genres: ['Science Fiction', 'Action'],
    collection: { id: 8091, name: 'Alien Collection' },
    editions: [
      { fileId: 21, label: "Director's Cut" },
      { fileId: 22, label: 'Theatrical' },
    ],
  },
  {
    title: 'Heat',
    year: 1995,
    addedAt: '2026-01-02T00:00:00Z',
    genres: ['Crime', 'drama'],
    collection: null,
    editions: [],
    discs: [{ binder: 'A', slot: '12', format: 'Blu-ray' }],
  },
  {
    title: 'Prometheus',
    year: 2012,
    addedAt: '2026-01-04T00:00:00Z',
    genres: ['Science Fiction', 'Drama'],
    collection: { id: 8091, name: 'Alien Collection' },
    editions: [{ fileId: 41, label: '4K' }],
  },
  {
    title: 'Undated',
    year: null,
    addedAt: null,
    genres: [],
    collection: null,
    editions: [{ fileId: 51, label: 'Default' }],
  },
]);

function tree(resume: number[] = [], recentCount?: number): ContentTree {
  return buildContentTree({ films: FILMS, resume, rootTitle: 'reelshelf', recentCount });
}

function container(t: ContentTree, id: string): TreeContainer {
  const node = t.get(id);
  assert.ok(node?.kind === 'container', `${id} is a container`);
  return node;
}

const ids = (nodes: readonly TreeNode[]): string[] => nodes.map((n) => n.id);
const titles = (nodes: readonly TreeNode[]): string[] => nodes.map((n) => n.title);

describe('content tree: containers and their order', () => {
  const t = tree([22, 41, 999]);
  const children = (id: string, sort = ''): readonly TreeNode[] =>
    t.children(container(t, id), parseSortCriteria(sort));

  it('the root: 0 with parent -1 and the six folders in order', () => {
    const root = container(t, '0');
    assert.equal(root.parentId, '-1');
    assert.deepEqual(titles(children('0')), [
      'All films',
      'Recently added',
      'Continue watching',
      'Collections',
      'By year',
      'By genre',
    ]);
  });

  const table: [string, string[]][] = [
    ['all', ['Alien', 'Aliens', 'Heat', 'Prometheus', 'Undated']],
    ['recent', ['Prometheus', 'Alien', 'Heat', 'Aliens']],
    ['resume', ['Aliens — Theatrical', 'Prometheus']],
    ['coll', ['Alien Collection']],
    ['coll/8091', ['Alien', 'Aliens', 'Prometheus']],
    ['year', ['2012', '1995', '1986', '1979', 'Year unknown']],
    ['year/1995', ['Heat']],
    ['year/none', ['Undated']],
    ['genre', ['Action', 'Crime', 'drama', 'Horror', 'Science Fiction']],
    ['genre/drama', ['Heat', 'Prometheus']],
    ['genre/science%20fiction', ['Alien', 'Aliens', 'Prometheus']],
    ['all/m2', ["Aliens — Director's Cut", 'Aliens — Theatrical']],
  ];
  for (const [id, expected] of table) {
    it(`${id}: ${expected.join(', ')}`, () => assert.deepEqual(titles(children(id)), expected));
  }

  it('Recently added keeps the newest N', () => {
    const small = tree([], 2);
    assert.deepEqual(titles(small.children(container(small, 'recent'), [])), ['Prometheus', 'Alien']);
  });

  it('a film with several files is a container of its editions; one with one file or none is an item', () => {
    const aliens = t.get('all/m2');
    assert.equal(aliens?.kind, 'container');
    assert.equal(t.get('all/m1')?.kind, 'item');
    const heat = t.get('all/m3');
    assert.ok(heat?.kind === 'item');
    assert.equal(heat.edition, null);
    const edition = t.get('all/m2/f22');
    assert.ok(edition?.kind === 'item');
    assert.equal(edition.parentId, 'all/m2');
    assert.equal(edition.edition?.fileId, 22);
  });

  it('main placements under All films carry no refID; every other placement refers to its main id', () => {
    const expectations: [string, string | null][] = [
      ['all/m1', null],
      ['all/m2/f21', null],
      ['recent/m1', 'all/m1'],
      ['coll/8091/m2/f22', 'all/m2/f22'],
      ['year/1995/m3', 'all/m3'],
      ['genre/drama/m4', 'all/m4'],
      ['resume/f22', 'all/m2/f22'],
      ['resume/f41', 'all/m4'],
    ];
    for (const [id, ref] of expectations) {
      const node = t.get(id);
      assert.ok(node?.kind === 'item', id);
      assert.equal(node.refId, ref, id);
    }
    assert.equal(t.get('resume/f999'), undefined, 'a resume point of a film not listed is left out');
  });

  it('a walk from the root finds every film once after merging by refID', () => {
    const mains = new Set<string>();
    const stack = ['0'];
    let items = 0;
    while (stack.length > 0) {
      const node = t.get(stack.pop() ?? '');
      assert.ok(node);
      if (node.kind === 'container') {
        assert.ok(node.children.every((c) => t.get(c)?.parentId === node.id));
        stack.push(...node.children);
      } else {
        items++;
        const main = node.refId ?? node.id;
        assert.equal(t.get(main)?.kind, 'item');
        mains.add(main);
      }
    }
    assert.ok(items > mains.size);
    assert.deepEqual([...mains].sort(), ['all/m1', 'all/m2/f21', 'all/m2/f22', 'all/m3', 'all/m4', 'all/m5']);
  });

  it('unknown ids are absent', () => {
    for (const id of ['', '1', 'all/', 'all/m99', 'genre/nope', '0/all', 'year/1996']) {
      assert.equal(t.get(id), undefined, id);
    }
  });
});

describe('content tree: sorting and paging', () => {
  const t = tree();
  const sorted = (id: string, criteria: string): string[] =>
    titles(t.children(container(t, id), parseSortCriteria(criteria)));

  const table: [string, string, string[]][] = [
    ['all', '', ['Alien', 'Aliens', 'Heat', 'Prometheus', 'Undated']],
    ['all', '+dc:title', ['Alien', 'Aliens', 'Heat', 'Prometheus', 'Undated']],
    ['all', '-dc:title', ['Undated', 'Prometheus', 'Heat', 'Aliens', 'Alien']],
    ['all', '-dc:date', ['Prometheus', 'Heat', 'Aliens', 'Alien', 'Undated']],
    ['all', '+dc:date', ['Alien', 'Aliens', 'Heat', 'Prometheus', 'Undated']],
    ['all', '+upnp:genre,-dc:title', ['Heat', 'Alien', 'Prometheus', 'Aliens', 'Undated']],
    ['all', '+upnp:originalTrackNumber', ['Alien', 'Aliens', 'Heat', 'Prometheus', 'Undated']],
    ['all', '+upnp:originalTrackNumber,-dc:date', ['Prometheus', 'Heat', 'Aliens', 'Alien', 'Undated']],
    ['all', 'nonsense,,+,-', ['Alien', 'Aliens', 'Heat', 'Prometheus', 'Undated']],
    ['year', '+dc:date', ['1979', '1986', '1995', '2012', 'Year unknown']],
    ['genre', '-dc:title', ['Science Fiction', 'Horror', 'drama', 'Crime', 'Action']],
    [
      '0',
      '+dc:title',
      ['All films', 'By genre', 'By year', 'Collections', 'Continue watching', 'Recently added'],
    ],
    ['all/m2', '-dc:title', ['Aliens — Theatrical', "Aliens — Director's Cut"]],
  ];
  for (const [id, criteria, expected] of table) {
    it(`${id} sorted ${JSON.stringify(criteria)}`, () => assert.deepEqual(sorted(id, criteria), expected));
  }

  it('a sorted order is kept (the same array for the next page)', () => {
    const keys = parseSortCriteria('-dc:date');
    const all = container(t, 'all');
    assert.equal(t.children(all, keys), t.children(all, keys));
  });

  const pages: [number, number, string[]][] = [
    [0, 0, ['a', 'b', 'c', 'd', 'e']],
    [0, 2, ['a', 'b']],
    [2, 2, ['c', 'd']],
    [4, 2, ['e']],
    [3, 0, ['d', 'e']],
    [5, 1, []],
    [99, 0, []],
  ];
  for (const [start, count, expected] of pages) {
    it(`page from ${start}, ${count}`, () =>
      assert.deepEqual(pageOf(['a', 'b', 'c', 'd', 'e'], start, count), expected));
  }
});

describe('sort criteria', () => {
  const table: [string, string][] = [
    ['', ''],
    ['+dc:title', '+dc:title'],
    ['-dc:date,+dc:title', '-dc:date,+dc:title'],
    [' + dc:title , -upnp:genre ', '+dc:title,-upnp:genre'],
    ['dc:title', '+dc:title'],
    ['+upnp:originalTrackNumber,+dc:title', '+dc:title'],
    ['+dc:title,-dc:title', '+dc:title'],
    ['+DC:TITLE', ''],
  ];
  for (const [text, spec] of table) {
    it(JSON.stringify(text), () => assert.equal(sortSpec(parseSortCriteria(text)), spec));
  }
});

describe('content tree: search', () => {
  const t = tree([22]);
  const search = (id: string, criteria: string, sort = ''): string[] => {
    const parsed = parseSearchCriteria(criteria);
    assert.ok(parsed.ok);
    return ids(t.search(container(t, id), parsed.criteria, parseSortCriteria(sort)));
  };

  it('from the root: every film and edition once, main ids, title order', () => {
    assert.deepEqual(search('0', 'upnp:class derivedfrom "object.item.videoItem"'), [
      'all/m1',
      'all/m2/f21',
      'all/m2/f22',
      'all/m3',
      'all/m4',
      'all/m5',
    ]);
  });

  it('by title, an edition found by its film title', () => {
    assert.deepEqual(search('0', 'dc:title contains "alien"'), ['all/m1', 'all/m2/f21', 'all/m2/f22']);
    assert.deepEqual(search('0', 'dc:title contains "theatrical"'), ['all/m2/f22']);
  });

  it('under a container: its own placements (with refID), sorted when asked', () => {
    assert.deepEqual(search('genre/science%20fiction', '*', '-dc:date'), [
      'genre/science%20fiction/m4',
      'genre/science%20fiction/m2/f21',
      'genre/science%20fiction/m2/f22',
      'genre/science%20fiction/m1',
    ]);
    assert.deepEqual(search('resume', '*'), ['resume/f22']);
    assert.deepEqual(search('resume', '@refID exists false'), []);
  });

  it('containers are never results', () => {
    assert.deepEqual(search('0', 'upnp:class derivedfrom "object.container"'), []);
  });
});

describe('item titles: disc-only, cannot play', () => {
  const t = tree();
  const item = (id: string): TreeItem => {
    const node = t.get(id);
    assert.ok(node?.kind === 'item');
    return node;
  };

  it('a disc-only film says where its disc is, in the title and the description', () => {
    assert.equal(itemTitle(item('all/m3'), null), 'Heat — on disc: Blu-ray, binder A, slot 12');
    assert.equal(itemDescription(item('all/m3')), 'On disc: Blu-ray, binder A, slot 12.');
  });

  it('a file that cannot play on this TV says why', () => {
    assert.equal(itemTitle(item('all/m1'), 'DTS audio'), 'Alien — cannot play on this TV: DTS audio');
    assert.equal(itemTitle(item('all/m1'), null), 'Alien');
    assert.equal(
      itemTitle(item('all/m2/f21'), 'HEVC video'),
      "Aliens — Director's Cut — cannot play on this TV: HEVC video",
    );
  });

  it('a film with neither file nor disc says so', () => {
    const bare = buildContentTree({
      films: films([
        { title: 'Bare', year: null, addedAt: null, genres: [], collection: null, editions: [] },
      ]),
      resume: [],
      rootTitle: 'r',
    });
    const node = bare.get('all/m1');
    assert.ok(node?.kind === 'item');
    assert.equal(itemTitle(node, null), 'Bare — no file yet');
  });

  it('the empty tree: a root with nothing under it', () => {
    const empty = emptyContentTree('no person');
    const root = empty.get('0');
    assert.ok(root?.kind === 'container');
    assert.equal(root.title, 'no person');
    assert.deepEqual(root.children, []);
    assert.equal(empty.get('all'), undefined);
  });
});
