import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { ContractBundle } from './names.ts';

/** SHA-256 (lowercase hex) of the RFC 8785 (JCS) canonical form of a bundle without its `hash` member. */
export function computeHash(bundle: Omit<ContractBundle, 'hash'> | ContractBundle): string {
  const { hash: _ignored, ...rest } = bundle as ContractBundle;
  const canonical = canonicalize(rest);
  if (canonical === undefined) throw new Error('bundle cannot be canonicalized');
  return createHash('sha256').update(canonical, 'utf8').digest('hex');
}
