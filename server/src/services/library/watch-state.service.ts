import type { WatchState, WatchStateInput } from '@reelshelf/contract';
import { type Clock, isoNow } from '../../adapters/clock.ts';
import type { Db } from '../../db/database.ts';
import { notFound } from '../../errors.ts';

/**
 * Resume position and watched flag, keyed to the media file id: a scan that sees a move or rename
 * keeps the id, so the state follows the file.
 */
export class WatchStateService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  async save(mediaFileId: number, input: WatchStateInput): Promise<WatchState> {
    const file = await this.db
      .selectFrom('media_files')
      .select(['id', 'movie_id'])
      .where('id', '=', mediaFileId)
      .executeTakeFirst();
    if (file === undefined) throw notFound('media file', mediaFileId);
    const now = isoNow(this.clock);
    const row = {
      media_file_id: mediaFileId,
      movie_id: file.movie_id,
      position_seconds: Math.floor(input.position_seconds),
      watched: input.watched === true ? 1 : 0,
      updated_at: now,
    };
    await this.db
      .insertInto('watch_state')
      .values(row)
      .onConflict((oc) =>
        oc.column('media_file_id').doUpdateSet({
          movie_id: row.movie_id,
          position_seconds: row.position_seconds,
          ...(input.watched === undefined ? {} : { watched: row.watched }),
          updated_at: now,
        }),
      )
      .execute();
    const saved = await this.db
      .selectFrom('watch_state')
      .selectAll()
      .where('media_file_id', '=', mediaFileId)
      .executeTakeFirstOrThrow();
    return {
      media_file_id: saved.media_file_id,
      position_seconds: saved.position_seconds,
      watched: saved.watched === 1,
      updated_at: saved.updated_at,
    };
  }
}
