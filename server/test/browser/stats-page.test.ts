// Issue 27 item 6 in a real browser (Debian's Chromium, playwright-core): /stats draws its six
// charts as SVG images with names a screen reader reads, no script and no page error; the picture
// at 1920×1080 is the README's.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { type Browser, type Page } from 'playwright-core';
import sharp from 'sharp';
import { browserSkip, launchChromium, signIn } from '../helpers/chromium.ts';
import { seedPlays, seedStatsLibrary } from '../helpers/stats-library.ts';
import { startTestServer, type TestServer } from '../helpers/test-server.ts';

/**
 * The picture of /stats at 1920×1080: under test-output/ on every run; the README's copy
 * (docs/stats.png) only when REELSHELF_UPDATE_SCREENSHOTS=1 asks (a test run leaves the tree clean).
 */
const SCREENSHOT = fileURLToPath(
  new URL(
    process.env.REELSHELF_UPDATE_SCREENSHOTS === '1'
      ? '../../../docs/stats.png'
      : '../../../test-output/screenshots/stats.png',
    import.meta.url,
  ),
);

describe('stats page in Chromium', { skip: browserSkip() }, () => {
  let t: TestServer;
  let browser: Browser;
  let page: Page;
  let profile: string;
  const errors: string[] = [];

  before(async () => {
    profile = mkdtempSync(join(tmpdir(), 'reelshelf-chromium-'));
    t = await startTestServer();
    const lib = await seedStatsLibrary(t, t.dataDir);
    const year = new Date().getUTCFullYear();
    await seedPlays(t, 1, lib, [
      ['Stats Film 03', `${year}-01-04T20:00:00.000Z`, 5400, 'web'],
      ['Stats Film 08', `${year}-02-14T21:00:00.000Z`, 7200, 'tv'],
      ['Stats Film 10', `${year}-03-01T18:00:00.000Z`, 3600, 'tv'],
    ]);
    browser = await launchChromium(profile);
    const context = await browser.newContext({ viewport: { width: 1920, height: 1080 } });
    page = await context.newPage();
    page.on('pageerror', (err) => errors.push(err.message));
    await signIn(page, t.url, t.token);
  });

  after(async () => {
    await browser?.close();
    await t?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  it('/stats shows six charts as named SVG images', async () => {
    const res = await page.goto(`${t.url}/stats`);
    assert.equal(res?.status(), 200);
    const charts = page.getByRole('img');
    assert.equal(await page.locator('svg.chart').count(), 6);
    assert.ok(await page.getByRole('img', { name: /Discs by format/ }).isVisible());
    assert.ok(await page.getByRole('img', { name: /How the files play on each device/ }).isVisible());
    assert.ok((await charts.count()) >= 6);
    // Charts are drawn at their size (not collapsed) and two to a row at 1920 px.
    const boxes = await page.locator('svg.chart').evaluateAll((els) =>
      els.map((e) => {
        const r = e.getBoundingClientRect();
        return { w: Math.round(r.width), x: Math.round(r.x) };
      }),
    );
    for (const b of boxes) assert.ok(b.w > 600, JSON.stringify(boxes));
    assert.equal(new Set(boxes.map((b) => b.x)).size, 2, JSON.stringify(boxes));
    assert.equal(await page.locator('script').count(), 0);
    // A palette PNG: the picture stays sharp and small enough to keep in the repository.
    const shot = await page.screenshot({ type: 'png' });
    mkdirSync(dirname(SCREENSHOT), { recursive: true });
    await sharp(shot).png({ palette: true, colors: 48, effort: 10 }).toFile(SCREENSHOT);
    assert.deepEqual(errors, []);
  });

  it('/stats/year shows the person’s year', async () => {
    const res = await page.goto(`${t.url}/stats/year`);
    assert.equal(res?.status(), 200);
    // This year's by default: the year of the plays seeded above.
    const year = new Date().getUTCFullYear();
    assert.match((await page.locator('h1').textContent()) ?? '', new RegExp(`’s ${year}$`));
    assert.ok(await page.getByRole('img', { name: /Plays by month/ }).isVisible());
    assert.deepEqual(errors, []);
  });
});
