/**
 * ContentDirectory:1 (docs/dlna.md "The content directory"): Browse, Search, their sort and paging,
 * the capabilities, GetSystemUpdateID and Samsung's X_GetFeatureList, over the DLNA person's view
 * of the library. Translation only: the films and their order are /library's for that person (the
 * one visibility rule), Continue watching is the person's resume points (the one resume rule), and
 * how each file plays on the asking TV is the media service's answer (DlnaMediaPort).
 *
 * The tree is built once per library generation and person (a change nobody this person sees made
 * keeps it), so a Browse pages from it and renders DIDL only for the page.
 */
import type { Clock } from '../../adapters/clock.ts';
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
  VIDEO_CONTAINER_ID,
} from '../../domain/dlna/content-tree.ts';
import { type DidlMovie, type DidlObject, renderDidl } from '../../domain/dlna/didl.ts';
import { samsungFeatureList } from '../../domain/dlna/feature-list.ts';
import { parseSearchCriteria } from '../../domain/dlna/search-criteria.ts';
import { parseSortCriteria, SORT_PROPERTIES } from '../../domain/dlna/sort-criteria.ts';
import { UpnpError, type UpnpErrorCode } from '../../domain/dlna/soap.ts';
import { parseGenres } from '../../domain/genres.ts';
import type { JellyfinFactsRepository } from '../../repositories/jellyfin-facts.repository.ts';
import type { LibraryGeneration } from '../library/library-generation.ts';
import type { LibraryService, ListingViewer } from '../library/library.service.ts';
import type { WatchStateService } from '../library/watch-state.service.ts';
import type { VisibilityService } from '../people/visibility.service.ts';
import type { DlnaActionOutcome, DlnaClient, DlnaMediaPort, DlnaServiceHandler } from './dlna-ports.ts';

/** Whose view DLNA TVs get (REELSHELF_DLNA): null while that person does not exist. */
export interface DlnaPersonView {
  viewer(): Promise<ListingViewer | null>;
}

export interface ContentDirectoryDeps {
  person: DlnaPersonView;
  library: Pick<LibraryService, 'getLibrary'>;
  facts: Pick<JellyfinFactsRepository, 'movieFacts' | 'collections'>;
  watch: Pick<WatchStateService, 'continueWatching'>;
  visibility: Pick<VisibilityService, 'filter' | 'scopeKey'>;
  generation: Pick<LibraryGeneration, 'current' | 'changedFor'>;
  media: DlnaMediaPort;
  /** The reelshelf device the listing is read for (edition labels and order only; the TV's own profile decides what plays). */
  device: string;
  clock: Clock;
  /** The root container's title (the friendly name). */
  rootTitle?: string;
}

/** What GetSearchCapabilities and GetSortCapabilities answer. */
export const SEARCH_CAPABILITIES = 'dc:title,upnp:class';
export const SORT_CAPABILITIES = SORT_PROPERTIES.join(',');

/** Resume points listed under Continue watching. */
const RESUME_COUNT = 50;
/** Actors written into an item (DIDL stays small; TVs show a few). */
const MAX_ACTORS = 8;
/** Trees kept at once (one DLNA person; a change of their content limit makes another key). */
const MAX_KEPT_TREES = 4;
const NO_PERSON_TITLE = 'reelshelf — no DLNA person (set REELSHELF_DLNA to a household person)';
/** UPnP's ui4. */
const UI4_MAX = 4_294_967_295;

interface KeptTree {
  tree: ContentTree;
  boot: string;
  generation: number;
  userId: number;
}

/** A value a TV sent, quoted for a fault's description (bounded: an id may be anything). */
function quoted(value: string): string {
  return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);
}

function fault(code: UpnpErrorCode, description: string): DlnaActionOutcome {
  return { ok: false, code, description };
}

/** A ui4 argument; absent is 0 (some TVs leave out what they do not use). */
function ui4(args: Readonly<Record<string, string>>, name: string): number | null {
  const text = args[name]?.trim() ?? '';
  if (text === '') return 0;
  if (!/^\d{1,10}$/.test(text)) return null;
  const value = Number(text);
  return value <= UI4_MAX ? value : null;
}

export class ContentDirectoryService implements DlnaServiceHandler {
  private readonly kept = new Map<string, KeptTree>();
  private readonly building = new Map<string, Promise<KeptTree>>();
  private update = { boot: '', generation: 0, userId: -1, id: 0 };
  private builds = 0;

  constructor(private readonly deps: ContentDirectoryDeps) {}

  /** Trees built so far (tests: a second Browse reuses the tree). */
  buildCount(): number {
    return this.builds;
  }

