import type { LibraryMovieItem } from '@reelshelf/contract';
import { type CatalogueEntry, entryOf } from '../../domain/jellyfin/catalogue.ts';
import { type DtoContext, type MovieFacts, type PersonFact, movieDto } from '../../domain/jellyfin/dto.ts';
import type { JellyfinIdKind, JellyfinIds } from '../../domain/jellyfin/ids.ts';
import type { ImageTags } from '../../domain/jellyfin/image-tags.ts';
import { type ItemsQuery, itemOrder, mergeOrdered, sortItems } from '../../domain/jellyfin/items-query.ts';
import { LruMap } from '../../domain/library-listing/lru.ts';
import { parseGenres } from '../../domain/genres.ts';
import type { FactsScope, JellyfinFactsRepository } from '../../repositories/jellyfin-facts.repository.ts';
import type { LibraryGeneration } from '../library/library-generation.ts';
import type { LibraryService, ListingViewer } from '../library/library.service.ts';
import type { VisibilityService } from '../people/visibility.service.ts';
import { type Catalogue, type KeptAnswer, KEPT_ANSWERS } from './kept-answer.ts';

interface Kept {
  catalogue: Catalogue;
  boot: string;
  generation: number;
  /** The catalogue's indexes, updated in place by the next update (a request still reading the older catalogue then finds the newer entries: never a stale one). */
  byId: Map<string, CatalogueEntry>;
  byMovie: Map<number, CatalogueEntry>;
  /** Each entry's media files, by entry key (a change to one of them re-presents the entry). */
  filesOf: Map<string, readonly number[]>;
  /** The entry each media file is shown in. */
  fileOwner: Map<number, string>;
}

/** Catalogue builds so far (tests: kept, incremental, whose). */
export interface CatalogueStats {
  /** Builds of any kind: a full one, or the changed items re-presented on a kept catalogue. */
  builds: number;
  fullBuilds: number;
  /** Items presented (run through /library's presentation and the DTO mapping) by all builds. */
  presented: number;
}

/** Above this share of changed items a full build is cheaper than picking them out (as /library). */
const FULL_BUILD_SHARE = 0.25;

/** The key of a listing item's entry: `m<movie id>`, `f<file id>` for a file matched to no movie. */
function entryKeyOf(item: LibraryMovieItem): string {
  return item.movie_id === null ? `f${item.editions[0]?.media_file_id ?? 0}` : `m${item.movie_id}`;
}

function filesOfItem(item: LibraryMovieItem): number[] {
  return item.editions.map((e) => e.media_file_id);
}

export interface CatalogueDeps {
  library: Pick<LibraryService, 'getLibrary' | 'presentMovies' | 'presentUnmatched' | 'filesById'>;
  generation: Pick<LibraryGeneration, 'current' | 'changedFor' | 'since'>;
  visibility: Pick<VisibilityService, 'scopeKey' | 'visibleMovieIds' | 'seesUnmatched'>;
  facts: JellyfinFactsRepository;
  favourites: { movieIdsOf(userId: number): Promise<number[]> };
  ids: JellyfinIds;
  tags: ImageTags;
  /** The reelshelf device the editions are presented for (labels and durations only). */
  device: string;
  /** The view the movies are listed under. */
  parentId: string;
}

/** Encoded ids kept: a 10,000-film library names ~100,000 people, and encoding is an HMAC and an AES block. */
type DtoIds = DtoContext['ids'];

class MemoIds implements DtoIds {
  private readonly memo = new Map<string, string>();
  constructor(private readonly ids: JellyfinIds) {}
  get serverId(): string {
    return this.ids.serverId;
  }
  encode(kind: JellyfinIdKind, id: number): string {
    const key = `${kind}:${id}`;
    let out = this.memo.get(key);
    if (out === undefined) {
      out = this.ids.encode(kind, id);
      if (this.memo.size >= 500_000) this.memo.clear();
      this.memo.set(key, out);
    }
    return out;
  }
}

/** Jellyfin's person kinds for reelshelf's credits (TMDb jobs); other crew jobs are not listed. */
const CREW_KINDS: Readonly<Record<string, PersonFact['kind']>> = {
  Director: 'Director',
  Screenplay: 'Writer',
  Writer: 'Writer',
  Novel: 'Writer',
  Producer: 'Producer',
  'Original Music Composer': 'Composer',
};

