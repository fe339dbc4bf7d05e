import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { signPlaybackToken, verifyPlaybackToken } from '../../src/domain/playback-token.ts';
import { PlaybackTokenService } from '../../src/services/playback/playback-token.service.ts';

describe('playback tokens', () => {
  const key = 'k'.repeat(43);
  const holder = { userId: 4, credential: { kind: 'session', id: 17 } } as const;
  const grant = { mediaFileId: 7, device: 'tv', expiresAt: 2_000_000_000, holder };
  const token = signPlaybackToken(key, grant);
  const now = 1_900_000_000;

  it('carry the person and the credential, versioned (v2)', () => {
    assert.match(token, /^v2\.4\.s17\.2000000000\.[\w-]{43}$/);
    const admin = signPlaybackToken(key, {
      ...grant,
      holder: { userId: 1, credential: { kind: 'admin-token', id: null } },
    });
    assert.match(admin, /^v2\.1\.a-\.2000000000\./);
    assert.deepEqual(verifyPlaybackToken(key, admin, 7, 'tv', now), {
      ok: true,
      grant: { ...grant, holder: { userId: 1, credential: { kind: 'admin-token', id: null } } },
    });
    // A browser session of the sign-in page before sessions are stored has no row id yet.
    const cookie = { userId: 1, credential: { kind: 'session', id: null } } as const;
    const byCookie = signPlaybackToken(key, { ...grant, holder: cookie });
    assert.match(byCookie, /^v2\.1\.s-\./);
    assert.deepEqual(verifyPlaybackToken(key, byCookie, 7, 'tv', now), {
      ok: true,
      grant: { ...grant, holder: cookie },
    });
    const byKey = signPlaybackToken(key, {
      ...grant,
      holder: { userId: 2, credential: { kind: 'key', id: 3 } },
    });
    assert.match(byKey, /^v2\.2\.k3\./);
  });

  it('verify for the file and device they were signed for, until they expire, and say for whom', () => {
    assert.deepEqual(verifyPlaybackToken(key, token, 7, 'tv', now), { ok: true, grant });
    assert.deepEqual(verifyPlaybackToken(key, token, 7, 'tv', 2_000_000_000), {
      ok: false,
      reason: 'expired',
    });
  });
  const v1 = `2000000000.${'A'.repeat(43)}`;
  const refused: [string, () => ReturnType<typeof verifyPlaybackToken>, string][] = [
    ['another file', () => verifyPlaybackToken(key, token, 8, 'tv', now), 'forged'],
    ['another device', () => verifyPlaybackToken(key, token, 7, 'web', now), 'forged'],
    ['another key', () => verifyPlaybackToken('x'.repeat(43), token, 7, 'tv', now), 'forged'],
    [
      'a longer expiry written in',
      () => verifyPlaybackToken(key, token.replace('.2000000000.', '.2100000000.'), 7, 'tv', now),
      'forged',
    ],
    [
      'another person written in',
      () => verifyPlaybackToken(key, token.replace('v2.4.', 'v2.5.'), 7, 'tv', now),
      'forged',
    ],
    [
      'another session written in',
      () => verifyPlaybackToken(key, token.replace('.s17.', '.s18.'), 7, 'tv', now),
      'forged',
    ],
    [
      'a key instead of the session written in',
      () => verifyPlaybackToken(key, token.replace('.s17.', '.k17.'), 7, 'tv', now),
      'forged',
    ],
    [
      'the admin token instead of the session written in',
      () => verifyPlaybackToken(key, token.replace('.s17.', '.a-.'), 7, 'tv', now),
      'forged',
    ],
    [
      'the session id taken out',
      () => verifyPlaybackToken(key, token.replace('.s17.', '.s-.'), 7, 'tv', now),
      'forged',
    ],
    [
      'the admin token with an id',
      () => verifyPlaybackToken(key, token.replace('.s17.', '.a17.'), 7, 'tv', now),
      'malformed',
    ],
    ['the first format (no person)', () => verifyPlaybackToken(key, v1, 7, 'tv', now), 'outdated'],
    ['garbage', () => verifyPlaybackToken(key, 'not-a-token', 7, 'tv', now), 'malformed'],
    ['empty', () => verifyPlaybackToken(key, '', 7, 'tv', now), 'malformed'],
  ];
  for (const [name, check, reason] of refused) {
    it(`refuses ${name}`, () => assert.deepEqual(check(), { ok: false, reason }));
  }
});

describe('PlaybackTokenService: stops', () => {
  let nowMs = Date.parse('2030-01-01T10:20:00Z');
  const tokens = new PlaybackTokenService('k'.repeat(43), { now: () => new Date(nowMs) });
  const anna = { userId: 2, credential: { kind: 'session', id: 5 } } as const;
  const ben = { userId: 3, credential: { kind: 'session', id: 6 } } as const;

  it('the same URL for a whole hour (the listing cache relies on it)', () => {
    const first = tokens.sign(7, 'web', anna);
    nowMs += 30 * 60_000;
    assert.equal(tokens.sign(7, 'web', anna), first);
  });

  it("a stop ends that credential's tokens of that file, and no one else's; a token signed after it plays", () => {
    const before = tokens.sign(7, 'web', anna);
    const otherFile = tokens.sign(8, 'web', anna);
    const otherPerson = tokens.sign(7, 'web', ben);
    tokens.stop(anna, 7);
    assert.deepEqual(tokens.verify(before, 7, 'web'), { ok: false, reason: 'stopped' });
    assert.equal(tokens.verify(otherFile, 8, 'web').ok, true, 'another file of the same person plays on');
    assert.equal(tokens.verify(otherPerson, 7, 'web').ok, true, 'another person plays on');
    const after = tokens.sign(7, 'web', anna);
    assert.notEqual(after, before, 'a new URL, past the stop');
    assert.equal(tokens.verify(after, 7, 'web').ok, true);
    // A second stop ends the tokens handed out since the first too.
    tokens.stop(anna, 7);
    assert.deepEqual(tokens.verify(after, 7, 'web'), { ok: false, reason: 'stopped' });
    assert.equal(tokens.verify(tokens.sign(7, 'web', anna), 7, 'web').ok, true);
  });
});
