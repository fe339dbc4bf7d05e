import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { ApiKeysTable } from '../db/schema.ts';

export type ApiKeyRow = Selectable<ApiKeysTable>;
export type NewApiKey = Insertable<ApiKeysTable>;
export type ApiKeyWithOwner = ApiKeyRow & { owner_name: string };

/** api_keys rows: keys for devices and scripts, found by the SHA-256 of the key. */
export class ApiKeyRepository {
  constructor(private readonly db: Db) {}

  async insert(key: NewApiKey): Promise<ApiKeyRow> {
    return this.db.insertInto('api_keys').values(key).returningAll().executeTakeFirstOrThrow();
  }

  getByHash(keyHash: string): Promise<ApiKeyRow | undefined> {
    return this.db.selectFrom('api_keys').selectAll().where('key_hash', '=', keyHash).executeTakeFirst();
  }

  getById(id: number): Promise<ApiKeyRow | undefined> {
    return this.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Every key (or one person's), newest first, with its owner's name. */
  list(userId: number | null): Promise<ApiKeyWithOwner[]> {
    let query = this.db
      .selectFrom('api_keys')
      .innerJoin('users', 'users.id', 'api_keys.user_id')
      .selectAll('api_keys')
      .select('users.name as owner_name')
      .orderBy('api_keys.id', 'desc');
    if (userId !== null) query = query.where('api_keys.user_id', '=', userId);
    return query.execute();
  }

  async touch(id: number, at: string, address: string): Promise<void> {
    await this.db
      .updateTable('api_keys')
      .set({ last_used_at: at, last_used_address: address })
      .where('id', '=', id)
      .execute();
  }

  async revoke(id: number, at: string): Promise<void> {
    await this.db
      .updateTable('api_keys')
      .set({ revoked_at: at })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .execute();
  }
}
