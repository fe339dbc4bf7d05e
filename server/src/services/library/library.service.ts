import type {
  LibraryEdition,
  LibraryMovieItem,
  LibraryResponse,
  PhysicalCopyInfo,
} from '@reelshelf/contract';
import { CONTRACT_VERSION } from '@reelshelf/contract';
import { artworkUrl } from '../../domain/artwork-url.ts';
import {
  type Badge,
  type EditionFacts,
  editionBadge,
  healthSummary,
  movieBadge,
} from '../../domain/badges.ts';
import {
  type CreditNameRow,
  type LibraryCopyRow,
  type LibraryFileRow,
  type LibraryRepository,
  type MovieScope,
} from '../../repositories/library.repository.ts';
import type { Viewer } from '../../domain/people/viewer.ts';
import type { VisibilityService } from '../people/visibility.service.ts';
import type { SystemStatusService } from '../system/system-status.service.ts';
import type { TokenHolder } from '../../domain/playback-token.ts';

/**
 * Whom a listing is presented for: the person (their watch state, their content limit) and the
 * credential the stream URLs' tokens are signed for (a token ends with its session or key).
 */
export type ListingViewer = Viewer & TokenHolder;

/** One edition as a device sees it, plus what ranks it against its siblings. */
export interface PresentedEdition {
  edition: LibraryEdition;
  facts: EditionFacts;
  /** Lower is better: the default edition is the lowest rank (direct over remux over …, then quality). */
  rank: number;
}

/** Turns a media file into a LibraryEdition for a device; the playback rules live behind it. */
export interface EditionPresenter {
  present(
    file: LibraryFileRow,
    copy: PhysicalCopyInfo | null,
    device: string,
    holder: TokenHolder,
  ): PresentedEdition;
}

/** One listed item with what the listing cache keeps about it. */
export interface PresentedItem {
  /** `m<movie id>`, or `f<file id>` for a file matched to no movie. */
  key: string;
  item: LibraryMovieItem;
  /** The movie's sort title (the listing's order: sort_title, id); null for an unmatched file, listed after the movies by file id. */
  sortTitle: string | null;
  /** The movie id, or the file id of an unmatched file. */
  id: number;
  /** The media files the item shows (a change to one of them re-presents the item). */
  files: number[];
}

/** Builds GET /library: every movie with its editions, badge and physical copies. */
export class LibraryService {
  constructor(
    private readonly repo: LibraryRepository,
    private readonly presenter: EditionPresenter,
    private readonly status: SystemStatusService,
    private readonly visibility: Pick<VisibilityService, 'visibleMovieIds' | 'seesUnmatched'>,
  ) {}

  /** The whole LibraryResponse as `viewer` may see it (the health line counts only what is shown). */
  async getLibrary(viewer: ListingViewer, device: string): Promise<LibraryResponse> {
    const visible = await this.visibility.visibleMovieIds(viewer);
    // All are read and the hidden dropped: a list scope is ordered only within its slices of ids.
    const { movies, unmatched } = await this.presentMovies(viewer, device);
    const shown = [
      ...(visible === null ? movies : movies.filter((p) => visible.has(p.id))),
      ...(this.visibility.seesUnmatched(viewer) ? this.presentUnmatched(viewer, unmatched, device) : []),
    ];
    const items = shown.map((p) => p.item);
    return {
      items,
      ...this.frame(
        device,
        items.map((i) => i.badge),
      ),
    };
  }

  /**
   * Everything of the LibraryResponse but its items, in its member order (`items` comes first): the
   * listing cache writes `{"items":[…]` and then these members.
   */
  frame(device: string, badges: readonly Badge[]): Omit<LibraryResponse, 'items'> {
    return {
      contract_version: CONTRACT_VERSION,
      device,
      health_summary: healthSummary(badges),
      system_warning: this.status.systemWarning(),
    };
  }

  /** One movie's item as /library would list it (the movie page), without building the rest. */
  async getMovieItem(
    viewer: ListingViewer,
    movieId: number,
    device: string,
  ): Promise<LibraryMovieItem | null> {
    const { movies } = await this.presentMovies(viewer, device, movieId);
    return movies[0]?.item ?? null;
  }

