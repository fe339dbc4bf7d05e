/**
 * The ContentDirectory tree a TV browses (docs/dlna.md "The content directory"): built once per
 * library generation and person from the person's listing, then paged from. Pure: the service hands
 * in the films as /library lists them for the DLNA person; how each file plays on the asking TV is
 * added when a page is rendered.
 *
 *   0                      the root (parent -1)
 *   ├ all                  All films, by title (the listing's order): every film's main placement
 *   ├ recent               Recently added, newest first (RECENT_COUNT)
 *   ├ resume               Continue watching: the person's resume points, newest first
 *   ├ coll   → coll/<id>   Collections (TMDb), their films by year
 *   ├ year   → year/<y>    By year, newest first (year/none: year unknown)
 *   └ genre  → genre/<g>   By genre, by name
 *
 * A film with one file (or none: a disc-only film) is an item; one with several files is a container
 * of its editions. Ids are paths of placements (`genre/Drama/m12/f7`) but opaque to TVs. The main
 * placement of a film is under `all`; every other placement is another id whose items carry
 * `refID` = the main item's id.
 */
import type { PhysicalCopyInfo } from '@reelshelf/contract';
import { discLocation } from '../jellyfin/dto.ts';
import { matchesCriteria, type SearchCriteria, type SearchSubject } from './search-criteria.ts';
import { type SortKey, sortSpec } from './sort-criteria.ts';

export const ROOT_ID = '0';
export const ROOT_PARENT_ID = '-1';
export const MOVIE_CLASS = 'object.item.videoItem.movie';
/** How many films "Recently added" holds. */
export const RECENT_COUNT = 50;

/** The top-level containers, in the order the root lists them. */
export const TOP_CONTAINERS = [
  { id: 'all', title: 'All films' },
  { id: 'recent', title: 'Recently added' },
  { id: 'resume', title: 'Continue watching' },
  { id: 'coll', title: 'Collections' },
  { id: 'year', title: 'By year' },
  { id: 'genre', title: 'By genre' },
] as const;

/** The container TVs show videos from (Samsung's `X_GetFeatureList`). */
export const VIDEO_CONTAINER_ID = 'all';

export interface TreeEdition {
  fileId: number;
  label: string;
}

/** One film as the DLNA person's listing has it. */
export interface TreeFilm {
  /** `m<movie id>`, `f<file id>` for a file matched to no movie (the listing's key). */
  key: string;
  movieId: number | null;
  title: string;
  /**
   * Its place in the listing's title order (sort title, id): "by title" is reelshelf's one order,
   * not re-made here.
   */
  order: number;
  year: number | null;
  /** When the film joined the library (ISO-8601); null for a file matched to no movie. */
  addedAt: string | null;
  genres: readonly string[];
  collection: { id: number; name: string } | null;
  overview: string | null;
  actors: readonly string[];
  directors: readonly string[];
  /** Its files, the default edition first; empty for a disc-only film. */
  editions: readonly TreeEdition[];
  /** Where its discs are (binder slots). */
  discs: readonly PhysicalCopyInfo[];
}

export interface TreeInput {
  /** The person's films in the listing's order (sort title, id; unmatched files after). */
  films: readonly TreeFilm[];
  /** The person's resume points (file ids), newest first (WatchStateService.continueWatching). */
  resume: readonly number[];
  /** The root's title. */
  rootTitle: string;
  recentCount?: number;
}

export interface TreeContainer {
  kind: 'container';
  id: string;
  parentId: string;
  title: string;
  children: readonly string[];
  /** The film whose editions it holds, null for a folder. */
  film: TreeFilm | null;
  /** What a `dc:date` sort puts it by (a year folder). */
  year: number | null;
}

export interface TreeItem {
  kind: 'item';
  id: string;
  parentId: string;
  /** The main placement's id, for a second placement; null for the main one. */
  refId: string | null;
  film: TreeFilm;
  /** The file it plays; null for a disc-only film. */
  edition: TreeEdition | null;
  /** The film's title; for one of several editions, the title and the edition label. */
  title: string;
}

export type TreeNode = TreeContainer | TreeItem;

interface SearchCandidate {
  item: TreeItem;
  subject: SearchSubject;
}