  async handle(
    action: string,
    args: Readonly<Record<string, string>>,
    client: DlnaClient,
  ): Promise<DlnaActionOutcome> {
    switch (action) {
      case 'Browse':
        return this.browse(args, client);
      case 'Search':
        return this.search(args, client);
      case 'GetSearchCapabilities':
        return { ok: true, values: [['SearchCaps', SEARCH_CAPABILITIES]] };
      case 'GetSortCapabilities':
        return { ok: true, values: [['SortCaps', SORT_CAPABILITIES]] };
      case 'GetSystemUpdateID': {
        const viewer = await this.deps.person.viewer();
        return { ok: true, values: [['Id', String(this.systemUpdateId(viewer))]] };
      }
      case 'X_GetFeatureList':
        return { ok: true, values: [['FeatureList', samsungFeatureList(VIDEO_CONTAINER_ID)]] };
      default:
        return fault(UpnpError.InvalidAction, `ContentDirectory has no action ${quoted(action)}`);
    }
  }

  /**
   * The SystemUpdateID: moves whenever the library generation says something this person sees
   * changed. It starts at the clock's seconds and only grows (max(now, last + 1)), so a restart
   * never hands a TV an id it cached for other contents.
   */
  private systemUpdateId(viewer: ListingViewer | null): number {
    const version = this.deps.generation.current();
    const userId = viewer?.userId ?? 0;
    const last = this.update;
    if (
      last.boot !== version.boot ||
      last.userId !== userId ||
      this.deps.generation.changedFor(last.generation, version.generation, userId)
    ) {
      const now = Math.floor(this.deps.clock.now().getTime() / 1000);
      const id = Math.max(now, last.id + 1) % (UI4_MAX + 1);
      this.update = { boot: version.boot, generation: version.generation, userId, id };
    }
    return this.update.id;
  }

  private async browse(
    args: Readonly<Record<string, string>>,
    client: DlnaClient,
  ): Promise<DlnaActionOutcome> {
    const objectId = args.ObjectID;
    const flag = args.BrowseFlag;
    if (objectId === undefined) return fault(UpnpError.InvalidArgs, 'argument ObjectID is missing');
    if (flag !== 'BrowseMetadata' && flag !== 'BrowseDirectChildren') {
      return fault(UpnpError.InvalidArgs, 'BrowseFlag is BrowseMetadata or BrowseDirectChildren');
    }
    const start = ui4(args, 'StartingIndex');
    const count = ui4(args, 'RequestedCount');
    if (start === null || count === null) {
      return fault(UpnpError.InvalidArgs, 'StartingIndex and RequestedCount are unsigned integers');
    }
    const viewer = await this.deps.person.viewer();
    // Read before the tree: the tree is then at least as new as the id a TV is told (never older).
    const updateId = this.systemUpdateId(viewer);
    const tree = await this.treeFor(viewer);
    const node = tree.get(objectId);
    if (node === undefined) return fault(UpnpError.NoSuchObject, `no object ${quoted(objectId)}`);
    let page: readonly TreeNode[];
    let total: number;
    if (flag === 'BrowseMetadata') {
      page = [node];
      total = 1;
    } else if (node.kind === 'item') {
      page = [];
      total = 0;
    } else {
      const children = tree.children(node, parseSortCriteria(args.SortCriteria ?? ''));
      page = pageOf(children, start, count);
      total = children.length;
    }
    return this.answer(page, total, updateId, client);
  }

  private async search(
    args: Readonly<Record<string, string>>,
    client: DlnaClient,
  ): Promise<DlnaActionOutcome> {
    const containerId = args.ContainerID;
    if (containerId === undefined) return fault(UpnpError.InvalidArgs, 'argument ContainerID is missing');
    const start = ui4(args, 'StartingIndex');
    const count = ui4(args, 'RequestedCount');
    if (start === null || count === null) {
      return fault(UpnpError.InvalidArgs, 'StartingIndex and RequestedCount are unsigned integers');
    }
    const parsed = parseSearchCriteria(args.SearchCriteria ?? '*');
    if (!parsed.ok) return fault(UpnpError.UnsupportedSearchCriteria, parsed.reason);
    const viewer = await this.deps.person.viewer();
    const updateId = this.systemUpdateId(viewer);
    const tree = await this.treeFor(viewer);
    const node = tree.get(containerId);
    if (node === undefined) return fault(UpnpError.NoSuchObject, `no object ${quoted(containerId)}`);
    if (node.kind !== 'container')
      return fault(UpnpError.NoSuchContainer, `${quoted(containerId)} is an item, not a container`);
    const found = tree.search(node, parsed.criteria, parseSortCriteria(args.SortCriteria ?? ''));
    return this.answer(pageOf(found, start, count), found.length, updateId, client);
  }

  private async answer(
    page: readonly TreeNode[],
    total: number,
    updateId: number,
    client: DlnaClient,
  ): Promise<DlnaActionOutcome> {
    const objects = await Promise.all(page.map((node) => this.didlOf(node, client)));
    return {
      ok: true,
      values: [
        ['Result', renderDidl(objects)],
        ['NumberReturned', String(objects.length)],
        ['TotalMatches', String(total)],
        ['UpdateID', String(updateId)],
      ],
    };
  }

