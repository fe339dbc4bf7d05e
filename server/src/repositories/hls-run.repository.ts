import { type Selectable, sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { sqlEngineOf } from '../db/sql-engine.ts';
import type { HlsRunsTable, HlsSegmentsTable } from '../db/schema.ts';

export type HlsRunRow = Selectable<HlsRunsTable>;
export type HlsSegmentRow = Selectable<HlsSegmentsTable>;

/** What a presentation's row is made from when a node first asks for it. */
export interface HlsRunIdentity {
  key: string;
  fileId: number;
  device: string;
  burn: number | null;
  forPrewarm: boolean;
}

export { INIT_INDEX } from '../domain/hls/run-ownership.ts';

/**
 * PostgreSQL ends the session of a fencing transaction idle this long (its client frozen between two
 * statements: SIGSTOP, a paused VM), so its lock on the run row goes and a take-over is never held
 * behind a frozen owner (docs/database.md). Below the 5-s lease, so the take-over (which waits for
 * the lease anyway) is not delayed; far above the milliseconds between two statements of a live owner,
 * even on a loaded machine.
 */
const FROZEN_OWNER_MS = 3_000;

/** The columns that say which presentation a run row is (written by whichever statement makes the row). */
function identityColumns(run: HlsRunIdentity) {
  return {
    presentation_key: run.key,
    file_id: run.fileId,
    device: run.device,
    burn: run.burn,
    for_prewarm: run.forPrewarm ? 1 : 0,
  };
}

/**
 * The HLS runs and their announced segments (migration 0011, docs/cluster.md "HLS across nodes").
 * One statement per method but `announce` (a short transaction: the fence and the row together).
 * Every write of an owner is fenced by the epoch of its claim (`WHERE presentation_key = ? AND
 * epoch = ?`) and says whether it landed.
 */
export class HlsRunRepository {
  constructor(private readonly db: Db) {}

  async get(key: string): Promise<HlsRunRow | undefined> {
    return this.db.selectFrom('hls_runs').selectAll().where('presentation_key', '=', key).executeTakeFirst();
  }

  /**
   * Claims the presentation's run for `node` when nobody holds it, its lease ran out, this node
   * held it already, or `takeFrom` (a gone process of this host) held it: one statement (an upsert
   * whose update is conditional), epoch + 1. The claim starts at `startIndex`.
   * @returns the claimed row, or undefined when another node holds it
   */
  async claim(
    run: HlsRunIdentity,
    node: string,
    now: number,
    leaseUntil: number,
    startIndex: number,
    takeFrom: string | null = null,
  ): Promise<HlsRunRow | undefined> {
    return this.db
      .insertInto('hls_runs')
      .values({
        ...identityColumns(run),
        owner_node: node,
        epoch: 1,
        lease_until: leaseUntil,
        start_index: startIndex,
        next_index: startIndex,
        wanted_index: startIndex,
        last_request_at: now,
        updated_at: now,
      })
      .onConflict((oc) =>
        oc
          .column('presentation_key')
          .doUpdateSet((eb) => ({
            owner_node: node,
            epoch: eb('hls_runs.epoch', '+', 1),
            lease_until: leaseUntil,
            start_index: startIndex,
            next_index: startIndex,
            asked: 0,
            error: null,
            updated_at: now,
          }))
          .where((eb) =>
            eb.or([
              eb('hls_runs.owner_node', 'is', null),
              eb('hls_runs.lease_until', 'is', null),
              eb('hls_runs.lease_until', '<', now),
              eb('hls_runs.owner_node', '=', node),
              ...(takeFrom === null ? [] : [eb('hls_runs.owner_node', '=', takeFrom)]),
            ]),
          ),
      )
      .returningAll()
      .executeTakeFirst();
  }

  /**
   * A node that does not convert it itself wants segment `index`: recorded on the row (made when
   * missing), `wanted_seq` + 1 so the owner hears it; `ask` also asks the nodes that convert to claim
   * it (nobody holds it).
   */
  async want(run: HlsRunIdentity, index: number, ask: boolean, now: number): Promise<HlsRunRow> {
    const row = await this.db
      .insertInto('hls_runs')
      .values({
        ...identityColumns(run),
        wanted_index: index,
        wanted_seq: 1,
        asked: ask ? 1 : 0,
        last_request_at: now,
        updated_at: now,
      })
      .onConflict((oc) =>
        oc.column('presentation_key').doUpdateSet((eb) => ({
          wanted_index: index,
          wanted_seq: eb('hls_runs.wanted_seq', '+', 1),
          ...(ask ? { asked: 1, error: null } : {}),
          last_request_at: now,
          updated_at: now,
        })),
      )
      .returningAll()
      .executeTakeFirstOrThrow();
    return row;
  }

  /** A player asked something of the presentation (the owner's idle clock). */
  async touch(key: string, now: number): Promise<void> {
    await this.db
      .updateTable('hls_runs')
      .set({ last_request_at: now })
      .where('presentation_key', '=', key)
      .where('last_request_at', '<', now)
      .execute();
  }

  /** A prewarm keeps the run going to the end whoever watches (1), or no longer does (0). */
  async pin(key: string, pinned: boolean): Promise<void> {
    await this.db
      .updateTable('hls_runs')
      .set({ pinned: pinned ? 1 : 0 })
      .where('presentation_key', '=', key)
      .execute();
  }

  /**
   * The rows a node that converts may look at for a claim: asked for and held by nobody, or held
   * under a lease that ran out (or asked for while held) while a player still asked (or a prewarm
   * pins it); most recently asked first. `claimReason` decides.
   */
  async claimable(now: number, askedSince: number): Promise<HlsRunRow[]> {
    return this.db
      .selectFrom('hls_runs')
      .selectAll()
      .where((eb) =>
        eb.or([
          eb.and([eb('owner_node', 'is', null), eb('asked', '=', 1)]),
          eb.and([
            eb('owner_node', 'is not', null),
            // Asked for while held: the owner may be a gone process of the asker's host (no lease wait).
            eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now), eb('asked', '=', 1)]),
            eb.or([eb('pinned', '=', 1), eb('last_request_at', '>=', askedSince)]),
          ]),
        ]),
      )
      .orderBy('last_request_at', 'desc')
      .limit(20)
      .execute();
  }

  /** Rows held by `node` (with the owners of other rows, for the gone-process check). */
  async heldBy(node: string): Promise<HlsRunRow[]> {
    return this.db.selectFrom('hls_runs').selectAll().where('owner_node', '=', node).execute();
  }

  /**
   * Renews the leases of this node's runs; the rows it still holds come back (a run missing, or under
   * another epoch, was taken over: its ffmpeg must stop).
   */
  async renew(node: string, leaseUntil: number): Promise<HlsRunRow[]> {
    return this.db
      .updateTable('hls_runs')
      .set({ lease_until: leaseUntil })
      .where('owner_node', '=', node)
      .returningAll()
      .execute();
  }

  /** The owner's ffmpeg (re)started at `index` on its claim (a seek on the same slot). */
  async started(key: string, epoch: number, index: number, now: number): Promise<boolean> {
    const res = await this.db
      .updateTable('hls_runs')
      .set({ start_index: index, next_index: index, error: null, updated_at: now })
      .where('presentation_key', '=', key)
      .where('epoch', '=', epoch)
      .executeTakeFirst();
    return res.numUpdatedRows > 0n;
  }

  /**
   * Gives the run back (it ended: idle, end of film, failure, shutdown), fenced: nothing when another
   * node took it over meanwhile. `error`: why the run started at its `start_index` failed.
   */
  async release(key: string, epoch: number, error: string | null, now: number): Promise<boolean> {
    const res = await this.db
      .updateTable('hls_runs')
      .set({ owner_node: null, lease_until: null, error, updated_at: now })
      .where('presentation_key', '=', key)
      .where('epoch', '=', epoch)
      .where('owner_node', 'is not', null)
      .executeTakeFirst();
    return res.numUpdatedRows > 0n;
  }

  /**
   * Announces a finished segment (or init section: `INIT_INDEX`) its file written whole, fenced: the
   * run row is updated under the claim's epoch first (on PostgreSQL that locks it until the commit,
   * so no take-over falls between the check and the insert), then the segment row is inserted. An
   * owner frozen in between loses its session after {@link FROZEN_OWNER_MS} (PostgreSQL), and with it
   * the lock and the announcement.
   * @returns false when the claim was lost (nothing is written)
   * @throws when the database failed it (a session ended so): nothing is written either
   */
  async announce(
    key: string,
    epoch: number,
    segment: { rendition: string; idx: number; bytes: number; fileName: string },
  ): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      if (sqlEngineOf(trx) === 'postgres') {
        await sql`SET LOCAL idle_in_transaction_session_timeout = ${sql.raw(String(FROZEN_OWNER_MS))}`.execute(
          trx,
        );
      }
      const held = await trx
        .updateTable('hls_runs')
        .set((eb) => ({
          next_index: sql<number>`CASE WHEN ${eb.ref('next_index')} > ${segment.idx + 1} THEN ${eb.ref('next_index')} ELSE ${segment.idx + 1} END`,
        }))
        .where('presentation_key', '=', key)
        .where('epoch', '=', epoch)
        .where('owner_node', 'is not', null)
        .executeTakeFirst();
      if (held.numUpdatedRows === 0n) return false;
      await trx
        .insertInto('hls_segments')
        .values({
          presentation_key: key,
          rendition: segment.rendition,
          idx: segment.idx,
          epoch,
          bytes: segment.bytes,
          file_name: segment.fileName,
        })
        .onConflict((oc) => oc.columns(['presentation_key', 'rendition', 'idx']).doNothing())
        .execute();
      return true;
    });
  }

  /** The announced segments of a presentation (init sections as `INIT_INDEX`). */
  async segments(key: string): Promise<HlsSegmentRow[]> {
    return this.db.selectFrom('hls_segments').selectAll().where('presentation_key', '=', key).execute();
  }

  /**
   * The cache removed the presentation's folder: its segment rows go, and its run row unless a node
   * holds it under a live lease.
   */
  async forget(key: string, now: number): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('hls_segments').where('presentation_key', '=', key).execute();
      await trx
        .deleteFrom('hls_runs')
        .where('presentation_key', '=', key)
        .where((eb) => eb.or([eb('owner_node', 'is', null), eb('lease_until', '<', now)]))
        .execute();
    });
  }
}
