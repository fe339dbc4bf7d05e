import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { SessionsTable } from '../db/schema.ts';

export type SessionRow = Selectable<SessionsTable>;
export type NewSession = Insertable<SessionsTable>;

/** sessions rows: signed-in browsers and apps, found by the SHA-256 of the secret they hold. */
export class SessionRepository {
  constructor(private readonly db: Db) {}

  async insert(session: NewSession): Promise<SessionRow> {
    return this.db.insertInto('sessions').values(session).returningAll().executeTakeFirstOrThrow();
  }

  getBySecretHash(secretHash: string): Promise<SessionRow | undefined> {
    return this.db
      .selectFrom('sessions')
      .selectAll()
      .where('secret_hash', '=', secretHash)
      .executeTakeFirst();
  }

  getById(id: number): Promise<SessionRow | undefined> {
    return this.db.selectFrom('sessions').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async touch(id: number, at: string): Promise<void> {
    await this.db.updateTable('sessions').set({ last_seen_at: at }).where('id', '=', id).execute();
  }

  async revoke(id: number, at: string): Promise<void> {
    await this.db
      .updateTable('sessions')
      .set({ revoked_at: at })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .execute();
  }

  /** Revokes every live session of a person; returns how many. */
  async revokeAllOf(userId: number, at: string): Promise<number> {
    const result = await this.db
      .updateTable('sessions')
      .set({ revoked_at: at })
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** The session now speaks for another person (quick switching). */
  async switchUser(id: number, userId: number, at: string): Promise<void> {
    await this.db
      .updateTable('sessions')
      .set({ user_id: userId, last_seen_at: at })
      .where('id', '=', id)
      .execute();
  }
}
