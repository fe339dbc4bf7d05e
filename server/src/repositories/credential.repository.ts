import { compiledSelect } from '../db/compiled-select.ts';
import type { Db } from '../db/database.ts';
import type { CredentialKind } from '../domain/playback-token.ts';

/**
 * Whether a session or key still holds: read on every playback request (a revoked or expired one
 * ends its tokens within one request). Rows are made and revoked by the people/auth code; this only
 * reads `revoked_at` and `expires_at`.
 */
export class CredentialRepository {
  constructor(private readonly db: Db) {}

  /**
   * True when the credential's row exists, belongs to `userId`, is not revoked and (a session) has
   * not passed its absolute expiry at `nowIso`. The admin token has no row (`id` null): always live.
   */
  async isLive(kind: CredentialKind, id: number | null, userId: number, nowIso: string): Promise<boolean> {
    if (kind === 'admin-token') return true;
    // A credential without a row id (the stopgap cookie before sessions are stored) has nothing to end.
    if (id === null) return true;
    const rows =
      kind === 'session'
        ? await CredentialRepository.liveSession(this.db, [id, userId, nowIso])
        : await CredentialRepository.liveKey(this.db, [id, userId]);
    return rows.length > 0;
  }

  // Every stream and segment request asks: compiled once per database.
  private static readonly liveSession = compiledSelect<{ id: number }>(
    (db) =>
      db
        .selectFrom('sessions')
        .select('id')
        .where('id', '=', 0)
        .where('user_id', '=', 0)
        .where('revoked_at', 'is', null)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', '')])),
    3,
  );

  private static readonly liveKey = compiledSelect<{ id: number }>(
    (db) =>
      db
        .selectFrom('api_keys')
        .select('id')
        .where('id', '=', 0)
        .where('user_id', '=', 0)
        .where('revoked_at', 'is', null),
    2,
  );

  /**
   * The live session or key whose secret hashes to `hash` (SHA-256 hex, as stored), with its person
   * and scope; undefined when none holds at `nowIso`.
   */
  async byBearerHash(
    hash: string,
    nowIso: string,
  ): Promise<{ kind: 'session' | 'key'; id: number; user_id: number; scope: string } | undefined> {
    const session = await this.db
      .selectFrom('sessions')
      .select(['id', 'user_id'])
      .where('secret_hash', '=', hash)
      .where('revoked_at', 'is', null)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', nowIso)]))
      .executeTakeFirst();
    if (session !== undefined) return { kind: 'session', ...session, scope: 'full' };
    const key = await this.db
      .selectFrom('api_keys')
      .select(['id', 'user_id', 'scope'])
      .where('key_hash', '=', hash)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return key === undefined ? undefined : { kind: 'key', ...key };
  }
}
