import type { Clock } from '../../adapters/clock.ts';
import type { PasswordHasher } from '../../adapters/password-hasher.ts';
import type { SessionPolicy } from '../../domain/people/session-life.ts';
import type { ApiKeyRepository } from '../../repositories/api-key.repository.ts';
import type { SessionRepository } from '../../repositories/session.repository.ts';
import type { UserRepository } from '../../repositories/user.repository.ts';
import { ApiKeyService } from './api-key.service.ts';
import { AuthenticationService } from './authentication.service.ts';
import { PeopleCache } from './people-cache.ts';
import { SessionService } from './session.service.ts';
import { SignInGuard } from './sign-in-guard.ts';
import { AttemptLimiter } from '../../adapters/attempt-limiter.ts';
import type { UnitOfWork } from '../../repositories/unit-of-work.ts';
import { UserService } from './user.service.ts';

export interface AuthenticationDeps {
  users: UserRepository;
  keys: ApiKeyRepository;
  sessions: SessionRepository;
  hasher: PasswordHasher;
  guard: SignInGuard;
  clock: Clock;
  adminToken: string;
  policy: SessionPolicy;
  /** SQLite's data_version: moves when another process (the CLI) commits. */
  externalVersion: () => number;
  /** Subscribes to every in-process write to users, sessions and api_keys (db/people-writes.ts). */
  onPeopleWrite?: (listener: () => void) => void;
}

/**
 * Keys, sessions and authentication around ONE PeopleCache: sessions, keys and people in memory,
 * forgotten by any write to them in this process and by another process's commit (data_version).
 */
export function buildAuthentication(deps: AuthenticationDeps): {
  keys: ApiKeyService;
  sessions: SessionService;
  authentication: AuthenticationService;
} {
  const cache = new PeopleCache(deps.externalVersion);
  deps.onPeopleWrite?.(() => cache.forgetAll());
  const keys = new ApiKeyService(deps.keys, deps.users, deps.clock, cache);
  const sessions = new SessionService({ ...deps, cache });
  const authentication = new AuthenticationService(
    deps.users,
    keys,
    deps.guard,
    deps.adminToken,
    sessions,
    cache,
  );
  return { keys, sessions, authentication };
}

export interface PeopleDeps extends Omit<AuthenticationDeps, 'guard'> {
  /** People and their sessions change together (UserServiceDeps.store). */
  userStore: UnitOfWork<{ users: UserRepository; sessions: SessionRepository }>;
  /** REELSHELF_CERTIFICATION_COUNTRY: the system limits are written in. */
  country: string;
}

/**
 * The household's people: one guard counts failed sign-ins, PINs and bearer tokens per address and per
 * account (a minute's window each), keys, sessions and authentication around one cache, and the
 * people service, whose writes make authentication read the admin token's person again.
 */
export function buildPeople(
  deps: PeopleDeps,
): ReturnType<typeof buildAuthentication> & { people: UserService; guard: SignInGuard } {
  const nowMs = () => deps.clock.now().getTime();
  const guard = new SignInGuard(new AttemptLimiter(60_000, nowMs), new AttemptLimiter(60_000, nowMs));
  const built = buildAuthentication({ ...deps, guard });
  const people = new UserService({
    users: deps.users,
    store: deps.userStore,
    hasher: deps.hasher,
    clock: deps.clock,
    country: deps.country,
    changed: () => built.authentication.forgetPeople(),
  });
  return { ...built, people, guard };
}