/** Kept sorted child lists per tree (a TV asks the same sort for every page). */
const MAX_KEPT_ORDERS = 64;

export class ContentTree {
  private readonly orders = new Map<string, readonly TreeNode[]>();
  private readonly candidates = new Map<string, readonly SearchCandidate[]>();

  constructor(private readonly nodes: ReadonlyMap<string, TreeNode>) {}

  get(id: string): TreeNode | undefined {
    return this.nodes.get(id);
  }

  /** Every object (tests walk it). */
  size(): number {
    return this.nodes.size;
  }

  /** A container's children in its own order, or as `keys` sort them (kept per container and keys). */
  children(container: TreeContainer, keys: readonly SortKey[]): readonly TreeNode[] {
    const spec = `${container.id}|${sortSpec(keys)}`;
    let order = this.orders.get(spec);
    if (order === undefined) {
      const own = container.children.map((id) => this.mustGet(id));
      order = keys.length === 0 ? own : sortNodes(own, keys);
      if (this.orders.size >= MAX_KEPT_ORDERS) this.orders.clear();
      this.orders.set(spec, order);
    }
    return order;
  }

  /**
   * The items under a container (at any depth) that match, each film or edition once (a second
   * placement and its main one count as one), in tree order or as `keys` sort them. The root
   * searches the main placements.
   */
  search(container: TreeContainer, criteria: SearchCriteria, keys: readonly SortKey[]): TreeItem[] {
    const found: TreeItem[] = [];
    for (const candidate of this.searchable(container)) {
      if (matchesCriteria(criteria, candidate.subject)) found.push(candidate.item);
    }
    return keys.length === 0 ? found : (sortNodes(found, keys) as TreeItem[]);
  }

  /** The items a search under `container` looks at, each film or edition once (kept per container). */
  private searchable(container: TreeContainer): readonly SearchCandidate[] {
    const kept = this.candidates.get(container.id);
    if (kept !== undefined) return kept;
    const start = (container.id === ROOT_ID ? this.nodes.get(VIDEO_CONTAINER_ID) : undefined) ?? container;
    const seen = new Set<string>();
    const out: SearchCandidate[] = [];
    const stack: TreeNode[] = [start];
    while (stack.length > 0) {
      const node = stack.pop();
      if (node === undefined) break;
      if (node.kind === 'container') {
        for (let i = node.children.length - 1; i >= 0; i--) stack.push(this.mustGet(node.children[i] ?? ''));
        continue;
      }
      const identity = node.refId ?? node.id;
      if (seen.has(identity)) continue;
      seen.add(identity);
      out.push({
        item: node,
        subject: { upnpClass: MOVIE_CLASS, title: node.title, isReference: node.refId !== null },
      });
    }
    if (this.candidates.size >= MAX_KEPT_ORDERS) this.candidates.clear();
    this.candidates.set(container.id, out);
    return out;
  }

  private mustGet(id: string): TreeNode {
    const node = this.nodes.get(id);
    if (node === undefined) throw new Error(`content tree: ${id} is named but missing`);
    return node;
  }
}

/** `list[start … start+count)`; a count of 0 is "all the rest" (Browse's RequestedCount). */
export function pageOf<T>(list: readonly T[], start: number, count: number): T[] {
  if (start >= list.length) return [];
  return list.slice(start, count === 0 ? undefined : start + count);
}

/** What a TV shows for an item: the title, with where the disc is or why it cannot play. */
export function itemTitle(item: TreeItem, cannotPlay: string | null): string {
  if (item.edition === null) {
    const discs = item.film.discs;
    return discs.length === 0
      ? `${item.title} — no file yet`
      : `${item.title} — on disc: ${discs.map(discLocation).join('; ')}`;
  }
  return cannotPlay === null ? item.title : `${item.title} — cannot play on this TV: ${cannotPlay}`;
}

/** The item's description: where its discs are (for a disc-only film), then the overview. */
export function itemDescription(item: TreeItem): string | null {
  const discLine =
    item.edition === null && item.film.discs.length > 0
      ? `On disc: ${item.film.discs.map(discLocation).join('; ')}.`
      : null;
  const text = [discLine, item.film.overview].filter((t): t is string => t !== null && t !== '').join('\n\n');
  return text === '' ? null : text;
}

