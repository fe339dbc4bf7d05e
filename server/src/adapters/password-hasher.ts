import argon2 from 'argon2';

/**
 * Password (and PIN) hashing: Argon2id with OWASP's parameters (m = 19 MiB, t = 2, p = 1), kept as a
 * PHC string (`$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>`) so the parameters travel with each
 * hash and can be raised later without breaking old ones. A secret given here is never logged.
 * Measured cost: docs/people.md.
 */
export interface PasswordHasher {
  hash(secret: string): Promise<string>;
  /** True when `secret` matches `phc`; false for a wrong secret or a string that is no hash. */
  verify(phc: string, secret: string): Promise<boolean>;
}

export const ARGON2ID_OPTIONS = {
  type: argon2.argon2id,
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
} as const;

export class Argon2PasswordHasher implements PasswordHasher {
  constructor(private readonly options: Partial<typeof ARGON2ID_OPTIONS> = {}) {}

  hash(secret: string): Promise<string> {
    return argon2.hash(secret, { ...ARGON2ID_OPTIONS, ...this.options });
  }

  async verify(phc: string, secret: string): Promise<boolean> {
    try {
      return await argon2.verify(phc, secret);
    } catch {
      // Not a PHC string argon2 can read: it matches nothing.
      return false;
    }
  }
}
