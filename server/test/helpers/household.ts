import assert from 'node:assert/strict';
import { jsonBody, readJson, type TestServer } from './test-server.ts';

/** A household member and a PG child, as the Jellyfin tests sign them in from the apps. */
export const MEMBER_ANNA = { name: 'Anna', password: 'correct horse battery', role: 'member' } as const;
export const CHILD_KID = {
  name: 'Kid',
  password: 'kid password 123',
  role: 'child',
  max_certification: 'PG',
  allow_unrated: false,
} as const;

/** Adds the people through the admin API (each must be created: 201). */
export async function addPeople(server: TestServer, people: readonly object[]): Promise<void> {
  for (const person of people) {
    const created = await server.api('/api/users', jsonBody('POST', person));
    assert.equal(created.status, 201, await created.text());
  }
}

/** A browser session signed in through the API: its cookie, and the CSRF token its writes carry. */
export interface Session {
  cookie: string;
  csrf: string;
}

/** Signs `name` in through POST /api/sessions (it must answer 200), as the sign-in page does. */
export async function signInSession(server: TestServer, name: string, password: string): Promise<Session> {
  const res = await fetch(`${server.url}/api/sessions`, jsonBody('POST', { name, password }));
  const { csrf_token: csrf } = await readJson<{ csrf_token: string }>(res);
  return { cookie: (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '', csrf };
}

/**
 * A PG child who may see unrated films, added through the admin API, and a read API key of theirs
 * named `keyName`: how a test asks for something as a person with a content limit.
 */
export async function childReadKey(
  server: TestServer,
  name: string,
  keyName: string,
): Promise<{ id: number; key: string }> {
  const { id } = await readJson<{ id: number }>(
    await server.api('/api/users', jsonBody('POST', { ...CHILD_KID, name, allow_unrated: true })),
    201,
  );
  const { key } = await readJson<{ key: string }>(
    await server.api('/api/keys', jsonBody('POST', { name: keyName, scope: 'read', user: id })),
    201,
  );
  return { id, key };
}