/** "7.8/10" → 7.8 (IMDb via OMDb); "85%" → 85 (Rotten Tomatoes). */
function ratingNumber(value: string): number | null {
  const n = Number.parseFloat(value);
  return Number.isFinite(n) ? n : null;
}

/** The container as Jellyfin names it: the file's extension (`mkv`, `mp4`). */
function containerOf(path: string): string | null {
  const match = /\.([a-z0-9]{1,5})$/i.exec(path);
  return match?.[1]?.toLowerCase() ?? null;
}

/**
 * The facade's per-person catalogue (docs/jellyfin.md "Browsing"): the person's `/library` items
 * (the one visibility rule, their own watch state) with the facts the DTOs add, made into kept
 * entries once per library generation, person and content limit. A change anybody's listing shows,
 * or this person's own state (watch state, favourites), makes the next request re-present the items
 * it touched (the generation's log says which, as for /library) on the kept catalogue — a player's
 * progress every 10 s costs one item, not the library; another person's state costs nothing.
 * Concurrent requests share one build.
 */
export class JellyfinCatalogue {
  private readonly kept = new LruMap<string, Kept>(16);
  private readonly building = new Map<string, Promise<Kept>>();
  private readonly ids: MemoIds;
  private readonly counters: CatalogueStats = { builds: 0, fullBuilds: 0, presented: 0 };

  constructor(private readonly deps: CatalogueDeps) {
    this.ids = new MemoIds(deps.ids);
  }

  /** Builds so far (tests: a second request reuses the catalogue). */
  buildCount(): number {
    return this.counters.builds;
  }

  stats(): CatalogueStats {
    return { ...this.counters };
  }

  /** Drops every kept catalogue: the next request builds from scratch (tests compare with that). */
  clear(): void {
    this.kept.clear();
  }

  async of(viewer: ListingViewer): Promise<Catalogue> {
    const key = `${viewer.userId}|${this.deps.visibility.scopeKey(viewer)}`;
    for (;;) {
      const version = this.deps.generation.current();
      const kept = this.kept.get(key);
      if (
        kept !== undefined &&
        kept.boot === version.boot &&
        !this.deps.generation.changedFor(kept.generation, version.generation, viewer.userId)
      ) {
        return kept.catalogue;
      }
      const running = this.building.get(key);
      if (running === undefined) break;
      await running.catch(() => null);
    }
    const build = this.build(viewer, this.kept.peek(key))
      .then((built) => {
        this.kept.set(key, built);
        return built;
      })
      .finally(() => this.building.delete(key));
    this.building.set(key, build);
    return (await build).catalogue;
  }

