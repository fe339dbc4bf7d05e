import type { Clock } from '../../adapters/clock.ts';
import type { PasswordHasher } from '../../adapters/password-hasher.ts';
import { isRole } from '../../domain/people/access.ts';
import { nameKey } from '../../domain/people/accounts.ts';
import { afterWrongPin, FREE_PIN_FAILURES, pinPauseSeconds } from '../../domain/people/pin-lock.ts';
import type { Principal } from '../../domain/people/principal.ts';
import { needsTouch, type SessionPolicy, sessionStatus } from '../../domain/people/session-life.ts';
import { switchDecision } from '../../domain/people/switching.ts';
import { AppError, validationFailed } from '../../errors.ts';
import type { SessionRepository, SessionRow } from '../../repositories/session.repository.ts';
import type { UserRepository, UserRow } from '../../repositories/user.repository.ts';
import { principalFromUser } from './principals.ts';
import { deriveKey, hmac, newSecret, sameSecret, secretHash } from './secrets.ts';
import { DeferredWrites } from './deferred-writes.ts';
import { PeopleCache } from './people-cache.ts';
import { type SignInGuard, tooMany } from './sign-in-guard.ts';

/** Who is signing in, from where (the address as Fastify's trustProxy reads it). */
export interface SignInInput {
  name: string;
  password: string;
  address: string;
  userAgent: string | null;
}

/** An app signing in (a Jellyfin client): its own names, from its MediaBrowser header. */
export interface DeviceSignInInput extends SignInInput {
  appName: string | null;
  deviceName: string | null;
}

export interface SignedIn {
  /** The cookie's value: shown to the browser once, kept only as its SHA-256. */
  secret: string;
  session: SessionRow;
  user: UserRow;
}

export interface SessionServiceDeps {
  users: UserRepository;
  sessions: SessionRepository;
  hasher: PasswordHasher;
  guard: SignInGuard;
  clock: Clock;
  /** The data dir's admin token: the first admin's password while it has none (and after). */
  adminToken: string;
  policy: SessionPolicy;
  /** Sessions and people kept in memory (shared with ApiKeyService and AuthenticationService). */
  cache?: PeopleCache;
  /** A `last_seen_at` write that failed (it is dropped: it records a use only). */
  onTouchError?: (err: unknown) => void;
}

/** Cookie secrets are 32 random bytes in base64url; anything else is not looked up. */
const SECRET_FORMAT = /^[A-Za-z0-9_-]{43}$/;

function unauthorized(message: string): AppError {
  return new AppError('unauthorized', {
    message,
    hint: 'Check the name and password. The first admin may use the admin token (data dir file api-token) as the password.',
  });
}

/**
 * Browser sessions kept in the database (issue 22 §5): the cookie holds a random secret, the row its
 * SHA-256, so a revocation (sign-out, sign-out everywhere, a new password) holds across restarts.
 * A browser session ends after the idle time without a request and at its absolute expiry. The CSRF
 * token of a session is an HMAC of its id under a key derived from the admin token.
 */
export class SessionService {
  private readonly csrfKey: Buffer;
  private dummyHash: Promise<string> | null = null;
  private readonly cache: PeopleCache;
  /** `last_seen_at` writes, made after the request answered (never behind a transaction). */
  private readonly touches: DeferredWrites<number, string>;

  constructor(private readonly deps: SessionServiceDeps) {
    this.csrfKey = deriveKey(deps.adminToken, 'reelshelf session key v1');
    this.cache = deps.cache ?? new PeopleCache();
    this.touches = new DeferredWrites((id, at) => deps.sessions.touch(id, at), deps.onTouchError);
  }

  /** Waits for the `last_seen_at` writes still pending (before the database closes). */
  settle(): Promise<void> {
    return this.touches.settle();
  }

  /** A row read from the database, with the use not yet written back (so idle time stays exact). */
  private withPendingTouch(row: SessionRow | undefined): SessionRow | undefined {
    const pending = row === undefined ? undefined : this.touches.pendingFor(row.id);
    return row === undefined || pending === undefined || pending <= row.last_seen_at
      ? row
      : { ...row, last_seen_at: pending };
  }

  private sessionByHash(hash: string): Promise<SessionRow | undefined> {
    return this.cache.sessionByHash(hash, async () =>
      this.withPendingTouch(await this.deps.sessions.getBySecretHash(hash)),
    );
  }

  private sessionById(id: number): Promise<SessionRow | undefined> {
    return this.cache.sessionById(id, async () =>
      this.withPendingTouch(await this.deps.sessions.getById(id)),
    );
  }

