import { type Role } from './access.ts';
import { certificationScore } from './ratings.ts';

/**
 * The rules of a household's people (issue 22 §1), pure: what a name, a password, a PIN and a
 * content limit must be, and when a change would leave the household without an admin.
 * Each returns null when the value is fine, else the sentence a person reads.
 */

export const NAME_MAX_LENGTH = 64;
export const PASSWORD_MIN_LENGTH = 10;
/** Argon2 takes any length; a bound keeps a megabyte "password" from costing more than a sign-in should. */
export const PASSWORD_MAX_LENGTH = 1024;

/** A name as kept (trimmed, NFC) and its key for uniqueness and sign-in (lower case). */
export interface PersonName {
  name: string;
  key: string;
}

/** The name as stored, or the problem with it. */
export function personName(raw: string): PersonName | { problem: string } {
  const name = raw.normalize('NFC').trim();
  if (name.length === 0) return { problem: 'must not be empty' };
  if ([...name].length > NAME_MAX_LENGTH) return { problem: `must be at most ${NAME_MAX_LENGTH} characters` };
  if (/[\u0000-\u001f\u007f]/.test(name)) return { problem: 'must not contain control characters' };
  return { name, key: nameKey(name) };
}

/** The key a name is unique under and looked up by: "Anna" and " anna " are one person. */
export function nameKey(name: string): string {
  return name.normalize('NFC').trim().toLowerCase();
}

export function passwordProblem(password: string): string | null {
  if ([...password].length < PASSWORD_MIN_LENGTH) return `must be at least ${PASSWORD_MIN_LENGTH} characters`;
  if (password.length > PASSWORD_MAX_LENGTH) return `must be at most ${PASSWORD_MAX_LENGTH} characters`;
  return null;
}

/** A profile PIN: exactly four digits (Plex Home's quick switch). */
export function pinProblem(pin: string): string | null {
  return /^\d{4}$/.test(pin) ? null : 'must be exactly 4 digits';
}

/**
 * The content limit a role may carry: a child needs a certification the country's system knows (a
 * limit nobody can read would hide or show by accident); a member's is optional; an admin has none.
 */
export function limitProblem(role: Role, maxCertification: string | null, country: string): string | null {
  if (maxCertification === null) return role === 'child' ? 'a child needs a max_certification' : null;
  if (role === 'admin') return 'an admin has no content limit';
  if (certificationScore(country, maxCertification) === null)
    return `"${maxCertification}" is not a certification of the ${country.toUpperCase()} system`;
  return null;
}

/** A child hides unrated films unless told otherwise; everyone else sees them. */
export function defaultAllowUnrated(role: Role): boolean {
  return role !== 'child';
}

/**
 * Whether changing one person from `before` to `after` (null: removed) leaves no admin, given how
 * many admins there are now. The household must always have one.
 */
export function leavesNoAdmin(admins: number, before: Role, after: Role | null): boolean {
  return before === 'admin' && after !== 'admin' && admins <= 1;
}
