import { isRole } from '../../domain/people/access.ts';
import type { Credential, Principal } from '../../domain/people/principal.ts';
import type { ContentLimit } from '../../domain/people/visibility.ts';
import type { UserRow } from '../../repositories/user.repository.ts';

/**
 * The content limit a users row sets: none for an admin or a member without one; a child always
 * has one (a child saved without a certification sees no rated film at all, never everything).
 */
export function limitOf(
  row: Pick<UserRow, 'role' | 'max_certification' | 'allow_unrated'>,
): ContentLimit | null {
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
