// A plain <video> in Debian's Chromium on the progressive stream_url of an artifact that is still
// being built (issue 13, item 2): it must play past what was written when it started, and learn the
// film's whole duration, instead of taking the first fragments for the film.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { LibraryResponse } from '@reelshelf/contract';
import { type Browser, chromium, type Page } from 'playwright-core';
import { detectMediaTools } from '../../src/adapters/media-tools.ts';
import { fixtureFfprobe } from '../helpers/keyframes.ts';
import { registerFiles } from '../helpers/library-fixtures.ts';
import { fixtureFfmpeg } from '../helpers/media.ts';
import { startTestServer, type TestServer } from '../helpers/test-server.ts';
import { browserSkip, chromiumExecutable, chromiumFlags } from '../helpers/chromium.ts';
import { waitFor } from '../helpers/wait.ts';

const run = promisify(execFile);

const CHROMIUM_FLAGS = chromiumFlags();
const SOURCE_SECONDS = 30;
/**
 * The build reads its input at 3× real time (it lasts 10 s), the video plays at 2× (the test stays
 * short): the build keeps ahead of the player, and is far from done when playback starts.
 */
const READ_RATE = 3;
const PLAYBACK_RATE = 2;

describe('Chromium plays the progressive stream of an artifact being built', { skip: browserSkip() }, () => {
  let t: TestServer;
  let browser: Browser;
  let page: Page;
  let media: string;
  let dataDir: string;
  let tools: string;
  let profile: string;
  let ids: Record<string, { movieId: number; fileId: number }>;

  before(async () => {
    media = mkdtempSync(join(tmpdir(), 'reelshelf-growing-browser-media-'));
    dataDir = mkdtempSync(join(tmpdir(), 'reelshelf-growing-browser-data-'));
    tools = mkdtempSync(join(tmpdir(), 'reelshelf-growing-browser-tools-'));
    profile = mkdtempSync(join(tmpdir(), 'reelshelf-growing-browser-profile-'));
    // H.264 (a keyframe every 2 s) + AC-3 in Matroska: the browser gets an adaptive build.
    const film = join(media, 'film.mkv');
    await run(
      fixtureFfmpeg,
      [
        ...['-hide_banner', '-loglevel', 'error', '-y'],
        ...['-f', 'lavfi', '-i', `testsrc2=duration=${SOURCE_SECONDS}:size=320x240:rate=25`],
        ...['-f', 'lavfi', '-i', `sine=frequency=440:duration=${SOURCE_SECONDS}:sample_rate=48000`],
        ...['-map', '0:v', '-map', '1:a'],
        ...['-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-g', '50'],
        ...['-c:a', 'ac3', '-b:a', '192k', '-ac', '2'],
        film,
      ],
      { timeout: 120_000 },
    );
    // The real ffmpeg, reading its input at READ_RATE× real time (a build as slow as a busy machine's).
    const detected = await detectMediaTools({ ffmpeg: fixtureFfmpeg, ffprobe: fixtureFfprobe });
    const wrapper = join(tools, 'ffmpeg-readrate');
    writeFileSync(
      wrapper,
      `#!/bin/sh\nexec '${detected.ffmpeg.path.replaceAll("'", "'\\''")}' -readrate ${READ_RATE} "$@"\n`,
    );
    chmodSync(wrapper, 0o755);
    t = await startTestServer(
      { REELSHELF_DATA_DIR: dataDir },
      { tools: { ...detected, ffmpeg: { ...detected.ffmpeg, path: wrapper } } },
    );
    ids = await registerFiles(t.server.database.db, media, { film });
    await t.server.services.analysis.analyzePending();
    browser = await chromium.launch({
      executablePath: chromiumExecutable(),
      headless: true,
      ignoreDefaultArgs: true,
      args: [...CHROMIUM_FLAGS, `--user-data-dir=${profile}`, '--remote-debugging-pipe'],
    });
    page = await (await browser.newContext()).newPage();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
    for (const dir of [media, dataDir, tools, profile])
      if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a <video> on stream_url plays to the end of the film, past what was written when it started', async () => {
    const fileId = ids.film?.fileId ?? 0;
    const body = (await (await t.api('/library?device=web')).json()) as LibraryResponse;
    const edition = body.items.find((i) => i.movie_id === ids.film?.movieId)?.editions[0];
    assert.ok(edition);
    assert.equal(edition.playback_prediction, 'adaptive');
    assert.equal((await t.server.services.artifacts.state(fileId, 'web')).status, 'not_ready');

    // A page of its own origin, so the <video> is what any page would hold.
    await page.goto(`${t.url}/api/health`);
    await page.evaluate(
      ([src, rate]) => {
        const video = document.createElement('video');
        video.muted = true;
        video.preload = 'auto';
        video.defaultPlaybackRate = rate;
        video.playbackRate = rate;
        const log: string[] = [];
        (window as unknown as { mediaLog: string[] }).mediaLog = log;
        for (const type of ['playing', 'waiting', 'stalled', 'ended', 'error']) {
          video.addEventListener(type, () => log.push(`${type}@${video.currentTime.toFixed(2)}`));
        }
        video.src = src;
        document.body.append(video);
        void video.play();
      },
      [`${t.url}${edition.stream_url}`, PLAYBACK_RATE] as const,
    );

    let last: unknown = null;
    const mediaState = async () => {
      const state = await page.evaluate(() => {
        const video = document.querySelector('video');
        return {
          currentTime: video?.currentTime ?? -1,
          duration: video?.duration ?? -1,
          ended: video?.ended ?? false,
          error: video?.error?.code ?? null,
          log: (window as unknown as { mediaLog: string[] }).mediaLog.join(' '),
        };
      });
      last = state;
      return state;
    };
    // Playback starts while the build runs: what was written then is the first seconds only.
    await waitFor(
      async () => (await mediaState()).log.includes('playing'),
      () => `playback to start: ${JSON.stringify(last)}`,
      { timeoutMs: 20_000 },
    );
    const atStart = await t.server.services.artifacts.state(fileId, 'web');
    assert.equal(atStart.status, 'building', 'playback started before the build ended');
    const writtenSeconds = atStart.status === 'building' ? (atStart.percent / 100) * SOURCE_SECONDS : 0;
    assert.ok(writtenSeconds < 10, `${writtenSeconds.toFixed(1)} s were written when playback started`);

    // It plays on to the end of the film without waiting for data, and knows the whole duration.
    const end = await waitFor(
      async () => {
        const state = await mediaState();
        assert.equal(state.error, null, `no media error: ${JSON.stringify(state)}`);
        return state.ended ? state : null;
      },
      () => `the video to play to its end: ${JSON.stringify(last)}`,
      { timeoutMs: 35_000, intervalMs: 250 },
    );
    assert.ok(
      Math.abs(end.duration - SOURCE_SECONDS) <= 1,
      `duration ${end.duration} s of ${SOURCE_SECONDS} s`,
    );
    assert.ok(Math.abs(end.currentTime - SOURCE_SECONDS) <= 1, `ended at ${end.currentTime} s`);
    assert.ok(
      end.currentTime > 10 && end.currentTime > writtenSeconds,
      'played past what was written at the start',
    );
    // Past the first fragment (2 s; at 2× the player may outrun a build that has just begun), the
    // data came as fast as it played: never a wait.
    const stalls = end.log
      .split(' ')
      .filter((event) => /^(waiting|stalled)@/.test(event) && Number(event.split('@')[1]) >= 2);
    assert.deepEqual(stalls, [], `no stall once playing: ${end.log}`);
  });
});