  /** The DTO facts of some listing items (all of them: scope null), read in one query per kind. */
  async dtos(viewer: ListingViewer, items: readonly LibraryMovieItem[], scope: FactsScope) {
    const facts = this.deps.facts;
    const fileScope = scope === null ? null : items.flatMap(filesOfItem);
    const [movieRows, fileRows, ratingRows, creditRows, studioRows, favourites] = await Promise.all([
      facts.movieFacts(scope),
      facts.fileFacts(fileScope),
      facts.ratings(scope),
      facts.credits(scope),
      facts.studios(scope),
      this.deps.favourites.movieIdsOf(viewer.userId),
    ]);
    const movies = new Map(movieRows.map((m) => [m.id, m]));
    const files = new Map(
      fileRows.map((f) => [f.id, { container: containerOf(f.relative_path), sizeBytes: f.size_bytes }]),
    );
    const community = new Map<number, number>();
    const critic = new Map<number, number>();
    for (const r of ratingRows) {
      const n = ratingNumber(r.value);
      if (n === null) continue;
      if (r.source === 'Internet Movie Database') community.set(r.movie_id, n);
      else if (r.source === 'Rotten Tomatoes') critic.set(r.movie_id, n);
    }
    const people = new Map<number, PersonFact[]>();
    for (const c of creditRows) {
      const kind = c.role === 'cast' ? 'Actor' : CREW_KINDS[c.job ?? ''];
      if (kind === undefined) continue;
      const list = people.get(c.movie_id) ?? [];
      list.push({ personId: c.person_id, name: c.name, kind, role: kind === 'Actor' ? c.character : null });
      people.set(c.movie_id, list);
    }
    const studios = new Map<number, { id: number; name: string }[]>();
    for (const s of studioRows) {
      const list = studios.get(s.movie_id) ?? [];
      list.push({ id: s.studio_id, name: s.name });
      studios.set(s.movie_id, list);
    }
    const favourite = new Set(favourites);
    const context: DtoContext = {
      ids: this.ids,
      tags: this.deps.tags.forPerson(viewer.userId),
      parentId: this.deps.parentId,
    };
    const out: CatalogueEntry[] = [];
    for (const item of items) {
      const id = item.movie_id;
      const movie = id === null ? undefined : movies.get(id);
      const moviePeople = id === null ? [] : (people.get(id) ?? []);
      const movieStudios = id === null ? [] : (studios.get(id) ?? []);
      const movieFacts: MovieFacts = {
        genres: parseGenres(movie?.genres_json ?? null),
        certification: movie?.certification ?? null,
        communityRating: id === null ? null : (community.get(id) ?? null),
        criticRating: id === null ? null : (critic.get(id) ?? null),
        people: moviePeople,
        studios: movieStudios,
        releasedOn: null,
        addedAt: movie?.created_at ?? null,
        isFavorite: id !== null && favourite.has(id),
        lastPlayedAt: null,
        files,
      };
      const dto = movieDto(item, movieFacts, context);
      if (dto === null) continue;
      out.push(
        entryOf(dto, {
          key: entryKeyOf(item),
          movieId: id,
          personIds: moviePeople.map((p) => p.personId),
          studioIds: movieStudios.map((s) => s.id),
          fileIds: filesOfItem(item),
        }),
      );
    }
    return out;
  }

  private async build(viewer: ListingViewer, base: Kept | undefined): Promise<Kept> {
    // The version is read before the rows: a write after this point is seen as the next version.
    const version = this.deps.generation.current();
    this.counters.builds++;
    if (base !== undefined && base.boot === version.boot) {
      const updated = await this.rebuildChanged(viewer, base, version.generation);
      if (updated !== null) return updated;
    }
    this.counters.fullBuilds++;
    const { items } = await this.deps.library.getLibrary(viewer, this.deps.device);
    this.counters.presented += items.length;
    const entries = sortItems(await this.dtos(viewer, items, null), DEFAULT_ORDER);
    const filesOf = new Map<string, readonly number[]>();
    const fileOwner = new Map<number, string>();
    for (const item of items) {
      const key = entryKeyOf(item);
      const files = filesOfItem(item);
      filesOf.set(key, files);
      for (const f of files) fileOwner.set(f, key);
    }
    const byId = new Map(entries.map((e) => [e.Id, e]));
    const byMovie = new Map<number, CatalogueEntry>();
    for (const e of entries) if (e.movieId !== null) byMovie.set(e.movieId, e);
    return {
      boot: version.boot,
      generation: version.generation,
      catalogue: catalogueOf(entries, byId, byMovie, new Map()),
      byId,
      byMovie,
      filesOf,
      fileOwner,
    };
  }

