import type { Clock } from '../../adapters/clock.ts';
import type { PasswordHasher } from '../../adapters/password-hasher.ts';
import { isRole, ROLES, type Role } from '../../domain/people/access.ts';
import {
  defaultAllowUnrated,
  leavesNoAdmin,
  limitProblem,
  passwordProblem,
  personName,
  pinProblem,
  PASSWORD_MIN_LENGTH,
} from '../../domain/people/accounts.ts';
import { AppError, notFound, validationFailed } from '../../errors.ts';
import type { SessionRepository } from '../../repositories/session.repository.ts';
import type { UnitOfWork } from '../../repositories/unit-of-work.ts';
import type { UserRepository, UserRow } from '../../repositories/user.repository.ts';

/** A person as the API shows them (never a hash). */
export interface UserView {
  id: number;
  name: string;
  role: Role;
  max_certification: string | null;
  allow_unrated: boolean;
  has_pin: boolean;
  has_password: boolean;
  created_at: string;
}

export interface CreateUserInput {
  name: string;
  password: string;
  role: string;
  max_certification?: string | null;
  allow_unrated?: boolean;
}

export interface UpdateUserInput {
  name?: string;
  password?: string;
  role?: string;
  max_certification?: string | null;
  allow_unrated?: boolean;
}

export function userView(row: UserRow): UserView {
  return {
    id: row.id,
    name: row.name,
    role: isRole(row.role) ? row.role : 'child',
    max_certification: row.max_certification,
    allow_unrated: row.allow_unrated === 1,
    has_pin: row.pin_hash !== null,
    has_password: row.password_hash !== null,
    created_at: row.created_at,
  };
}

export interface UserServiceDeps {
  users: UserRepository;
  /** People and their sessions change together (a new password signs the person out everywhere). */
  store: UnitOfWork<{ users: UserRepository; sessions: SessionRepository }>;
  hasher: PasswordHasher;
  clock: Clock;
  /** REELSHELF_CERTIFICATION_COUNTRY: the system limits are written in. */
  country: string;
  /** Called after a person is added, changed or removed (the admin token's person is read again). */
  changed?: () => void;
}

function roleOf(value: string): Role {
  if (!isRole(value))
    throw validationFailed(
      'role',
      `must be one of ${ROLES.join(', ')}`,
      'admin: everything; member: library, playback, barcodes and imports; child: library and playback within a content limit.',
    );
  return value;
}

function checkedPassword(password: string): string {
  const problem = passwordProblem(password);
  if (problem !== null)
    throw validationFailed(
      'password',
      problem,
      `Use at least ${PASSWORD_MIN_LENGTH} characters; a few unrelated words are easy to remember and hard to guess.`,
    );
  return password;
}

function nameTaken(name: string): AppError {
  return new AppError('conflict', {
    message: `There is already a person named "${name}".`,
    hint: 'Names are unique whatever their case; choose another.',
    extra: { field: 'name' },
  });
}

function lastAdmin(what: string): AppError {
  return new AppError('last_admin', {
    message: `${what} would leave the household without an admin.`,
    hint: 'Make another person an admin first.',
  });
}

/** The household's people: who they are, their role, password, content limit and PIN (issue 22 §1). */
export class UserService {
  constructor(private readonly deps: UserServiceDeps) {}

  async list(): Promise<UserView[]> {
    return (await this.deps.users.list()).map(userView);
  }

  async get(id: number): Promise<UserView> {
    const row = await this.deps.users.getById(id);
    if (row === undefined) throw notFound('person', id);
    return userView(row);
  }

  /** The person named `name` (any case), or null. */
  async findByName(name: string): Promise<UserView | null> {
    const parsed = personName(name);
    if ('problem' in parsed) return null;
    const row = await this.deps.users.getByNameKey(parsed.key);
    return row === undefined ? null : userView(row);
  }

  private checkedLimit(role: Role, max: string | null): string | null {
    const problem = limitProblem(role, max, this.deps.country);
    if (problem !== null)
      throw validationFailed(
        'max_certification',
        problem,
        `A certification of ${this.deps.country.toUpperCase()} (REELSHELF_CERTIFICATION_COUNTRY), such as PG.`,
      );
    return max === null ? null : max.trim();
  }

