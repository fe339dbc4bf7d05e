import type {
  CopyInput,
  CreateMovieInput,
  MovieDetail,
  MovieList,
  MovieSummary,
  PatchMovieInput,
} from '@reelshelf/contract';
import { type Clock, isoNow } from '../../adapters/clock.ts';
import type { UnitOfWork } from '../../repositories/unit-of-work.ts';
import type { LibraryGeneration } from './library-generation.ts';
import { DEFAULT_BINDER_CAPACITY } from '../../domain/binders.ts';
import { parseGenres } from '../../domain/genres.ts';
import { canonicalCertification, certificationNames } from '../../domain/people/ratings.ts';
import type { CertificationFilter } from '../../domain/people/visibility.ts';
import { searchTerms } from '../../domain/search-query.ts';
import { normalizeTitle, sortTitle } from '../../domain/titles.ts';
import { AppError, notFound } from '../../errors.ts';
import {
  type CopyDetailRow,
  type EditionRow,
  type MediaFileSummaryRow,
  type MoviePatchRow,
  type MovieRepository,
  type MovieRow,
  type SearchOptions,
} from '../../repositories/movie.repository.ts';

export type { SearchOptions, SearchOrder } from '../../repositories/movie.repository.ts';

/** What the /library page's filters offer (MovieRepository.listingFacets). */
export interface ListingFacets {
  formats: string[];
  binders: string[];
  items: number;
}

/** Movie records: creation (with discs), listing, edits and deletion. */
export class MovieService {
  constructor(
    private readonly movies: MovieRepository,
    /** A movie and its discs are created in one transaction. */
    private readonly store: UnitOfWork<MovieRepository>,
    private readonly clock: Clock,
    /** REELSHELF_CERTIFICATION_COUNTRY: the system a certification set by hand must belong to. */
    private readonly certificationCountry = 'US',
    /**
     * The library generation (LibraryGeneration: moves with every write to what /library shows, on
     * any node): the page filters' facets are kept while it stays. Without one they are read each time.
     */
    private readonly listingGeneration: Pick<LibraryGeneration, 'current'> | null = null,
  ) {}

  /** The facets read at one generation, per visibility (the kept ones go when it moves). */
  private keptFacets: { generation: number; byScope: Map<string, Promise<ListingFacets>> } | null = null;

  async create(input: CreateMovieInput): Promise<MovieDetail> {
    const now = isoNow(this.clock);
    const id = await this.store.transaction(async (repo) => {
      if (input.tmdb_id != null && (await repo.getByTmdbId(input.tmdb_id)) !== undefined) {
        throw new AppError('conflict', {
          message: `A movie with TMDb id ${input.tmdb_id} already exists.`,
          hint: 'Add a physical copy to the existing movie instead.',
        });
      }
      const movieId = await repo.insert({
        title: input.title.trim(),
        sort_title: sortTitle(input.title),
        normalized_title: normalizeTitle(input.title),
        original_title: input.original_title ?? null,
        year: input.year ?? null,
        overview: input.overview ?? null,
        runtime_minutes: input.runtime_minutes ?? null,
        tmdb_id: input.tmdb_id ?? null,
        imdb_id: input.imdb_id ?? null,
        has_digital_store_a: input.has_digital_store_a === true ? 1 : 0,
        has_digital_store_b: input.has_digital_store_b === true ? 1 : 0,
        watched: input.watched === true ? 1 : 0,
        created_at: now,
        updated_at: now,
      });
      for (const [index, copy] of (input.physical_copies ?? []).entries()) {
        await this.addCopy(repo, movieId, copy, index, now);
      }
      // With a disc the film is owned: its wish ends with this write (none without one: a movie only
      // listed may stay wished; docs/collector.md "Wish list").
      await repo.fulfilWishes(movieId);
      return movieId;
    });
    return this.get(id);
  }

  private async addCopy(repo: MovieRepository, movieId: number, copy: CopyInput, index: number, now: string) {
    const binder = await repo.getOrCreateBinder(copy.binder.trim(), DEFAULT_BINDER_CAPACITY, now);
    const slot = copy.slot?.trim() || null;
    if (slot !== null && (await repo.isSlotTaken(binder.id, slot))) {
      throw new AppError('slot_taken', {
        status: 409,
        message: `Binder ${binder.name} slot ${slot} already holds a disc.`,
        hint: 'Choose a free slot or leave slot empty.',
        extra: { field: `physical_copies/${index}/slot` },
      });
    }
    const editionId =
      copy.format !== undefined || copy.edition !== undefined || copy.barcode !== undefined
        ? await repo.insertEdition({
            movie_id: movieId,
            label: copy.edition ?? null,
            format: copy.format ?? null,
            barcode: copy.barcode ?? null,
            created_at: now,
          })
        : null;
    await repo.insertCopy({
      movie_id: movieId,
      edition_id: editionId,
      binder_id: binder.id,
      slot,
      notes: null,
      created_at: now,
    });
  }

