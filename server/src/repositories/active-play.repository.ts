import type { Selectable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { ActivePlaysTable } from '../db/schema.ts';

export type ActivePlayRow = Selectable<ActivePlaysTable>;

/** The plays every node streams now (migration 0016): written by the node that streams each. */
export class ActivePlayRepository {
  constructor(private readonly db: Db) {}

  async insert(row: Omit<ActivePlayRow, 'id' | 'stop_requested'>): Promise<number> {
    const { id } = await this.db
      .insertInto('active_plays')
      .values(row)
      .returning('id')
      .executeTakeFirstOrThrow();
    return id;
  }

  /** The streaming node's newest view of its play. */
  async refresh(id: number, viewJson: string, lastSeenMs: number): Promise<void> {
    await this.db
      .updateTable('active_plays')
      .set({ view_json: viewJson, last_seen_ms: lastSeenMs })
      .where('id', '=', id)
      .execute();
  }

  async remove(ids: readonly number[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db.deleteFrom('active_plays').where('id', 'in', ids).execute();
  }

  /** A node's plays leave with it (a clean shutdown). */
  async removeNode(nodeId: string): Promise<void> {
    await this.db.deleteFrom('active_plays').where('node_id', '=', nodeId).execute();
  }

  /** Rows no node has refreshed since `beforeMs` (their node died): gone. */
  async removeStale(beforeMs: number): Promise<void> {
    await this.db.deleteFrom('active_plays').where('last_seen_ms', '<', beforeMs).execute();
  }

  /** The plays refreshed since `sinceMs`, of every node. */
  async seenSince(sinceMs: number): Promise<ActivePlayRow[]> {
    return this.db.selectFrom('active_plays').selectAll().where('last_seen_ms', '>=', sinceMs).execute();
  }

  async get(id: number): Promise<ActivePlayRow | undefined> {
    return this.db.selectFrom('active_plays').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Asks the node that streams the play to stop it; false when it was asked already or is gone. */
  async requestStop(id: number): Promise<boolean> {
    const result = await this.db
      .updateTable('active_plays')
      .set({ stop_requested: 1 })
      .where('id', '=', id)
      .where('stop_requested', '=', 0)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** The plays of a node another node asked to stop (read after the change feed may have missed some). */
  async stopRequested(nodeId: string): Promise<number[]> {
    const rows = await this.db
      .selectFrom('active_plays')
      .select('id')
      .where('node_id', '=', nodeId)
      .where('stop_requested', '=', 1)
      .execute();
    return rows.map((r) => r.id);
  }
}
