import type { Db } from '../db/database.ts';

/** Named leases one node holds at a time (migration 0016). */
export class NodeLeaseRepository {
  constructor(private readonly db: Db) {}

  /**
   * Takes or renews `name` for `nodeId` until `untilMs`: true when this node holds it now (it was
   * free, ran out before `nowMs`, or was this node's already). One statement: two nodes asking at
   * once cannot both win.
   */
  async take(name: string, nodeId: string, nowMs: number, untilMs: number): Promise<boolean> {
    const row = await this.db
      .insertInto('node_leases')
      .values({ name, node_id: nodeId, until_ms: untilMs })
      .onConflict((oc) =>
        oc
          .column('name')
          .doUpdateSet({ node_id: nodeId, until_ms: untilMs })
          .where((eb) =>
            eb.or([eb('node_leases.until_ms', '<', nowMs), eb('node_leases.node_id', '=', nodeId)]),
          ),
      )
      .returning('node_id')
      .executeTakeFirst();
    return row?.node_id === nodeId;
  }

  /** Gives the lease up (a clean shutdown): another node takes it at its next try. */
  async release(name: string, nodeId: string): Promise<void> {
    await this.db.deleteFrom('node_leases').where('name', '=', name).where('node_id', '=', nodeId).execute();
  }

  async holder(name: string, nowMs: number): Promise<string | null> {
    const row = await this.db
      .selectFrom('node_leases')
      .select('node_id')
      .where('name', '=', name)
      .where('until_ms', '>=', nowMs)
      .executeTakeFirst();
    return row?.node_id ?? null;
  }
}
