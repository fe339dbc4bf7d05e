// The shelf pages' form posts name a disc or a wish by id in a form field or the path. An id no
// database column can hold (past 2^31 - 1, or written as 1e20) is a refusal shown on the page, the
// same on both engines; PostgreSQL answered 500 (its integer parameter out of range) where SQLite
// found no row.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { jsonBody, startTestServer, type TestServer } from '../helpers/test-server.ts';

let t: TestServer;
let copy = 0;

interface Signed {
  cookie: string;
  csrf: string;
}

async function signIn(name: string, password: string): Promise<Signed> {
  const res = await fetch(`${t.url}/api/sessions`, jsonBody('POST', { name, password }));
  assert.equal(res.status, 200, await res.clone().text());
  const body = (await res.json()) as { csrf_token: string };
  return { cookie: (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '', csrf: body.csrf_token };
}

async function form(s: Signed, path: string, fields: Record<string, string>): Promise<Response> {
  return fetch(`${t.url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
    body: new URLSearchParams({ _csrf: s.csrf, ...fields }).toString(),
  });
}

describe('shelf form posts with an id out of range', () => {
  let admin: Signed;
  before(async () => {
    t = await startTestServer({});
    const res = await t.api(
      '/api/movies',
      jsonBody('POST', {
        title: 'Form Id Film',
        year: 2003,
        physical_copies: [{ binder: 'F', slot: '1', format: 'DVD' }],
      }),
    );
    assert.equal(res.status, 201);
    copy = ((await res.json()) as { physical_copies: { id: number }[] }).physical_copies[0]?.id ?? 0;
    admin = await signIn('admin', t.token);
  });
  after(() => t.close());

  for (const id of ['99999999999', '1e20', '2147483648']) {
    it(`lend, return, move and remove refuse copy/wish ${id} on the page (no 500)`, async () => {
      for (const [path, fields] of [
        ['/loans/lend', { copy: id, to: 'Sam' }],
        ['/loans/return', { copy: id }],
        ['/binders/F/move', { copy: id, binder: 'F', slot: '2' }],
      ] as const) {
        const res = await form(admin, path, fields);
        const html = await res.text();
        assert.equal(res.status, 400, `${path}: ${html.slice(0, 300)}`);
        assert.match(html, /No disc named\./, path);
      }
      const wish = await form(admin, `/wishes/${id}/remove`, {});
      const html = await wish.text();
      assert.equal(wish.status, 404, html.slice(0, 300));
      assert.match(html, /No such wish\./);
    });
  }

  it('a real copy still lends and returns through the forms', async () => {
    const lent = await form(admin, '/loans/lend', { copy: String(copy), to: 'Sam' });
    assert.equal(lent.status, 303, await lent.text());
    const back = await form(admin, '/loans/return', { copy: String(copy) });
    assert.equal(back.status, 303, await back.text());
  });
});
