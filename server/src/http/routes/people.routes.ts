import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.ts';
import type { ApiKeyService } from '../../services/people/api-key.service.ts';
import type { SessionService, SignedIn } from '../../services/people/session.service.ts';
import type { UpdateUserInput, UserService } from '../../services/people/user.service.ts';
import { principalOf } from '../principal.ts';
import { isHttps, type SessionCookies } from '../plugins/session.ts';
import { idParams } from '../schemas.ts';

const text = (maxLength: number) => ({ type: 'string', maxLength }) as const;
const certification = { type: ['string', 'null'], maxLength: 20 } as const;
/** A person by id or by name. */
const personRef = { anyOf: [{ type: 'integer', minimum: 1, maximum: 2147483647 }, text(200)] } as const;

const signInBody = {
  type: 'object',
  required: ['name', 'password'],
  additionalProperties: false,
  properties: { name: text(200), password: text(4096) },
} as const;

const createUserBody = {
  type: 'object',
  required: ['name', 'password', 'role'],
  additionalProperties: false,
  properties: {
    name: text(200),
    password: text(4096),
    role: text(20),
    max_certification: certification,
    allow_unrated: { type: 'boolean' },
  },
} as const;

const patchUserBody = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: createUserBody.properties,
} as const;

const pinBody = {
  type: 'object',
  required: ['pin'],
  additionalProperties: false,
  properties: { pin: text(20) },
} as const;

const switchBody = {
  type: 'object',
  required: ['user'],
  additionalProperties: false,
  properties: { user: personRef, pin: text(20) },
} as const;

const createKeyBody = {
  type: 'object',
  required: ['name', 'scope'],
  additionalProperties: false,
  properties: { name: text(200), scope: text(20), user: personRef },
} as const;

/**
 * A sign-in through the session service, with the failure logged: the address and the name tried,
 * never the password (issue 22 §5; fail2ban reads these lines). Used by the API and the page.
 */
export async function signInLogged(
  request: FastifyRequest,
  sessions: SessionService,
  name: string,
  password: string,
): Promise<SignedIn> {
  try {
    return await sessions.signIn({
      name,
      password,
      address: request.ip,
      userAgent: request.headers['user-agent'] ?? null,
    });
  } catch (err) {
    if (err instanceof AppError && (err.code === 'unauthorized' || err.code === 'rate_limited')) {
      request.log.warn(
        { address: request.ip, account: name.slice(0, 200), outcome: err.code },
        'sign-in failed',
      );
    }
    throw err;
  }
}

export interface PeopleRouteDeps {
  users: UserService;
  sessions: SessionService;
  keys: ApiKeyService;
  cookies: SessionCookies;
}

/** People, sessions and keys (issue 22; INTERFACE.md "Authentication"). Access: http/route-access.ts. */
export function registerPeopleRoutes(app: FastifyInstance, deps: PeopleRouteDeps): void {
  const { users, sessions, keys, cookies } = deps;
  const caller = (request: FastifyRequest) => {
    const p = principalOf(request);
    return { userId: p.userId, role: p.role };
  };

  app.post<{ Body: { name: string; password: string } }>(
    '/api/sessions',
    { schema: { body: signInBody } },
    async (request, reply) => {
      const signedIn = await signInLogged(request, sessions, request.body.name, request.body.password);
      reply.header('set-cookie', cookies.setCookie(signedIn.secret, isHttps(request)));
      return {
        user: { id: signedIn.user.id, name: signedIn.user.name, role: signedIn.user.role },
        csrf_token: sessions.csrfToken(signedIn.session),
      };
    },
  );

  const currentSession = (request: FastifyRequest) => {
    const principal = principalOf(request);
    if (principal.credential.kind !== 'session' || principal.credential.id === null) {
      throw new AppError('bad_request', {
        message: 'This request was not made with a session, so there is none to sign out.',
        hint: 'A key is revoked with DELETE /api/keys/{id}.',
      });
    }
    return principal.credential.id;
  };

  app.delete('/api/sessions/current', async (request, reply) => {
    await sessions.signOut(currentSession(request));
    return reply
      .header('set-cookie', cookies.clearCookie(isHttps(request)))
      .code(204)
      .send();
  });

  app.delete('/api/sessions', async (request, reply) => {
    const principal = principalOf(request);
    const revoked = await sessions.signOutEverywhere(principal.userId);
    if (principal.credential.kind === 'session')
      reply.header('set-cookie', cookies.clearCookie(isHttps(request)));
    return { revoked };
  });

  app.post<{ Body: { user: number | string; pin?: string } }>(
    '/api/sessions/switch',
    { schema: { body: switchBody } },
    async (request) => {
      const user = await sessions.switchTo(
        principalOf(request),
        request.body.user,
        request.body.pin ?? null,
        request.ip,
      );
      return { user: { id: user.id, name: user.name, role: user.role } };
    },
  );

  app.get('/api/me', async (request) => {
    const principal = principalOf(request);
    return {
      user: await users.get(principal.userId),
      credential: {
        kind: principal.credential.kind,
        id: principal.credential.id,
        scope: principal.credential.scope,
      },
    };
  });

  app.put<{ Body: { pin: string } }>('/api/me/pin', { schema: { body: pinBody } }, async (request, reply) => {
    await users.setPin(principalOf(request).userId, request.body.pin);
    return reply.code(204).send();
  });

  app.delete('/api/me/pin', async (request, reply) => {
    await users.setPin(principalOf(request).userId, null);
    return reply.code(204).send();
  });

  app.get('/api/users', async () => ({ items: await users.list() }));

  app.post<{
    Body: {
      name: string;
      password: string;
      role: string;
      max_certification?: string | null;
      allow_unrated?: boolean;
    };
  }>('/api/users', { schema: { body: createUserBody } }, async (request, reply) =>
    reply.code(201).send(await users.create(request.body)),
  );

  app.get<{ Params: { id: number } }>('/api/users/:id', { schema: { params: idParams } }, async (request) =>
    users.get(request.params.id),
  );

  app.patch<{ Params: { id: number }; Body: UpdateUserInput }>(
    '/api/users/:id',
    { schema: { params: idParams, body: patchUserBody } },
    async (request) => users.update(request.params.id, request.body),
  );

  app.delete<{ Params: { id: number } }>(
    '/api/users/:id',
    { schema: { params: idParams } },
    async (request, reply) => {
      await users.remove(request.params.id);
      return reply.code(204).send();
    },
  );

  app.delete<{ Params: { id: number } }>(
    '/api/users/:id/pin',
    { schema: { params: idParams } },
    async (request, reply) => {
      await users.setPin(request.params.id, null);
      return reply.code(204).send();
    },
  );

  app.post<{ Body: { name: string; scope: string; user?: number | string } }>(
    '/api/keys',
    { schema: { body: createKeyBody } },
    async (request, reply) => reply.code(201).send(await keys.create(caller(request), request.body)),
  );

  app.get('/api/keys', async (request) => ({ items: await keys.list(caller(request)) }));

  app.delete<{ Params: { id: number } }>(
    '/api/keys/:id',
    { schema: { params: idParams } },
    async (request, reply: FastifyReply) => {
      await keys.revoke(caller(request), request.params.id);
      return reply.code(204).send();
    },
  );
}
