import type { Selectable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { NodesTable } from '../db/schema.ts';

export type NodeRow = Selectable<NodesTable>;

/** The nodes table (docs/cluster.md "Nodes"): one row per running server process. */
export class NodeRepository {
  constructor(private readonly db: Db) {}

  async register(row: NodeRow): Promise<void> {
    await this.db
      .insertInto('nodes')
      .values(row)
      .onConflict((oc) =>
        oc.column('id').doUpdateSet({ heartbeat_at: row.heartbeat_at, load_json: row.load_json }),
      )
      .execute();
  }

  /** The heartbeat; false when the row is gone (another node counted this one dead): register again. */
  async beat(id: string, at: number, loadJson: string): Promise<boolean> {
    const res = await this.db
      .updateTable('nodes')
      .set({ heartbeat_at: at, load_json: loadJson })
      .where('id', '=', id)
      .executeTakeFirst();
    return res.numUpdatedRows > 0n;
  }

  async remove(id: string): Promise<void> {
    await this.db.deleteFrom('nodes').where('id', '=', id).execute();
  }

  /** Drops the rows of nodes whose heartbeat is older than `before` (epoch ms). */
  async removeSilentSince(before: number): Promise<void> {
    await this.db.deleteFrom('nodes').where('heartbeat_at', '<', before).execute();
  }

  async list(): Promise<NodeRow[]> {
    return this.db.selectFrom('nodes').selectAll().orderBy('started_at').orderBy('id').execute();
  }
}
