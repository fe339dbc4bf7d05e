import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** A fresh secret of 32 random bytes, base64url (43 characters): session cookies and keys. */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** What the database keeps of a secret: its SHA-256 in hex (a leaked table signs nobody in). */
export function secretHash(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** Constant-time equality of two secrets of any length (hashing first equalises the lengths). */
export function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** HMAC-SHA256 of `data` under `key`, base64url. */
export function hmac(key: Buffer, data: string): string {
  return createHmac('sha256', key).update(data).digest('base64url');
}

/** A key for HMACs derived from another secret and a purpose (different purposes never share a key). */
export function deriveKey(secret: string, purpose: string): Buffer {
  return createHmac('sha256', secret).update(purpose).digest();
}
