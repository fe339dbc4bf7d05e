import type { Db } from '../db/database.ts';

/** The secrets every node shares, one row per name (migration 0010). */
export class ServerSecretRepository {
  constructor(private readonly db: Db) {}

  async get(name: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('server_secrets')
      .select('value')
      .where('name', '=', name)
      .executeTakeFirst();
    return row?.value;
  }

  /** Stores `value` unless a node stored one first (then the first one stays). */
  async insertIfAbsent(name: string, value: string, now: string): Promise<void> {
    await this.db
      .insertInto('server_secrets')
      .values({ name, value, created_at: now })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
  }
}
