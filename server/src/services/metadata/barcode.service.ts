import type { BarcodeCreated, BarcodeCreateInput, BarcodeLookup } from '@reelshelf/contract';
import { type Clock, isoNow } from '../../adapters/clock.ts';
import { normalizeBarcode } from '../../domain/barcode.ts';
import { cleanDiscTitle } from '../../domain/disc-title.ts';
import { normalizeTitle, sortTitle } from '../../domain/titles.ts';
import { AppError } from '../../errors.ts';
import type { MovieRepository } from '../../repositories/movie.repository.ts';
import type { UnitOfWork } from '../../repositories/unit-of-work.ts';
import type { MovieService } from '../library/movie.service.ts';
import type { NewMovieMetadata } from './new-movie-metadata.ts';
import { DEFAULT_BINDER_CAPACITY } from '../../domain/binders.ts';
import {
  isProviderFailure,
  type MovieCandidate,
  type MovieMetadataPort,
  type UpcLookupPort,
} from './provider-ports.ts';

const REJECTIONS = {
  not_digits: 'A barcode is digits only.',
  bad_length: 'A barcode has 8, 12, 13 or 14 digits.',
  bad_check_digit: 'The check digit does not match: the code was misread or mistyped.',
  isbn: 'This is an ISBN (a book), not a disc.',
} as const;

const DEFAULT_BINDER = 'Unsorted';

/** What recording a disc reads and writes, in one transaction: movie, edition, binder, copy. */
export type DiscRecords = Pick<
  MovieRepository,
  | 'getByTmdbId'
  | 'insert'
  | 'editionByBarcode'
  | 'insertEdition'
  | 'getOrCreateBinder'
  | 'slotsTaken'
  | 'isSlotTaken'
  | 'insertCopy'
  | 'fulfilWishes'
>;

/**
 * Barcode scan of a disc: UPC lookup → cleaned title → TMDb candidates → movie + edition + copy (and
 * the film's wish, if it was wished, removed with it).
 */
export class BarcodeService {
  constructor(
    /** Whether a looked-up barcode is already owned (read outside any transaction). */
    private readonly editions: Pick<MovieRepository, 'editionByBarcode'>,
    /** The record of a disc (movie, edition, copy) in one transaction. */
    private readonly store: UnitOfWork<DiscRecords>,
    private readonly clock: Clock,
    /** The movie recorded, as the answer shows it. */
    private readonly movies: Pick<MovieService, 'get'>,
    private readonly upc: UpcLookupPort,
    private readonly metadata: MovieMetadataPort | null,
    /** A movie a barcode created or reused is enriched at once, then gets artwork. */
    private readonly newMovies: Pick<NewMovieMetadata, 'now'>,
  ) {}

