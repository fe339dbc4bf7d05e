import { isKeyScope } from '../../domain/people/access.ts';
import type { Credential, Principal } from '../../domain/people/principal.ts';
import type { UserRepository } from '../../repositories/user.repository.ts';
import type { ApiKeyService } from './api-key.service.ts';
import type { SessionService } from './session.service.ts';
import { principalFromUser } from './principals.ts';
import { sameSecret } from './secrets.ts';
import type { SignInGuard } from './sign-in-guard.ts';

export { limitOf, principalFromUser } from './principals.ts';

/** Turns bearer credentials into the person behind them: the admin token or a key. */
export class AuthenticationService {
  constructor(
    private readonly users: Pick<UserRepository, 'firstAdmin'>,
    private readonly keys: Pick<ApiKeyService, 'authenticate' | 'isLive'> | null = null,
    private readonly guard: Pick<SignInGuard, 'check' | 'failed'> | null = null,
    private readonly adminToken: string | null = null,
    private readonly sessions: Pick<SessionService, 'isLive'> | null = null,
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
   * The first admin, as the admin token signs in, kept in memory: a request with the admin token
   * reads no database (it is answered while an import's transaction holds the connection). Read
   * again after UserService changes anyone (`forgetAdmin`).
   */
  private admin: Principal | null = null;

  forgetAdmin(): void {
    this.admin = null;
  }

  /** The data dir's admin token signs in as the first admin. */
  async adminTokenPrincipal(): Promise<Principal> {
    if (this.admin !== null) return this.admin;
    const admin = await this.users.firstAdmin();
    if (admin === undefined) throw new Error('no admin in the users table (migration 0006 creates one)');
    this.admin = principalFromUser(admin, { kind: 'admin-token', id: null, scope: 'full' });
    return this.admin;
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
      this.guard?.failed(address, null);
      return null;
    }
    const scope = isKeyScope(found.key.scope) ? found.key.scope : 'read';
    return principalFromUser(found.user, { kind: 'key', id: found.key.id, scope });
  }
}
