// The /wishes page at the HTTP level (issue 27 item 5): listed in the nav, the list escaped, the add
// form (title + year, or a TMDb id), 409s shown on the page with nothing added, the remove button,
// and a child who reads the list without the forms.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type FakeProviders, startFakeProviders } from '../fakes/index.ts';
import { signInSession } from '../helpers/household.ts';
import { jsonBody, startTestServer, type TestServer } from '../helpers/test-server.ts';

const FORM = 'application/x-www-form-urlencoded';

describe('/wishes page', () => {
  let t: TestServer;
  let fakes: FakeProviders;
  before(async () => {
    fakes = await startFakeProviders();
    t = await startTestServer(fakes.env);
  });
  after(async () => {
    await t.close();
    await fakes.close();
  });

  const page = async (headers: Record<string, string> = {}) => {
    const res = await t.api('/wishes', { headers: { accept: 'text/html', ...headers } });
    assert.equal(res.status, 200);
    return res.text();
  };
  const post = (path: string, fields: Record<string, string>) =>
    t.api(path, {
      method: 'POST',
      headers: { 'content-type': FORM, accept: 'text/html' },
      body: new URLSearchParams(fields).toString(),
      redirect: 'manual',
    });

  it('is in the nav; empty at first; adds by title + year and by TMDb id; lists escaped', async () => {
    const empty = await page();
    assert.match(empty, /<a href="\/wishes"[^>]*>\s*Wish list<\/a/);
    assert.match(empty, /The wish list is empty/);
    assert.match(empty, /<form method="post" action="\/wishes"/);

    const added = await post('/wishes', { title: '<Heat> & "Co"', year: '1995', note: 'Mann' });
    assert.equal(added.status, 303);
    assert.match(added.headers.get('location') ?? '', /^\/wishes#wish-\d+$/);
    assert.equal((await post('/wishes', { tmdb_id: '603' })).status, 303);

    const body = await page();
    assert.ok(body.includes('&lt;Heat&gt; &amp; &quot;Co&quot;'), 'escaped');
    assert.equal(body.includes('<Heat>'), false);
    assert.match(body, /The Matrix<\/td>\s*<td>1999<\/td>/);
    assert.match(body, /action="\/wishes\/\d+\/remove"/);
  });

  it('a refusal is shown on the page with its status, and adds nothing', async () => {
    const twice = await post('/wishes', { title: 'Matrix, The', year: '1999' });
    assert.equal(twice.status, 409);
    assert.match(await twice.text(), /role="alert">The Matrix \(1999\) is on the wish list already/);
    const none = await post('/wishes', { year: '1999' });
    assert.equal(none.status, 400);
    const badYear = await post('/wishes', { title: 'X', year: 'soon' });
    assert.equal(badYear.status, 400);
    assert.match(await badYear.text(), /The year is a whole number/);
    const list = (await (await t.api('/api/wishes')).json()) as { items: unknown[] };
    assert.equal(list.items.length, 2);
  });

  it('the remove button takes the wish off the list', async () => {
    const list = (await (await t.api('/api/wishes')).json()) as { items: { id: number; title: string }[] };
    const matrix = list.items.find((w) => w.title === 'The Matrix');
    assert.ok(matrix !== undefined);
    const removed = await post(`/wishes/${matrix.id}/remove`, {});
    assert.equal(removed.status, 303);
    assert.equal(removed.headers.get('location'), '/wishes');
    assert.equal((await page()).includes('The Matrix'), false);
    assert.equal((await post(`/wishes/${matrix.id}/remove`, {})).status, 404);
  });

  it('a child reads the list, without the add form or remove buttons', async () => {
    const kid = await t.api(
      '/api/users',
      jsonBody('POST', {
        name: 'Kid',
        role: 'child',
        password: 'kid password 123',
        max_certification: 'PG',
        allow_unrated: true,
      }),
    );
    assert.equal(kid.status, 201);
    const { cookie } = await signInSession(t, 'Kid', 'kid password 123');
    const res = await fetch(`${t.url}/wishes`, { headers: { accept: 'text/html', cookie } });
    assert.equal(res.status, 200);
    const body = await res.text();
    assert.ok(body.includes('&lt;Heat&gt;'));
    assert.equal(body.includes('action="/wishes"'), false);
    assert.equal(/\/remove"/.test(body), false);
  });
});
