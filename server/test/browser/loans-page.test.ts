// Issue 27 item 4 in a real browser (Debian's Chromium, playwright-core), as a household uses it: an
// admin lends a disc from its movie page with a due day already past; the movie, its binder slot,
// /loans (overdue, in red) and the library's Loans filter show it out; a member sees the same
// without the forms and is refused when posting them anyway; a form without its CSRF token is
// refused; the return button brings the disc home everywhere and the history keeps the loan.
// One server and one browser (two contexts: the admin and the member) for the whole file.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { type Browser, type Page, type Response } from 'playwright-core';
import type { Clock } from '../../src/adapters/clock.ts';
import { MAX_BORROWER_LENGTH } from '../../src/domain/loans.ts';
import { browserSkip, launchChromium, signIn } from '../helpers/chromium.ts';
import { addPeople, MEMBER_ANNA } from '../helpers/household.ts';
import { jsonBody, startTestServer, type TestServer } from '../helpers/test-server.ts';

/** The picture of /loans at 1920×1080, looked at by hand (docs/ shows no loans picture). */
const SCREENSHOT = fileURLToPath(new URL('../../../test-output/screenshots/loans.png', import.meta.url));

/** The server's day: fixed, so "since" and "overdue" read the same on every run. */
const clock: Clock = { now: () => new Date('2026-03-10T12:00:00.000Z') };
const TODAY = '2026-03-10';
const DUE = '2026-03-05';

interface Film {
  movie: number;
  copy: number;
}

interface LoanRow {
  copy_id: number;
  to: string;
  due: string | null;
  returned_at: string | null;
}

/** A film with one disc in binder A at `slot`. */
async function film(t: TestServer, title: string, year: number, slot: string, format: string): Promise<Film> {
  const res = await t.api(
    '/api/movies',
    jsonBody('POST', { title, year, physical_copies: [{ binder: 'A', slot, format }] }),
  );
  assert.equal(res.status, 201, await res.clone().text());
  const made = (await res.json()) as { id: number; physical_copies: { id: number }[] };
  const copy = made.physical_copies[0]?.id;
  assert.ok(copy !== undefined);
  return { movie: made.id, copy };
}

/** Every loan, open and returned (the admin's API view: what the pages wrote, or did not). */
async function allLoans(t: TestServer): Promise<LoanRow[]> {
  const res = await t.api('/api/loans?history=true');
  assert.equal(res.status, 200);
  return ((await res.json()) as { items: LoanRow[] }).items;
}

