// The pure rules of people, sessions, PINs, switching and keys (domain/people), and the failure
// counting behind the sign-in limits (adapters/attempt-limiter.ts + services/people/sign-in-guard.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AttemptLimiter } from '../../../src/adapters/attempt-limiter.ts';
import { Argon2PasswordHasher } from '../../../src/adapters/password-hasher.ts';
import { permits } from '../../../src/domain/people/access.ts';
import {
  leavesNoAdmin,
  limitProblem,
  passwordProblem,
  personName,
  pinProblem,
} from '../../../src/domain/people/accounts.ts';
import { keyGrantProblem, looksLikeKey } from '../../../src/domain/people/api-keys.ts';
import { afterWrongPin, pinPauseSeconds } from '../../../src/domain/people/pin-lock.ts';
import { needsTouch, sessionStatus } from '../../../src/domain/people/session-life.ts';
import { switchDecision } from '../../../src/domain/people/switching.ts';
import { AppError } from '../../../src/errors.ts';
import { SignInGuard } from '../../../src/services/people/sign-in-guard.ts';

describe('people: names, passwords, PINs, limits, the last admin', () => {
  it('names are trimmed, 1–64 characters, folded for uniqueness', () => {
    assert.deepEqual(personName('  Anna '), { name: 'Anna', key: 'anna' });
    assert.deepEqual(personName('ÉMILE'), { name: 'ÉMILE', key: 'émile' });
    for (const bad of ['', '   ', 'x'.repeat(65), 'a\u0000b']) assert.ok('problem' in personName(bad), bad);
    assert.ok(!('problem' in personName('x'.repeat(64))));
  });

  it('passwords need 10 characters; PINs exactly 4 digits', () => {
    assert.equal(passwordProblem('123456789'), 'must be at least 10 characters');
    assert.equal(passwordProblem('1234567890'), null);
    assert.notEqual(passwordProblem('x'.repeat(1025)), null);
    for (const [pin, ok] of [
      ['1234', true],
      ['0000', true],
      ['123', false],
      ['12345', false],
      ['12a4', false],
      ['١٢٣٤', false],
    ] as const)
      assert.equal(pinProblem(pin) === null, ok, pin);
  });

  it('a child needs a certification its country knows; an admin has none', () => {
    const cases: [Parameters<typeof limitProblem>, boolean][] = [
      [['child', null, 'US'], false],
      [['child', 'PG', 'US'], true],
      [['child', 'pg-13', 'US'], true],
      [['child', '12A', 'US'], false],
      [['child', '12A', 'GB'], true],
      [['member', null, 'US'], true],
      [['member', 'R', 'US'], true],
      [['admin', 'PG', 'US'], false],
      [['admin', null, 'US'], true],
    ];
    for (const [args, ok] of cases) assert.equal(limitProblem(...args) === null, ok, args.join(' '));
  });

  it('the last admin cannot be removed or demoted', () => {
    assert.equal(leavesNoAdmin(1, 'admin', null), true);
    assert.equal(leavesNoAdmin(1, 'admin', 'member'), true);
    assert.equal(leavesNoAdmin(1, 'admin', 'admin'), false);
    assert.equal(leavesNoAdmin(2, 'admin', null), false);
    assert.equal(leavesNoAdmin(1, 'member', null), false);
  });
});

describe('sessions: idle and absolute expiry', () => {
  const policy = { idleMs: 12 * 3_600_000, maxMs: 30 * 86_400_000 };
  const t0 = Date.UTC(2026, 0, 1);
  const at = (ms: number) => new Date(t0 + ms).toISOString();
  it('table', () => {
    const browser = { kind: 'browser', last_seen_at: at(0), expires_at: at(policy.maxMs), revoked_at: null };
    assert.equal(sessionStatus(browser, t0 + 1000, policy), 'active');
    assert.equal(sessionStatus(browser, t0 + policy.idleMs - 1, policy), 'active');
    assert.equal(sessionStatus(browser, t0 + policy.idleMs, policy), 'idle');
    const busy = { ...browser, last_seen_at: at(policy.maxMs - 1000) };
    assert.equal(sessionStatus(busy, t0 + policy.maxMs, policy), 'expired', 'used or not');
    assert.equal(sessionStatus({ ...browser, revoked_at: at(5) }, t0 + 10, policy), 'revoked');
    const device = { kind: 'device', last_seen_at: at(0), expires_at: null, revoked_at: null };
    assert.equal(
      sessionStatus(device, t0 + 365 * 86_400_000, policy),
      'active',
      'a device token does not idle out',
    );
  });
  it('a use is written at most once a minute', () => {
    assert.equal(needsTouch(null, t0), true);
    assert.equal(needsTouch(at(0), t0 + 59_999), false);
    assert.equal(needsTouch(at(0), t0 + 60_000), true);
  });
});

describe('PIN pauses: five free, then 1 min doubling', () => {
  const t0 = Date.UTC(2026, 0, 1);
  it('table', () => {
    const pauses = [0, 1, 2, 3, 4, 5, 6, 7].map((failures) => {
      const next = afterWrongPin(failures, t0);
      return next.lockedUntil === null ? 0 : (Date.parse(next.lockedUntil) - t0) / 60_000;
    });
    assert.deepEqual(pauses, [0, 0, 0, 0, 1, 2, 4, 8]);
    assert.equal((Date.parse(afterWrongPin(40, t0).lockedUntil ?? '') - t0) / 3_600_000, 24, 'at most a day');
    assert.equal(pinPauseSeconds(new Date(t0 + 59_001).toISOString(), t0), 60);
    assert.equal(pinPauseSeconds(new Date(t0 - 1).toISOString(), t0), null);
    assert.equal(pinPauseSeconds(null, t0), null);
  });
});

