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
