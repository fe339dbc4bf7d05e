import type { Db } from '../db/database.ts';

/** Stop marks of playback tokens (migration 0016), shared by every node. */
export class PlaybackStopRepository {
  constructor(private readonly db: Db) {}

  /** The marks that still block tokens (`until_s` after `nowS`). */
  async live(nowS: number): Promise<{ stop_key: string; until_s: number }[]> {
    return this.db
      .selectFrom('playback_stops')
      .select(['stop_key', 'until_s'])
      .where('until_s', '>', nowS)
      .execute();
  }

  /** Records a mark; a later `until_s` already there stays (two admins stopping at once). */
  async put(stopKey: string, untilS: number): Promise<void> {
    await this.db
      .insertInto('playback_stops')
      .values({ stop_key: stopKey, until_s: untilS })
      .onConflict((oc) =>
        oc
          .column('stop_key')
          .doUpdateSet({ until_s: (eb) => eb.ref('excluded.until_s') })
          .where('playback_stops.until_s', '<', (eb) => eb.ref('excluded.until_s')),
      )
      .execute();
  }

  /** Drops the marks whose tokens have all expired. */
  async expire(nowS: number): Promise<void> {
    await this.db.deleteFrom('playback_stops').where('until_s', '<=', nowS).execute();
  }
}