describe('switching and keys', () => {
  it('switching: never to an admin; a PIN opens a profile; without one only downwards', () => {
    const cases: [Parameters<typeof switchDecision>, string][] = [
      [['admin', { role: 'admin', hasPin: false }], 'refused'],
      [['member', { role: 'admin', hasPin: true }], 'refused'],
      [['child', { role: 'member', hasPin: true }], 'needs_pin'],
      [['admin', { role: 'member', hasPin: false }], 'allowed'],
      [['admin', { role: 'child', hasPin: false }], 'allowed'],
      [['member', { role: 'child', hasPin: false }], 'allowed'],
      [['member', { role: 'member', hasPin: false }], 'refused'],
      [['child', { role: 'child', hasPin: false }], 'refused'],
      [['child', { role: 'member', hasPin: false }], 'refused'],
    ];
    for (const [args, expected] of cases)
      assert.equal(switchDecision(...args), expected, JSON.stringify(args));
  });

  it('keys: recognisable; an admin key only for an admin; others only for themselves', () => {
    assert.equal(looksLikeKey(`rsk_${'a'.repeat(43)}`), true);
    assert.equal(looksLikeKey(`rsk_${'a'.repeat(42)}`), false);
    assert.equal(looksLikeKey('a'.repeat(47)), false);
    const admin = { userId: 1, role: 'admin' as const };
    const member = { userId: 2, role: 'member' as const };
    const child = { userId: 3, role: 'child' as const };
    assert.equal(keyGrantProblem(admin, member, 'playback'), null);
    assert.equal(keyGrantProblem(admin, member, 'admin')?.status, 400);
    assert.equal(keyGrantProblem(admin, admin, 'admin'), null);
    assert.equal(keyGrantProblem(member, member, 'read'), null);
    assert.equal(keyGrantProblem(member, member, 'admin')?.status, 400);
    assert.equal(keyGrantProblem(member, child, 'read')?.status, 403);
    assert.equal(keyGrantProblem(child, child, 'read')?.status, 403);
  });

  it('access "account": every role, never a read or playback key', () => {
    assert.deepEqual(permits('child', 'full', 'account', 'PUT'), { ok: true });
    assert.deepEqual(permits('member', 'admin', 'account', 'POST'), { ok: true });
    assert.deepEqual(permits('admin', 'playback', 'account', 'GET'), { ok: false, reason: 'scope' });
    assert.deepEqual(permits('admin', 'read', 'account', 'GET'), { ok: false, reason: 'scope' });
  });
});

describe('failure limits', () => {
  function guard() {
    let now = Date.UTC(2026, 0, 1);
    const clock = () => now;
    return {
      guard: new SignInGuard(new AttemptLimiter(60_000, clock), new AttemptLimiter(60_000, clock)),
      advance: (ms: number) => (now += ms),
    };
  }
  const refused = (fn: () => void): AppError | null => {
    try {
      fn();
      return null;
    } catch (err) {
      assert.ok(err instanceof AppError);
      return err;
    }
  };

  it('20 failures from an address: 429 with Retry-After for that address, until the minute ends', () => {
    const { guard: g, advance } = guard();
    for (let i = 0; i < 20; i++) {
      assert.equal(
        refused(() => g.check('10.0.0.1', `name${i}`)),
        null,
        `attempt ${i + 1}`,
      );
      g.failed('10.0.0.1', `name${i}`);
    }
    advance(15_000);
    const err = refused(() => g.check('10.0.0.1', 'other'));
    assert.equal(err?.status, 429);
    assert.equal(err?.headers['retry-after'], '45');
    assert.equal(
      refused(() => g.check('10.0.0.2', 'name0')),
      null,
      'another address is heard',
    );
    advance(45_000);
    assert.equal(
      refused(() => g.check('10.0.0.1', 'other')),
      null,
      'a new minute',
    );
  });

  it('10 failures on a name: the addresses that failed wait, a fresh address is heard', () => {
    const { guard: g } = guard();
    for (let i = 0; i < 10; i++) g.failed(`10.0.1.${i % 3}`, 'anna');
    assert.equal(refused(() => g.check('10.0.1.0', 'anna'))?.status, 429);
    assert.equal(
      refused(() => g.check('10.0.1.0', 'bert')),
      null,
      'another name from that address',
    );
    assert.equal(
      refused(() => g.check('192.168.1.5', 'anna')),
      null,
      'the person at home',
    );
  });

  it('the limiter keeps a bounded number of keys', () => {
    const limiter = new AttemptLimiter(60_000, () => 0, 100);
    for (let i = 0; i < 1000; i++) limiter.fail(`name${i}`);
    assert.equal(limiter.window('name0'), null, 'the oldest went');
    assert.equal(limiter.window('name999')?.count, 1);
  });
});

describe('Argon2id hasher', () => {
  it('PHC string with OWASP parameters; verify true/false; garbage is no match', async () => {
    const hasher = new Argon2PasswordHasher();
    const phc = await hasher.hash('correct horse battery');
    assert.match(phc, /^\$argon2id\$v=19\$/);
    assert.match(phc, /m=19456/);
    assert.match(phc, /t=2/);
    assert.match(phc, /p=1/);
    assert.equal(await hasher.verify(phc, 'correct horse battery'), true);
    assert.equal(await hasher.verify(phc, 'correct horse batterY'), false);
    assert.equal(await hasher.verify('not a hash', 'x'), false);
  });
});
