import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { LibraryMovieItem } from '@reelshelf/contract';
import { type CatalogueEntry, entryOf } from '../../domain/jellyfin/catalogue.ts';
import { type DtoContext, type MovieFacts, type PersonFact, movieDto } from '../../domain/jellyfin/dto.ts';
import type { JellyfinIdKind, JellyfinIds } from '../../domain/jellyfin/ids.ts';
import type { ImageTags } from '../../domain/jellyfin/image-tags.ts';
import { type ItemsQuery, sortItems } from '../../domain/jellyfin/items-query.ts';
import { LruMap } from '../../domain/library-listing/lru.ts';
import { parseGenres } from '../../domain/genres.ts';
import type { FactsScope, JellyfinFactsRepository } from '../../repositories/jellyfin-facts.repository.ts';
import type { LibraryGeneration } from '../library/library-generation.ts';
import type { LibraryService, ListingViewer } from '../library/library.service.ts';
import type { VisibilityService } from '../people/visibility.service.ts';

const gzipAsync = promisify(gzip);

/** One person's movies as the facade lists them, kept while nothing they see changes. */
export interface Catalogue {
  /** In the default order (SortName, then Id). */
  entries: readonly CatalogueEntry[];
  byId: ReadonlyMap<string, CatalogueEntry>;
  byMovie: ReadonlyMap<number, CatalogueEntry>;
  /** The orders asked for so far (every entry), by sort spec. */
  orders: Map<string, CatalogueEntry[]>;
  /** Large answers made from it (the apps' whole-library sync), by query; see keptAnswer. */
  answers: Map<string, KeptAnswer>;
}

/** A large answer's bytes, and its gzip once a client accepting gzip asked. */
export interface KeptAnswer {
  identity: Buffer;
  gzip: Promise<Buffer> | null;
}

/** Answers at least this long are kept (a page of 100 is made faster than it is looked up). */
const KEEP_ANSWER_CHARS = 256 * 1024;
/** Large answers kept per catalogue (the apps ask the same few). */
const KEPT_ANSWERS = 4;

/**
 * The answer to a query of the catalogue: kept when large (made once per catalogue, so per library
 * generation — the same rule as /library's kept bytes), gzipped on the first request that accepts gzip.
 * `key` null: never kept (a Random order).
 */
export async function keptAnswer(
  catalogue: Catalogue,
  key: string | null,
  make: () => Promise<string>,
  gzip: boolean,
): Promise<{ body: Buffer | string; gzip: boolean }> {
  let kept = key === null ? undefined : catalogue.answers.get(key);
  if (kept === undefined) {
    const text = await make();
    if (key === null || text.length < KEEP_ANSWER_CHARS) return { body: text, gzip: false };
    kept = { identity: Buffer.from(text), gzip: null };
    if (catalogue.answers.size >= KEPT_ANSWERS) {
      const oldest = catalogue.answers.keys().next().value;
      if (oldest !== undefined) catalogue.answers.delete(oldest);
    }
    catalogue.answers.set(key, kept);
  }
  if (!gzip) return { body: kept.identity, gzip: false };
  kept.gzip ??= gzipAsync(kept.identity, { level: 6 });
  return { body: await kept.gzip, gzip: true };
}

interface Kept {
  catalogue: Catalogue;
  boot: string;
  generation: number;
}

export interface CatalogueDeps {
  library: Pick<LibraryService, 'getLibrary'>;
  generation: Pick<LibraryGeneration, 'current' | 'changedFor'>;
  visibility: Pick<VisibilityService, 'scopeKey'>;
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
 * entries once per library generation, person and content limit — a change anybody's listing
 * shows, or this person's own state (watch state, favourites), makes the next request build anew;
 * another person's state does not. Concurrent requests share one build.
 */
export class JellyfinCatalogue {
  private readonly kept = new LruMap<string, Kept>(16);
  private readonly building = new Map<string, Promise<Kept>>();
  private readonly ids: MemoIds;
  private builds = 0;

  constructor(private readonly deps: CatalogueDeps) {
    this.ids = new MemoIds(deps.ids);
  }

  /** Builds so far (tests: a second request reuses the catalogue). */
  buildCount(): number {
    return this.builds;
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
    const build = this.build(viewer)
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
    const [movieRows, fileRows, ratingRows, creditRows, studioRows, favourites] = await Promise.all([
      facts.movieFacts(scope),
      facts.fileFacts(),
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
          key: id === null ? `f${item.editions[0]?.media_file_id ?? 0}` : `m${id}`,
          movieId: id,
          personIds: moviePeople.map((p) => p.personId),
          studioIds: movieStudios.map((s) => s.id),
        }),
      );
    }
    return out;
  }

  private async build(viewer: ListingViewer): Promise<Kept> {
    // The version is read before the rows: a write after this point is seen as the next version.
    const version = this.deps.generation.current();
    this.builds++;
    const { items } = await this.deps.library.getLibrary(viewer, this.deps.device);
    const entries = sortItems(await this.dtos(viewer, items, null), { sortBy: [], descending: false });
    const byMovie = new Map<number, CatalogueEntry>();
    for (const e of entries) if (e.movieId !== null) byMovie.set(e.movieId, e);
    return {
      boot: version.boot,
      generation: version.generation,
      catalogue: {
        entries,
        byId: new Map(entries.map((e) => [e.Id, e])),
        byMovie,
        orders: new Map(),
        answers: new Map(),
      },
    };
  }
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