/** Exactly this URL (for waitForURL: a glob would read `?` and `#` its own way). */
function exactly(url: string): RegExp {
  return new RegExp(`^${url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
}

/**
 * Submits a form of the page, waits for the server's answer to its POST and for the browser to
 * show that answer (a refusal is not redirected: the page's URL becomes the form's action).
 */
async function submitted(page: Page, path: string, submit: () => Promise<unknown>): Promise<Response> {
  const [res] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === path),
    submit(),
  ]);
  await page.waitForURL(exactly(new URL(path, page.url()).href));
  return res;
}

/**
 * Posts a form the page does not offer, as a person could with the browser's tools: the fields
 * given, plus the session's CSRF token from the page's meta tag unless `csrf` is false.
 */
function forgedPost(
  page: Page,
  path: string,
  fields: Record<string, string>,
  csrf = true,
): Promise<Response> {
  return submitted(page, path, () =>
    page.evaluate(
      ({ action, values, withToken }) => {
        const form = document.createElement('form');
        form.method = 'post';
        form.action = action;
        const token = document.querySelector('meta[name="csrf-token"]')?.getAttribute('content') ?? '';
        const all: Record<string, string> = withToken ? { ...values, _csrf: token } : values;
        for (const [name, value] of Object.entries(all)) {
          const input = document.createElement('input');
          input.type = 'hidden';
          input.name = name;
          input.value = value;
          form.append(input);
        }
        document.body.append(form);
        form.submit();
      },
      { action: path, values: fields, withToken: csrf },
    ),
  );
}

/** A refusal as the browser got it: an ApiError with `code`, never a stack trace or an HTML error. */
async function assertApiError(res: Response, status: number, code: string): Promise<void> {
  assert.equal(res.status(), status);
  assert.match(res.headers()['content-type'] ?? '', /^application\/json/);
  const text = await res.text();
  const body = JSON.parse(text) as { error: string; message?: string };
  assert.equal(body.error, code);
  assert.equal(typeof body.message, 'string');
  assert.doesNotMatch(text, /\bat .*\.(ts|js):\d+|node:internal|"stack"/);
}

/** The color a CSS custom property resolves to, as getComputedStyle reports colors. */
function cssColor(page: Page, variable: string): Promise<string> {
  return page.evaluate((name) => {
    const probe = document.createElement('span');
    probe.style.color = `var(${name})`;
    document.body.append(probe);
    const color = getComputedStyle(probe).color;
    probe.remove();
    return color;
  }, variable);
}

/**
 * The elements under `selector` whose text runs out of their box or out of the page (the box
 * overflows, or reaches past the list's right edge or the viewport's): "tag.class: text" each.
 */
function overflowing(page: Page, selector: string): Promise<string[]> {
  return page.locator(selector).evaluateAll((roots) => {
    const out: string[] = [];
    const viewport = document.documentElement.clientWidth;
    if (document.documentElement.scrollWidth > viewport)
      out.push(`page: ${document.documentElement.scrollWidth}px wide`);
    for (const root of roots) {
      const edge = Math.min(root.getBoundingClientRect().right, viewport);
      for (const el of [root, ...Array.from(root.querySelectorAll('*'))]) {
        const box = el.getBoundingClientRect();
        // A text field scrolls its own text by design; a hidden one has no box.
        if ((box.width === 0 && box.height === 0) || el.tagName === 'INPUT') continue;
        const spills = el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1;
        if (spills || box.right > edge + 1) {
          const name = `${el.tagName.toLowerCase()}.${el.getAttribute('class') ?? ''}`;
          out.push(`${name}: ${(el.textContent ?? '').trim().slice(0, 40)}`);
        }
      }
    }
    return out;
  });
}

describe('loan pages in Chromium', { skip: browserSkip() }, () => {
  let t: TestServer;
  let browser: Browser;
  let admin: Page;
  let member: Page;
  let profile: string;
  let harbour: Film;
  let train: Film;
  const errors: string[] = [];

  before(async () => {
    profile = mkdtempSync(join(tmpdir(), 'reelshelf-chromium-'));
    t = await startTestServer({}, { clock });
    harbour = await film(t, 'The Long Harbour', 1987, '3', 'Blu-ray');
    train = await film(t, 'Night Train North', 1994, '4', 'DVD');
    await addPeople(t, [MEMBER_ANNA]);
    browser = await launchChromium(profile);
    // Two contexts: two people, each with their own session cookie.
    const viewport = { width: 1920, height: 1080 };
    admin = await (await browser.newContext({ viewport })).newPage();
    member = await (await browser.newContext({ viewport })).newPage();
    for (const page of [admin, member]) page.on('pageerror', (err) => errors.push(err.message));
    await signIn(admin, t.url, t.token);
  });

  after(async () => {
    await browser?.close();
    await t?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  const disc = (page: Page, f: Film) => page.locator(`section.loans li.loan[data-copy="${f.copy}"]`);
  const slot = (page: Page, n: string) => page.locator(`.slot[data-slot="${n}"]`);
  const cardTitles = (page: Page) => page.locator('.grid .card-title').allTextContents();
  const OUT_LINE = `On loan to Sam Porter since ${TODAY}, due ${DUE}`;

  it('an admin lends a disc on its movie page; the movie, the slot, /loans and the filter show it out, overdue', async () => {
    await admin.goto(`${t.url}/movie/${harbour.movie}`);
    const line = disc(admin, harbour);
    assert.match((await line.textContent()) ?? '', /A · slot 3 · Blu-ray\s+At home/);
    await line.getByLabel('Lend to', { exact: true }).fill('Sam Porter');
    await line.getByLabel('Due', { exact: true }).fill(DUE);
    await Promise.all([
      admin.waitForURL(exactly(`${t.url}/movie/${harbour.movie}#loans-heading`)),
      line.getByRole('button', { name: 'Lend', exact: true }).click(),
    ]);
    assert.match((await line.textContent()) ?? '', new RegExp(OUT_LINE));
    assert.equal(await line.getAttribute('class'), 'loan loan-overdue');
    assert.equal(await line.locator('.overdue-label').isVisible(), true);
    assert.equal(await line.getByRole('button', { name: 'Returned', exact: true }).isVisible(), true);
    assert.equal(await line.getByRole('button', { name: 'Lend', exact: true }).count(), 0);
    // The other film's disc is untouched.
    await admin.goto(`${t.url}/movie/${train.movie}`);
    assert.match((await disc(admin, train).textContent()) ?? '', /At home/);
    assert.equal(
      await disc(admin, train).getByRole('button', { name: 'Lend', exact: true }).isVisible(),
      true,
    );

    await admin.goto(`${t.url}/binders/A`);
    assert.equal(await slot(admin, '3').locator('.slot-loan').textContent(), 'On loan');
    assert.equal(await slot(admin, '3').locator('.slot-loan').isVisible(), true);
    assert.equal(await slot(admin, '4').locator('.slot-loan').count(), 0);

    await admin.goto(`${t.url}/loans`);
    assert.equal(await admin.locator('a[href="/loans"]').getAttribute('aria-current'), 'page');
    const overdue = admin.locator('section[aria-labelledby="overdue-heading"] li.loan');
    assert.equal(await overdue.count(), 1);
    const text = (await overdue.textContent()) ?? '';
    for (const part of [
      'The Long Harbour',
      'A · slot 3 · Blu-ray',
      `to Sam Porter since ${TODAY}, due ${DUE}`,
    ]) {
      assert.ok(text.includes(part), `${part} in ${text}`);
    }
    // Visibly marked: the label shows, and the line is in the pages' danger red, not the body's white.
    const label = overdue.locator('.overdue-label');
    assert.equal(await label.textContent(), 'Overdue');
    assert.equal(await label.isVisible(), true);
    const red = await cssColor(admin, '--danger');
    assert.equal(await label.evaluate((el) => getComputedStyle(el).color), red);
    assert.equal(await overdue.evaluate((el) => getComputedStyle(el).color), red);
    assert.notEqual(await admin.locator('body').evaluate((el) => getComputedStyle(el).color), red);
    assert.match(
      (await admin.locator('section[aria-labelledby="out-heading"]').textContent()) ?? '',
      /No other disc is out\./,
    );

    // The library's Loans filter, chosen as a person does, then with a search.
    await admin.goto(`${t.url}/library`);
    await admin.getByLabel('Loans', { exact: true }).selectOption('1');
    await Promise.all([
      admin.waitForURL(/\/library\?.*on_loan=1/),
      admin.getByRole('button', { name: 'Apply' }).click(),
    ]);
    assert.deepEqual(await cardTitles(admin), ['The Long Harbour']);
    await admin.goto(`${t.url}/library?q=harbour&on_loan=1`);
    assert.deepEqual(await cardTitles(admin), ['The Long Harbour']);
    await admin.goto(`${t.url}/library?q=night&on_loan=1`);
    assert.deepEqual(await cardTitles(admin), []);
    assert.deepEqual(errors, []);
  });

  it('a member signs in from /loans and sees the loan everywhere, without lend or return controls', async () => {
    // Signed out, /loans sends the person to sign in and back, as the library does.
    await member.goto(`${t.url}/loans`);
    assert.equal(member.url(), `${t.url}/sign-in?next=%2Floans`);
    await member.getByLabel('Name', { exact: true }).fill(MEMBER_ANNA.name);
    await member.getByLabel('Password or admin token', { exact: true }).fill(MEMBER_ANNA.password);
    await Promise.all([
      member.waitForURL(exactly(`${t.url}/loans`)),
      member.getByRole('button', { name: 'Sign in' }).click(),
    ]);
    const overdue = member.locator('section[aria-labelledby="overdue-heading"] li.loan');
    assert.match((await overdue.textContent()) ?? '', /The Long Harbour[\s\S]*to Sam Porter since/);
    assert.equal(await overdue.locator('.overdue-label').isVisible(), true);
    const noControls = async () => {
      assert.equal(await member.locator('form[action^="/loans/"]').count(), 0);
      assert.equal(await member.getByRole('button', { name: /^(Lend|Returned)$/ }).count(), 0);
    };
    await noControls();

    await member.goto(`${t.url}/movie/${harbour.movie}`);
    assert.match((await disc(member, harbour).textContent()) ?? '', new RegExp(OUT_LINE));
    await noControls();
    await member.goto(`${t.url}/movie/${train.movie}`);
    assert.match((await disc(member, train).textContent()) ?? '', /At home/);
    await noControls();

    await member.goto(`${t.url}/binders/A`);
    assert.equal(await slot(member, '3').locator('.slot-loan').isVisible(), true);
    assert.equal(await member.locator('.slot-move').count(), 0);
    await member.goto(`${t.url}/library?on_loan=1`);
    assert.deepEqual(await cardTitles(member), ['The Long Harbour']);
    assert.deepEqual(errors, []);
  });

  it("a member's posted lend or return is refused with an ApiError, and nothing is written", async () => {
    await member.goto(`${t.url}/movie/${train.movie}`);
    const back = `/movie/${train.movie}#loans-heading`;
    const lend = await forgedPost(member, '/loans/lend', { copy: String(train.copy), to: 'Kim', back });
    await assertApiError(lend, 403, 'forbidden');
    await member.goto(`${t.url}/movie/${harbour.movie}`);
    const giveBack = await forgedPost(member, '/loans/return', { copy: String(harbour.copy), back });
    await assertApiError(giveBack, 403, 'forbidden');
    assert.deepEqual(
      (await allLoans(t)).map((l) => [l.copy_id, l.to, l.returned_at]),
      [[harbour.copy, 'Sam Porter', null]],
    );
  });

  it('a form posted without its CSRF token is refused, and nothing is written', async () => {
    await admin.goto(`${t.url}/movie/${train.movie}`);
    const line = disc(admin, train);
    // The page's own form, its token taken out (what another site's form would post).
    await line.locator('input[name="_csrf"]').evaluate((el) => el.remove());
    await line.getByLabel('Lend to', { exact: true }).fill('Kim');
    const lend = await submitted(admin, '/loans/lend', () =>
      line.getByRole('button', { name: 'Lend', exact: true }).click(),
    );
    await assertApiError(lend, 403, 'csrf_failed');
    await admin.goto(`${t.url}/movie/${harbour.movie}`);
    const giveBack = await forgedPost(admin, '/loans/return', { copy: String(harbour.copy) }, false);
    await assertApiError(giveBack, 403, 'csrf_failed');
    assert.deepEqual(
      (await allLoans(t)).map((l) => [l.copy_id, l.to, l.returned_at]),
      [[harbour.copy, 'Sam Porter', null]],
    );
  });

  it('the return button brings the disc home on every page; the history keeps the loan', async () => {
    // From the list with its history: the button sends the browser back to /loans itself.
    await admin.goto(`${t.url}/loans?history=1`);
    const overdue = admin.locator('section[aria-labelledby="overdue-heading"] li.loan');
    await Promise.all([
      admin.waitForURL(exactly(`${t.url}/loans`)),
      overdue.getByRole('button', { name: 'Returned', exact: true }).click(),
    ]);
    assert.match(
      (await admin.locator('main').textContent()) ?? '',
      /Nothing is overdue\.[\s\S]*Every disc is home\./,
    );

    const history = `A · slot 3 · Blu-ray: to Sam Porter since ${TODAY}, due ${DUE}, back ${TODAY}`;
    for (const page of [admin, member]) {
      await page.goto(`${t.url}/movie/${harbour.movie}`);
      assert.match((await disc(page, harbour).textContent()) ?? '', /At home/);
      assert.equal(await disc(page, harbour).getAttribute('class'), 'loan');
      assert.deepEqual(await page.locator('section.loans .loan-history li').allTextContents(), [history]);
      await page.goto(`${t.url}/binders/A`);
      assert.equal(await slot(page, '3').locator('.slot-loan').count(), 0);
      await page.goto(`${t.url}/library?on_loan=1`);
      assert.deepEqual(await cardTitles(page), []);
      assert.match((await page.locator('.result-summary').textContent()) ?? '', /No movies match\./);
      await page.goto(`${t.url}/library?q=harbour&on_loan=1`);
      assert.deepEqual(await cardTitles(page), []);
      await page.goto(`${t.url}/loans?history=1`);
      const returned = page.locator('section[aria-labelledby="returned-heading"] li.loan');
      assert.equal(await returned.count(), 1);
      assert.equal(await returned.getAttribute('class'), 'loan');
      assert.match(
        (await returned.textContent()) ?? '',
        new RegExp(`The Long Harbour[\\s\\S]*to Sam Porter since ${TODAY}, due ${DUE}, back ${TODAY}`),
      );
    }
    await admin.goto(`${t.url}/movie/${harbour.movie}`);
    assert.equal(
      await disc(admin, harbour).getByRole('button', { name: 'Lend', exact: true }).isVisible(),
      true,
    );
    const loans = await allLoans(t);
    assert.equal(loans.length, 1);
    assert.equal(loans[0]?.returned_at?.slice(0, 10), TODAY);
    assert.deepEqual(errors, []);
  });

  it('at 1920×1080 no text runs out of the loans lists, even the longest borrower name', async () => {
    // The longest name the API keeps, in one word (a pasted address has no spaces to break at).
    const longest = 'x'.repeat(MAX_BORROWER_LENGTH);
    await admin.goto(`${t.url}/movie/${harbour.movie}`);
    const line = disc(admin, harbour);
    await line.getByLabel('Lend to', { exact: true }).fill(longest);
    await line.getByLabel('Due', { exact: true }).fill(DUE);
    await Promise.all([
      admin.waitForURL(/#loans-heading$/),
      line.getByRole('button', { name: 'Lend', exact: true }).click(),
    ]);
    await admin.goto(`${t.url}/movie/${train.movie}`);
    await disc(admin, train)
      .getByLabel('Lend to', { exact: true })
      .fill('Kim from the book club on Rosemary Street');
    await Promise.all([
      admin.waitForURL(/#loans-heading$/),
      disc(admin, train).getByRole('button', { name: 'Lend', exact: true }).click(),
    ]);

    await admin.goto(`${t.url}/loans?history=1`);
    assert.equal(await admin.locator('li.loan').count(), 3);
    assert.deepEqual(await overflowing(admin, 'main .loan-list'), []);
    const shot = await admin.screenshot({ type: 'png' });
    mkdirSync(dirname(SCREENSHOT), { recursive: true });
    writeFileSync(SCREENSHOT, shot);
    await admin.goto(`${t.url}/movie/${harbour.movie}`);
    assert.deepEqual(await overflowing(admin, 'section.loans'), []);
    assert.deepEqual(errors, []);
  });
});
