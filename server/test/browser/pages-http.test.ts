// The pages at the HTTP level (no browser needed): negotiation, sign-in, session cookie, CSRF,
// escaping and paging; plus the pure helpers behind them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LibraryMovieItem, LibraryResponse } from '@reelshelf/contract';
import { ReelshelfClient } from '../../../client/src/index.ts';
import { prefersHtml } from '../../src/http/pages/accept.ts';
import { escapeHtml, html, safeUrl } from '../../src/http/pages/html.ts';
import { buildLibraryView, PAGE_SIZE, parseLibraryQuery } from '../../src/http/pages/library-view.ts';
import { safeNext } from '../../src/http/pages/sign-in.page.ts';
import { parseCookies } from '../../src/http/plugins/session.ts';
import { startTestServer, type TestServer } from '../helpers/test-server.ts';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,*/*;q=0.8';
const FORM = 'application/x-www-form-urlencoded';

describe('page helpers', () => {
  it('prefersHtml: a browser navigation yes; fetch, curl, JSON and ties no', () => {
    assert.equal(prefersHtml(BROWSER_ACCEPT), true);
    assert.equal(prefersHtml('text/html'), true);
    assert.equal(prefersHtml(undefined), false);
    assert.equal(prefersHtml('*/*'), false);
    assert.equal(prefersHtml('application/json'), false);
    assert.equal(prefersHtml('application/json, text/html'), false, 'a tie goes to JSON');
    assert.equal(prefersHtml('text/html;q=0.5, application/json'), false);
    assert.equal(prefersHtml('application/json;q=0.5, text/html'), true);
    assert.equal(prefersHtml('text/*'), true);
    assert.equal(prefersHtml('text/html;q=0'), false);
  });

  it('html escapes every value; safeUrl refuses javascript: and //host', () => {
    assert.equal(
      escapeHtml(`<a href="x" onclick='y'>&</a>`),
      '&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
    const title = '<script>alert(1)</script>';
    assert.equal(
      html`<p title="${title}">${title}</p>`.value,
      `<p title="${escapeHtml(title)}">${escapeHtml(title)}</p>`,
    );
    assert.equal(
      html`<ul>
        ${['<b>', html`<li>ok</li>`]}
      </ul>`.value.replace(/\s+/g, ''),
      '<ul>&lt;b&gt;<li>ok</li></ul>',
    );
    assert.equal(safeUrl('javascript:alert(1)'), null);
    assert.equal(safeUrl('//evil.example/x.jpg'), null);
    assert.equal(safeUrl('/artwork/1/poster'), '/artwork/1/poster');
    assert.equal(safeUrl('https://image.example/p.jpg'), 'https://image.example/p.jpg');
  });

  it('safeNext keeps sign-in redirects on this server', () => {
    assert.equal(safeNext('/movie/3?device=tv'), '/movie/3?device=tv');
    for (const bad of [
      'https://evil.example/',
      '//evil.example',
      '/\\evil.example',
      'movie/3',
      '/sign-in',
      7,
    ]) {
      assert.equal(safeNext(bad), '/library', String(bad));
    }
  });

  // Sessions (expiry, revocation across restarts, per-session CSRF tokens) are tested with the
  // database behind them in server/test/integration/sessions.test.ts.
  it('parseCookies: the first value of a name wins, quotes and escapes are undone', () => {
    assert.deepEqual(
      [...parseCookies('a=1; b="two"; a=3; c=%20x').entries()],
      [
        ['a', '1'],
        ['b', 'two'],
        ['c', ' x'],
      ],
    );
  });

  it('library view: filters, sorts and pages', () => {
    const item = (id: number, title: string, extra: Partial<LibraryMovieItem> = {}): LibraryMovieItem => ({
      movie_id: id,
      title,
      editions: [],
      default_edition_index: 0,
      badge: 'on_disc',
      ...extra,
    });
    const library: LibraryResponse = {
      contract_version: '1.1.0',
      items: [
        item(1, 'Amélie', { year: 2001, cast_names: ['Audrey Tautou'] }),
        item(2, 'Brazil', { year: 1985, director_names: ['Terry Gilliam'], badge: 'playable' }),
        item(3, 'Alien', {
          year: 1979,
          physical_copies: [{ binder: 'Binder 2', slot: '4', format: '4K UHD' }],
        }),
        ...Array.from({ length: 130 }, (_, i) => item(10 + i, `Seeded ${i}`, { year: null })),
      ],
    };
    const view = (q: Record<string, string>) => buildLibraryView(library, parseLibraryQuery(q));
    assert.equal(view({ q: 'amelie' }).matched, 133, 'searching is the index’s job, not the listing’s');
    assert.deepEqual(
      view({ badge: 'playable' }).items.map((i) => i.movie_id),
      [2],
    );
    assert.deepEqual(
      view({ format: '4K UHD' }).items.map((i) => i.movie_id),
      [3],
    );
    assert.deepEqual(
      view({ binder: 'Binder 2' }).items.map((i) => i.movie_id),
      [3],
    );
    assert.deepEqual(
      view({ sort: 'year' })
        .items.slice(0, 4)
        .map((i) => i.movie_id),
      [1, 2, 3, 10],
    );
    assert.equal(view({ sort: 'recent' }).items[0]?.movie_id, 139);
    const p3 = view({ page: '3' });
    assert.equal(p3.pages, 3);
    assert.equal(p3.items.length, 133 - 2 * PAGE_SIZE);
    assert.equal(view({ page: '99' }).page, 3, 'a page past the end shows the last');
    assert.equal(parseLibraryQuery({ q: 'x' }).sort, 'relevance', 'a search is ranked by default');
    assert.equal(parseLibraryQuery({ q: 'x', sort: 'title' }).sort, 'title');
    assert.equal(parseLibraryQuery({ sort: 'relevance' }).sort, 'title', 'no search: nothing to rank');
    assert.deepEqual(parseLibraryQuery({ sort: 'nonsense', badge: '<x>', page: '-2' }), {
      q: '',
      badge: '',
      format: '',
      binder: '',
      on_loan: false,
      sort: 'title',
      page: 1,
    });
    // Loans (issue 27): only the movies with a disc out; `on_loan=1` and nothing else turns it on.
    assert.equal(view({ on_loan: '1' }).matched, 0, 'no disc of this library is lent out');
    assert.equal(parseLibraryQuery({ on_loan: 'yes' }).on_loan, false);
  });
});

