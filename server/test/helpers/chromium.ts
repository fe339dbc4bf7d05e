import { type Browser, chromium, type Page } from 'playwright-core';
import { findChromium } from '../../../scripts/chromium.mjs';

/**
 * The Chromium every browser test launches, found as `npm test`'s prelude and the playback bench
 * find it (scripts/chromium.mjs: REELSHELF_CHROMIUM, else chromium / chromium-browser on the PATH).
 */
export const CHROMIUM = findChromium();

/** On CI a browser test never skips: a suite that passes by not running is not a pass. */
const onCi = ['true', '1'].includes((process.env.CI ?? '').toLowerCase());

/**
 * For `describe(name, { skip: browserSkip() }, …)`: false when Chromium is there; the reason when it
 * is not, except on CI (`CI=true`), where the suite runs and fails at launch saying why.
 */
export function browserSkip(): string | false {
  if (CHROMIUM.path !== null || onCi) return false;
  return `no Chromium: ${CHROMIUM.reason}`;
}

/** The executable to launch; throws with where it was looked for when there is none. */
export function chromiumExecutable(): string {
  if (CHROMIUM.path === null) {
    throw new Error(
      `no Chromium for the browser tests${onCi ? ' (CI: not skipped)' : ''}: ${CHROMIUM.reason}`,
    );
  }
  return CHROMIUM.path;
}

/**
 * Headless, no sandbox (tests run as root), and none of Chromium's own network traffic (this
 * machine's closed network refuses it, many connections at a time). `autoplay` lets a test call
 * play() from script without a click.
 */
export function chromiumFlags(options: { autoplay?: boolean } = {}): string[] {
  return [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    ...(options.autoplay === true ? ['--autoplay-policy=no-user-gesture-required'] : []),
  ];
}

/**
 * Chromium launched with exactly chromiumFlags() (Playwright's own defaults left out, its pipe kept)
 * and its profile in `profile`, a folder the test removes.
 */
export function launchChromium(profile: string): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumExecutable(),
    headless: true,
    ignoreDefaultArgs: true,
    args: [...chromiumFlags(), `--user-data-dir=${profile}`, '--remote-debugging-pipe'],
  });
}

/** Signs a page in through the sign-in form with the admin token, as a person does; it lands on /library. */
export async function signIn(page: Page, baseUrl: string, token: string): Promise<void> {
  await page.goto(`${baseUrl}/sign-in`);
  await page.getByLabel('Admin token').fill(token);
  await Promise.all([
    page.waitForURL(`${baseUrl}/library`),
    page.getByRole('button', { name: 'Sign in' }).click(),
  ]);
}
