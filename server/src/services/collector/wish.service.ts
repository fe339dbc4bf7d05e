import type { Wish, WishInput, WishList } from '@reelshelf/contract';
import { type Clock, isoNow } from '../../adapters/clock.ts';
import { filmKey, type WishRow } from '../../domain/wishes.ts';
import { AppError } from '../../errors.ts';
import type { WishRepository } from '../../repositories/wish.repository.ts';
import { isProviderFailure, type MovieMetadataPort } from '../metadata/provider-ports.ts';

export type { Wish, WishInput, WishList };

export interface WishDeps {
  wishes: Pick<WishRepository, 'list' | 'byId' | 'same' | 'ownedMovie' | 'insert' | 'delete'>;
  /** Titles a wish named by its TMDb id only; null when TMDb is not configured. */
  metadata: Pick<MovieMetadataPort, 'movieDetails'> | null;
  clock: Clock;
}

/**
 * The household's wish list (issue 27 item 5, docs/collector.md "Wish list"): films wanted and not
 * owned, named by TMDb id or by title and year. A wish carries no rating, so every person sees the
 * whole list; adding and removing are the collectors' (members and admins, like imports).
 * Each write is one statement; the table's unique indexes settle two adds of one film at once.
 */
export class WishService {
  constructor(private readonly deps: WishDeps) {}

  async list(): Promise<WishList> {
    return { items: (await this.deps.wishes.list()).map(view) };
  }

  /**
   * Adds a wish. 400 without a title or TMDb id; a TMDb id alone is titled from TMDb (400 when TMDb
   * is not configured or does not know it, 502 when it does not answer). 409 `already_owned` when
   * the library owns the film (a copy, or a file on disk); 409 `already_wished` when it is wished.
   */
  async add(input: WishInput): Promise<Wish> {
    const given = input.title?.trim() ?? '';
    const tmdbId = input.tmdb_id ?? null;
    if (given === '' && tmdbId === null) {
      throw new AppError('validation_failed', {
        message: 'A wish names a film: send a title (and year) or a tmdb_id.',
        extra: { field: 'title' },
      });
    }
    const named =
      given !== '' ? { title: given, year: input.year ?? null } : await this.fromTmdb(tmdbId ?? 0);
    const key = filmKey(named.title, named.year, tmdbId);
    const owned = await this.deps.wishes.ownedMovie(key);
    if (owned !== undefined) {
      throw new AppError('already_owned', {
        message: `${owned.title} is in the library already (movie ${owned.id}).`,
        hint: 'A wish is for a film the household does not own.',
        extra: { movie_id: owned.id },
      });
    }
    const same = await this.deps.wishes.same(key);
    if (same !== undefined) throw alreadyWished(same);
    const row = await this.deps.wishes.insert({
      ...key,
      title: named.title,
      note: input.note?.trim() || null,
      created_at: isoNow(this.deps.clock),
    });
    return view(row);
  }

  /** Removes a wish; 404 when there is none with this id. */
  async remove(id: number): Promise<void> {
    if (!(await this.deps.wishes.delete(id))) {
      throw new AppError('not_found', { message: `No wish with id ${id}.` });
    }
  }

  private async fromTmdb(tmdbId: number): Promise<{ title: string; year: number | null }> {
    const metadata = this.deps.metadata;
    if (metadata === null) {
      throw new AppError('validation_failed', {
        message: 'This server has no TMDb key, so a wish needs its title.',
        hint: 'Send title and year with the tmdb_id.',
        extra: { field: 'title' },
      });
    }
    try {
      const found = await metadata.movieDetails(tmdbId);
      return { title: found.title, year: found.year };
    } catch (err) {
      if (isProviderFailure(err) && err.kind === 'not_found') {
        throw new AppError('validation_failed', {
          message: `TMDb knows no film with id ${tmdbId}.`,
          extra: { field: 'tmdb_id' },
        });
      }
      throw new AppError('upstream_unavailable', {
        message: `TMDb did not answer usably${isProviderFailure(err) ? ` (${err.kind})` : ''}; no wish was added.`,
        hint: 'Try again in a minute, or send the title and year.',
      });
    }
  }
}

function view(row: WishRow): Wish {
  return {
    id: row.id,
    title: row.title,
    year: row.year,
    tmdb_id: row.tmdb_id,
    note: row.note,
    created_at: row.created_at,
  };
}

function alreadyWished(row: WishRow): AppError {
  return new AppError('already_wished', {
    message: `${row.title}${row.year === null ? '' : ` (${row.year})`} is on the wish list already.`,
    extra: { wish_id: row.id },
  });
}
