// Issue 27 items 2 and 3 in a real browser (Debian's Chromium, playwright-core): the rip queue in
// binder/slot order with its total, narrowed by the format checkboxes; the upgrades page's lines.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { type Browser, type Page } from 'playwright-core';
import sharp from 'sharp';
import { browserSkip, launchChromium, signIn } from '../helpers/chromium.ts';
import { jsonBody, startTestServer, type TestServer } from '../helpers/test-server.ts';

/**
 * The picture of /rip-queue at 1920×1080: under test-output/ on every run; the README's copy
 * (docs/rip-queue.png) only when REELSHELF_UPDATE_SCREENSHOTS=1 asks (a test run leaves the tree clean).
 */
const SCREENSHOT = fileURLToPath(
  new URL(
    process.env.REELSHELF_UPDATE_SCREENSHOTS === '1'
      ? '../../../docs/rip-queue.png'
      : '../../../test-output/screenshots/rip-queue.png',
    import.meta.url,
  ),
);

/** [title, year, runtime, binder, slot, format, edition?] */
const DISCS: [string, number, number, string, string, string, string?][] = [
  ['The Long Harbour', 1987, 124, 'A', '2', '4K UHD'],
  ['Night Train North', 1994, 101, 'A', '3', 'Blu-ray', 'Steelbook'],
  ['Paper Lanterns', 2003, 96, 'A', '7', 'DVD'],
  ['Glass Mountain', 2016, 142, 'A', '11', '4K UHD', 'Collector’s Edition'],
  ['The Quiet Orchard', 1978, 88, 'A', 'Front pocket', 'DVD'],
  ['Salt and Iron', 2009, 117, 'B', '1', 'Blu-ray'],
  ['Winter Signal', 2021, 131, 'B', '4', '4K UHD'],
  ['Low Tide Club', 1999, 93, 'B', '5', 'Blu-ray', 'Criterion'],
  ['Copper Sky', 2012, 109, 'B', '9', 'DVD'],
];

describe('rip queue and upgrades pages in Chromium', { skip: browserSkip() }, () => {
  let t: TestServer;
  let browser: Browser;
  let page: Page;
  let profile: string;
  const errors: string[] = [];

  before(async () => {
    profile = mkdtempSync(join(tmpdir(), 'reelshelf-chromium-'));
    t = await startTestServer();
    for (const [title, year, runtime, binder, slot, format, edition] of DISCS) {
      const copy = { binder, slot, format, ...(edition === undefined ? {} : { edition }) };
      // Two of the same edition: a double for the upgrades page.
      const copies = title === 'Salt and Iron' ? [copy, { ...copy, slot: '2' }] : [copy];
      const res = await t.api(
        '/api/movies',
        jsonBody('POST', { title, year, runtime_minutes: runtime, physical_copies: copies }),
      );
      assert.equal(res.status, 201, await res.text());
    }
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

  const titles = () =>
    page.locator('.rip-queue tbody tr td:nth-child(3) a').evaluateAll((els) => els.map((e) => e.textContent));

  it('/rip-queue lists the discs in binder/slot order with the total estimate', async () => {
    const res = await page.goto(`${t.url}/rip-queue`);
    assert.equal(res?.status(), 200);
    assert.deepEqual(await titles(), [
      'The Long Harbour',
      'Night Train North',
      'Paper Lanterns',
      'Glass Mountain',
      'The Quiet Orchard',
      'Salt and Iron',
      'Winter Signal',
      'Low Tide Club',
      'Copper Sky',
    ]);
    assert.equal(await page.locator('.rip-total').getAttribute('data-total-minutes'), '1001');
    assert.match((await page.locator('.rip-total').textContent()) ?? '', /9 films · about 16 h 41 min/);
    assert.equal(await page.locator('nav a[aria-current="page"]').textContent(), 'Rip queue');
    const shot = await page.screenshot({ type: 'png' });
    mkdirSync(dirname(SCREENSHOT), { recursive: true });
    await sharp(shot).png({ palette: true, colors: 64, effort: 10 }).toFile(SCREENSHOT);
    assert.ok(statSync(SCREENSHOT).size < 100_000, `${SCREENSHOT} is under 100 KB`);
    assert.deepEqual(errors, []);
  });

  it('the format checkboxes narrow it: the 4K discs first', async () => {
    await page.goto(`${t.url}/rip-queue`);
    await page.getByLabel('4K UHD').check();
    await Promise.all([
      page.waitForURL(/format=4K\+UHD/),
      page.getByRole('button', { name: 'Show' }).click(),
    ]);
    assert.deepEqual(await titles(), ['The Long Harbour', 'Glass Mountain', 'Winter Signal']);
    assert.equal(await page.getByLabel('4K UHD').isChecked(), true);
    assert.equal(await page.locator('.rip-total').getAttribute('data-total-minutes'), '397');
    await page.getByRole('link', { name: 'All formats' }).click();
    assert.equal((await titles()).length, 9);
    assert.deepEqual(errors, []);
  });

  it('/upgrades says why on each line', async () => {
    const res = await page.goto(`${t.url}/upgrades`);
    assert.equal(res?.status(), 200);
    const line = page.locator('.upgrade', { hasText: 'Salt and Iron' });
    assert.match(
      (await line.locator('li[data-code="duplicate_edition"]').textContent()) ?? '',
      /Owned twice\s+2 copies of the same edition, Blu-ray \(copies \d+, \d+\)\./,
    );
    assert.equal(await page.locator('.upgrade').count(), 1);
    assert.deepEqual(errors, []);
  });
});
