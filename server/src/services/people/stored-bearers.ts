import { createHash } from 'node:crypto';
import { type Clock, isoNow } from '../../adapters/clock.ts';
import { isKeyScope } from '../../domain/people/access.ts';
import type { Principal } from '../../domain/people/principal.ts';
import type { CredentialRepository } from '../../repositories/credential.repository.ts';
import type { UserRepository } from '../../repositories/user.repository.ts';
import { principalFromUser } from './authentication.service.ts';

/**
 * STOPGAP until the people/auth part of issue 22 lands (it owns sign-in, sessions and keys and
 * replaces this): a bearer that is a stored session's secret or a stored key (SHA-256 hex in
 * `sessions.secret_hash` / `api_keys.key_hash`, as migration 0006 stores them) signs in as its
 * person, so playback tokens can be made for, and ended with, a real session or key.
 */
export class StoredBearers {
  constructor(
    private readonly credentials: Pick<CredentialRepository, 'byBearerHash'>,
    private readonly users: Pick<UserRepository, 'getById'>,
    private readonly clock: Clock,
  ) {}

  async principal(bearer: string): Promise<Principal | null> {
    const hash = createHash('sha256').update(bearer).digest('hex');
    const found = await this.credentials.byBearerHash(hash, isoNow(this.clock));
    if (found === undefined) return null;
    const user = await this.users.getById(found.user_id);
    if (user === undefined) return null;
    const scope = found.kind === 'session' ? 'full' : isKeyScope(found.scope) ? found.scope : null;
    if (scope === null) return null;
    return principalFromUser(user, { kind: found.kind, id: found.id, scope });
  }
}