  /** Adds a person; a refused request writes nothing. */
  async create(input: CreateUserInput): Promise<UserView> {
    const parsed = personName(input.name);
    if ('problem' in parsed) throw validationFailed('name', parsed.problem);
    const role = roleOf(input.role);
    const max = this.checkedLimit(role, input.max_certification ?? null);
    const hash = await this.deps.hasher.hash(checkedPassword(input.password));
    const now = this.deps.clock.now().toISOString();
    const created = await this.deps.store.transaction(async ({ users }) => {
      if ((await users.getByNameKey(parsed.key)) !== undefined) throw nameTaken(parsed.name);
      const row = await users.insert({
        name: parsed.name,
        name_key: parsed.key,
        password_hash: hash,
        role,
        max_certification: max,
        allow_unrated: (input.allow_unrated ?? defaultAllowUnrated(role)) ? 1 : 0,
        pin_hash: null,
        pin_failures: 0,
        pin_locked_until: null,
        created_at: now,
        updated_at: now,
      });
      return userView(row);
    });
    this.deps.changed?.();
    return created;
  }

  /**
   * Changes a person. A new password signs them out of every session; a change of role keeps an
   * admin in the household; a child keeps a limit its country's system knows. All or nothing.
   */
  async update(id: number, input: UpdateUserInput): Promise<UserView> {
    const parsed = input.name === undefined ? null : personName(input.name);
    if (parsed !== null && 'problem' in parsed) throw validationFailed('name', parsed.problem);
    const newRole = input.role === undefined ? undefined : roleOf(input.role);
    const hash =
      input.password === undefined ? undefined : await this.deps.hasher.hash(checkedPassword(input.password));
    const now = this.deps.clock.now().toISOString();
    const updated = await this.deps.store.transaction(async ({ users, sessions }) => {
      const row = await users.getById(id);
      if (row === undefined) throw notFound('person', id);
      const before = roleOf(row.role);
      const role = newRole ?? before;
      if (leavesNoAdmin(await users.countAdmins(), before, role))
        throw lastAdmin(`Making ${row.name} a ${role}`);
      let max = input.max_certification === undefined ? row.max_certification : input.max_certification;
      // An admin has no limit: a promotion drops the one the person had.
      if (role === 'admin' && input.max_certification === undefined) max = null;
      max = this.checkedLimit(role, max);
      if (parsed !== null && parsed.key !== row.name_key) {
        if ((await users.getByNameKey(parsed.key)) !== undefined) throw nameTaken(parsed.name);
      }
      const allowUnrated =
        input.allow_unrated ??
        (newRole !== undefined && newRole !== before ? defaultAllowUnrated(role) : row.allow_unrated === 1);
      await users.update(id, {
        ...(parsed === null ? {} : { name: parsed.name, name_key: parsed.key }),
        ...(hash === undefined ? {} : { password_hash: hash }),
        role,
        max_certification: max,
        allow_unrated: allowUnrated ? 1 : 0,
        // An admin switches in with a password only (domain/people/switching.ts): no PIN.
        ...(role === 'admin' ? { pin_hash: null, pin_failures: 0, pin_locked_until: null } : {}),
        updated_at: now,
      });
      if (hash !== undefined) await sessions.revokeAllOf(id, now);
      const after = await users.getById(id);
      if (after === undefined) throw notFound('person', id);
      return userView(after);
    });
    this.deps.changed?.();
    return updated;
  }

  /** Removes a person with their sessions, keys, watch state and history; never the last admin. */
  async remove(id: number): Promise<void> {
    await this.deps.store.transaction(async ({ users }) => {
      const row = await users.getById(id);
      if (row === undefined) throw notFound('person', id);
      if (leavesNoAdmin(await users.countAdmins(), roleOf(row.role), null))
        throw lastAdmin(`Removing ${row.name}`);
      await users.delete(id);
    });
    this.deps.changed?.();
  }

  /** Sets (or with null removes) a member's or child's 4-digit PIN; a new PIN starts with no failures. */
  async setPin(id: number, pin: string | null): Promise<void> {
    const row = await this.deps.users.getById(id);
    if (row === undefined) throw notFound('person', id);
    let hash: string | null = null;
    if (pin !== null) {
      const problem = pinProblem(pin);
      if (problem !== null) throw validationFailed('pin', problem, 'Four digits, such as 4711.');
      if (row.role === 'admin')
        throw new AppError('forbidden', {
          message: 'An admin has no PIN: switching to an admin takes the admin’s password.',
          hint: 'Sign in with the name and password instead.',
        });
      hash = await this.deps.hasher.hash(pin);
    }
    await this.deps.users.update(id, {
      pin_hash: hash,
      pin_failures: 0,
      pin_locked_until: null,
      updated_at: this.deps.clock.now().toISOString(),
    });
  }
}
