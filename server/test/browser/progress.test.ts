// Progress bars in a real browser (Debian's Chromium via playwright-core): the scan page's bar moves
// while a real scan runs and ends full; the import page's bar ends full after an import, and a
// job poll answered after the import itself does not take that back.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Browser, chromium, type Page } from 'playwright-core';
import type { JobView } from '@reelshelf/contract';
import { ReelshelfClient } from '../../../client/src/index.ts';
import { bundledToolPath, findOnPath } from '../../src/adapters/media-tools.ts';
import { makeMediaTree } from '../helpers/media.ts';
import { startTestServer, type TestServer } from '../helpers/test-server.ts';
import { browserSkip, chromiumExecutable, chromiumFlags, signIn } from '../helpers/chromium.ts';

const CHROMIUM_FLAGS = chromiumFlags();
const FILES = 80;
/** The page asks every 500 ms; the scan must last several of those on any machine. */
const SCAN_SECONDS = 2.5;

/**
 * The real ffprobe behind a pause, as a slow disk would make it: with the bundled ffprobe 80 small
 * files scan in ~0.5 s, one poll of the page, and a faster machine scans faster still. The pause
 * makes the scan last ~2.5 s whatever the cores (the scan runs one ffprobe per core).
 */
function slowFfprobe(dir: string): string {
  const real = bundledToolPath('ffprobe') ?? findOnPath('ffprobe', process.env.PATH) ?? 'ffprobe';
  const pause = ((SCAN_SECONDS * Math.max(1, cpus().length)) / FILES).toFixed(3);
  const path = join(dir, 'slow-ffprobe');
  writeFileSync(path, `#!/bin/sh\nsleep ${pause}\nexec "${real}" "$@"\n`, { mode: 0o755 });
  return path;
}

interface BarReading {
  value: number;
  max: number;
  hidden: boolean;
  determinate: boolean;
  text: string;
}

