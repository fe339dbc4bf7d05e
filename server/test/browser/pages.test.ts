// The pages in a real browser: Debian's Chromium driven by playwright-core against a real server.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { seedMoviesWithCopies } from '../../../bench/seed.ts';
import { ReelshelfClient } from '../../../client/src/index.ts';
import type { Db } from '../../src/db/database.ts';
import { registerFiles } from '../helpers/library-fixtures.ts';
import { makeFixture } from '../helpers/media.ts';
import { startTestServer, type TestServer } from '../helpers/test-server.ts';
import { browserSkip, chromiumExecutable, chromiumFlags, signIn } from '../helpers/chromium.ts';

const CHROMIUM_FLAGS = chromiumFlags();
const SCREENSHOTS = fileURLToPath(new URL('../../../test-output/screenshots/', import.meta.url));
const XSS_TITLE = '<script>window.__xss = 1</script><img src=x onerror="window.__xss = 2"> Evil';

async function addCredit(db: Db, movieId: number, name: string, role: 'cast' | 'crew', job: string | null) {
  const person = await db
    .insertInto('persons')
    .values({ tmdb_id: null, name, profile_path: null })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db
    .insertInto('person_movie')
    .values({
      person_id: person.id,
      movie_id: movieId,
      role,
      character: role === 'cast' ? 'Herself' : null,
      job,
      department: job === null ? null : 'Directing',
      sort_order: 0,
    })
    .execute();
}

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: false });
}

