// Issue 27 item 1 in a real browser (Debian's Chromium, playwright-core): a binder of 20 discs is
// drawn as 3 pages of 8 with 4 empty slots, and a disc moves with the form on its slot.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { type Browser, type Page } from 'playwright-core';
import sharp from 'sharp';
import { browserSkip, launchChromium, signIn } from '../helpers/chromium.ts';
import { jsonBody, startTestServer, type TestServer } from '../helpers/test-server.ts';

/**
 * The picture of /binders/A at 1920×1080: under test-output/ on every run; the README's copy
 * (docs/binders.png) only when REELSHELF_UPDATE_SCREENSHOTS=1 asks (a test run leaves the tree clean).
 */
const SCREENSHOT = fileURLToPath(
  new URL(
    process.env.REELSHELF_UPDATE_SCREENSHOTS === '1'
      ? '../../../docs/binders.png'
      : '../../../test-output/screenshots/binders.png',
    import.meta.url,
  ),
);
const FORMATS = ['Blu-ray', 'DVD', '4K UHD'];

describe('binder pages in Chromium', { skip: browserSkip() }, () => {
  let t: TestServer;
  let browser: Browser;
  let page: Page;
  let profile: string;
  const errors: string[] = [];

  before(async () => {
    profile = mkdtempSync(join(tmpdir(), 'reelshelf-chromium-'));
    t = await startTestServer();
    for (let i = 1; i <= 20; i++) {
      const res = await t.api(
        '/api/movies',
        jsonBody('POST', {
          title: `Shelf Film ${String(i).padStart(2, '0')}`,
          year: 1980 + i,
          physical_copies: [
            {
              binder: 'A',
              slot: String(i),
              format: FORMATS[i % 3],
              ...(i % 4 === 0 ? { edition: 'Steelbook' } : {}),
            },
          ],
        }),
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

  it('/binders/A shows 3 pages of 8 slots, 4 of them empty', async () => {
    const res = await page.goto(`${t.url}/binders/A`);
    assert.equal(res?.status(), 200);
    assert.equal(await page.locator('.binder-page').count(), 3);
    assert.equal(await page.locator('.binder-page').nth(2).locator('.slot').count(), 8);
    assert.equal(await page.locator('.slot-empty').count(), 4);
    assert.deepEqual(
      await page.locator('.slot-empty').evaluateAll((els) => els.map((e) => e.getAttribute('data-slot'))),
      ['21', '22', '23', '24'],
    );
    // A palette PNG: the picture stays sharp and small enough to keep in the repository.
    const shot = await page.screenshot({ type: 'png' });
    mkdirSync(dirname(SCREENSHOT), { recursive: true });
    await sharp(shot).png({ palette: true, colors: 64, effort: 10 }).toFile(SCREENSHOT);
    assert.deepEqual(errors, []);
  });

  it('a disc moves with its form; a taken slot is refused with the holder named', async () => {
    await page.goto(`${t.url}/binders/A`);
    const first = page.locator('.slot[data-slot="1"]');
    await first.getByText('Move', { exact: true }).click();
    await first.getByLabel('Slot').fill('2');
    await first.getByRole('button', { name: 'Move disc' }).click();
    await page.getByRole('alert').waitFor();
    assert.match((await page.getByRole('alert').textContent()) ?? '', /Shelf Film 02/);

    await page.goto(`${t.url}/binders/A`);
    const again = page.locator('.slot[data-slot="1"]');
    await again.getByText('Move', { exact: true }).click();
    await again.getByLabel('Slot').fill('22');
    await Promise.all([
      page.waitForURL(/\/binders\/A#slot-22$/),
      again.getByRole('button', { name: 'Move disc' }).click(),
    ]);
    assert.match(
      (await page.locator('.slot[data-slot="22"] .slot-title').textContent()) ?? '',
      /Shelf Film 01/,
    );
    assert.equal(await page.locator('.slot[data-slot="1"]').getAttribute('class'), 'slot slot-empty');
    assert.equal(await page.locator('.binder-page').count(), 3);
    assert.deepEqual(errors, []);
  });

  it('the printable index lists one line per slot, binder by binder', async () => {
    await page.goto(`${t.url}/binders?print`);
    assert.equal(await page.locator('.print-binder h2').textContent(), 'A');
    assert.equal(await page.locator('.print-index tbody tr').count(), 24);
    await page.emulateMedia({ media: 'print' });
    assert.equal(await page.locator('.site-header').isVisible(), false);
    await page.emulateMedia({ media: 'screen' });
  });
});
