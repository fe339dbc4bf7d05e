import type { KeyScope, Role } from './access.ts';

/**
 * Keys for devices and scripts (issue 22 §4), pure. A key is `rsk_` and 43 base64url characters
 * (32 random bytes): the prefix lets a person, a log scrubber or a secret scanner tell one at sight.
 */
export const KEY_PREFIX = 'rsk_';
const KEY_FORMAT = /^rsk_[A-Za-z0-9_-]{43}$/;

export function looksLikeKey(value: string): boolean {
  return KEY_FORMAT.test(value);
}

/** Query parameters that would carry a credential; on /api routes they are refused, never read. */
export const CREDENTIAL_QUERY_PARAMS = ['api_key', 'apikey', 'key', 'token', 'access_token'] as const;

/**
 * Whether `caller` may give `owner` a key of `scope`: a person makes keys for themself (a child
 * asks an admin); an admin for anyone; an admin key only ever belongs to an admin (a key never
 * reaches further than its person).
 */
export function keyGrantProblem(
  caller: { userId: number; role: Role },
  owner: { userId: number; role: Role },
  scope: KeyScope,
): { status: 400 | 403; message: string } | null {
  if (caller.role !== 'admin' && caller.userId !== owner.userId)
    return { status: 403, message: 'Only an admin makes keys for someone else.' };
  if (caller.role === 'child') return { status: 403, message: 'A child’s keys are made by an admin.' };
  if (scope === 'admin' && owner.role !== 'admin')
    return { status: 400, message: 'An admin key can only belong to an admin.' };
  return null;
}
