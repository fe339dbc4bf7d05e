import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import type { WatchedFilm } from '../domain/import-export/letterboxd-export.ts';
import type { CertificationFilter } from '../domain/people/visibility.ts';
import { movieVisible } from './visibility.repository.ts';

/**
 * What a person watched (the Letterboxd export, docs/collector.md): the films marked watched (the
 * library's flag, or the person's watched mark on one of its files), each with the time of the
 * person's last play or mark. Through the person's visibility rule.
 */
export class WatchedFilmsRepository {
  constructor(private readonly db: Db) {}

  async watched(userId: number | null, filter: CertificationFilter | null): Promise<WatchedFilm[]> {
    // The person's watched marks on the film's files, and their plays of it.
    const marks = sql`(select ws.updated_at from watch_state ws join media_files mf on mf.id = ws.media_file_id
      where mf.movie_id = m.id and ws.user_id = ${userId} and ws.watched = 1)`;
    const rows = await this.db
      .selectFrom('movies as m')
      .select([
        'm.title',
        'm.year',
        'm.tmdb_id',
        sql<string | null>`(select max(t.at) from (
          select max(ws.updated_at) as at from watch_state ws join media_files mf on mf.id = ws.media_file_id
            where mf.movie_id = m.id and ws.user_id = ${userId} and ws.watched = 1
          union all
          select max(ph.updated_at) as at from play_history ph where ph.movie_id = m.id and ph.user_id = ${userId}
        ) t)`.as('watched_at'),
      ])
      .where((eb) => eb.or([eb('m.watched', '=', 1), sql<boolean>`exists ${marks}`]))
      .where(movieVisible(filter, 'm.certification'))
      .execute();
    return rows;
  }
}
