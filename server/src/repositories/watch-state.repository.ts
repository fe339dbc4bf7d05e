import type { CertificationFilter } from '../domain/people/visibility.ts';
import { movieVisible } from './visibility.repository.ts';
import type { Selectable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { WatchStateTable } from '../db/schema.ts';

export type WatchStateRow = Selectable<WatchStateTable>;

/** A file a person stopped in the middle of, as "continue watching" lists it. */
export interface ResumableRow {
  media_file_id: number;
  movie_id: number | null;
  title: string | null;
  relative_path: string;
  position_seconds: number;
  updated_at: string;
}

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

  /**
   * The person's files with a resume position and not watched, present on disk, the most recently
   * saved first.
   */
  /** `visible`: the person's content limit as SQL (repositories/visibility.repository.ts); null: none. */
  async resumable(
    userId: number,
    limit: number,
    visible: CertificationFilter | null = null,
  ): Promise<ResumableRow[]> {
    return this.db
      .selectFrom('watch_state as w')
      .innerJoin('media_files as f', 'f.id', 'w.media_file_id')
      .leftJoin('movies as m', 'm.id', 'f.movie_id')
      .select([
        'w.media_file_id',
        'f.movie_id',
        'm.title',
        'f.relative_path',
        'w.position_seconds',
        'w.updated_at',
      ])
      .where('w.user_id', '=', userId)
      .where('w.position_seconds', '>', 0)
      .where('w.watched', '=', 0)
      .where('f.status', '=', 'present')
      .where(movieVisible(visible, 'm.certification'))
      .orderBy('w.updated_at', 'desc')
      .orderBy('w.media_file_id', 'desc')
      .limit(limit)
      .execute();
  }
}
