import { createHash } from 'node:crypto';
import {
  type CatalogueEntry,
  type EntryExtra,
  type EntrySelection,
  type LegacyFilters,
  GATED_FIELDS,
  entryJson,
  entriesJson,
  filterEntries,
  gatedFieldsOf,
  genreNumber,
  genresOf,
  latestEntries,
  legacyFilters,
  queryResultJson,
  selectionOf,
  similarEntries,
} from '../../domain/jellyfin/catalogue.ts';
import type { MovieDto, UserDataDto } from '../../domain/jellyfin/dto.ts';
import type { JellyfinIds } from '../../domain/jellyfin/ids.ts';
import { type ItemsQuery, type QueryResult, pageOf, wantsMovies } from '../../domain/jellyfin/items-query.ts';
import { toWireJson } from '../../domain/jellyfin/wire.ts';
import { trickplayField } from '../../domain/trickplay/jellyfin-trickplay.ts';
import { AppError, notFound } from '../../errors.ts';
import type { ListingViewer, LibraryService } from '../library/library.service.ts';
import type { FavouriteService } from '../library/favourite.service.ts';
import type { MovieService } from '../library/movie.service.ts';
import type { WatchStateService } from '../library/watch-state.service.ts';
import type { VisibilityService } from '../people/visibility.service.ts';
import { type JellyfinCatalogue, orderedEntries } from './jellyfin-catalogue.ts';
import { type Catalogue, keptAnswer } from './kept-answer.ts';
import type { TrickplayMade, TrickplayReader } from '../trickplay/trickplay-ports.ts';

/** The one view the library has: a Movies `CollectionFolder` (players.md §1.6). */
export interface ViewDto {
  Id: string;
  ServerId: string;
  Name: string;
  Type: 'CollectionFolder';
  CollectionType: 'movies';
  IsFolder: true;
  LocationType: 'FileSystem';
  ChildCount: number | null;
}

export interface JellyfinLibraryDeps {
  /** `/library` as the person sees it (one movie, for `/Items/{id}`). */
  library: Pick<LibraryService, 'getLibrary' | 'getMovieItem'>;
  /** The person's catalogue, kept per library generation (jellyfin-catalogue.ts). */
  catalogue: JellyfinCatalogue;
  /** The search index behind `/api/movies?q=` and `/library`'s search. */
  movies: Pick<MovieService, 'searchAll'>;
  visibility: Pick<VisibilityService, 'filter' | 'canSee'>;
  /** reelshelf's own "continue watching" (the same list its pages show). */
  watch: Pick<WatchStateService, 'continueWatching'>;
  favourites: Pick<FavouriteService, 'set'>;
  ids: JellyfinIds;
  /** The reelshelf device the editions are presented for (their labels and durations, not their URLs, are used). */
  device: string;
  /** The made seek thumbnails (the `Trickplay` field); absent: every item's field is `{}`. */
  trickplay?: Pick<TrickplayReader, 'madeMany'>;
}

/** The `Trickplay` field of some entries, and what it depends on (for a kept answer's key). */
interface TrickplayParts {
  extra: EntryExtra;
  /** A digest of the made sets (file and generation) the field shows: changes when one is (re)made. */
  version: string;
}

/** Whether a `Fields=` list asks for the `Trickplay` field (any case). */
function wantsTrickplay(fields: readonly string[]): boolean {
  return fields.some((f) => f.toLowerCase() === 'trickplay');
}

/** Its row id inside the `folder` id kind. */
export const MOVIES_VIEW_ROW = 1;
/** `/Items/Latest` without a Limit: Jellyfin's default. */
const LATEST_DEFAULT = 20;
/** `/Items/{id}/Similar` without a Limit. */
const SIMILAR_DEFAULT = 12;
/** Films "continue watching" holds at most (reelshelf's pages show fewer). */
const RESUME_MAX = 500;

/** A JSON answer made by string concatenation (the route sends it as is). */
export type WireText = string;

/**
 * Browsing through the Jellyfin facade: the views, `/Items` and the lists around it for one person,
 * from their kept catalogue (the `/library` listing of that person — the one visibility rule, their
 * own watch state and favourites — with the facts the DTOs add), mapped by the pure code of
 * domain/jellyfin. Answers are JSON text made from the entries' kept JSON.
 */
export class JellyfinLibraryService {
  constructor(private readonly deps: JellyfinLibraryDeps) {}

  get ids(): JellyfinIds {
    return this.deps.ids;
  }

