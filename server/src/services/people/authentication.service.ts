import { createHash } from 'node:crypto';
import { isKeyScope, isRole } from '../../domain/people/access.ts';
import type { Credential, Principal } from '../../domain/people/principal.ts';
import type { ContentLimit } from '../../domain/people/visibility.ts';
import type { UserRepository, UserRow } from '../../repositories/user.repository.ts';

/**
 * The content limit a users row sets: none for an admin or a member without one; a child always
 * has one (a child saved without a certification sees no rated film at all, never everything).
 */
export function limitOf(row: UserRow): ContentLimit | null {
  if (row.role === 'admin') return null;
  if (row.max_certification === null)
    return row.role === 'child' ? { maxCertification: '', allowUnrated: row.allow_unrated === 1 } : null;
  return { maxCertification: row.max_certification, allowUnrated: row.allow_unrated === 1 };
}

/** The person a users row describes, signed in with `credential`. */
export function principalFromUser(row: UserRow, credential: Credential): Principal {
  if (!isRole(row.role)) throw new Error(`users.role of user ${row.id} is not a role: ${row.role}`);
  return { userId: row.id, name: row.name, role: row.role, limit: limitOf(row), credential };
}

/** Turns credentials into the person behind them. */
export class AuthenticationService {
  constructor(private readonly users: Pick<UserRepository, 'firstAdmin' | 'keyOwner'>) {}

  /**
   * The person a bearer key (api_keys, stored as its SHA-256 hex) belongs to, or null. A stopgap the
   * people/auth work replaces (sessions, last-used, rate limits); the route-walking test signs in
   * as a child with it.
   */
  async keyPrincipal(secret: string): Promise<Principal | null> {
    const row = await this.users.keyOwner(createHash('sha256').update(secret).digest('hex'));
    if (row === undefined || !isKeyScope(row.key_scope)) return null;
    return principalFromUser(row, { kind: 'key', id: row.key_id, scope: row.key_scope });
  }

  /** The data dir's admin token signs in as the first admin. */
  async adminTokenPrincipal(): Promise<Principal> {
    const admin = await this.users.firstAdmin();
    if (admin === undefined) throw new Error('no admin in the users table (migration 0006 creates one)');
    return principalFromUser(admin, { kind: 'admin-token', id: null, scope: 'full' });
  }
}
