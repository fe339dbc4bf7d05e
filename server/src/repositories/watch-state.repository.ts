import type { Selectable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { WatchStateTable } from '../db/schema.ts';

export type WatchStateRow = Selectable<WatchStateTable>;

/** watch_state rows: a person's resume position and watched flag of a media file. */
export class WatchStateRepository {
  constructor(private readonly db: Db) {}

  /**
   * Writes a file's state (inserted, or the existing row updated) and reads it back. `keepWatched`
   * leaves the watched flag of an existing row as it was (a position saved without the flag).
   */
  async save(row: WatchStateRow, keepWatched: boolean): Promise<WatchStateRow> {
    await this.db
      .insertInto('watch_state')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['user_id', 'media_file_id']).doUpdateSet({
          movie_id: row.movie_id,
          position_seconds: row.position_seconds,
          ...(keepWatched ? {} : { watched: row.watched }),
          updated_at: row.updated_at,
        }),
      )
      .execute();
    return this.db
      .selectFrom('watch_state')
      .selectAll()
      .where('user_id', '=', row.user_id)
      .where('media_file_id', '=', row.media_file_id)
      .executeTakeFirstOrThrow();
  }
}
