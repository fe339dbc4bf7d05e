import type { FastifyRequest } from 'fastify';
import type { Principal } from '../domain/people/principal.ts';
import type { Viewer } from '../domain/people/viewer.ts';

export type { Credential, Principal } from '../domain/people/principal.ts';

const principals = new WeakMap<FastifyRequest, Principal>();

export function setPrincipal(request: FastifyRequest, principal: Principal): void {
  principals.set(request, principal);
}

/** The signed-in person, or null (a public route called without credentials). */
export function principalOrNull(request: FastifyRequest): Principal | null {
  return principals.get(request) ?? null;
}

/**
 * The signed-in person of a route that is not public (the auth hook has already refused a request
 * without one, so a throw here is a programming error, answered as 500).
 */
export function principalOf(request: FastifyRequest): Principal {
  const principal = principals.get(request);
  if (principal === undefined)
    throw new Error('principalOf: no principal on a request the auth hook let through');
  return principal;
}

/** What services need of the person: whose state and which content limit. */
export function viewerOf(request: FastifyRequest): Viewer {
  const principal = principalOf(request);
  return { userId: principal.userId, limit: principal.limit };
}

/** The person a request reads or plays for; null when it carries no credential (public routes). */
export function viewerOrNull(request: FastifyRequest): Viewer | null {
  const principal = principals.get(request);
  return principal === undefined ? null : { userId: principal.userId, limit: principal.limit };
}
