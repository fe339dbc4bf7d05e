import { createHmac, timingSafeEqual } from 'node:crypto';

/** What a playback token grants: one media file, on one device, until `expiresAt` (unix seconds). */
export interface PlaybackGrant {
  mediaFileId: number;
  device: string;
  expiresAt: number;
}

export type TokenCheck =
  { ok: true; grant: PlaybackGrant } | { ok: false; reason: 'malformed' | 'forged' | 'expired' };

function mac(key: string, payload: string): Buffer {
  return createHmac('sha256', key).update(payload).digest();
}

function payloadOf(grant: PlaybackGrant): string {
  return `v1|${grant.mediaFileId}|${grant.device}|${grant.expiresAt}`;
}

/**
 * Signs a grant as `<expiresAt>.<base64url HMAC-SHA256>`; the file and device are not in the token,
 * they are bound by the MAC, so a token for one file or device verifies for no other.
 * @example signPlaybackToken(key, { mediaFileId: 3, device: 'tv', expiresAt: 1790000000 })
 */
export function signPlaybackToken(key: string, grant: PlaybackGrant): string {
  return `${grant.expiresAt}.${mac(key, payloadOf(grant)).toString('base64url')}`;
}

/**
 * Verifies a token for the file and device being requested, at time `nowSeconds`.
 * Constant-time MAC comparison; expiry is checked after the MAC so a forged token learns nothing.
 */
export function verifyPlaybackToken(
  key: string,
  token: string,
  mediaFileId: number,
  device: string,
  nowSeconds: number,
): TokenCheck {
  const match = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (match === null || match[1] === undefined || match[2] === undefined)
    return { ok: false, reason: 'malformed' };
  const expiresAt = Number(match[1]);
  const given = Buffer.from(match[2], 'base64url');
  const expected = mac(key, payloadOf({ mediaFileId, device, expiresAt }));
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return { ok: false, reason: 'forged' };
  if (expiresAt <= nowSeconds) return { ok: false, reason: 'expired' };
  return { ok: true, grant: { mediaFileId, device, expiresAt } };
}