  async get(id: number): Promise<MovieDetail> {
    const repo = this.movies;
    const row = await repo.getById(id);
    if (row === undefined) throw notFound('movie', id);
    const [editions, copies, files, ratings, credits, studios] = await Promise.all([
      repo.editionsOf(id),
      repo.copiesOf(id),
      repo.mediaFilesOf(id),
      repo.ratingsOf(id),
      repo.creditsOf(id),
      repo.studiosOf(id),
    ]);
    return {
      ...toDetail(row, editions, copies, files),
      tagline: row.tagline,
      genres: parseGenres(row.genres_json),
      collection: row.tmdb_collection_name,
      ratings,
      cast: credits.filter((c) => c.role === 'cast').map((c) => ({ name: c.name, character: c.character })),
      directors: credits.filter((c) => c.job === 'Director').map((c) => c.name),
      studios,
      enriched_at: row.enriched_at,
    };
  }

  /**
   * GET /api/movies: with words to search for in `query`, the movies the search index finds (title,
   * original title, cast, directors; accents and case folded; each word a prefix), best match
   * first; without (absent, empty, only punctuation), every movie by sort title.
   */
  async list(
    query: string | undefined,
    limit: number,
    offset: number,
    visible: CertificationFilter | null,
    onLoan = false,
  ): Promise<MovieList> {
    const words = searchTerms(query ?? '');
    const repo = this.movies;
    if (words.length === 0) {
      const { rows, total } = await repo.list(limit, offset, visible, onLoan);
      return { items: rows.map(toSummary), total };
    }
    // Searched first, and again after applying the index's marks when the search saw some.
    let found = await repo.search(words, limit, offset, visible, onLoan);
    if (found.stale && (await syncSearchIndex(repo)))
      found = await repo.search(words, limit, offset, visible, onLoan);
    return { items: found.rows.map(toSummary), total: found.total };
  }

  /**
   * One page (`pageSize` ids, `page` from 1; past the end: the last page) of the movies a search
   * finds, narrowed and ordered as `options` say, with how many match in all; null when `text` holds
   * no word to search for.
   */
  async searchPage(
    text: string,
    options: SearchOptions,
    pageSize: number,
    page: number,
  ): Promise<{ ids: number[]; matched: number; page: number } | null> {
    const words = searchTerms(text);
    if (words.length === 0) return null;
    const repo = this.movies;
    const asked = Math.max(1, page);
    const offset = (asked - 1) * pageSize;
    let found = await repo.searchPageIds(words, options, pageSize, offset);
    if (found.stale && (await syncSearchIndex(repo))) {
      found = await repo.searchPageIds(words, options, pageSize, offset);
    }
    const last = Math.max(1, Math.ceil(found.total / pageSize));
    if (asked <= last) return { ids: found.ids, matched: found.total, page: asked };
    // Past the end: the last page.
    const ids = await repo.searchIds(words, options, pageSize, (last - 1) * pageSize);
    return { ids, matched: found.total, page: last };
  }

  /** Every movie id a search finds, in the order `options` say; null when `text` holds no word. */
  async searchAll(text: string, options: SearchOptions): Promise<number[] | null> {
    const words = searchTerms(text);
    if (words.length === 0) return null;
    const repo = this.movies;
    await syncSearchIndex(repo);
    return repo.searchIds(words, options, null, 0);
  }

  /**
   * The disc formats and binders of every copy, and how many items /library lists to a person with
   * `visible`. Three whole-table aggregates that only a write to copies, editions, binders, movies or
   * files changes — each of which moves the library generation — so they are read once per generation
   * and visibility (every /library?q= page asks; on PostgreSQL they were most of its time).
   */
  async listingFacets(visible: CertificationFilter | null): Promise<ListingFacets> {
    if (this.listingGeneration === null) return this.movies.listingFacets(visible);
    // Read before the rows: a write after this point moves the generation past what is kept.
    const { generation } = this.listingGeneration.current();
    if (this.keptFacets?.generation !== generation) this.keptFacets = { generation, byScope: new Map() };
    const byScope = this.keptFacets.byScope;
    const scope = JSON.stringify(visible);
    let facets = byScope.get(scope);
    if (facets === undefined) {
      facets = this.movies.listingFacets(visible);
      byScope.set(scope, facets);
      facets.catch(() => {
        if (byScope.get(scope) === facets) byScope.delete(scope);
      });
    }
    const { formats, binders, items } = await facets;
    return { formats: [...formats], binders: [...binders], items };
  }