  /**
   * The movies in scope (all, one, or a list), in the listing's order, and — when all are read — the
   * files matched to no movie (to be presented with {@link presentUnmatched}).
   */
  async presentMovies(
    viewer: ListingViewer,
    device: string,
    scope?: MovieScope,
  ): Promise<{ movies: PresentedItem[]; unmatched: LibraryFileRow[] }> {
    const repo = this.repo;
    if (Array.isArray(scope) && scope.length === 0) return { movies: [], unmatched: [] };
    const { movies, copies, files, credits, artwork } = await repo.presentationRows(scope, viewer.userId);
    const artworkByMovie = new Map(artwork.map((a) => [a.movie_id, a]));
    const copiesByMovie = groupBy(copies, (c) => c.movie_id);
    const filesByMovie = groupBy(files, (f) => f.movie_id);
    const creditsByMovie = groupBy(credits, (c) => c.movie_id);

    const out: PresentedItem[] = [];
    for (const movie of movies) {
      const movieCopies = copiesByMovie.get(movie.id) ?? [];
      const movieFiles = filesByMovie.get(movie.id) ?? [];
      const presented = movieFiles.map((f) =>
        this.presenter.present(f, copyForFile(f, movieCopies), device, viewer),
      );
      const item = this.buildItem(
        movie.id,
        movie.title,
        presented,
        movieCopies,
        creditsByMovie.get(movie.id) ?? [],
      );
      item.year = movie.year;
      item.overview = movie.overview;
      item.has_digital_store_a = movie.has_digital_store_a === 1;
      item.has_digital_store_b = movie.has_digital_store_b === 1;
      item.poster_url = artworkUrl(artworkByMovie.get(movie.id), 'poster');
      item.backdrop_url = artworkUrl(artworkByMovie.get(movie.id), 'backdrop');
      out.push({
        key: `m${movie.id}`,
        item,
        sortTitle: movie.sort_title,
        id: movie.id,
        files: movieFiles.map((f) => f.id),
      });
    }
    return { movies: out, unmatched: filesByMovie.get(null) ?? [] };
  }

  /** Files not (yet) matched to any movie still show up, titled after their file name. */
  presentUnmatched(viewer: ListingViewer, files: readonly LibraryFileRow[], device: string): PresentedItem[] {
    return files.map((file) => ({
      key: `f${file.id}`,
      item: this.buildItem(
        null,
        titleFromPath(file.relative_path),
        [this.presenter.present(file, null, device, viewer)],
        [],
        [],
      ),
      sortTitle: null,
      id: file.id,
      files: [file.id],
    }));
  }

  /** Every movie id in the listing's order. */
  async movieOrder(): Promise<number[]> {
    return this.repo.movieOrder();
  }

  /** The files matched to no movie (listed after the movies), by id, with the viewer's state. */
  async unmatchedFiles(viewer: ListingViewer): Promise<LibraryFileRow[]> {
    return this.repo.unmatchedFiles(viewer.userId);
  }

  /** Files by id as the listing reads them (a change named them: where do they belong now?). */
  async filesById(viewer: ListingViewer, ids: readonly number[]): Promise<LibraryFileRow[]> {
    return ids.length === 0 ? [] : this.repo.filesById(ids, viewer.userId);
  }

  private buildItem(
    movieId: number | null,
    title: string,
    presented: PresentedEdition[],
    copies: LibraryCopyRow[],
    credits: CreditNameRow[],
  ): LibraryMovieItem {
    let defaultIndex = 0;
    for (let i = 1; i < presented.length; i++) {
      const candidate = presented[i];
      const best = presented[defaultIndex];
      if (candidate !== undefined && best !== undefined && candidate.rank < best.rank) defaultIndex = i;
    }
    const chosen = presented[defaultIndex];
    const badge = movieBadge(
      chosen === undefined ? null : editionBadge(chosen.edition, chosen.facts),
      copies.length > 0,
    );
    return {
      movie_id: movieId,
      title,
      editions: presented.map((p) => p.edition),
      default_edition_index: defaultIndex,
      badge,
      physical_copies: copies.map(toCopyInfo),
      cast_names: credits.filter((c) => c.role === 'cast').map((c) => c.name),
      director_names: credits.filter((c) => c.role !== 'cast').map((c) => c.name),
      poster_url: null,
      backdrop_url: null,
    };
  }
}

function toCopyInfo(copy: LibraryCopyRow): PhysicalCopyInfo {
  const info: PhysicalCopyInfo = { binder: copy.binder ?? '', slot: copy.slot ?? '', format: copy.format };
  // Only while it is out: a library with no loans lists exactly what it did before loans existed.
  if (copy.loan_to !== null && copy.loan_lent_at !== null) {
    info.loan = { to: copy.loan_to, lent_at: copy.loan_lent_at, due: copy.loan_due };
  }
  return info;
}

/** The disc a file was ripped from: same edition when known, else the movie's only copy. */
function copyForFile(file: LibraryFileRow, copies: LibraryCopyRow[]): PhysicalCopyInfo | null {
  const sameEdition =
    file.edition_id === null ? undefined : copies.find((c) => c.edition_id === file.edition_id);
  if (sameEdition !== undefined) return toCopyInfo(sameEdition);
  const only = copies.length === 1 ? copies[0] : undefined;
  return only === undefined ? null : toCopyInfo(only);
}

function titleFromPath(relativePath: string): string {
  const name = relativePath.split('/').pop() ?? relativePath;
  return name.replace(/\.[^.]+$/, '');
}

function groupBy<T, K>(rows: readonly T[], key: (row: T) => K): Map<K, T[]> {
  const out = new Map<K, T[]>();
  for (const row of rows) {
    const k = key(row);
    const list = out.get(k);
    if (list === undefined) out.set(k, [row]);
    else list.push(row);
  }
  return out;
}