  get moviesViewId(): string {
    return this.deps.ids.encode('folder', MOVIES_VIEW_ROW);
  }

  views(): ViewDto[] {
    return [
      {
        Id: this.moviesViewId,
        ServerId: this.deps.ids.serverId,
        Name: 'Movies',
        Type: 'CollectionFolder',
        CollectionType: 'movies',
        IsFolder: true,
        LocationType: 'FileSystem',
        ChildCount: null,
      },
    ];
  }

  /** Whether a query is about the movies (no other parent; item types, if any, include Movie). */
  private aboutMovies(query: Pick<ItemsQuery, 'parentId' | 'includeItemTypes'>): boolean {
    return (query.parentId === null || query.parentId === this.moviesViewId) && wantsMovies(query);
  }

  private selection(query: ItemsQuery): EntrySelection {
    return selectionOf(query, (kind, id) => this.deps.ids.decodeAs(kind, id));
  }

  /** `/Items` as JSON text (tests and small answers). */
  async items(viewer: ListingViewer, query: ItemsQuery): Promise<WireText> {
    const { body } = await this.itemsAnswer(viewer, query, false);
    return body.toString();
  }

  /**
   * `/Items`: the person's movies under the view, filtered, searched, sorted and paged; or the views
   * at the root. A large answer (the whole-library sync) is kept with the catalogue and gzipped once
   * when `gzip` (the client accepts it).
   */
  async itemsAnswer(
    viewer: ListingViewer,
    query: ItemsQuery,
    gzip: boolean,
  ): Promise<{ body: Buffer | string; gzip: boolean }> {
    // No parent and not recursive: the user's root, whose children are the views.
    if (query.parentId === null && !query.recursive && query.includeItemTypes.length === 0) {
      return { body: toWireJson(pageOf(this.views(), query)), gzip: false };
    }
    const fields = gatedFieldsOf(query.fields);
    if (!this.aboutMovies(query)) return { body: queryResultJson(pageOf([], query), fields), gzip: false };
    const catalogue = await this.deps.catalogue.of(viewer);
    const random = query.sortBy.includes('Random');
    if (!wantsTrickplay(query.fields)) {
      const key = random ? null : JSON.stringify({ ...query, fields });
      return keptAnswer(catalogue, key, () => this.itemsPage(viewer, catalogue, query), fields, gzip);
    }
    // The seek thumbnails are made without the library changing: the page's made sets are part of
    // the kept answer's key, so a set made (or remade) since gives a new answer.
    const page = await this.itemsPage(viewer, catalogue, query);
    const trickplay = await this.trickplayOf(page.Items);
    const key = random ? null : JSON.stringify({ ...query, fields, trickplay: trickplay.version });
    return keptAnswer(catalogue, key, () => Promise.resolve(page), fields, gzip, trickplay.extra);
  }

  /**
   * The `Trickplay` field of each entry (players.md §3.1): its media sources' made sets, keyed by
   * the media source id and the thumbnail width; `{}` for an entry with none.
   */
  private async trickplayOf(entries: readonly CatalogueEntry[]): Promise<TrickplayParts> {
    const reader = this.deps.trickplay;
    const made =
      reader === undefined
        ? new Map<number, TrickplayMade>()
        : await reader.madeMany(entries.flatMap((e) => e.fileIds));
    const digest = createHash('sha256');
    for (const [fileId, set] of made) digest.update(`${fileId}:${set.generation};`);
    return {
      version: digest.digest('hex').slice(0, 32),
      extra: (entry) => {
        const sources = entry.fileIds.flatMap((fileId) => {
          const set = made.get(fileId);
          if (set === undefined) return [];
          return [
            {
              mediaSourceId: this.deps.ids.encode('media-source', fileId),
              layout: set.layout,
              sheetBytes: set.sheetBytes,
            },
          ];
        });
        return `,"Trickplay":${JSON.stringify(trickplayField(sources))}`;
      },
    };
  }

  /** The `Trickplay` part when `fields` asks for it (lists other than /Items). */
  private async extraFor(
    fields: readonly string[],
    entries: readonly CatalogueEntry[],
  ): Promise<EntryExtra | undefined> {
    return wantsTrickplay(fields) ? (await this.trickplayOf(entries)).extra : undefined;
  }

