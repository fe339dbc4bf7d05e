import type { ApiKeyRow } from '../../repositories/api-key.repository.ts';
import type { SessionRow } from '../../repositories/session.repository.ts';
import type { UserRow } from '../../repositories/user.repository.ts';

/**
 * Beyond this many kept rows the cache starts again (a flood of distinct secrets, a huge household):
 * memory stays bounded, and a cleared cache only costs reads.
 */
const MAX_ROWS = 20_000;

/**
 * The rows authentication reads on every request — sessions and keys by secret hash and by id,
 * people by id, the first admin — kept in memory, so a request is authenticated without a query:
 * Kysely runs on one SQLite connection, and a query waits while an import's or a scan's
 * transaction holds it (the job poll of the import page, HLS playlists and segments did).
 *
 * Why a kept row never outlives a revocation:
 * - Every write to sessions, api_keys and users in this process goes through SessionService,
 *   ApiKeyService or UserService, and each calls `forget…` once its write is done, before it answers.
 * - A read started before a `forget…` is not kept when it lands after it (`load`'s epoch): a row
 *   read before a revocation never re-enters the cache.
 * - Another process (the CLI's `reelshelf user …`) writes the same file: `externalVersion` is
 *   SQLite's `PRAGMA data_version` of this connection, which moves when another connection commits.
 *   It is read synchronously on the raw handle (no wait behind a transaction, ~1 µs) on every
 *   look-up; a move empties the cache. So a change the CLI committed holds from the next request on,
 *   exactly, with no time-to-live. (While this process holds a write transaction no other connection
 *   can commit, so an import does not empty the cache.)
 * - What the cache keeps is rows; the rules (idle and absolute expiry, revocation, scopes) are still
 *   applied to them at every request with the clock of that request.
 */
export class PeopleCache {
  private readonly sessionsByHash = new Map<string, SessionRow>();
  private readonly sessionsById = new Map<number, SessionRow>();
  private readonly keysByHash = new Map<string, ApiKeyRow>();
  private readonly keysById = new Map<number, ApiKeyRow>();
  private readonly users = new Map<number, UserRow>();
  /** People by folded name (domain/people/accounts nameKey): the DLNA person is named in the config. */
  private readonly usersByKey = new Map<string, UserRow>();
  private firstAdminRow: UserRow | null = null;
  /** Moves on every forget: a read that started before it is not kept. */
  private epoch = 0;
  private seenVersion: number;

  constructor(private readonly externalVersion: () => number = () => 0) {
    this.seenVersion = externalVersion();
  }

  /** Empties the cache when another process committed since the last look-up. */
  private fresh(): void {
    const version = this.externalVersion();
    if (version !== this.seenVersion) {
      this.seenVersion = version;
      this.forgetAll();
    }
  }

  /**
   * A kept value, else `read` (kept unless something was forgotten while it ran). `read` returning
   * undefined keeps nothing: an unknown secret costs a query each time, never memory.
   */
  private async load<T>(
    kept: T | undefined,
    read: () => Promise<T | undefined>,
    keep: (value: T) => void,
  ): Promise<T | undefined> {
    if (kept !== undefined) return kept;
    const epoch = this.epoch;
    const value = await read();
    if (value !== undefined && epoch === this.epoch) {
      if (this.size() >= MAX_ROWS) this.forgetAll();
      keep(value);
    }
    return value;
  }

  private size(): number {
    return this.sessionsById.size + this.keysById.size + this.users.size + this.usersByKey.size;
  }

  async sessionByHash(
    hash: string,
    read: () => Promise<SessionRow | undefined>,
  ): Promise<SessionRow | undefined> {
    this.fresh();
    return this.load(this.sessionsByHash.get(hash), read, (row) => this.keepSession(row));
  }

  async sessionById(
    id: number,
    read: () => Promise<SessionRow | undefined>,
  ): Promise<SessionRow | undefined> {
    this.fresh();
    return this.load(this.sessionsById.get(id), read, (row) => this.keepSession(row));
  }

  private keepSession(row: SessionRow): void {
    this.sessionsByHash.set(row.secret_hash, row);
    this.sessionsById.set(row.id, row);
  }

  async keyByHash(hash: string, read: () => Promise<ApiKeyRow | undefined>): Promise<ApiKeyRow | undefined> {
    this.fresh();
    return this.load(this.keysByHash.get(hash), read, (row) => this.keepKey(row));
  }

  async keyById(id: number, read: () => Promise<ApiKeyRow | undefined>): Promise<ApiKeyRow | undefined> {
    this.fresh();
    return this.load(this.keysById.get(id), read, (row) => this.keepKey(row));
  }

  private keepKey(row: ApiKeyRow): void {
    this.keysByHash.set(row.key_hash, row);
    this.keysById.set(row.id, row);
  }

  async user(id: number, read: () => Promise<UserRow | undefined>): Promise<UserRow | undefined> {
    this.fresh();
    return this.load(this.users.get(id), read, (row) => this.users.set(row.id, row));
  }

  /** A person by folded name; an unknown name is read again each time (a person may be created any moment). */
  async userByNameKey(key: string, read: () => Promise<UserRow | undefined>): Promise<UserRow | undefined> {
    this.fresh();
    return this.load(this.usersByKey.get(key), read, (row) => this.usersByKey.set(key, row));
  }

  /** The first admin (the admin token's person). */
  async firstAdmin(read: () => Promise<UserRow | undefined>): Promise<UserRow | undefined> {
    this.fresh();
    return this.load(this.firstAdminRow ?? undefined, read, (row) => (this.firstAdminRow = row));
  }

  /** A session's row changed (signed out, switched person): read again on its next use. */
  forgetSession(id: number): void {
    this.epoch++;
    const row = this.sessionsById.get(id);
    this.sessionsById.delete(id);
    if (row !== undefined) this.sessionsByHash.delete(row.secret_hash);
  }

  /** Every session of a person changed (signed out everywhere). */
  forgetSessionsOf(userId: number): void {
    this.epoch++;
    for (const row of [...this.sessionsById.values()]) {
      if (row.user_id === userId) this.forgetSession(row.id);
    }
  }

  forgetKey(id: number): void {
    this.epoch++;
    const row = this.keysById.get(id);
    this.keysById.delete(id);
    if (row !== undefined) this.keysByHash.delete(row.key_hash);
  }

  /**
   * Everything (a person added, changed or removed: their role, limit and name are in every
   * principal, a new password revoked their sessions, a removal deleted their sessions and keys).
   */
  forgetAll(): void {
    this.epoch++;
    this.sessionsByHash.clear();
    this.sessionsById.clear();
    this.keysByHash.clear();
    this.keysById.clear();
    this.users.clear();
    this.usersByKey.clear();
    this.firstAdminRow = null;
  }
}
