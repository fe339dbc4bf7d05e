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
