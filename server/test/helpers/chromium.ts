import type { Page } from 'playwright-core';

/** Debian's Chromium, as every browser test and the playback bench start it. */
export const CHROMIUM = '/usr/bin/chromium';

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

/** Signs a page in through the sign-in form with the admin token, as a person does; it lands on /library. */
export async function signIn(page: Page, baseUrl: string, token: string): Promise<void> {
  await page.goto(`${baseUrl}/sign-in`);
  await page.getByLabel('Admin token').fill(token);
  await Promise.all([
    page.waitForURL(`${baseUrl}/library`),
    page.getByRole('button', { name: 'Sign in' }).click(),
  ]);
}
