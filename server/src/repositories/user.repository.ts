import type { Selectable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { UsersTable } from '../db/schema.ts';

export type UserRow = Selectable<UsersTable>;

/** users rows: the household's people. */
export class UserRepository {
  constructor(private readonly db: Db) {}

  getById(id: number): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /**
   * The person of a key that is not revoked, by the key's SHA-256 (hex), with the key's id and scope.
   * (Stopgap for the route-walking test until the people/auth work brings keys; it replaces this.)
   */
  keyOwner(keyHash: string): Promise<(UserRow & { key_id: number; key_scope: string }) | undefined> {
    return this.db
      .selectFrom('api_keys as k')
      .innerJoin('users as u', 'u.id', 'k.user_id')
      .selectAll('u')
      .select(['k.id as key_id', 'k.scope as key_scope'])
      .where('k.key_hash', '=', keyHash)
      .where('k.revoked_at', 'is', null)
      .executeTakeFirst();
  }

  /** The first admin (lowest id): the person the data dir's admin token signs in as. */
  firstAdmin(): Promise<UserRow | undefined> {
    return this.db
      .selectFrom('users')
      .selectAll()
      .where('role', '=', 'admin')
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
  }
}
