import type { Db } from '../db/database.ts';

/** favourites rows: a person's favourite films (migration 0007). */
export class FavouriteRepository {
  constructor(private readonly db: Db) {}

  async add(userId: number, movieId: number, createdAt: string): Promise<void> {
    await this.db
      .insertInto('favourites')
      .values({ user_id: userId, movie_id: movieId, created_at: createdAt })
      .onConflict((oc) => oc.columns(['user_id', 'movie_id']).doNothing())
      .execute();
  }

  async remove(userId: number, movieId: number): Promise<void> {
    await this.db
      .deleteFrom('favourites')
      .where('user_id', '=', userId)
      .where('movie_id', '=', movieId)
      .execute();
  }

  async movieExists(movieId: number): Promise<boolean> {
    const row = await this.db.selectFrom('movies').select('id').where('id', '=', movieId).executeTakeFirst();
    return row !== undefined;
  }

  /** The person's favourite movie ids (every one: the facade's catalogue reads them once per build). */
  async movieIdsOf(userId: number): Promise<number[]> {
    const rows = await this.db
      .selectFrom('favourites')
      .select('movie_id')
      .where('user_id', '=', userId)
      .execute();
    return rows.map((r) => r.movie_id);
  }
}
