import { type Clock, isoNow } from '../../adapters/clock.ts';
import type { Viewer } from '../../domain/people/viewer.ts';
import { notFound } from '../../errors.ts';
import type { FavouriteRepository } from '../../repositories/favourite.repository.ts';
import type { VisibilityService } from '../people/visibility.service.ts';

/**
 * Each person's favourite films (issue 23 §5): their own state, written only for films they may see
 * (a hidden or missing film answers 404 alike, through the one visibility rule).
 */
export class FavouriteService {
  constructor(
    private readonly favourites: FavouriteRepository,
    private readonly visibility: Pick<VisibilityService, 'assertVisible'>,
    private readonly clock: Clock,
  ) {}

  /** Marks (`on`) or unmarks the film as the viewer's favourite; 404 `not_found` when they cannot see it. */
  async set(viewer: Viewer, movieId: number, on: boolean): Promise<void> {
    await this.visibility.assertVisible(viewer, { movieId });
    // A viewer without a limit sees every id: a missing film is still a 404, not a foreign-key error.
    if (!(await this.favourites.movieExists(movieId))) throw notFound('movie', movieId);
    if (on) await this.favourites.add(viewer.userId, movieId, isoNow(this.clock));
    else await this.favourites.remove(viewer.userId, movieId);
  }

  /** The viewer's favourite movie ids (the caller intersects with what they may see). */
  movieIdsOf(userId: number): Promise<number[]> {
    return this.favourites.movieIdsOf(userId);
  }
}