  private async didlOf(node: TreeNode, client: DlnaClient): Promise<DidlObject> {
    if (node.kind === 'container') return containerDidl(node);
    return this.movieDidl(node, client);
  }

  /**
   * A film or edition for this TV: its `res` list as the media service offers it; a file nothing makes
   * playable here is listed with the reason in its title and no `res` (never one that fails).
   */
  private async movieDidl(item: TreeItem, client: DlnaClient): Promise<DidlMovie> {
    const film = item.film;
    const presentation =
      item.edition === null ? null : await this.deps.media.presentFile(item.edition.fileId, client);
    const cannotPlay =
      presentation === null
        ? null
        : (presentation.cannotPlay ??
          (presentation.resources.length === 0 ? 'nothing plays on this TV' : null));
    const plays = presentation !== null && cannotPlay === null;
    return {
      kind: 'movie',
      id: item.id,
      parentId: item.parentId,
      refId: item.refId,
      title: itemTitle(item, cannotPlay),
      year: film.year,
      genres: film.genres,
      actors: film.actors,
      directors: film.directors,
      description: itemDescription(item),
      albumArt: film.movieId === null ? null : await this.deps.media.albumArt(film.movieId, client),
      resources: plays ? presentation.resources : [],
      captions: plays ? presentation.captions : [],
    };
  }

  /** The person's tree for the current library generation: kept, waited for, or built. */
  private async treeFor(viewer: ListingViewer | null): Promise<ContentTree> {
    if (viewer === null) return emptyContentTree(NO_PERSON_TITLE);
    const key = `${viewer.userId}|${this.deps.visibility.scopeKey(viewer)}`;
    for (;;) {
      const version = this.deps.generation.current();
      const kept = this.kept.get(key);
      if (
        kept !== undefined &&
        kept.boot === version.boot &&
        !this.deps.generation.changedFor(kept.generation, version.generation, kept.userId)
      ) {
        return kept.tree;
      }
      const running = this.building.get(key);
      if (running === undefined) break;
      await running.catch(() => null);
    }
    const build = this.build(viewer)
      .then((built) => {
        this.kept.delete(key);
        if (this.kept.size >= MAX_KEPT_TREES) this.kept.clear();
        this.kept.set(key, built);
        return built;
      })
      .finally(() => this.building.delete(key));
    this.building.set(key, build);
    return (await build).tree;
  }

  private async build(viewer: ListingViewer): Promise<KeptTree> {
    // The version is read before the rows: a write after this point is seen as the next version.
    const version = this.deps.generation.current();
    this.builds++;
    const [listing, movieFacts, collections, resume] = await Promise.all([
      this.deps.library.getLibrary(viewer, this.deps.device),
      this.deps.facts.movieFacts(null),
      this.deps.facts.collections(null),
      this.deps.watch.continueWatching(viewer.userId, RESUME_COUNT, this.deps.visibility.filter(viewer)),
    ]);
    const factsOf = new Map(movieFacts.map((m) => [m.id, m]));
    const collectionOf = new Map(
      collections.map((c) => [c.movie_id, { id: c.collection_id, name: c.collection_name }]),
    );
    const films: TreeFilm[] = [];
    for (const item of listing.items) {
      const movieId = item.movie_id;
      const first = item.editions[0];
      if (movieId === null && first === undefined) continue;
      const facts = movieId === null ? undefined : factsOf.get(movieId);
      const chosen = item.editions[item.default_edition_index];
      // The default edition first: a TV that plays "the film" plays the one /library would.
      const editions =
        chosen === undefined ? item.editions : [chosen, ...item.editions.filter((e) => e !== chosen)];
      films.push({
        key: movieId === null ? `f${first?.media_file_id ?? 0}` : `m${movieId}`,
        movieId,
        title: item.title,
        order: films.length,
        year: item.year ?? null,
        addedAt: facts?.created_at ?? null,
        genres: parseGenres(facts?.genres_json ?? null),
        collection: movieId === null ? null : (collectionOf.get(movieId) ?? null),
        overview: item.overview ?? null,
        actors: (item.cast_names ?? []).slice(0, MAX_ACTORS),
        directors: item.director_names ?? [],
        editions: editions.map((e) => ({ fileId: e.media_file_id, label: e.label })),
        discs: item.editions.length === 0 ? (item.physical_copies ?? []) : [],
      });
    }
    const tree = buildContentTree({
      films,
      resume: resume.map((r) => r.media_file_id),
      rootTitle: this.deps.rootTitle ?? 'reelshelf',
    });
    return { tree, boot: version.boot, generation: version.generation, userId: viewer.userId };
  }
}

function containerDidl(container: TreeContainer): DidlObject {
  return {
    kind: 'container',
    id: container.id,
    parentId: container.parentId,
    title: container.title,
    childCount: container.children.length,
  };
}