/** Reads a <progress> and the status line next to it, every few milliseconds, until `until` matches. */
async function watchBar(
  page: Page,
  barSelector: string,
  statusSelector: string,
  until: RegExp,
): Promise<BarReading[]> {
  const readings: BarReading[] = [];
  const deadline = Date.now() + 90_000;
  for (;;) {
    const reading = await page.evaluate(
      ([barSel, statusSel]) => {
        const bar = document.querySelector<HTMLProgressElement>(barSel ?? '');
        const status = document.querySelector(statusSel ?? '');
        return {
          value: bar?.value ?? -1,
          max: bar?.max ?? -1,
          hidden: bar?.hidden ?? true,
          determinate: bar?.hasAttribute('value') ?? false,
          text: status?.textContent ?? '',
        };
      },
      [barSelector, statusSelector],
    );
    readings.push(reading);
    if (until.test(reading.text)) return readings;
    assert.ok(Date.now() < deadline, `still waiting: ${JSON.stringify(reading)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('progress bars in Chromium', { skip: browserSkip() }, () => {
  let t: TestServer;
  let client: ReelshelfClient;
  let browser: Browser;
  let page: Page;
  let media: string;
  let profile: string;
  const errors: string[] = [];

  before(async () => {
    media = mkdtempSync(join(tmpdir(), 'reelshelf-progress-media-'));
    profile = mkdtempSync(join(tmpdir(), 'reelshelf-progress-chromium-'));
    await makeMediaTree(join(media, 'shelf'), FILES);
    rmSync(join(media, 'shelf', '.seed'), { recursive: true, force: true });
    t = await startTestServer({ REELSHELF_FFPROBE: slowFfprobe(media) });
    client = new ReelshelfClient({ baseUrl: t.url, token: t.token });
    browser = await chromium.launch({
      executablePath: chromiumExecutable(),
      headless: true,
      ignoreDefaultArgs: true,
      args: [...CHROMIUM_FLAGS, `--user-data-dir=${profile}`, '--remote-debugging-pipe'],
    });
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.on('pageerror', (err) => errors.push(err.message));
    await signIn(page, t.url, t.token);
  });

  after(async () => {
    await browser?.close();
    await t?.close();
    for (const dir of [media, profile]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('scan page: the bar moves while the scan runs and ends full', async () => {
    const root = await client.createLibraryRoot({ path: join(media, 'shelf'), name: 'Progress shelf' });
    await page.goto(`${t.url}/scan`);
    const box = `.scan-progress[data-root-id="${root.id}"]`;
    assert.equal(await page.locator(`${box} progress`).isVisible(), false, 'no bar before a scan');
    await page.getByRole('button', { name: 'Scan Progress shelf now' }).click();
    const readings = await watchBar(page, `${box} progress`, `${box} [role="status"]`, /Scan finished/);

    const running = readings.filter((r) => r.text.startsWith('Scanning:') && !r.hidden);
    const counted = running.filter((r) => r.max === FILES);
    assert.ok(counted.length > 0, `the bar showed the file count: ${JSON.stringify(readings.slice(0, 5))}`);
    for (const [i, r] of counted.entries()) {
      assert.ok(r.value >= 0 && r.value <= r.max, JSON.stringify(r));
      if (i > 0) assert.ok(r.value >= (counted[i - 1]?.value ?? 0), 'the bar never goes back');
    }
    const distinct = new Set(counted.map((r) => r.value));
    assert.ok(distinct.size >= 2, `the bar moved while the scan ran: ${JSON.stringify([...distinct])}`);
    assert.ok(
      counted.some((r) => r.value > 0 && r.value < r.max),
      'a reading part-way through',
    );
    assert.ok(
      counted.some((r) => /^Scanning: \d+ of 80 files \(\d+%\)\.$/.test(r.text)),
      'the text says the count and the percent',
    );

    const last = readings.at(-1);
    assert.ok(last !== undefined);
    assert.equal(last.hidden, false, 'the finished bar stays visible');
    assert.equal(last.max, FILES);
    assert.equal(last.value, FILES, 'and full');
    assert.match(last.text, new RegExp(`found ${FILES}, new ${FILES}`));

    // A reload shows the committed scan's bar full as well (server-rendered).
    const report = await client.getScan(Number(await page.locator(box).getAttribute('data-scan-id')));
    await page.goto(`${t.url}/scan?scan=${report.id}`);
    const reloaded = page.locator(`${box} progress`);
    assert.equal(await reloaded.isVisible(), true);
    assert.equal(await reloaded.getAttribute('value'), String(FILES));
    assert.equal(await reloaded.getAttribute('max'), String(FILES));
    assert.deepEqual(errors, []);
  });

  it('import page: the bar is shown during the upload and ends full', async () => {
    const rows = Array.from(
      { length: 3000 },
      (_, i) => `Progress Film ${i},${1950 + (i % 70)},C${i % 9},${i}`,
    );
    const file = join(media, 'collection.csv');
    writeFileSync(file, `Title,Year,Binder,Slot\n${rows.join('\n')}\n`);
    await page.goto(`${t.url}/import`);
    const bar = page.locator('#import-progress');
    assert.equal(await bar.isVisible(), false, 'no bar before a file is sent');
    await page.getByLabel('File (CSV or JSON, up to 40 MiB)').setInputFiles(file);
    await page.getByRole('button', { name: 'Check file' }).click();
    await page.locator('#import-status', { hasText: 'The file is good' }).waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Import' }).click();
    const readings = await watchBar(page, '#import-progress', '#import-status', /^Imported:/);
    const last = readings.at(-1);
    assert.ok(last !== undefined);
    assert.equal(last.hidden, false);
    assert.equal(last.determinate, true);
    assert.equal(last.value, last.max, 'full once imported');
    assert.match(last.text, /3000 new movies/);
    assert.deepEqual(errors, []);
  });

  it('import page: a job poll answered after the import itself does not undo the result', async () => {
    // While the upload's POST is answered, the page asks for the running import job every 400 ms on
    // another connection. The server can answer such a poll with the job still running, its last
    // writes done ("100%"), just before it answers the import; the two answers then race to the page.
    // Here the poll's answer is held until the page has shown the import's own answer (a fixed
    // order, not a timing): that late answer must change nothing.
    const file = join(media, 'late-poll.csv');
    const rows = Array.from({ length: 20 }, (_, i) => `Late Poll Film ${i},${1960 + i}`);
    writeFileSync(file, `Title,Year\n${rows.join('\n')}\n`);
    // Counts the job answers the page has read, a task after its code read them (the answer's
    // handler runs in the microtasks before): "the page has read it" without guessing a time.
    await page.addInitScript(() => {
      const scope = globalThis as unknown as { jobAnswersRead: number };
      scope.jobAnswersRead = 0;
      const json = Response.prototype.json;
      Response.prototype.json = function (this: Response) {
        const url = this.url;
        return json.call(this).then((value: unknown) => {
          if (url.includes('/api/jobs')) setTimeout(() => (scope.jobAnswersRead += 1), 0);
          return value;
        });
      };
    });
    await page.goto(`${t.url}/import`);
    await page.getByLabel('File (CSV or JSON, up to 40 MiB)').setInputFiles(file);
    await page.getByRole('button', { name: 'Check file' }).click();
    await page.locator('#import-status', { hasText: 'The file is good' }).waitFor({ timeout: 30_000 });

    // Both answers are held in the browser, as they came from the server (CDP's Fetch domain at the
    // response stage: the request itself goes out as the page sent it, upload events and all).
    const cdp = await page.context().newCDPSession(page);
    let heldPoll: string | null = null;
    let pollHeld = (): void => undefined;
    const pollArrived = new Promise<void>((resolve) => (pollHeld = resolve));
    cdp.on('Fetch.requestPaused', (event) => {
      const url = new URL(event.request.url);
      if (url.pathname === '/api/jobs' && heldPoll === null) {
        heldPoll = event.requestId;
        pollHeld();
        return;
      }
      if (url.pathname === '/api/import') {
        // The import's answer reaches the page once a poll is out.
        void pollArrived.then(() => cdp.send('Fetch.continueRequest', { requestId: event.requestId }));
        return;
      }
      void cdp.send('Fetch.continueRequest', { requestId: event.requestId });
    });
    await cdp.send('Fetch.enable', {
      patterns: [
        { urlPattern: '*/api/import', requestStage: 'Response' },
        { urlPattern: '*/api/jobs\\?kind=import*', requestStage: 'Response' },
      ],
    });
    try {
      await page.getByRole('button', { name: 'Import' }).click();
      const status = page.locator('#import-status');
      await status.filter({ hasText: /^Imported: 20 new movies/ }).waitFor({ timeout: 60_000 });

      // The held poll is answered as the server answers one while the job runs: this very job,
      // running, every write done.
      const [job] = (await client.jobs({ kind: 'import', limit: 1 })).items;
      assert.ok(job !== undefined && job.status === 'succeeded' && job.progress.total > 0);
      const running: { items: JobView[] } = {
        items: [{ ...job, status: 'running', finished_at: null, progress: { ...job.progress } }],
      };
      const poll = heldPoll as string | null;
      assert.ok(poll !== null);
      await cdp.send('Fetch.fulfillRequest', {
        requestId: poll,
        responseCode: 200,
        responseHeaders: [{ name: 'content-type', value: 'application/json; charset=utf-8' }],
        body: Buffer.from(JSON.stringify(running)).toString('base64'),
      });
      await page.waitForFunction(
        () => (globalThis as unknown as { jobAnswersRead: number }).jobAnswersRead >= 1,
      );

      assert.match((await status.textContent()) ?? '', /^Imported: 20 new movies/);
      const { value, max, hidden } = await page
        .locator('#import-progress')
        .evaluate((el: HTMLProgressElement) => ({ value: el.value, max: el.max, hidden: el.hidden }));
      assert.equal(hidden, false);
      assert.equal(value, max, 'the bar stays full');
      assert.deepEqual(errors, []);
    } finally {
      await cdp.detach();
    }
  });
});
