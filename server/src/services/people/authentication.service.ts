import { isKeyScope } from '../../domain/people/access.ts';
import { nameKey } from '../../domain/people/accounts.ts';
import type { Credential, Principal } from '../../domain/people/principal.ts';
import type { UserRepository, UserRow } from '../../repositories/user.repository.ts';
import type { ApiKeyService } from './api-key.service.ts';
import { PeopleCache } from './people-cache.ts';
import type { SessionService } from './session.service.ts';
import { principalFromUser } from './principals.ts';
import { sameSecret } from './secrets.ts';
import type { SignInGuard } from './sign-in-guard.ts';

export { limitOf, principalFromUser } from './principals.ts';

/** Turns bearer credentials into the person behind them: the admin token or a key. */
export class AuthenticationService {
  constructor(
    private readonly users: Pick<UserRepository, 'firstAdmin' | 'getById' | 'getByNameKey'>,
    private readonly keys: Pick<ApiKeyService, 'authenticate' | 'isLive' | 'holdsFor'> | null = null,
    private readonly guard: Pick<SignInGuard, 'check' | 'failed'> | null = null,
    private readonly adminToken: string | null = null,
    private readonly sessions: Pick<SessionService, 'isLive' | 'holdsFor'> | null = null,
    /** The one cache of people, sessions and keys (shared with SessionService and ApiKeyService). */
    private readonly cache: PeopleCache = new PeopleCache(),
  ) {}

  /**
   * Whether the credential a request (or a playback token made from it) named still holds: a
   * signed-out or expired session and a revoked key do not, from the next request on. The admin
   * token holds while it is the data dir's.
   */
  async credentialLive(credential: Pick<Credential, 'kind' | 'id'>): Promise<boolean> {
    if (credential.kind === 'admin-token') return true;
    if (credential.id === null) return false;
    if (credential.kind === 'key') return (await this.keys?.isLive(credential.id)) ?? false;
    return (await this.sessions?.isLive(credential.id)) ?? false;
  }

  /**
   * Whether a playback token's credential still holds for its person (StreamService asks on every
   * stream, playlist and segment request): from memory once known, so a player is not held behind
   * an import's transaction; a revocation is seen on the very next request (PeopleCache).
   */
  async isLive(kind: Credential['kind'], id: number | null, userId: number): Promise<boolean> {
    if (kind === 'admin-token') return true;
    // A credential without a row id (the stateless cookie before sessions were stored) has nothing to end.
    if (id === null) return true;
    if (kind === 'key') return (await this.keys?.holdsFor(id, userId)) ?? false;
    return (await this.sessions?.holdsFor(id, userId)) ?? false;
  }

  /**
   * A person's row (role and limit columns) from memory once known: VisibilityService asks it for
   * every stream request of a playback token (`assertVisibleToUser`).
   */
  userLimit(userId: number): Promise<UserRow | undefined> {
    return this.cache.user(userId, () => this.users.getById(userId));
  }

  /**
   * The person of that name (any case, as sign-in reads it) from memory once known: DLNA resolves
   * its person (REELSHELF_DLNA) on every control request, so a person created, renamed or removed
   * is seen on the next one, with no restart (PeopleCache).
   */
  personNamed(name: string): Promise<UserRow | undefined> {
    const key = nameKey(name);
    return this.cache.userByNameKey(key, () => this.users.getByNameKey(key));
  }

  /**
   * Forgets every kept person, session and key (PeopleCache): UserService calls it after it adds,
   * changes or removes anyone (a role, limit or name is in every principal; a new password revoked
   * sessions; a removal deleted sessions and keys).
   */
  forgetPeople(): void {
    this.cache.forgetAll();
  }

  /**
   * The data dir's admin token signs in as the first admin, kept in memory (PeopleCache): a
   * request with the admin token reads no database.
   */
  async adminTokenPrincipal(): Promise<Principal> {
    const admin = await this.cache.firstAdmin(() => this.users.firstAdmin());
    if (admin === undefined) throw new Error('no admin in the users table (migration 0006 creates one)');
    return principalFromUser(admin, { kind: 'admin-token', id: null, scope: 'full' });
  }

  /**
   * The person behind a bearer token from `address`: the admin token (constant time) → the first
   * admin; a key → its person with the key's scope; else null, counted as a failure of the address.
   * An address with too many failures gets 429 whatever it sends.
   */
  async bearer(token: string, address: string): Promise<Principal | null> {
    this.guard?.check(address, null);
    if (this.adminToken !== null && sameSecret(token, this.adminToken)) return this.adminTokenPrincipal();
    const found = this.keys === null ? null : await this.keys.authenticate(token, address);
    if (found === null) {
      await this.guard?.failed(address, null);
      return null;
    }
    const scope = isKeyScope(found.key.scope) ? found.key.scope : 'read';
    return principalFromUser(found.user, { kind: 'key', id: found.key.id, scope });
  }
}
