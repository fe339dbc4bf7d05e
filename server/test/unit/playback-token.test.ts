import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { signPlaybackToken, verifyPlaybackToken } from '../../src/domain/playback-token.ts';

describe('playback tokens', () => {
  const key = 'k'.repeat(43);
  const grant = { mediaFileId: 7, device: 'tv', expiresAt: 2_000_000_000 };
  const token = signPlaybackToken(key, grant);
  const now = 1_900_000_000;

  it('verify for the file and device they were signed for, until they expire', () => {
    assert.deepEqual(verifyPlaybackToken(key, token, 7, 'tv', now), { ok: true, grant });
    assert.deepEqual(verifyPlaybackToken(key, token, 7, 'tv', 2_000_000_000), {
      ok: false,
      reason: 'expired',
    });
  });
  const refused: [string, () => ReturnType<typeof verifyPlaybackToken>, string][] = [
    ['another file', () => verifyPlaybackToken(key, token, 8, 'tv', now), 'forged'],
    ['another device', () => verifyPlaybackToken(key, token, 7, 'web', now), 'forged'],
    ['another key', () => verifyPlaybackToken('x'.repeat(43), token, 7, 'tv', now), 'forged'],
    [
      'a longer expiry written in',
      () => verifyPlaybackToken(key, token.replace(/^\d+/, '2100000000'), 7, 'tv', now),
      'forged',
    ],
    ['garbage', () => verifyPlaybackToken(key, 'not-a-token', 7, 'tv', now), 'malformed'],
    ['empty', () => verifyPlaybackToken(key, '', 7, 'tv', now), 'malformed'],
  ];
  for (const [name, check, reason] of refused) {
    it(`refuses ${name}`, () => assert.deepEqual(check(), { ok: false, reason }));
  }
});
