// GET /stats/year is a page: a refusal (a year that is no number, another person's year for a
// non-admin, a person who does not exist) is a page with the reason and its status, as the shelf's
// form refusals are, not the API's JSON body in a browser.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { jsonBody, startTestServer, type TestServer } from '../helpers/test-server.ts';

let t: TestServer;

async function signIn(name: string, password: string): Promise<string> {
  const res = await fetch(`${t.url}/api/sessions`, jsonBody('POST', { name, password }));
  assert.equal(res.status, 200, await res.clone().text());
  return (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
}

describe('/stats/year refusals as pages', () => {
  let cookie = '';
  before(async () => {
    t = await startTestServer({});
    cookie = await signIn('admin', t.token);
  });
  after(() => t.close());

  for (const [query, status, message] of [
    ['year=abc', 400, /whole numbers/],
    ['year=99999', 400, /A year is a number such as 2026/],
    ['person=99999999999', 404, /No person with id 99999999999/],
  ] as const) {
    it(`?${query}: ${status} with the reason on the page`, async () => {
      const res = await fetch(`${t.url}/stats/year?${query}`, { headers: { cookie, accept: 'text/html' } });
      const text = await res.text();
      assert.equal(res.status, status, text.slice(0, 300));
      assert.match(res.headers.get('content-type') ?? '', /text\/html/);
      assert.match(text, /role="alert"/);
      assert.match(text, message);
      assert.match(text, /href="\/stats"/);
    });
  }
});