describe('pages in Chromium', { skip: browserSkip() }, () => {
  let t: TestServer;
  let client: ReelshelfClient;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let media: string;
  let scanDir: string;
  let profile: string;
  let mp4Movie = 0;
  let dtsMovie = 0;
  const errors: string[] = [];

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    media = mkdtempSync(join(tmpdir(), 'reelshelf-pages-media-'));
    scanDir = mkdtempSync(join(tmpdir(), 'reelshelf-pages-scan-'));
    profile = mkdtempSync(join(tmpdir(), 'reelshelf-chromium-'));
    const [mp4, dts] = await Promise.all([
      makeFixture('h264_aac.mp4', join(media, 'harbor.mp4'), 4),
      makeFixture('h264_dts.mkv', join(media, 'voyage.mkv'), 8),
    ]);
    const scanMovie = join(scanDir, 'Quiet Garden (2011)');
    mkdirSync(scanMovie);
    copyFileSync(mp4, join(scanMovie, 'Quiet Garden (2011).mp4'));

    t = await startTestServer();
    const db = t.server.database.db;
    const ids = await registerFiles(db, media, { mp4, dts });
    await t.server.services.analysis.analyzePending();
    mp4Movie = ids.mp4?.movieId ?? 0;
    dtsMovie = ids.dts?.movieId ?? 0;

    client = new ReelshelfClient({ baseUrl: t.url, token: t.token });
    await client.updateMovie(mp4Movie, {
      title: 'Night Harbor',
      year: 1999,
      overview: 'A lighthouse keeper hears a signal.',
      runtime_minutes: 104,
    });
    await client.updateMovie(dtsMovie, { title: 'Iron Voyage', year: 2004 });
    await client.createMovie({
      title: 'Golden Winter',
      year: 1987,
      physical_copies: [{ binder: 'Binder A', slot: '12', format: 'Blu-ray' }],
    });
    await client.createMovie({ title: XSS_TITLE, year: 2020 });
    await addCredit(db, mp4Movie, 'Ada Lovelace', 'cast', null);
    await addCredit(db, mp4Movie, 'Grace Hopper', 'crew', 'Director');

    browser = await chromium.launch({
      executablePath: chromiumExecutable(),
      headless: true,
      // Exactly the flags above; Playwright's own defaults are left out, its pipe is kept.
      ignoreDefaultArgs: true,
      args: [...CHROMIUM_FLAGS, `--user-data-dir=${profile}`, '--remote-debugging-pipe'],
    });
    context = await browser.newContext({ viewport: { width: 1920, height: 1080 } });
    page = await context.newPage();
    page.on('pageerror', (err) => errors.push(err.message));
  });

  after(async () => {
    await browser?.close();
    await t?.close();
    for (const dir of [media, scanDir, profile]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a page without a session goes to sign-in; a wrong token shows the form again (401)', async () => {
    const res = await page.goto(`${t.url}/library`);
    assert.equal(new URL(page.url()).pathname, '/sign-in');
    assert.equal(res?.status(), 200);
    const api = await fetch(`${t.url}/library`);
    assert.equal(api.status, 401, 'an API request without auth stays a 401');
    assert.equal(await page.getAttribute('html', 'lang'), 'en');
    await page.getByLabel('Admin token').fill('not-the-token');
    const [wrong] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/sign-in') && r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Sign in' }).click(),
    ]);
    assert.equal(wrong.status(), 401);
    await page.getByRole('alert').waitFor();
    assert.match((await page.getByRole('alert').textContent()) ?? '', /not right/);
    await shot(page, 'sign-in-error');
  });

  it('signs in with an HttpOnly, SameSite=Lax session cookie and shows the poster grid', async () => {
    await signIn(page, t.url, t.token);
    const cookie = (await context.cookies()).find((c) => c.name === 'reelshelf_session');
    assert.ok(cookie, 'session cookie set');
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, 'Lax');
    assert.equal(cookie.path, '/');
    const csrf = await page.getAttribute('meta[name="csrf-token"]', 'content');
    assert.ok(csrf !== null && csrf.length > 20, 'CSRF token in a meta tag');

    assert.equal(await page.locator('.grid > li').count(), 4);
    assert.match(
      (await page.locator('.health').textContent()) ?? '',
      /\d+ playable · \d+ need review · \d+ not playable/,
    );
    const card = page.locator('.card', { hasText: 'Night Harbor' });
    assert.equal(await card.locator('.badge').textContent(), 'Playable', 'badge shows a word');
    const colour = await card.locator('.badge').evaluate((el) => getComputedStyle(el).backgroundColor);
    assert.notEqual(colour, 'rgba(0, 0, 0, 0)', 'badge shows a colour');
    assert.equal(
      await page.locator('.card', { hasText: 'Golden Winter' }).locator('.badge').textContent(),
      'On disc',
    );
    await shot(page, 'library-tv-1920');
    await page.setViewportSize({ width: 390, height: 844 });
    await shot(page, 'library-phone');
    await page.setViewportSize({ width: 1920, height: 1080 });
  });

  it('data renders as text: a title with <script> does not run', async () => {
    const title = page.locator('.card-title', { hasText: 'Evil' });
    assert.equal(await title.textContent(), XSS_TITLE);
    assert.equal(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss), undefined);
    assert.equal(await page.locator('.grid img[src="x"]').count(), 0);
  });

  it('searches across cast and director names, filters by format and sorts', async () => {
    await page.getByLabel('Search title, cast or director').fill('lovelace');
    await Promise.all([page.waitForURL(/q=lovelace/), page.getByRole('button', { name: 'Apply' }).click()]);
    assert.deepEqual(await page.locator('.card-title').allTextContents(), ['Night Harbor']);
    await page.getByLabel('Search title, cast or director').fill('hopper');
    await Promise.all([page.waitForURL(/q=hopper/), page.getByRole('button', { name: 'Apply' }).click()]);
    assert.deepEqual(await page.locator('.card-title').allTextContents(), ['Night Harbor']);

    await page.goto(`${t.url}/library?format=Blu-ray`);
    assert.deepEqual(await page.locator('.card-title').allTextContents(), ['Golden Winter']);
    await page.goto(`${t.url}/library?sort=year`);
    const years = await page.locator('.card .year').allTextContents();
    assert.deepEqual(years, ['2020', '2004', '1999', '1987']);
    await page.goto(`${t.url}/library?sort=recent`);
    assert.equal(await page.locator('.card-title').first().textContent(), XSS_TITLE);
  });

  it('keyboard focus is visible', async () => {
    await page.goto(`${t.url}/library`);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    const outline = await page.evaluate(() => {
      const el = document.activeElement;
      return el === null ? null : getComputedStyle(el).outlineStyle + ' ' + getComputedStyle(el).outlineWidth;
    });
    assert.ok(outline !== null && !outline.startsWith('none'), `focused element has an outline: ${outline}`);
    const levels = await page.evaluate(() =>
      Array.from(document.querySelectorAll('h1, h2, h3')).map((h) => Number(h.tagName[1])),
    );
    assert.equal(levels[0], 1);
    for (let i = 1; i < levels.length; i++)
      assert.ok((levels[i] ?? 0) - (levels[i - 1] ?? 0) <= 1, 'no skipped level');
    const unlabelled = await page.evaluate(
      () =>
        Array.from(document.querySelectorAll('input:not([type=hidden]), select')).filter(
          (el) => (el as HTMLInputElement).labels?.length === 0,
        ).length,
    );
    assert.equal(unlabelled, 0, 'every input has a label');
  });

  it('the movie page shows people, editions and plays the H.264/AAC MP4 (canplay)', async () => {
    await page.goto(`${t.url}/library?q=harbor`);
    await Promise.all([
      page.waitForURL(`${t.url}/movie/${mp4Movie}`),
      page.locator('.card-link').first().click(),
    ]);
    assert.equal(await page.locator('h1').textContent(), 'Night Harbor');
    const people = (await page.locator('.people').textContent()) ?? '';
    assert.match(people, /Ada Lovelace/);
    assert.match(people, /Grace Hopper/);
    assert.match((await page.locator('.movie-facts').textContent()) ?? '', /1999 · 1 h 44 min/);
    assert.match((await page.locator('.edition .playback').first().textContent()) ?? '', /\S/);
    // Resolves with plain data (no named inner functions: the bundler would wrap them).
    const result = await page.evaluate(async () => {
      const video = document.querySelector('video');
      if (video === null) return { ok: false, readyState: -1, error: null, src: '' };
      const ok = await new Promise<boolean>((resolve) => {
        video.addEventListener('canplay', () => resolve(true), { once: true });
        video.addEventListener('error', () => resolve(false), { once: true });
        setTimeout(() => resolve(false), 15_000);
        if (video.readyState >= 3) resolve(true);
        else {
          video.preload = 'auto';
          video.load();
        }
      });
      return { ok, readyState: video.readyState, error: video.error?.code ?? null, src: video.src };
    });
    assert.ok(result.ok, `video reached canplay: ${JSON.stringify(result)}`);
    assert.match(result.src, /\/stream\/media_file\/\d+\?.*token=/);
    await shot(page, 'movie-mp4');
  });

  it('"Prepare for TV" goes from building to ready with live progress', async () => {
    await page.goto(`${t.url}/movie/${dtsMovie}`);
    const widget = page.locator('.prewarm').first();
    await page.waitForFunction(
      () => document.querySelector('.prewarm')?.getAttribute('data-state') !== 'unknown',
    );
    assert.equal(await widget.getAttribute('data-state'), 'not_ready');
    await widget.getByRole('button', { name: 'Prepare for TV' }).click();
    await page.waitForSelector('.prewarm[data-state="building"]', { timeout: 10_000 });
    assert.match((await widget.locator('.prewarm-status').textContent()) ?? '', /%/);
    assert.equal(await widget.getByRole('button', { name: 'Cancel' }).isVisible(), true);
    await shot(page, 'movie-prewarm-building');
    await page.waitForSelector('.prewarm[data-state="ready"]', { timeout: 30_000 });
    assert.equal(await widget.locator('.prewarm-status').textContent(), 'Ready for the TV.');
    assert.equal(await widget.getByRole('button', { name: 'Cancel' }).isVisible(), false);
    assert.equal(await widget.locator('.prewarm-progress').isVisible(), false);
    await shot(page, 'movie-prewarm-ready');
  });

  it('a state-changing API call with the cookie needs the CSRF token', async () => {
    const outcome = await page.evaluate(async () => {
      const csrf = document.querySelector('meta[name="csrf-token"]')?.getAttribute('content') ?? '';
      const url = '/api/movies';
      const body = JSON.stringify({ title: 'Made in the browser' });
      const headers = { 'content-type': 'application/json' };
      const without = await fetch(url, { method: 'POST', headers, body });
      const withToken = await fetch(url, {
        method: 'POST',
        headers: { ...headers, 'x-csrf-token': csrf },
        body,
      });
      return { without: without.status, with: withToken.status };
    });
    assert.deepEqual(outcome, { without: 403, with: 201 });
  });

  it('the scan page adds a folder and shows the scan to its end', async () => {
    await page.goto(`${t.url}/scan`);
    await page.getByLabel('Folder path (absolute, on the server)').fill(scanDir);
    await page.getByLabel('Name (optional)').fill('Scanned shelf');
    await Promise.all([
      page.waitForLoadState('load'),
      page.getByRole('button', { name: 'Add folder' }).click(),
    ]);
    await page.getByRole('heading', { name: 'Scanned shelf' }).waitFor();
    await page.getByRole('button', { name: 'Scan Scanned shelf now' }).click();
    const box = page.locator('.root', { hasText: 'Scanned shelf' }).locator('.scan-progress');
    await box.locator('[role="status"]', { hasText: 'Scan finished' }).waitFor({ timeout: 30_000 });
    assert.match((await box.textContent()) ?? '', /found 1, new 1/);
    await shot(page, 'scan-finished');
  });

  it('signing out ends the session: /library redirects to sign-in', async () => {
    await page.goto(`${t.url}/library`);
    await Promise.all([
      page.waitForURL(/\/sign-in$/),
      page.getByRole('button', { name: 'Sign out' }).click(),
    ]);
    await page.goto(`${t.url}/library`);
    assert.equal(new URL(page.url()).pathname, '/sign-in');
    assert.deepEqual(errors, [], 'no script errors on any page');
  });

  it('the library page of 10,000 movies shows its first screen quickly', async () => {
    const big = await startTestServer();
    try {
      await seedMoviesWithCopies(big.server.database.db, 10_000);
      const ctx = await browser.newContext({ viewport: { width: 1920, height: 1080 } });
      const p = await ctx.newPage();
      await signIn(p, big.url, big.token);
      await p.goto(`${big.url}/library`);
      const timing = await p.evaluate(async () => {
        const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
        // The paint entry arrives once the frame is presented, possibly after "load".
        const firstContentfulPaint = await new Promise<number>((resolve) => {
          new PerformanceObserver((list) => {
            const entry = list.getEntriesByName('first-contentful-paint')[0];
            if (entry !== undefined) resolve(entry.startTime);
          }).observe({ type: 'paint', buffered: true });
          setTimeout(() => resolve(-1), 5000);
        });
        return {
          responseStart: nav?.responseStart ?? -1,
          domContentLoaded: nav?.domContentLoadedEventEnd ?? -1,
          firstContentfulPaint,
        };
      });
      assert.equal(await p.locator('.grid > li').count(), 60);
      assert.match((await p.locator('.pager').textContent()) ?? '', /Page 1 of 167/);
      await shot(p, 'library-10000');
      const firstScreen = Math.max(timing.domContentLoaded, timing.firstContentfulPaint);
      console.log(
        `# /library with 10,000 movies: first byte ${timing.responseStart.toFixed(0)} ms, ` +
          `DOMContentLoaded ${timing.domContentLoaded.toFixed(0)} ms, ` +
          `first contentful paint ${timing.firstContentfulPaint.toFixed(0)} ms`,
      );
      assert.ok(timing.domContentLoaded > 0, 'navigation timing present');
      assert.ok(firstScreen < 3000, `first screen in ${firstScreen.toFixed(0)} ms (< 3 s)`);
      await ctx.close();
    } finally {
      await big.close();
    }
  });
});