  /**
   * The kept catalogue after the changes since it was made: the movies and files they touched
   * presented again (and dropped when the person no longer sees them), the other entries kept as
   * they are (the same objects, so kept answers reuse their JSON and pieces). Null when a full build
   * is the better (or the only) way. The base's entry list is not modified (requests may still be
   * reading it); its indexes are, once everything is read (see Kept).
   */
  private async rebuildChanged(viewer: ListingViewer, base: Kept, generation: number): Promise<Kept | null> {
    const changes = this.deps.generation.since(base.generation, generation, viewer.userId);
    if (changes.all) return null;
    const movies = new Set(changes.movies);
    const files = new Set(changes.files);
    const limit = Math.max(64, base.catalogue.entries.length * FULL_BUILD_SHARE);
    if (movies.size + files.size > limit) return null;
    // A changed movie's files may have become unmatched (a deleted movie); a changed file's old and
    // new movies both change.
    for (const m of movies) for (const f of base.filesOf.get(`m${m}`) ?? []) files.add(f);
    for (const f of files) {
      const owner = base.fileOwner.get(f);
      if (owner?.startsWith('m') === true) movies.add(Number(owner.slice(1)));
    }
    const fileRows = await this.deps.library.filesById(viewer, [...files]);
    for (const row of fileRows) if (row.movie_id !== null) movies.add(row.movie_id);
    if (movies.size + files.size > limit) return null;

    const movieIds = [...movies];
    const [{ movies: presented }, visible] = await Promise.all([
      this.deps.library.presentMovies(viewer, this.deps.device, movieIds),
      this.deps.visibility.visibleMovieIds(viewer),
    ]);
    const unmatched = this.deps.visibility.seesUnmatched(viewer)
      ? this.deps.library.presentUnmatched(
          viewer,
          fileRows.filter((row) => row.movie_id === null),
          this.deps.device,
        )
      : [];
    // The one visibility rule, as getLibrary applies it to a full build.
    const items = [...presented.filter((p) => visible === null || visible.has(p.id)), ...unmatched].map(
      (p) => p.item,
    );
    this.counters.presented += items.length;
    const fresh = sortItems(await this.dtos(viewer, items, movieIds), DEFAULT_ORDER);

    // Everything is read: from here on nothing awaits, so the indexes are never left half updated.
    const removed = new Set<string>();
    for (const m of movies) removed.add(`m${m}`);
    for (const f of files) removed.add(`f${f}`);
    const { byId, byMovie, filesOf, fileOwner } = base;
    const kept: CatalogueEntry[] = [];
    for (const e of base.catalogue.entries) {
      if (!removed.has(e.key)) {
        kept.push(e);
        continue;
      }
      byId.delete(e.Id);
      if (e.movieId !== null) byMovie.delete(e.movieId);
    }
    for (const key of removed) {
      for (const f of filesOf.get(key) ?? []) if (fileOwner.get(f) === key) fileOwner.delete(f);
      filesOf.delete(key);
    }
    for (const item of items) {
      const key = entryKeyOf(item);
      const itemFiles = filesOfItem(item);
      filesOf.set(key, itemFiles);
      for (const f of itemFiles) fileOwner.set(f, key);
    }
    for (const e of fresh) {
      byId.set(e.Id, e);
      if (e.movieId !== null) byMovie.set(e.movieId, e);
    }
    // The answers of this catalogue and those it still carried, newest last, at most KEPT_ANSWERS.
    const previous = new Map([...base.catalogue.previous, ...base.catalogue.answers]);
    for (const key of [...previous.keys()].slice(0, Math.max(0, previous.size - KEPT_ANSWERS))) {
      previous.delete(key);
    }
    const entries = mergeOrdered(kept, fresh, itemOrder(DEFAULT_ORDER));
    return {
      boot: base.boot,
      generation,
      catalogue: catalogueOf(entries, byId, byMovie, previous),
      byId,
      byMovie,
      filesOf,
      fileOwner,
    };
  }
}

const DEFAULT_ORDER = { sortBy: [], descending: false } as const;

/** A catalogue of entries in the default order with its indexes (orders and answers made on demand). */
function catalogueOf(
  entries: readonly CatalogueEntry[],
  byId: ReadonlyMap<string, CatalogueEntry>,
  byMovie: ReadonlyMap<number, CatalogueEntry>,
  previous: ReadonlyMap<string, KeptAnswer>,
): Catalogue {
  return { entries, byId, byMovie, orders: new Map(), answers: new Map(), previous };
}

/** The catalogue's entries in a query's order (kept per sort spec; Random shuffles every time). */
export function orderedEntries(
  catalogue: Catalogue,
  query: Pick<ItemsQuery, 'sortBy' | 'descending'>,
): readonly CatalogueEntry[] {
  if (query.sortBy.includes('Random')) return sortItems(catalogue.entries, query);
  if (query.sortBy.length === 0 && !query.descending) return catalogue.entries;
  const spec = `${query.sortBy.join(',')}|${query.descending ? 'd' : 'a'}`;
  let order = catalogue.orders.get(spec);
  if (order === undefined) {
    order = sortItems(catalogue.entries, query);
    if (catalogue.orders.size < 32) catalogue.orders.set(spec, order);
  }
  return order;
}
