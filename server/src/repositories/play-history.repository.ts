import type { CertificationFilter } from '../domain/people/visibility.ts';
import { movieVisible } from './visibility.repository.ts';
import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { PlayHistoryTable } from '../db/schema.ts';

export type PlayHistoryRow = Selectable<PlayHistoryTable>;

/** What a play records of its file when it starts (the history stays true if the file goes). */
export interface PlayedFileFacts {
  media_file_id: number;
  movie_id: number | null;
  /** The movie's title, else the file's path (a file matched to no movie). */
  title: string;
  capabilities_json: string | null;
}

/** play_history rows: each person's plays (what, when, how far, where, direct or converted). */
export class PlayHistoryRepository {
  constructor(private readonly db: Db) {}

  async fileFacts(mediaFileId: number): Promise<PlayedFileFacts | undefined> {
    const row = await this.db
      .selectFrom('media_files as f')
      .leftJoin('movies as m', 'm.id', 'f.movie_id')
      .select(['f.id', 'f.movie_id', 'm.title', 'f.relative_path', 'f.capabilities_json'])
      .where('f.id', '=', mediaFileId)
      .executeTakeFirst();
    if (row === undefined) return undefined;
    return {
      media_file_id: row.id,
      movie_id: row.movie_id,
      title: row.title ?? row.relative_path,
      capabilities_json: row.capabilities_json,
    };
  }

  async userName(userId: number): Promise<string | undefined> {
    const row = await this.db.selectFrom('users').select('name').where('id', '=', userId).executeTakeFirst();
    return row?.name;
  }

  /**
   * The person's latest play of the file updated at or after `sinceIso` (on `device`, or any device
   * when null): the play a new request or a progress report continues.
   */
  async latestOpen(
    userId: number,
    mediaFileId: number,
    device: string | null,
    sinceIso: string,
  ): Promise<PlayHistoryRow | undefined> {
    return this.db
      .selectFrom('play_history')
      .selectAll()
      .where('user_id', '=', userId)
      .where('media_file_id', '=', mediaFileId)
      .$if(device !== null, (q) => q.where('device', '=', device ?? ''))
      .where('updated_at', '>=', sinceIso)
      .orderBy('updated_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  async insert(row: Insertable<PlayHistoryTable>): Promise<number> {
    const inserted = await this.db
      .insertInto('play_history')
      .values(row)
      .returning('id')
      .executeTakeFirstOrThrow();
    return inserted.id;
  }

  /** Moves a play on: its last update, and its position when one is reported. */
  async touch(id: number, updatedAt: string, positionSeconds?: number): Promise<void> {
    await this.db
      .updateTable('play_history')
      .set({
        updated_at: updatedAt,
        ...(positionSeconds === undefined ? {} : { position_seconds: positionSeconds }),
      })
      .where('id', '=', id)
      .execute();
  }

  /** One person's plays, newest first, and how many there are. */
  async list(
    userId: number,
    limit: number,
    offset: number,
    visible: CertificationFilter | null = null,
  ): Promise<{ rows: PlayHistoryRow[]; total: number }> {
    // What the person may see now (a lowered limit hides what they played before), counted alike.
    const mine = () =>
      this.db
        .selectFrom('play_history as h')
        .leftJoin('movies as m', 'm.id', 'h.movie_id')
        .where('h.user_id', '=', userId)
        .where(movieVisible(visible, 'm.certification'));
    const [rows, count] = await Promise.all([
      mine()
        .selectAll('h')
        .orderBy('h.started_at', 'desc')
        .orderBy('h.id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute(),
      mine()
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(count.n) };
  }
}