  private async itemsPage(
    viewer: ListingViewer,
    catalogue: Catalogue,
    query: ItemsQuery,
  ): Promise<QueryResult<CatalogueEntry>> {
    let chosen = filterEntries(orderedEntries(catalogue, query), this.selection(query));
    if (query.searchTerm !== null) {
      const found = await this.deps.movies.searchAll(query.searchTerm, {
        order: 'title',
        visible: this.deps.visibility.filter(viewer),
      });
      // The index holds movies only: unmatched files are not searched.
      const set = new Set(found ?? []);
      chosen = chosen.filter((e) => e.movieId !== null && set.has(e.movieId));
    }
    return pageOf(chosen, query);
  }

  /** `/Items/Latest`: a plain array, newest first. */
  async latest(viewer: ListingViewer, query: ItemsQuery): Promise<WireText> {
    const fields = gatedFieldsOf(query.fields);
    if (!this.aboutMovies(query)) return '[]';
    const catalogue = await this.deps.catalogue.of(viewer);
    const chosen = filterEntries(catalogue.entries, this.selection(query));
    const latest = latestEntries(chosen, query.limit ?? LATEST_DEFAULT);
    return entriesJson(latest, fields, await this.extraFor(query.fields, latest));
  }

  /**
   * `/UserItems/Resume`: reelshelf's own "continue watching" for the person (its rules: stopped in
   * the middle and not watched, newest first), as items.
   */
  async resume(viewer: ListingViewer, query: ItemsQuery): Promise<WireText> {
    const fields = gatedFieldsOf(query.fields);
    if (!this.aboutMovies(query)) return queryResultJson(pageOf([], query), fields);
    const [catalogue, rows] = await Promise.all([
      this.deps.catalogue.of(viewer),
      this.deps.watch.continueWatching(viewer.userId, RESUME_MAX, this.deps.visibility.filter(viewer)),
    ]);
    const seen = new Set<string>();
    const chosen: CatalogueEntry[] = [];
    for (const row of rows) {
      const entry =
        row.movie_id === null
          ? catalogue.byId.get(this.deps.ids.encode('media-source', row.media_file_id))
          : catalogue.byMovie.get(row.movie_id);
      if (entry === undefined || seen.has(entry.key)) continue;
      seen.add(entry.key);
      chosen.push(entry);
    }
    const page = pageOf(filterEntries(chosen, this.selection(query)), query);
    return queryResultJson(page, fields, await this.extraFor(query.fields, page.Items));
  }

  /** `/Items/{id}/Similar`: visible films sharing its genres; 404 for an id the person cannot see. */
  async similar(viewer: ListingViewer, id: string, query: ItemsQuery): Promise<WireText> {
    const catalogue = await this.deps.catalogue.of(viewer);
    const of = catalogue.byId.get(normalId(id));
    if (of === undefined) throw notFound('item', id.slice(0, 64));
    const found = similarEntries(catalogue.entries, of, query.limit ?? SIMILAR_DEFAULT);
    return queryResultJson(
      { Items: found, TotalRecordCount: found.length, StartIndex: 0 },
      gatedFieldsOf(query.fields),
      await this.extraFor(query.fields, found),
    );
  }

  /** Whether the person sees the item (for the item routes that answer with nothing of it). */
  async sees(viewer: ListingViewer, id: string): Promise<boolean> {
    return (await this.deps.catalogue.of(viewer)).byId.has(normalId(id));
  }

  /** `/Genres`: the genres of the films the person sees, as Genre items. */
  async genres(viewer: ListingViewer, query: ItemsQuery): Promise<WireText> {
    const entries = this.aboutMovies(query) ? (await this.deps.catalogue.of(viewer)).entries : [];
    const names = genresOf(filterEntries(entries, this.selection(query)));
    const items = names.map((name) => ({
      Name: name,
      Id: this.deps.ids.encode('genre', genreNumber(name)),
      ServerId: this.deps.ids.serverId,
      Type: 'Genre',
      IsFolder: true,
    }));
    return toWireJson(pageOf(items, query));
  }

  /** `/Persons`: the people credited on the films the person sees, by name (SearchTerm: name contains). */
  async persons(viewer: ListingViewer, query: ItemsQuery): Promise<WireText> {
    const entries = this.aboutMovies({ parentId: query.parentId, includeItemTypes: [] })
      ? (await this.deps.catalogue.of(viewer)).entries
      : [];
    const wanted = query.searchTerm?.toLowerCase() ?? null;
    const people = new Map<string, { Name: string; Id: string; Type: 'Person'; ServerId: string }>();
    for (const e of filterEntries(entries, this.selection(query))) {
      for (const person of peopleOf(e)) {
        if (people.has(person.Id)) continue;
        if (wanted !== null && !person.Name.toLowerCase().includes(wanted)) continue;
        people.set(person.Id, {
          Name: person.Name,
          Id: person.Id,
          Type: 'Person',
          ServerId: this.deps.ids.serverId,
        });
      }
    }
    const sorted = [...people.values()].sort(
      (a, b) => a.Name.localeCompare(b.Name) || (a.Id < b.Id ? -1 : 1),
    );
    return toWireJson(pageOf(sorted, query));
  }

