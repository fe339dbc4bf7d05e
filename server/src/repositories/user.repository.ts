import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { UsersTable } from '../db/schema.ts';

export type UserRow = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type UserChanges = Updateable<UsersTable>;

/** users rows: the household's people. */
export class UserRepository {
  constructor(private readonly db: Db) {}

  getById(id: number): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The person whose folded name is `key` (see domain/people/accounts.ts nameKey). */
  getByNameKey(key: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('name_key', '=', key).executeTakeFirst();
  }

  /** Everyone, the first created first. */
  list(): Promise<UserRow[]> {
    return this.db.selectFrom('users').selectAll().orderBy('id').execute();
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

  async countAdmins(): Promise<number> {
    const row = await this.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('role', '=', 'admin')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async insert(user: NewUser): Promise<UserRow> {
    return this.db.insertInto('users').values(user).returningAll().executeTakeFirstOrThrow();
  }

  async update(id: number, changes: UserChanges): Promise<void> {
    await this.db.updateTable('users').set(changes).where('id', '=', id).execute();
  }

  /** One more wrong PIN, counted in the database (parallel guesses each count); the new count. */
  async incrementPinFailures(id: number): Promise<number> {
    const row = await this.db
      .updateTable('users')
      .set((eb) => ({ pin_failures: eb('pin_failures', '+', 1) }))
      .where('id', '=', id)
      .returning('pin_failures')
      .executeTakeFirstOrThrow();
    return row.pin_failures;
  }

  /** Removes the person; their sessions, keys, watch state and history go with them (foreign keys). */
  async delete(id: number): Promise<void> {
    await this.db.deleteFrom('users').where('id', '=', id).execute();
  }
}