interface SortRow {
  node: TreeNode;
  index: number;
  /** A film by its place in the title order (an edition right after it), a folder by its title. */
  title: string | number;
  year: number | null;
  genre: string | null;
}

/** Editions of one film sort between it and the next (a film never has this many files). */
const EDITION_SLOTS = 1024;

function sortRowOf(node: TreeNode, index: number): SortRow {
  const film = node.film;
  const editionIndex =
    node.kind === 'item' && node.edition !== null && film !== null && film.editions.length > 1
      ? 1 + film.editions.indexOf(node.edition)
      : 0;
  const genre =
    film?.genres[0] ?? (node.kind === 'container' && node.parentId === 'genre' ? node.title : null);
  return {
    node,
    index,
    title:
      film === null
        ? node.title.toLowerCase()
        : film.order * EDITION_SLOTS + Math.min(editionIndex, EDITION_SLOTS - 1),
    year: film?.year ?? (node.kind === 'container' ? node.year : null),
    genre: genre === null ? null : genre.toLowerCase(),
  };
}

/** Absent values last, whichever the direction. */
function compareValues(a: string | number | null, b: string | number | null, descending: boolean): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  // Films (numbers: title order) before folders (titles); never both in one container.
  const order =
    typeof a === typeof b ? ((a as string) < (b as string) ? -1 : 1) : typeof a === 'number' ? -1 : 1;
  return descending ? -order : order;
}

/** A stable sort by `keys` (ties keep the container's own order). */
export function sortNodes(nodes: readonly TreeNode[], keys: readonly SortKey[]): TreeNode[] {
  const rows = nodes.map(sortRowOf);
  rows.sort((a, b) => {
    for (const key of keys) {
      const field = key.property === 'dc:title' ? 'title' : key.property === 'dc:date' ? 'year' : 'genre';
      const c = compareValues(a[field], b[field], key.descending);
      if (c !== 0) return c;
    }
    return a.index - b.index;
  });
  return rows.map((r) => r.node);
}

/** A root with nothing under it (no DLNA person: its title says why). */
export function emptyContentTree(rootTitle: string): ContentTree {
  const root: TreeContainer = {
    kind: 'container',
    id: ROOT_ID,
    parentId: ROOT_PARENT_ID,
    title: rootTitle,
    children: [],
    film: null,
    year: null,
  };
  return new ContentTree(new Map([[ROOT_ID, root]]));
}