  private user(id: number): Promise<UserRow | undefined> {
    return this.cache.user(id, () => this.deps.users.getById(id));
  }

  private nowMs(): number {
    return this.deps.clock.now().getTime();
  }

  /**
   * Checks a name and password (or the admin token for the first admin) and opens a session.
   * Failures are counted per address and per name (SignInGuard) and answered 401; the caller logs.
   */
  async signIn(input: SignInInput): Promise<SignedIn> {
    return this.open(await this.checked(input), input, 'browser');
  }

  /**
   * Signs in an app that keeps a token (a Jellyfin client): the same checks and limits as
   * `signIn`, then a device session — no idle end and no expiry (the apps have no way to sign in
   * again by themselves), listed with the app and device names, ended only by a revocation.
   */
  async signInDevice(input: DeviceSignInInput): Promise<SignedIn> {
    return this.open(await this.checked(input), input, 'device');
  }

  /** The person a name and password name, within the failure limits (SignInGuard); else 401. */
  private async checked(input: SignInInput) {
    const account = nameKey(input.name);
    this.deps.guard.check(input.address, account === '' ? null : account);
    const user = await this.verify(account, input.password);
    if (user === null) {
      await this.deps.guard.failed(input.address, account === '' ? null : account);
      throw unauthorized('The name or password is not right.');
    }
    return user;
  }

  private async verify(account: string, password: string): Promise<UserRow | null> {
    const first = await this.deps.users.firstAdmin();
    if (first !== undefined && (account === '' || account === first.name_key)) {
      if (sameSecret(password, this.deps.adminToken)) return first;
    }
    if (account === '') return null;
    const user = await this.deps.users.getByNameKey(account);
    if (user?.password_hash == null) {
      // The same work as a real check, so the answer's time does not tell which names exist.
      this.dummyHash ??= this.deps.hasher.hash(newSecret());
      await this.deps.hasher.verify(await this.dummyHash, password);
      return null;
    }
    return (await this.deps.hasher.verify(user.password_hash, password)) ? user : null;
  }

  private async open(
    user: UserRow,
    input: SignInInput | DeviceSignInInput,
    kind: 'browser' | 'device',
  ): Promise<SignedIn> {
    const secret = newSecret();
    const now = this.nowMs();
    const session = await this.deps.sessions.insert({
      user_id: user.id,
      secret_hash: secretHash(secret),
      kind,
      created_at: new Date(now).toISOString(),
      last_seen_at: new Date(now).toISOString(),
      expires_at: kind === 'device' ? null : new Date(now + this.deps.policy.maxMs).toISOString(),
      revoked_at: null,
      address: input.address,
      user_agent: input.userAgent?.slice(0, 300) ?? null,
      app_name: 'appName' in input ? (input.appName?.slice(0, 100) ?? null) : null,
      device_name: 'deviceName' in input ? (input.deviceName?.slice(0, 100) ?? null) : null,
    });
    return { secret, session, user };
  }

  /**
   * The live session a cookie secret opens and its person, or null. Read from memory (PeopleCache)
   * once known; the idle and absolute expiry are checked against this request's clock. A use moves
   * `last_seen_at` once a minute: in memory at once, in the database after the answer.
   */
  async authenticate(secret: string): Promise<{ session: SessionRow; principal: Principal } | null> {
    if (!SECRET_FORMAT.test(secret)) return null;
    const session = await this.sessionByHash(secretHash(secret));
    if (session === undefined) return null;
    const now = this.nowMs();
    if (sessionStatus(session, now, this.deps.policy) !== 'active') return null;
    const user = await this.user(session.user_id);
    if (user === undefined) return null;
    if (needsTouch(session.last_seen_at, now)) {
      session.last_seen_at = new Date(now).toISOString();
      this.touches.schedule(session.id, session.last_seen_at);
    }
    return {
      session,
      principal: principalFromUser(user, { kind: 'session', id: session.id, scope: 'full' }),
    };
  }

  /** Whether session `id` still holds (not signed out, not expired): playback tokens made from it ask. */
  async isLive(id: number): Promise<boolean> {
    const session = await this.sessionById(id);
    return session !== undefined && sessionStatus(session, this.nowMs(), this.deps.policy) === 'active';
  }

  /**
   * Whether session `id` still speaks for `userId` and is neither revoked nor past its absolute
   * expiry: a playback token made from it asks on every stream request (a playing film keeps no
   * page open, so the idle time does not end its stream).
   */
  async holdsFor(id: number, userId: number): Promise<boolean> {
    const session = await this.sessionById(id);
    if (session === undefined || session.user_id !== userId) return false;
    const status = sessionStatus(session, this.nowMs(), this.deps.policy);
    return status === 'active' || status === 'idle';
  }

