import type { LibraryMovieItem } from '@reelshelf/contract';
import { type DtoContext, type MovieDto, type MovieFacts, movieDto } from '../../domain/jellyfin/dto.ts';
import type { JellyfinIds } from '../../domain/jellyfin/ids.ts';
import type { ImageTags } from '../../domain/jellyfin/image-tags.ts';
import {
  type ItemsQuery,
  type QueryResult,
  pageOf,
  sortItems,
  wantsMovies,
} from '../../domain/jellyfin/items-query.ts';
import { parseGenres } from '../../domain/genres.ts';
import type { JellyfinFactsRepository } from '../../repositories/jellyfin-facts.repository.ts';
import type { ListingViewer, LibraryService } from '../library/library.service.ts';
import type { MovieService } from '../library/movie.service.ts';
import type { VisibilityService } from '../people/visibility.service.ts';

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
  /** `/library` as the person sees it (the one visibility rule, their own watch state). */
  library: Pick<LibraryService, 'getLibrary' | 'getMovieItem'>;
  /** The search index behind `/api/movies?q=` and `/library`'s search. */
  movies: Pick<MovieService, 'searchAll'>;
  visibility: Pick<VisibilityService, 'filter' | 'canSee'>;
  facts: Pick<JellyfinFactsRepository, 'movieFacts' | 'fileFacts'>;
  ids: JellyfinIds;
  tags: ImageTags;
  /** The reelshelf device the editions are presented for (their labels and durations, not their URLs, are used). */
  device: string;
}

/** Its row id inside the `folder` id kind. */
const MOVIES_VIEW_ROW = 1;

/**
 * Browsing through the Jellyfin facade: the views and `/Items` of one person, made from the same
 * `/library` listing (so the same visibility rule and their own watch state) and the same search
 * index, mapped by the pure DTO mapping in domain/jellyfin.
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

  /** `/Items`: the person's movies under the view, searched, sorted and paged; or the views at the root. */
  async items(viewer: ListingViewer, query: ItemsQuery): Promise<QueryResult<MovieDto | ViewDto>> {
    const underView = query.parentId === this.moviesViewId;
    // No parent and not recursive: the user's root, whose children are the views.
    if (query.parentId === null && !query.recursive && query.includeItemTypes.length === 0) {
      return pageOf(this.views(), query);
    }
    if ((query.parentId !== null && !underView) || !wantsMovies(query)) return pageOf([], query);
    const found =
      query.searchTerm === null
        ? null
        : await this.deps.movies.searchAll(query.searchTerm, {
            order: 'title',
            visible: this.deps.visibility.filter(viewer),
          });
    const { items } = await this.deps.library.getLibrary(viewer, this.deps.device);
    const matched =
      found === null
        ? items
        : ((set) => items.filter((i) => i.movie_id !== null && set.has(i.movie_id)))(new Set(found));
    const dtos = await this.dtos(matched, viewer);
    return pageOf(sortItems(dtos, query), query);
  }

  /** `/Items/{id}`: one movie (or unmatched file) the person may see, else null. */
  async item(viewer: ListingViewer, id: string): Promise<MovieDto | null> {
    const ref = this.deps.ids.decode(id);
    if (ref === null) return null;
    let item: LibraryMovieItem | null = null;
    if (ref.kind === 'movie') {
      if (!(await this.deps.visibility.canSee(viewer, { movieId: ref.id }))) return null;
      item = await this.deps.library.getMovieItem(viewer, ref.id, this.deps.device);
    } else if (ref.kind === 'media-source') {
      // A file matched to no movie is an item under its media-source id (docs/jellyfin.md).
      const { items } = await this.deps.library.getLibrary(viewer, this.deps.device);
      item = items.find((i) => i.movie_id === null && i.editions[0]?.media_file_id === ref.id) ?? null;
    }
    if (item === null) return null;
    return (await this.dtos([item], viewer))[0] ?? null;
  }

  private async dtos(items: readonly LibraryMovieItem[], viewer: ListingViewer): Promise<MovieDto[]> {
    const [movieRows, fileRows] = await Promise.all([
      this.deps.facts.movieFacts(),
      this.deps.facts.fileFacts(),
    ]);
    const movies = new Map(movieRows.map((m) => [m.id, m]));
    const files = new Map(
      fileRows.map((f) => [f.id, { container: containerOf(f.relative_path), sizeBytes: f.size_bytes }]),
    );
    const context: DtoContext = {
      ids: this.deps.ids,
      tags: this.deps.tags.forPerson(viewer.userId),
      parentId: this.moviesViewId,
    };
    const out: MovieDto[] = [];
    for (const item of items) {
      const movie = item.movie_id === null ? undefined : movies.get(item.movie_id);
      const facts: MovieFacts = {
        genres: parseGenres(movie?.genres_json ?? null),
        certification: movie?.certification ?? null,
        communityRating: null,
        releasedOn: null,
        addedAt: movie?.created_at ?? null,
        isFavorite: false,
        lastPlayedAt: null,
        files,
      };
      const dto = movieDto(item, facts, context);
      if (dto !== null) out.push(dto);
    }
    return out;
  }
}

/** The container as Jellyfin names it: the file's extension (`mkv`, `mp4`). */
function containerOf(path: string): string | null {
  const match = /\.([a-z0-9]{1,5})$/i.exec(path);
  return match?.[1]?.toLowerCase() ?? null;
}