describe('pages over HTTP', () => {
  let t: TestServer;
  let cookie = '';
  let csrf = '';

  async function page(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (!headers.has('accept')) headers.set('accept', BROWSER_ACCEPT);
    if (cookie !== '' && !headers.has('cookie')) headers.set('cookie', cookie);
    return fetch(`${t.url}${path}`, { redirect: 'manual', ...init, headers });
  }

  before(async () => {
    t = await startTestServer();
    const client = new ReelshelfClient({ baseUrl: t.url, token: t.token });
    await client.createMovie({ title: '<img src=x onerror=alert(1)> "Quoted" & Co', year: 1990 });
    for (let i = 0; i < 65; i++) await client.createMovie({ title: `Film ${String(i).padStart(2, '0')}` });
  });
  after(async () => {
    await t.close();
  });

  it('without auth: every page, the shelf pages too, and every form post send the browser to sign in', async () => {
    // A regression: the collector pages (binders, wishes, stats, rip queue, upgrades) answered a
    // signed-out browser with a 401 JSON body.
    const signedOut = (path: string, init: RequestInit = {}) =>
      fetch(`${t.url}${path}`, {
        redirect: 'manual',
        ...init,
        headers: { accept: BROWSER_ACCEPT, ...(init.headers as Record<string, string> | undefined) },
      });
    const pages = [
      '/',
      '/scan',
      '/import',
      '/history',
      '/now-playing',
      '/who',
      '/people',
      '/loans',
      '/binders',
      '/binders?print',
      '/binders/A',
      '/wishes',
      '/stats',
      '/stats/year?year=2026',
      '/rip-queue',
      '/upgrades',
      '/movie/1',
    ];
    for (const path of pages) {
      const res = await signedOut(path);
      assert.equal(res.status, 303, path);
      const back = path === '/' ? '/sign-in' : `/sign-in?next=${encodeURIComponent(path)}`;
      assert.equal(res.headers.get('location'), back, path);
    }
    const wishesBefore = await (await t.api('/api/wishes')).text();
    const bindersBefore = await (await t.api('/api/binders')).text();
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const posts: [string, string][] = [
      ['/wishes', 'title=Wanted+Film&year=2001'],
      ['/wishes/1/remove', ''],
      ['/binders/A/move', 'copy=1&binder=B&slot=1'],
      ['/binders/A/rename', 'name=Z'],
      ['/loans/lend', 'copy=1&to=Kim'],
      ['/loans/return', 'copy=1'],
    ];
    for (const [path, body] of posts) {
      const res = await signedOut(path, { method: 'POST', headers: form, body });
      assert.equal(res.status, 303, `POST ${path}`);
      assert.match(res.headers.get('location') ?? '', /^\/sign-in\?next=/, `POST ${path}`);
    }
    assert.equal(await (await t.api('/api/wishes')).text(), wishesBefore, 'no wish written');
    assert.equal(await (await t.api('/api/binders')).text(), bindersBefore, 'no binder written');
  });

  it('without auth: a page redirects (303) to sign-in, the API answers 401 JSON', async () => {
    const res = await page('/library?q=film');
    assert.equal(res.status, 303);
    assert.equal(res.headers.get('location'), '/sign-in?next=%2Flibrary%3Fq%3Dfilm');
    assert.equal((await page('/movie/1')).status, 303);
    assert.equal((await page('/scan')).status, 303);
    const api = await fetch(`${t.url}/library`);
    assert.equal(api.status, 401);
    assert.equal(((await api.json()) as { error: string }).error, 'unauthorized');
    const apiGet = await fetch(`${t.url}/api/library-roots`, { headers: { accept: BROWSER_ACCEPT } });
    assert.equal(apiGet.status, 401, 'an API route stays JSON even for a browser');
    const signIn = await page('/sign-in');
    assert.equal(signIn.status, 200);
    const form = await signIn.text();
    assert.match(form, /<label for="name">Name<\/label>/);
    assert.match(form, /<label for="password">Password or admin token<\/label>/);
  });

  it('a wrong token shows the form again with 401; the right one sets the cookie and redirects', async () => {
    const wrong = await page('/sign-in', {
      method: 'POST',
      headers: { 'content-type': FORM },
      body: 'token=wrong&next=%2Fscan',
    });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.headers.get('set-cookie'), null);
    assert.match(await wrong.text(), /role="alert"/);
    const right = await page('/sign-in', {
      method: 'POST',
      headers: { 'content-type': FORM },
      body: new URLSearchParams({ token: t.token, next: 'https://evil.example/' }).toString(),
    });
    assert.equal(right.status, 303);
    assert.equal(right.headers.get('location'), '/library', 'no open redirect');
    const setCookie = right.headers.get('set-cookie') ?? '';
    assert.match(setCookie, /^reelshelf_session=[^;]+; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax$/);
    cookie = setCookie.split(';')[0] ?? '';
    const lib = await page('/library');
    assert.equal(lib.status, 200);
    const body = await lib.text();
    csrf = /<meta name="csrf-token" content="([^"]+)"/.exec(body)?.[1] ?? '';
    assert.ok(csrf.length > 20);
    assert.match(body, new RegExp(`name="_csrf" value="${csrf}"`), 'hidden input in the sign-out form');
  });

  it('GET /library: HTML for a browser, JSON for fetch and the typed client', async () => {
    const htmlRes = await page('/library');
    assert.match(htmlRes.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(htmlRes.headers.get('content-security-policy') ?? '', /script-src 'self'/);
    const json = await page('/library', { headers: { accept: '*/*' } });
    assert.match(json.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(((await json.json()) as LibraryResponse).items.length, 66);
    const client = new ReelshelfClient({ baseUrl: t.url, token: t.token });
    assert.equal((await client.library()).items.length, 66);
    const bad = await fetch(`${t.url}/library?page=2`, { headers: { authorization: `Bearer ${t.token}` } });
    assert.equal(bad.status, 400, 'the JSON API keeps its strict query');
  });

  it('escapes data: a title with markup is text', async () => {
    const body = await (await page('/library?q=quoted')).text();
    assert.ok(!body.includes('<img src=x'), 'no raw markup from data');
    assert.match(body, /&lt;img src=x onerror=alert\(1\)&gt; &quot;Quoted&quot; &amp; Co/);
    const movie = await (await page('/movie/1')).text();
    assert.match(movie, /<h1>&lt;img src=x onerror=alert\(1\)&gt; &quot;Quoted&quot; &amp; Co<\/h1>/);
  });

  it('pages 60 movies at a time and remembers the device in a cookie', async () => {
    const first = await (await page('/library')).text();
    assert.equal(first.match(/<li class="card">/g)?.length, 60);
    assert.match(first, /Page 1 of 2/);
    const second = await page('/library?page=2&device=tv');
    const text = await second.text();
    assert.equal(text.match(/<li class="card">/g)?.length, 6);
    assert.match(second.headers.get('set-cookie') ?? '', /^reelshelf_device=tv;/);
    assert.match(text, /<option value="tv" selected>/);
    const remembered = await page('/library', { headers: { cookie: `${cookie}; reelshelf_device=tv` } });
    assert.match(await remembered.text(), /<option value="tv" selected>/);
  });

  it('an unknown movie is a 404 page', async () => {
    for (const path of ['/movie/9999', '/movie/abc']) {
      const res = await page(path);
      assert.equal(res.status, 404, path);
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    }
  });

  it('CSRF: a cookie-authenticated POST needs the token (header or _csrf field); bearer calls do not', async () => {
    const body = JSON.stringify({ title: 'CSRF probe' });
    const json = { 'content-type': 'application/json', accept: 'application/json' };
    assert.equal((await page('/api/movies', { method: 'POST', headers: json, body })).status, 403);
    const forged = await page('/api/movies', {
      method: 'POST',
      headers: { ...json, 'x-csrf-token': 'x' },
      body,
    });
    assert.equal(forged.status, 403);
    assert.equal(((await forged.json()) as { error: string }).error, 'csrf_failed');
    const ok = await page('/api/movies', {
      method: 'POST',
      headers: { ...json, 'x-csrf-token': csrf },
      body,
    });
    assert.equal(ok.status, 201);
    const bearer = await t.api('/api/movies', { method: 'POST', headers: json, body });
    assert.equal(bearer.status, 201, 'bearer-authenticated calls need no CSRF token');
    const form = await page('/scan/roots', {
      method: 'POST',
      headers: { 'content-type': FORM },
      body: 'path=relative%2Fpath',
    });
    assert.equal(form.status, 403, 'a form post without _csrf');
    const formOk = await page('/scan/roots', {
      method: 'POST',
      headers: { 'content-type': FORM },
      body: new URLSearchParams({ _csrf: csrf, path: 'relative/path' }).toString(),
    });
    assert.equal(formOk.status, 400, 'the form is checked and shown again with the error');
    assert.match(await formOk.text(), /must be an absolute path/);
  });

  it('sign-out revokes the session and clears the cookie', async () => {
    const out = await page('/sign-out', {
      method: 'POST',
      headers: { 'content-type': FORM },
      body: new URLSearchParams({ _csrf: csrf }).toString(),
    });
    assert.equal(out.status, 303);
    assert.equal(out.headers.get('location'), '/sign-in');
    assert.match(out.headers.get('set-cookie') ?? '', /^reelshelf_session=; Path=\/; Max-Age=0/);
    const again = await page('/library');
    assert.equal(again.status, 303, 'the old cookie no longer signs in');
    assert.equal((await page('/api/movies', { headers: { accept: 'application/json' } })).status, 401);
  });
});