  csrfToken(session: Pick<SessionRow, 'id' | 'created_at'>): string {
    return hmac(this.csrfKey, `csrf.${session.id}.${session.created_at}`);
  }

  csrfValid(session: Pick<SessionRow, 'id' | 'created_at'>, given: string): boolean {
    return sameSecret(given, this.csrfToken(session));
  }

  async signOut(sessionId: number): Promise<void> {
    try {
      await this.deps.sessions.revoke(sessionId, this.deps.clock.now().toISOString());
    } finally {
      this.cache.forgetSession(sessionId);
    }
  }

  /** Revokes every session of the person (every browser and app signed in as them); returns how many. */
  async signOutEverywhere(userId: number): Promise<number> {
    try {
      return await this.deps.sessions.revokeAllOf(userId, this.deps.clock.now().toISOString());
    } finally {
      this.cache.forgetSessionsOf(userId);
    }
  }

  /**
   * Quick switching (issue 22 §6): the session `principal` signed in with now speaks for `target`
   * (an id or a name), by the rule of domain/people/switching.ts. A profile with a PIN takes it,
   * five wrong ones pause the profile (1 min, then doubling); wrong PINs count for the address too.
   */
  async switchTo(
    principal: Principal,
    target: number | string,
    pin: string | null,
    address: string,
  ): Promise<UserRow> {
    if (principal.credential.kind !== 'session' || principal.credential.id === null) {
      throw new AppError('forbidden', {
        message:
          'Only a signed-in session switches person; a key or the admin token has no session to switch.',
        hint: 'Sign in on this device first (POST /api/sessions or the sign-in page).',
      });
    }
    const user =
      typeof target === 'number'
        ? await this.deps.users.getById(target)
        : await this.deps.users.getByNameKey(nameKey(target));
    if (user === undefined || !isRole(user.role)) {
      throw new AppError('not_found', {
        message: `No person ${typeof target === 'number' ? `with id ${target}` : `named "${target}"`}.`,
      });
    }
    if (user.id === principal.userId) return user;
    const decision = switchDecision(principal.role, { role: user.role, hasPin: user.pin_hash !== null });
    if (decision === 'refused') {
      throw new AppError('forbidden', {
        message:
          user.role === 'admin'
            ? `Switching to ${user.name} takes ${user.name}'s password.`
            : `${user.name} has no PIN, and a ${principal.role} may not switch to them without one.`,
        hint:
          user.role === 'admin'
            ? 'Sign out and sign in as them.'
            : `${user.name} can set a PIN (PUT /api/me/pin), or an admin can switch.`,
      });
    }
    if (decision === 'needs_pin') await this.checkPin(user, pin, address);
    try {
      await this.deps.sessions.switchUser(
        principal.credential.id,
        user.id,
        this.deps.clock.now().toISOString(),
      );
    } finally {
      this.cache.forgetSession(principal.credential.id);
    }
    return user;
  }

  private async checkPin(user: UserRow, pin: string | null, address: string): Promise<void> {
    if (pin === null)
      throw validationFailed('pin', `${user.name}'s profile has a PIN`, 'Send {"pin": "1234"}.');
    const now = this.nowMs();
    const pause = pinPauseSeconds(user.pin_locked_until, now);
    if (pause !== null) throw tooMany(pause * 1000, `with ${user.name}'s PIN`);
    this.deps.guard.check(address, null);
    if (user.pin_hash !== null && (await this.deps.hasher.verify(user.pin_hash, pin))) {
      if (user.pin_failures > 0)
        await this.deps.users.update(user.id, { pin_failures: 0, pin_locked_until: null });
      return;
    }
    await this.deps.guard.failed(address, null);
    const failures = await this.deps.users.incrementPinFailures(user.id);
    const next = afterWrongPin(failures - 1, now);
    if (next.lockedUntil !== null) {
      await this.deps.users.update(user.id, { pin_locked_until: next.lockedUntil });
      throw tooMany(Date.parse(next.lockedUntil) - now, `with ${user.name}'s PIN`);
    }
    throw new AppError('forbidden', {
      message: `That is not ${user.name}'s PIN.`,
      hint: `${FREE_PIN_FAILURES - next.failures} more wrong PIN(s), then the profile pauses for a minute.`,
      extra: { attempts_left: FREE_PIN_FAILURES - next.failures },
    });
  }
}
