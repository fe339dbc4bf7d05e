// The import page in Chromium with "every row is a wish" (issue 27 item 5): a Letterboxd
// watchlist.csv checked (a dry run that counts the wishes), imported, and then on /wishes.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Browser, type Page } from 'playwright-core';
import { browserSkip, launchChromium, signIn } from '../helpers/chromium.ts';
import { startTestServer, type TestServer } from '../helpers/test-server.ts';

describe('import page: a Letterboxd watchlist as wishes, in Chromium', { skip: browserSkip() }, () => {
  let t: TestServer;
  let browser: Browser;
  let page: Page;
  let dir: string;
  const errors: string[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'reelshelf-wishes-chromium-'));
    t = await startTestServer();
    browser = await launchChromium(join(dir, 'profile'));
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.on('pageerror', (err) => errors.push(err.message));
    await signIn(page, t.url, t.token);
  });

  after(async () => {
    await browser?.close();
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('checks, imports and lists the wishes', async () => {
    const file = join(dir, 'watchlist.csv');
    writeFileSync(
      file,
      'Date,Name,Year,Letterboxd URI\n2024-01-02,"Paris, Texas",1984,https://boxd.it/2aHM\n2024-01-03,Stalker,1979,https://boxd.it/2bXy\n',
    );
    await page.goto(`${t.url}/import`);
    await page.getByLabel('File (CSV or JSON, up to 40 MiB)').setInputFiles(file);
    await page.locator('#import-into-wishes').check();
    await page.getByRole('button', { name: 'Check file' }).click();
    const status = page.locator('#import-status');
    await status.filter({ hasText: 'The file is good' }).waitFor({ timeout: 30_000 });
    assert.match((await status.textContent()) ?? '', /0 new movies.*wishes: 2 new/);
    await page.getByRole('button', { name: 'Import' }).click();
    await status.filter({ hasText: 'Imported' }).waitFor({ timeout: 30_000 });
    assert.match((await status.textContent()) ?? '', /wishes: 2 new, 0 already wished/);
    await page.goto(`${t.url}/wishes`);
    const titles = await page.locator('.wish-list tbody tr td:first-child').allTextContents();
    assert.deepEqual(titles, ['Paris, Texas', 'Stalker']);
    assert.deepEqual(errors, []);
  });
});