/** The tree of the person's films (see the module comment). */
export function buildContentTree(input: TreeInput): ContentTree {
  const nodes = new Map<string, TreeNode>();
  const childrenOf = new Map<string, string[]>();
  const addChild = (parentId: string, id: string): void => {
    const list = childrenOf.get(parentId);
    if (list === undefined) childrenOf.set(parentId, [id]);
    else list.push(id);
  };
  const folder = (id: string, parentId: string, title: string, year: number | null = null): void => {
    nodes.set(id, { kind: 'container', id, parentId, title, children: [], film: null, year });
    childrenOf.set(id, []);
    addChild(parentId, id);
  };

  /** The main item id of each file (Continue watching refers to it). */
  const mainOfFile = new Map<number, { id: string; film: TreeFilm; edition: TreeEdition }>();

  /** Places a film under `parentId`; `main` is its placement under `all`. */
  const place = (film: TreeFilm, parentId: string, main: boolean): void => {
    const id = `${parentId}/${film.key}`;
    addChild(parentId, id);
    const mainId = `${VIDEO_CONTAINER_ID}/${film.key}`;
    if (film.editions.length < 2) {
      const edition = film.editions[0] ?? null;
      nodes.set(id, {
        kind: 'item',
        id,
        parentId,
        refId: main ? null : mainId,
        film,
        edition,
        title: film.title,
      });
      if (main && edition !== null) mainOfFile.set(edition.fileId, { id, film, edition });
      return;
    }
    nodes.set(id, { kind: 'container', id, parentId, title: film.title, children: [], film, year: null });
    childrenOf.set(id, []);
    for (const edition of film.editions) {
      const editionId = `${id}/f${edition.fileId}`;
      addChild(id, editionId);
      const title = `${film.title} — ${edition.label}`;
      nodes.set(editionId, {
        kind: 'item',
        id: editionId,
        parentId: id,
        refId: main ? null : `${mainId}/f${edition.fileId}`,
        film,
        edition,
        title,
      });
      if (main) mainOfFile.set(edition.fileId, { id: editionId, film, edition });
    }
  };

  nodes.set(ROOT_ID, {
    kind: 'container',
    id: ROOT_ID,
    parentId: ROOT_PARENT_ID,
    title: input.rootTitle,
    children: [],
    film: null,
    year: null,
  });
  childrenOf.set(ROOT_ID, []);
  for (const top of TOP_CONTAINERS) folder(top.id, ROOT_ID, top.title);

  for (const film of input.films) place(film, VIDEO_CONTAINER_ID, true);

  const recent = input.films
    .map((film, index) => ({ film, index }))
    .filter((f) => f.film.addedAt !== null)
    .sort((a, b) => compareValues(a.film.addedAt, b.film.addedAt, true) || a.index - b.index)
    .slice(0, input.recentCount ?? RECENT_COUNT);
  for (const { film } of recent) place(film, 'recent', false);

  const seenResume = new Set<number>();
  for (const fileId of input.resume) {
    const main = mainOfFile.get(fileId);
    if (main === undefined || seenResume.has(fileId)) continue;
    seenResume.add(fileId);
    const id = `resume/f${fileId}`;
    addChild('resume', id);
    const several = main.film.editions.length > 1;
    nodes.set(id, {
      kind: 'item',
      id,
      parentId: 'resume',
      refId: main.id,
      film: main.film,
      edition: main.edition,
      title: several ? `${main.film.title} — ${main.edition.label}` : main.film.title,
    });
  }

  // Collections by name, their films by year (unknown last), then the listing's order.
  const collections = new Map<number, { name: string; films: TreeFilm[] }>();
  for (const film of input.films) {
    if (film.collection === null) continue;
    const entry = collections.get(film.collection.id);
    if (entry === undefined)
      collections.set(film.collection.id, { name: film.collection.name, films: [film] });
    else entry.films.push(film);
  }
  const byName = [...collections.entries()].sort(
    ([ia, a], [ib, b]) => compareValues(a.name.toLowerCase(), b.name.toLowerCase(), false) || ia - ib,
  );
  for (const [collectionId, { name, films }] of byName) {
    const id = `coll/${collectionId}`;
    folder(id, 'coll', name);
    const ordered = films
      .map((film, index) => ({ film, index }))
      .sort((a, b) => compareValues(a.film.year, b.film.year, false) || a.index - b.index);
    for (const { film } of ordered) place(film, id, false);
  }

  // Years newest first, the unknown year last.
  const years = new Map<number | null, TreeFilm[]>();
  for (const film of input.films) {
    const year = film.year !== null && Number.isInteger(film.year) ? film.year : null;
    const list = years.get(year);
    if (list === undefined) years.set(year, [film]);
    else list.push(film);
  }
  for (const year of [...years.keys()].sort((a, b) => compareValues(a, b, true))) {
    const id = year === null ? 'year/none' : `year/${year}`;
    folder(id, 'year', year === null ? 'Year unknown' : String(year), year);
    for (const film of years.get(year) ?? []) place(film, id, false);
  }

  // Genres by name (as written; the first spelling met names the folder).
  const genres = new Map<string, { name: string; films: TreeFilm[] }>();
  for (const film of input.films) {
    for (const genre of new Set(film.genres)) {
      const key = genre.toLowerCase();
      const entry = genres.get(key);
      if (entry === undefined) genres.set(key, { name: genre, films: [film] });
      else if (entry.films[entry.films.length - 1] !== film) entry.films.push(film);
    }
  }
  for (const key of [...genres.keys()].sort()) {
    const entry = genres.get(key);
    if (entry === undefined) continue;
    const id = `genre/${encodeURIComponent(key)}`;
    folder(id, 'genre', entry.name);
    for (const film of entry.films) place(film, id, false);
  }

  for (const [id, children] of childrenOf) {
    const node = nodes.get(id);
    if (node?.kind === 'container') nodes.set(id, { ...node, children });
  }
  return new ContentTree(nodes);
}
