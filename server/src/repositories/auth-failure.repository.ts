import type { Db } from '../db/database.ts';
import { sqlEngineOf } from '../db/sql-engine.ts';
import type { FailureWindow } from '../domain/people/failure-window.ts';

/** A key's window as the table has it. */
export interface StoredFailures extends FailureWindow {
  key: string;
}

function parseAddresses(json: string): string[] {
  try {
    const list = JSON.parse(json) as unknown;
    return Array.isArray(list) ? list.filter((a): a is string => typeof a === 'string') : [];
  } catch {
    return [];
  }
}

/** Failed sign-ins per address and account (migration 0016), counted by every node together. */
export class AuthFailureRepository {
  constructor(private readonly db: Db) {}

  /** The windows started after `sinceMs` (the live ones). */
  async startedAfter(sinceMs: number): Promise<StoredFailures[]> {
    const rows = await this.db
      .selectFrom('auth_failures')
      .selectAll()
      .where('window_start_ms', '>', sinceMs)
      .execute();
    return rows.map((r) => ({
      key: r.key,
      count: r.count,
      startedMs: Number(r.window_start_ms),
      addresses: parseAddresses(r.addresses_json),
    }));
  }

  /**
   * Counts one failure of `key`: `next` decides the window from the stored one, read and written
   * in one transaction with the row locked (PostgreSQL), so failures on two nodes at once both count.
   */
  async fail(
    key: string,
    address: string | null,
    next: (current: FailureWindow | null) => FailureWindow,
  ): Promise<FailureWindow> {
    const postgres = sqlEngineOf(this.db) === 'postgres';
    return this.db.transaction().execute(async (tx) => {
      await tx
        .insertInto('auth_failures')
        .values({ key, window_start_ms: 0, count: 0, addresses_json: '[]', last_address: null })
        .onConflict((oc) => oc.column('key').doNothing())
        .execute();
      let read = tx.selectFrom('auth_failures').selectAll().where('key', '=', key);
      if (postgres) read = read.forUpdate();
      const row = await read.executeTakeFirstOrThrow();
      const current =
        row.count === 0
          ? null
          : {
              count: row.count,
              startedMs: Number(row.window_start_ms),
              addresses: parseAddresses(row.addresses_json),
            };
      const window = next(current);
      await tx
        .updateTable('auth_failures')
        .set({
          count: window.count,
          window_start_ms: window.startedMs,
          addresses_json: JSON.stringify(window.addresses),
          last_address: address,
        })
        .where('key', '=', key)
        .execute();
      return window;
    });
  }

  /** Windows that ended before `beforeMs` go. */
  async expire(beforeMs: number): Promise<void> {
    await this.db.deleteFrom('auth_failures').where('window_start_ms', '<', beforeMs).execute();
  }
}