  /** `/Items/Filters` (the Kodi add-on) and `/Items/Filters2` (Findroid): what the person's films offer. */
  async filters(viewer: ListingViewer, query: ItemsQuery): Promise<LegacyFilters> {
    const entries = this.aboutMovies(query) ? (await this.deps.catalogue.of(viewer)).entries : [];
    return legacyFilters(entries);
  }

  async filters2(
    viewer: ListingViewer,
    query: ItemsQuery,
  ): Promise<{ Genres: { Name: string; Id: string }[]; Tags: string[] }> {
    const { Genres } = await this.filters(viewer, query);
    return {
      Genres: Genres.map((name) => ({ Name: name, Id: this.deps.ids.encode('genre', genreNumber(name)) })),
      Tags: [],
    };
  }

  /**
   * `/Items/{id}`: one movie (or unmatched file) the person may see with every field (as Jellyfin's
   * single item: `Trickplay` too), else null.
   */
  async item(viewer: ListingViewer, id: string): Promise<WireText | null> {
    const entry = await this.entryOf(viewer, id);
    return entry === null ? null : entryJson(entry, GATED_FIELDS, (await this.trickplayOf([entry])).extra);
  }

  /** The entry of `/Items/{id}`, or null when the person cannot see it (or it names nothing). */
  private async entryOf(viewer: ListingViewer, id: string): Promise<CatalogueEntry | null> {
    const ref = this.deps.ids.decode(id);
    if (ref === null) return null;
    if (ref.kind === 'media-source') {
      // A file matched to no movie is an item under its media-source id (docs/jellyfin.md).
      return (await this.deps.catalogue.of(viewer)).byId.get(normalId(id)) ?? null;
    }
    if (ref.kind !== 'movie') return null;
    if (!(await this.deps.visibility.canSee(viewer, { movieId: ref.id }))) return null;
    const item = await this.deps.library.getMovieItem(viewer, ref.id, this.deps.device);
    if (item === null) return null;
    const [entry] = await this.deps.catalogue.dtos(viewer, [item], [ref.id]);
    return entry ?? null;
  }

  /**
   * `item` as a DTO, for services that read it (PlaybackInfo's media sources, the file a media URL
   * names) rather than send it: without `Trickplay`, so that no HLS segment asks for the thumbnails.
   */
  async itemDto(viewer: ListingViewer, id: string): Promise<MovieDto | null> {
    const entry = await this.entryOf(viewer, id);
    return entry === null ? null : (JSON.parse(entryJson(entry, GATED_FIELDS)) as MovieDto);
  }

  /**
   * `POST|DELETE /UserFavoriteItems/{id}`: the person's favourite (movies only: a file matched to no
   * movie has no row to keep it on), answered with the item's UserData as it is now.
   */
  async setFavourite(viewer: ListingViewer, id: string, on: boolean): Promise<UserDataDto> {
    const movieId = this.deps.ids.decodeAs('movie', id);
    if (movieId === null) throw notFound('item', id.slice(0, 64));
    try {
      await this.deps.favourites.set(viewer, movieId, on);
    } catch (err) {
      // Named by the Jellyfin id the client sent, never reelshelf's row id (a hidden film, an unknown one: alike).
      if (err instanceof AppError && err.code === 'not_found') throw notFound('item', id.slice(0, 64));
      throw err;
    }
    const text = await this.item(viewer, id);
    if (text === null) throw notFound('item', id.slice(0, 64));
    return (JSON.parse(text) as { UserData: UserDataDto }).UserData;
  }
}

/** Ids as the apps send them: any case, dashed or not. */
function normalId(id: string): string {
  return id.toLowerCase().replaceAll('-', '');
}

/** The People of an entry, read back from its kept JSON part. */
function peopleOf(entry: CatalogueEntry): { Name: string; Id: string }[] {
  const part = entry.gated.People;
  if (part === undefined) return [];
  return JSON.parse(part.slice(',"People":'.length)) as { Name: string; Id: string }[];
}
