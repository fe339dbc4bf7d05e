import type { Clock } from '../../adapters/clock.ts';
import { isKeyScope, isRole, KEY_SCOPES, type KeyScope, type Role } from '../../domain/people/access.ts';
import { nameKey } from '../../domain/people/accounts.ts';
import { KEY_PREFIX, keyGrantProblem, looksLikeKey } from '../../domain/people/api-keys.ts';
import { needsTouch } from '../../domain/people/session-life.ts';
import { AppError, notFound, validationFailed } from '../../errors.ts';
import type { ApiKeyRepository, ApiKeyRow, ApiKeyWithOwner } from '../../repositories/api-key.repository.ts';
import type { UserRepository, UserRow } from '../../repositories/user.repository.ts';
import { DeferredWrites } from './deferred-writes.ts';
import { PeopleCache } from './people-cache.ts';
import { newSecret, secretHash } from './secrets.ts';

/** A key as listed (never the key itself after creation). */
export interface ApiKeyView {
  id: number;
  name: string;
  scope: KeyScope;
  user_id: number;
  owner: string;
  created_at: string;
  last_used_at: string | null;
  last_used_address: string | null;
  revoked_at: string | null;
}

/** POST /api/keys's answer: the key, this once. */
export interface CreatedKey {
  id: number;
  name: string;
  scope: KeyScope;
  user_id: number;
  owner: string;
  key: string;
}

export interface CreateKeyInput {
  name: string;
  scope: string;
  /** The owner: a user id or name (admins only); default the caller. */
  user?: number | string;
}

/** Who asks: the person's id and role. */
export interface KeyCaller {
  userId: number;
  role: Role;
}

function view(row: ApiKeyWithOwner): ApiKeyView {
  return {
    id: row.id,
    name: row.name,
    scope: isKeyScope(row.scope) ? row.scope : 'read',
    user_id: row.user_id,
    owner: row.owner_name,
    created_at: row.created_at,
    last_used_at: row.last_used_at,
    last_used_address: row.last_used_address,
    revoked_at: row.revoked_at,
  };
}

/**
 * Keys for devices and scripts (issue 22 §4): owned by a person, scoped (read, playback, admin),
 * stored as SHA-256, shown once, listed with when and from where they were last used, revocable.
 */
