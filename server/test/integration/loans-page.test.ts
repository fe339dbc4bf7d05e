// Issue 27 item 4 on the pages (HTML over HTTP, a signed-in browser's cookie and CSRF field): the
// movie page's loans section with its lend form and return button, the /loans page with the
// overdue discs first and the history, the binder slot marked, and the forms closed to non-admins.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Clock } from '../../src/adapters/clock.ts';
import { type Session, signInSession } from '../helpers/household.ts';
import { jsonBody, startTestServer, type TestServer } from '../helpers/test-server.ts';

let t: TestServer;
let now = new Date('2026-03-10T12:00:00.000Z');
const clock: Clock = { now: () => now };
let movieId = 0;
let copies: { id: number; slot: string | null }[] = [];

async function page(s: Session, path: string): Promise<{ status: number; html: string }> {
  const res = await fetch(`${t.url}${path}`, { headers: { cookie: s.cookie, accept: 'text/html' } });
  return { status: res.status, html: await res.text() };
}

async function form(s: Session, path: string, fields: Record<string, string>): Promise<Response> {
  return fetch(`${t.url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
    body: new URLSearchParams({ _csrf: s.csrf, ...fields }).toString(),
  });
}

describe('loan pages', () => {
  let admin: Session;
  before(async () => {
    t = await startTestServer({}, { clock });
    const res = await t.api(
      '/api/movies',
      jsonBody('POST', {
        title: 'Lent Film',
        year: 1999,
        physical_copies: [
          { binder: 'A', slot: '1', format: 'Blu-ray' },
          { binder: 'A', slot: '2', format: 'DVD' },
        ],
      }),
    );
    assert.equal(res.status, 201);
    const made = (await res.json()) as { id: number; physical_copies: { id: number; slot: string | null }[] };
    movieId = made.id;
    copies = made.physical_copies;
    admin = await signInSession(t, 'admin', t.token);
  });
  after(() => t.close());

  it('the movie page lends a disc with its form, then shows who has it and a return button', async () => {
    const before_ = await page(admin, `/movie/${movieId}`);
    assert.equal(before_.status, 200);
    assert.match(before_.html, /<h2 id="loans-heading">Loans<\/h2>/);
    assert.equal(before_.html.match(/action="\/loans\/lend"/g)?.length, 2, 'a lend form per disc');
    const [first] = copies;
    const lent = await form(admin, '/loans/lend', {
      copy: String(first?.id),
      to: 'Sam',
      due: '2026-03-12',
      back: `/movie/${movieId}#loans-heading`,
    });
    assert.equal(lent.status, 303);
    assert.equal(lent.headers.get('location'), `/movie/${movieId}#loans-heading`);
    const after_ = await page(admin, `/movie/${movieId}`);
    assert.match(after_.html, /On loan to Sam since 2026-03-10, due 2026-03-12/);
    assert.equal(after_.html.match(/action="\/loans\/lend"/g)?.length, 1);
    assert.equal(after_.html.match(/action="\/loans\/return"/g)?.length, 1);

    const twice = await form(admin, '/loans/lend', { copy: String(first?.id), to: 'Alex', back: '/loans' });
    assert.equal(twice.status, 409);
    assert.match(
      await twice.text(),
      /role="alert">Lent Film \(copy \d+\) is on loan to Sam since 2026-03-10/,
    );
    const badDay = await form(admin, '/loans/lend', {
      copy: String(copies[1]?.id),
      to: 'Alex',
      due: '2026-02-30',
    });
    assert.equal(badDay.status, 400);
  });

  it('/loans lists the overdue discs first, in their own section; the binder slot is marked', async () => {
    now = new Date('2026-03-13T08:00:00.000Z');
    // Three days on, the session has gone idle: sign in again.
    admin = await signInSession(t, 'admin', t.token);
    const loans = await page(admin, '/loans');
    assert.equal(loans.status, 200);
    const overdue = loans.html.slice(
      loans.html.indexOf('id="overdue-heading"'),
      loans.html.indexOf('id="out-heading"'),
    );
    assert.match(overdue, /class="loan loan-overdue"/);
    assert.match(overdue, /Lent Film/);
    assert.match(overdue, /A · slot 1 · Blu-ray/);
    assert.match(loans.html, /<a href="\/loans" aria-current="page"\s*>Loans<\/a/);
    const binder = await page(admin, '/binders/A');
    assert.equal(binder.html.match(/class="slot-loan"/g)?.length, 1);
  });

  it('a return ends the loan; the history shows it; a foreign "back" is not followed', async () => {
    const back = await form(admin, '/loans/return', {
      copy: String(copies[0]?.id),
      back: 'https://evil.example/',
    });
    assert.equal(back.status, 303);
    assert.equal(back.headers.get('location'), '/loans');
    const loans = await page(admin, '/loans?history=1');
    assert.match(loans.html, /Nothing is overdue\./);
    const returned = loans.html.slice(loans.html.indexOf('id="returned-heading"'));
    assert.match(returned, /to Sam since 2026-03-10, due 2026-03-12, back 2026-03-13/);
    const movie = await page(admin, `/movie/${movieId}`);
    assert.match(movie.html, /<h3>Lent before<\/h3>/);
  });

  it('signed out, /loans and its forms send the browser to sign in (not a 401 JSON body)', async () => {
    const out: Session = { cookie: '', csrf: '' };
    const list = await fetch(`${t.url}/loans?history=1`, {
      headers: { accept: 'text/html' },
      redirect: 'manual',
    });
    assert.equal(list.status, 303);
    assert.equal(list.headers.get('location'), '/sign-in?next=%2Floans%3Fhistory%3D1');
    const before_ = (await (await t.api('/api/loans?history=true')).json()) as { items: unknown[] };
    const lend = await form(out, '/loans/lend', { copy: String(copies[1]?.id), to: 'Kim' });
    assert.equal(lend.status, 303);
    assert.equal(lend.headers.get('location'), '/sign-in?next=%2Flibrary');
    const after_ = (await (await t.api('/api/loans?history=true')).json()) as { items: unknown[] };
    assert.deepEqual(after_, before_, 'nothing written');
  });

  it('a member sees the loans but no forms, and cannot post them', async () => {
    const made = await t.api(
      '/api/users',
      jsonBody('POST', { name: 'anna', password: 'correct horse battery', role: 'member' }),
    );
    assert.equal(made.status, 201);
    await form(admin, '/loans/lend', { copy: String(copies[1]?.id), to: 'Kim', back: '/loans' });
    const anna = await signInSession(t, 'anna', 'correct horse battery');
    const loans = await page(anna, '/loans');
    assert.equal(loans.status, 200);
    assert.match(loans.html, /to Kim since/);
    assert.doesNotMatch(loans.html, /action="\/loans\/(lend|return)"/);
    const movie = await page(anna, `/movie/${movieId}`);
    assert.doesNotMatch(movie.html, /action="\/loans\/(lend|return)"/);
    assert.equal((await form(anna, '/loans/return', { copy: String(copies[1]?.id) })).status, 403);
  });
});