  async update(id: number, patch: PatchMovieInput): Promise<MovieDetail> {
    const repo = this.movies;
    const row = await repo.getById(id);
    if (row === undefined) throw notFound('movie', id);
    const certification =
      patch.certification == null ? patch.certification : this.certification(patch.certification);
    if (patch.tmdb_id != null && patch.tmdb_id !== row.tmdb_id) {
      const other = await repo.getByTmdbId(patch.tmdb_id);
      if (other !== undefined) {
        throw new AppError('conflict', {
          message: `Movie ${other.id} already has TMDb id ${patch.tmdb_id}.`,
        });
      }
    }
    const fields: MoviePatchRow = {
      ...(patch.title === undefined
        ? {}
        : {
            title: patch.title.trim(),
            sort_title: sortTitle(patch.title),
            normalized_title: normalizeTitle(patch.title),
          }),
      ...(patch.year === undefined ? {} : { year: patch.year }),
      ...(patch.original_title === undefined ? {} : { original_title: patch.original_title }),
      ...(patch.overview === undefined ? {} : { overview: patch.overview }),
      ...(patch.runtime_minutes === undefined ? {} : { runtime_minutes: patch.runtime_minutes }),
      ...(patch.tmdb_id === undefined ? {} : { tmdb_id: patch.tmdb_id }),
      ...(patch.imdb_id === undefined ? {} : { imdb_id: patch.imdb_id }),
      ...(patch.has_digital_store_a === undefined
        ? {}
        : { has_digital_store_a: patch.has_digital_store_a ? 1 : 0 }),
      ...(patch.has_digital_store_b === undefined
        ? {}
        : { has_digital_store_b: patch.has_digital_store_b ? 1 : 0 }),
      ...(patch.watched === undefined ? {} : { watched: patch.watched ? 1 : 0 }),
      ...(certification === undefined ? {} : { certification }),
      updated_at: isoNow(this.clock),
    };
    await this.store.transaction(async (trx) => {
      await trx.update(id, fields);
      // A new title, year or TMDb id can make an owned movie the film of a wish: it ends with the edit.
      await trx.fulfilWishes(id);
    });
    return this.get(id);
  }

  /** A certification of the configured country's system, as it writes it; 400 for any other. */
  private certification(given: string): string {
    const name = canonicalCertification(this.certificationCountry, given);
    if (name !== null) return name;
    throw new AppError('validation_failed', {
      message: `${JSON.stringify(given.slice(0, 32))} is not a certification of the ${this.certificationCountry} system.`,
      hint: `Use one of ${certificationNames(this.certificationCountry).join(', ')}, or null to clear it (REELSHELF_CERTIFICATION_COUNTRY sets the system).`,
      extra: { field: 'certification' },
    });
  }

  async delete(id: number): Promise<void> {
    const deleted = await this.movies.delete(id);
    if (!deleted) throw notFound('movie', id);
  }
}

/**
 * Applies the writes made since the last search to the index (a search saw marks); false when
 * another process holds the database's write lock past the busy timeout: the search then goes on
 * with the index as it is (a moment behind) rather than failing.
 */
async function syncSearchIndex(repo: MovieRepository): Promise<boolean> {
  try {
    await repo.syncSearchIndex();
    return true;
  } catch (err) {
    const code = (err as { code?: unknown } | null)?.code;
    if (typeof code === 'string' && code.startsWith('SQLITE_BUSY')) return false;
    throw err;
  }
}

function toSummary(row: MovieRow): MovieSummary {
  return {
    id: row.id,
    title: row.title,
    year: row.year,
    tmdb_id: row.tmdb_id,
    imdb_id: row.imdb_id,
    has_digital_store_a: row.has_digital_store_a === 1,
    has_digital_store_b: row.has_digital_store_b === 1,
    watched: row.watched === 1,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

type BaseDetail = Omit<
  MovieDetail,
  'tagline' | 'genres' | 'collection' | 'ratings' | 'cast' | 'directors' | 'studios' | 'enriched_at'
>;

function toDetail(
  row: MovieRow,
  editions: EditionRow[],
  copies: CopyDetailRow[],
  files: MediaFileSummaryRow[],
): BaseDetail {
  return {
    ...toSummary(row),
    original_title: row.original_title,
    overview: row.overview,
    runtime_minutes: row.runtime_minutes,
    certification: row.certification,
    editions: editions.map((e) => ({ id: e.id, label: e.label, format: e.format, barcode: e.barcode })),
    physical_copies: copies.map((c) => ({
      id: c.id,
      edition_id: c.edition_id,
      binder: c.binder,
      slot: c.slot,
      format: c.format,
      notes: c.notes,
    })),
    media_files: files.map((f) => ({
      id: f.id,
      library_root_id: f.library_root_id,
      relative_path: f.relative_path,
      size_bytes: Number(f.size_bytes),
      status: f.status,
      analysis_status: f.analysis_status,
      edition_label: f.edition_label,
    })),
  };
}
