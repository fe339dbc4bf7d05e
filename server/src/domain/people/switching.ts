import type { Role } from './access.ts';

/**
 * Who a signed-in session may switch to on the "who's watching?" page (issue 22 §6), pure.
 * - Never to an admin: that takes the admin's password (sign in again).
 * - A profile with a PIN: with its PIN, from any session.
 * - A profile without a PIN: only downwards — an admin's session to a member or a child, a member's
 *   to a child. A child's session switches nowhere without a PIN, so a child cannot become a sibling
 *   with a wider limit, nor a parent.
 */
export type SwitchDecision = 'allowed' | 'needs_pin' | 'refused';

export function switchDecision(from: Role, to: { role: Role; hasPin: boolean }): SwitchDecision {
  if (to.role === 'admin') return 'refused';
  if (to.hasPin) return 'needs_pin';
  if (from === 'admin') return 'allowed';
  if (from === 'member' && to.role === 'child') return 'allowed';
  return 'refused';
}
