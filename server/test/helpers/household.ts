import assert from 'node:assert/strict';
import { jsonBody, type TestServer } from './test-server.ts';

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