export class ApiKeyService {
  /** A key's last use, written after the request answered (never behind a transaction). */
  private readonly touches: DeferredWrites<number, { at: string; address: string }>;

  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly users: UserRepository,
    private readonly clock: Clock,
    /** Keys and people kept in memory (shared with SessionService and AuthenticationService). */
    private readonly cache: PeopleCache = new PeopleCache(),
    onTouchError?: (err: unknown) => void,
  ) {
    this.touches = new DeferredWrites((id, use) => keys.touch(id, use.at, use.address), onTouchError);
  }

  /** Waits for the last-use writes still pending (before the database closes). */
  settle(): Promise<void> {
    return this.touches.settle();
  }

  private withPendingTouch(row: ApiKeyRow | undefined): ApiKeyRow | undefined {
    const pending = row === undefined ? undefined : this.touches.pendingFor(row.id);
    return row === undefined || pending === undefined
      ? row
      : { ...row, last_used_at: pending.at, last_used_address: pending.address };
  }

  private keyById(id: number): Promise<ApiKeyRow | undefined> {
    return this.cache.keyById(id, async () => this.withPendingTouch(await this.keys.getById(id)));
  }

  private async owner(caller: KeyCaller, user: number | string | undefined): Promise<UserRow> {
    const row =
      user === undefined
        ? await this.users.getById(caller.userId)
        : typeof user === 'number'
          ? await this.users.getById(user)
          : await this.users.getByNameKey(nameKey(user));
    if (row === undefined) {
      // A non-admin learns nothing about who exists.
      if (caller.role !== 'admin')
        throw new AppError('forbidden', { message: 'Only an admin makes keys for someone else.' });
      throw new AppError('not_found', {
        message: `No person ${typeof user === 'number' ? `with id ${user}` : `named "${String(user)}"`}.`,
      });
    }
    return row;
  }

  async create(caller: KeyCaller, input: CreateKeyInput): Promise<CreatedKey> {
    const name = input.name.normalize('NFC').trim();
    if (name.length === 0 || [...name].length > 64)
      throw validationFailed(
        'name',
        'must be 1 to 64 characters',
        'Name the device or script: "Living room TV".',
      );
    if (!isKeyScope(input.scope))
      throw validationFailed(
        'scope',
        `must be one of ${KEY_SCOPES.join(', ')}`,
        'read: GET only; playback: read and play; admin: everything its admin may do.',
      );
    const scope = input.scope;
    const owner = await this.owner(caller, input.user);
    if (!isRole(owner.role)) throw new Error(`users.role of user ${owner.id} is not a role: ${owner.role}`);
    const problem = keyGrantProblem(caller, { userId: owner.id, role: owner.role }, scope);
    if (problem !== null) {
      throw problem.status === 403
        ? new AppError('forbidden', { message: problem.message, hint: 'Ask an admin of this household.' })
        : validationFailed('scope', problem.message, 'Give the person a read or playback key.');
    }
    const key = `${KEY_PREFIX}${newSecret()}`;
    const row = await this.keys.insert({
      user_id: owner.id,
      name,
      scope,
      key_hash: secretHash(key),
      created_at: this.clock.now().toISOString(),
      last_used_at: null,
      last_used_address: null,
      revoked_at: null,
    });
    return { id: row.id, name: row.name, scope, user_id: owner.id, owner: owner.name, key };
  }

  /** An admin sees every key with its owner; anyone else their own. */
  async list(caller: KeyCaller): Promise<ApiKeyView[]> {
    // The list shows each key's last use: the uses still pending are written first.
    await this.touches.settle();
    return (await this.keys.list(caller.role === 'admin' ? null : caller.userId)).map(view);
  }

  /** Revokes a key at once (its next request is 401); someone else's key is 404 to a non-admin. */
  async revoke(caller: KeyCaller, id: number): Promise<void> {
    const row = await this.keys.getById(id);
    if (row === undefined || (caller.role !== 'admin' && row.user_id !== caller.userId))
      throw notFound('key', id);
    try {
      await this.keys.revoke(id, this.clock.now().toISOString());
    } finally {
      this.cache.forgetKey(id);
    }
  }

  /** Whether key `id` still holds (not revoked): playback tokens made from it ask. */
  async isLive(id: number): Promise<boolean> {
    const row = await this.keyById(id);
    return row !== undefined && row.revoked_at === null;
  }

  /** Whether key `id` still holds and belongs to `userId` (a playback token made from it asks). */
  async holdsFor(id: number, userId: number): Promise<boolean> {
    const row = await this.keyById(id);
    return row !== undefined && row.revoked_at === null && row.user_id === userId;
  }

  /**
   * The live key `key` is and its owner, or null, from memory once known (PeopleCache); the use is
   * written at most once a minute, after the request answered.
   */
  async authenticate(key: string, address: string): Promise<{ key: ApiKeyRow; user: UserRow } | null> {
    if (!looksLikeKey(key)) return null;
    const hash = secretHash(key);
    const row = await this.cache.keyByHash(hash, async () =>
      this.withPendingTouch(await this.keys.getByHash(hash)),
    );
    if (row === undefined || row.revoked_at !== null) return null;
    const user = await this.cache.user(row.user_id, () => this.users.getById(row.user_id));
    if (user === undefined) return null;
    const now = this.clock.now();
    if (needsTouch(row.last_used_at, now.getTime())) {
      row.last_used_at = now.toISOString();
      row.last_used_address = address;
      this.touches.schedule(row.id, { at: row.last_used_at, address });
    }
    return { key: row, user };
  }
}