  /** Looks a code up without writing anything. */
  async lookup(code: string): Promise<BarcodeLookup> {
    const normalized = normalizeBarcode(code);
    if (!normalized.ok) {
      throw new AppError('invalid_barcode', {
        status: 400,
        message: REJECTIONS[normalized.reason],
        hint: 'Scan again or type the digits under the bars (UPC-A, EAN-13, EAN-8, UPC-E).',
        extra: { reason: normalized.reason },
      });
    }
    let found: Awaited<ReturnType<UpcLookupPort['lookup']>>;
    try {
      found = await this.upc.lookup(normalized.upc);
    } catch (err) {
      throw this.upstream(err, 'The barcode lookup service');
    }
    if (!found.found) {
      throw new AppError('barcode_not_found', {
        status: 404,
        message: `No product is known for barcode ${normalized.gtin}.`,
        hint: 'Add the movie by title instead (POST /api/movies).',
      });
    }
    const cleaned = cleanDiscTitle(found.product.title, found.product.category ?? undefined);
    const warnings: string[] = [];
    let candidates: MovieCandidate[] = [];
    if (this.metadata !== null && cleaned.title !== '') {
      try {
        candidates = (await this.metadata.searchMovie(cleaned.title, cleaned.year)).slice(0, 8);
      } catch (err) {
        warnings.push(`TMDb search failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    const owned = await this.editions.editionByBarcode(normalized.gtin);
    return {
      barcode: normalized.gtin,
      kind: normalized.kind,
      product_title: found.product.title,
      cleaned_title: cleaned.title,
      year: cleaned.year,
      format: cleaned.is3d && cleaned.format === 'Blu-ray' ? '3D Blu-ray' : cleaned.format,
      is_3d: cleaned.is3d,
      edition: cleaned.edition,
      has_digital_copy: cleaned.hasDigitalCopy,
      candidates,
      owned: owned !== undefined,
      owned_movie_id: owned?.movie_id ?? null,
      warnings,
    };
  }

  /** Looks a code up and records the disc: movie (reused when known), edition and physical copy. */
  async create(code: string, input: BarcodeCreateInput): Promise<BarcodeCreated> {
    const found = await this.lookup(code);
    if (found.owned && input.another_copy !== true) {
      throw new AppError('already_owned', {
        status: 409,
        message: `Barcode ${found.barcode} is already in the collection (movie ${found.owned_movie_id}).`,
        hint: 'Send {"another_copy": true} to record a second copy.',
        extra: { movie_id: found.owned_movie_id },
      });
    }
    const candidate = this.pickCandidate(found, input.tmdb_id);
    const now = isoNow(this.clock);
    const result = await this.store.transaction(async (repo) => {
      let movieId = found.owned ? found.owned_movie_id : null;
      if (movieId === null && candidate !== null)
        movieId = (await repo.getByTmdbId(candidate.tmdb_id))?.id ?? null;
      const createdMovie = movieId === null;
      if (movieId === null) {
        const title = candidate?.title ?? found.cleaned_title;
        movieId = await repo.insert({
          title,
          sort_title: sortTitle(title),
          normalized_title: normalizeTitle(title),
          original_title: candidate?.original_title ?? null,
          year: candidate?.year ?? found.year,
          overview: candidate?.overview ?? null,
          runtime_minutes: null,
          tmdb_id: candidate?.tmdb_id ?? null,
          imdb_id: null,
          has_digital_store_a: 0,
          has_digital_store_b: 0,
          watched: 0,
          created_at: now,
          updated_at: now,
        });
      }
      const existingEdition = await repo.editionByBarcode(found.barcode);
      const editionId =
        existingEdition?.id ??
        (await repo.insertEdition({
          movie_id: movieId,
          label: found.edition,
          format: found.format,
          barcode: found.barcode,
          created_at: now,
        }));
      const binder = await repo.getOrCreateBinder(
        input.binder?.trim() || DEFAULT_BINDER,
        DEFAULT_BINDER_CAPACITY,
        now,
      );
      const slot =
        input.slot?.trim() || (await this.nextFreeSlot(repo, binder.id, binder.capacity, binder.name));
      if (await repo.isSlotTaken(binder.id, slot)) {
        throw new AppError('slot_taken', {
          status: 409,
          message: `Binder ${binder.name} slot ${slot} already holds a disc.`,
          hint: 'Leave the slot out to use the next free one.',
        });
      }
      const copyId = await repo.insertCopy({
        movie_id: movieId,
        edition_id: editionId,
        binder_id: binder.id,
        slot,
        notes: null,
        created_at: now,
      });
      // A wished film is owned now: its wish goes in the same transaction (docs/collector.md).
      const fromWish = (await repo.fulfilWishes(movieId)) > 0;
      return { movieId, editionId, copyId, binder: binder.name, slot, createdMovie, fromWish };
    });
    const warnings = [...found.warnings, ...(await this.newMovies.now(result.movieId))];
    return {
      movie: await this.movies.get(result.movieId),
      edition_id: result.editionId,
      physical_copy: { id: result.copyId, binder: result.binder, slot: result.slot },
      created_movie: result.createdMovie,
      from_wish: result.fromWish,
      warnings,
    };
  }

  /** The TMDb match: the one asked for, an exact title (and year) match, or the only candidate. */
  private pickCandidate(found: BarcodeLookup, tmdbId: number | undefined): MovieCandidate | null {
    if (tmdbId !== undefined) {
      const chosen = found.candidates.find((c) => c.tmdb_id === tmdbId);
      if (chosen === undefined) {
        throw new AppError('validation_failed', {
          message: `tmdb_id ${tmdbId} is not one of the candidates for this barcode.`,
          extra: { field: 'tmdb_id', candidates: found.candidates },
        });
      }
      return chosen;
    }
    if (found.candidates.length === 0) return null;
    const key = normalizeTitle(found.cleaned_title);
    const exact = found.candidates.filter(
      (c) => normalizeTitle(c.title) === key && (found.year === null || c.year === found.year),
    );
    if (exact.length === 1) return exact[0] ?? null;
    if (found.candidates.length === 1) return found.candidates[0] ?? null;
    if (exact.length === 0 && found.candidates.length > 0) {
      const first = found.candidates[0];
      // A clear lead (no other candidate with the same title) is taken; otherwise the person chooses.
      if (
        first !== undefined &&
        found.candidates.every((c, i) => i === 0 || normalizeTitle(c.title) !== normalizeTitle(first.title))
      ) {
        return first;
      }
    }
    throw new AppError('ambiguous_match', {
      status: 409,
      message: `Several movies match "${found.cleaned_title}".`,
      hint: 'Send tmdb_id with one of the candidates.',
      extra: { candidates: found.candidates },
    });
  }

  private async nextFreeSlot(
    repo: Pick<DiscRecords, 'slotsTaken'>,
    binderId: number,
    capacity: number,
    name: string,
  ): Promise<string> {
    const taken = new Set(await repo.slotsTaken(binderId));
    for (let i = 1; i <= capacity; i++) if (!taken.has(String(i))) return String(i);
    throw new AppError('binder_full', {
      status: 409,
      message: `Binder ${name} is full (${capacity} slots).`,
      hint: 'Name another binder.',
    });
  }

  private upstream(err: unknown, what: string): AppError {
    if (isProviderFailure(err) && err.kind === 'invalid_request') {
      return new AppError('invalid_barcode', {
        status: 400,
        message: `${what} refused the code as invalid.`,
      });
    }
    return new AppError('upstream_unavailable', {
      status: 502,
      message: `${what} did not answer usably${isProviderFailure(err) ? ` (${err.kind})` : ''}; nothing was recorded.`,
      hint: 'Try again in a minute.',
    });
  }
}
