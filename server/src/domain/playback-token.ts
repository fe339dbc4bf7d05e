import { createHmac, timingSafeEqual } from 'node:crypto';

/** How the person proved who they are, as a playback token carries it (see domain/people/principal.ts). */
export type CredentialKind = 'admin-token' | 'session' | 'key';

/**
 * Whom a playback token is for: the person and the credential it was made from. A token lives as
 * long as that credential (a revoked session or key ends its tokens within one request); the admin
 * token has no row (id null) and is always live.
 */
export interface TokenHolder {
  userId: number;
  credential: { kind: CredentialKind; id: number | null };
}

/**
 * What a playback token grants: one media file, on one device, until `expiresAt` (unix seconds), to
 * one person through one credential.
 */
export interface PlaybackGrant {
  mediaFileId: number;
  device: string;
  expiresAt: number;
  holder: TokenHolder;
}

export type TokenCheck =
  { ok: true; grant: PlaybackGrant } | { ok: false; reason: 'malformed' | 'outdated' | 'forged' | 'expired' };

const KIND_LETTER: Record<CredentialKind, string> = { 'admin-token': 'a', session: 's', key: 'k' };
const LETTER_KIND: Record<string, CredentialKind> = { a: 'admin-token', s: 'session', k: 'key' };

function mac(key: string, payload: string): Buffer {
  return createHmac('sha256', key).update(payload).digest();
}

function payloadOf(grant: PlaybackGrant): string {
  const { holder } = grant;
  return `v2|${grant.mediaFileId}|${grant.device}|${grant.expiresAt}|${holder.userId}|${holder.credential.kind}|${holder.credential.id ?? ''}`;
}

/**
 * Signs a grant as `v2.<user>.<credential>.<expiresAt>.<base64url HMAC-SHA256>`, the credential
 * written `a-` (the admin token), `s<id>` (a session; `s-` without a row) or `k<id>` (a key). The person and credential
 * are in the token (the verifier must know whose it is); the file and device are not, they are bound
 * by the MAC, so a token for one file or device verifies for no other.
 * @example signPlaybackToken(key, { mediaFileId: 3, device: 'tv', expiresAt: 1790000000,
 *   holder: { userId: 1, credential: { kind: 'session', id: 9 } } }) // 'v2.1.s9.1790000000.…'
 */
export function signPlaybackToken(key: string, grant: PlaybackGrant): string {
  const { holder } = grant;
  const credential = `${KIND_LETTER[holder.credential.kind]}${holder.credential.id ?? '-'}`;
  return `v2.${holder.userId}.${credential}.${grant.expiresAt}.${mac(key, payloadOf(grant)).toString('base64url')}`;
}

const V2 = /^v2\.(\d{1,12})\.([ask])(\d{1,12}|-)\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/;
/** The format before people (issue 22): `<expiresAt>.<mac>`, bound to no person. */
const V1 = /^\d{1,12}\.[A-Za-z0-9_-]{43}$/;

/**
 * Verifies a token for the file and device being requested, at time `nowSeconds`.
 * Constant-time MAC comparison; expiry is checked after the MAC so a forged token learns nothing.
 * A token of the first format (no person in it) is `outdated`.
 */
export function verifyPlaybackToken(
  key: string,
  token: string,
  mediaFileId: number,
  device: string,
  nowSeconds: number,
): TokenCheck {
  if (V1.test(token)) return { ok: false, reason: 'outdated' };
  const match = V2.exec(token);
  if (match === null) return { ok: false, reason: 'malformed' };
  const [, user, letter, id, expiry, signature] = match;
  const kind = LETTER_KIND[letter ?? ''];
  if (user === undefined || kind === undefined || id === undefined || expiry === undefined)
    return { ok: false, reason: 'malformed' };
  // The admin token has no row. A session may have none yet (the sign-in page's cookie before
  // sessions are stored): its token is checked by its MAC alone, like the admin token's.
  if (kind === 'admin-token' && id !== '-') return { ok: false, reason: 'malformed' };
  const grant: PlaybackGrant = {
    mediaFileId,
    device,
    expiresAt: Number(expiry),
    holder: { userId: Number(user), credential: { kind, id: id === '-' ? null : Number(id) } },
  };
  const given = Buffer.from(signature ?? '', 'base64url');
  const expected = mac(key, payloadOf(grant));
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return { ok: false, reason: 'forged' };
  if (grant.expiresAt <= nowSeconds) return { ok: false, reason: 'expired' };
  return { ok: true, grant };
}
