/**
 * A browser test as the real ones are written (helpers/chromium.ts's browserSkip and
 * chromiumExecutable), run as its own `node --test` process by unit/chromium-lookup.test.ts to see
 * what a missing Chromium does to a run: skipped locally, failed on CI.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { chromium } from 'playwright-core';
import { browserSkip, chromiumExecutable, chromiumFlags } from './chromium.ts';

describe('browser probe', { skip: browserSkip() }, () => {
  it('launches Chromium and opens a page', async () => {
    const profile = mkdtempSync(join(tmpdir(), 'reelshelf-probe-chromium-'));
    try {
      const browser = await chromium.launch({
        executablePath: chromiumExecutable(),
        headless: true,
        ignoreDefaultArgs: true,
        args: [...chromiumFlags(), `--user-data-dir=${profile}`, '--remote-debugging-pipe'],
      });
      try {
        const page = await browser.newPage();
        await page.setContent('<p>probe</p>');
        if ((await page.textContent('p')) !== 'probe') throw new Error('the page did not render');
      } finally {
        await browser.close();
      }
    } finally {
      rmSync(profile, { recursive: true, force: true });
    }
  });
});
