// The /movie page's player in a real browser: Debian's Chromium (playwright-core) against a real
// server and real ffmpeg. A conversion plays through hls.js (its HLS master playlist), a direct file
// from its own URL. Short generated clips keep the file well under a minute.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { type Browser, chromium, type Page } from 'playwright-core';
import { registerFiles } from '../helpers/library-fixtures.ts';
import { fixtureFfmpeg, makeFixture } from '../helpers/media.ts';
import { startTestServer, type TestServer } from '../helpers/test-server.ts';
import { browserSkip, chromiumExecutable, chromiumFlags, signIn } from '../helpers/chromium.ts';
import { waitFor } from '../helpers/wait.ts';

const run = promisify(execFile);
const CHROMIUM_FLAGS = chromiumFlags({ autoplay: true });
const Q = ['-hide_banner', '-loglevel', 'error', '-y'];
/** The tones of the two audio tracks of the adaptive clip (English, French). */
const ENGLISH_HZ = 440;
const FRENCH_HZ = 660;

/** H.264 with irregular GOPs + English AC-3 + French AAC in MKV: `adaptive` on web (AC-3 → AAC). */
async function makeAdaptive(path: string, seconds: number): Promise<string> {
  await run(fixtureFfmpeg, [
    ...Q,
    ...['-f', 'lavfi', '-i', `testsrc2=duration=${seconds}:size=320x240:rate=25`],
    ...['-f', 'lavfi', '-i', `sine=frequency=${ENGLISH_HZ}:duration=${seconds}:sample_rate=48000`],
    ...['-f', 'lavfi', '-i', `sine=frequency=${FRENCH_HZ}:duration=${seconds}:sample_rate=44100`],
    ...['-map', '0:v', '-map', '1:a', '-map', '2:a'],
    ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-bf', '2'],
    ...['-force_key_frames', '0,1.5,4,4.6,9.2,13,15.4'],
    ...['-c:a:0', 'ac3', '-ac:a:0', '2', '-c:a:1', 'aac', '-ac:a:1', '2'],
    ...['-metadata:s:a:0', 'language=eng', '-metadata:s:a:1', 'language=fre', '-disposition:a:0', 'default'],
    path,
  ]);
  return path;
}

/** MPEG-2 + AC-3 in MKV: `transcode` on web. */
async function makeTranscode(path: string, seconds: number): Promise<string> {
  await run(fixtureFfmpeg, [
    ...Q,
    ...['-f', 'lavfi', '-i', `testsrc2=duration=${seconds}:size=320x240:rate=25`],
    ...['-f', 'lavfi', '-i', `sine=frequency=${ENGLISH_HZ}:duration=${seconds}:sample_rate=48000`],
    ...['-map', '0:v', '-map', '1:a', '-c:v', 'mpeg2video', '-q:v', '5', '-c:a', 'ac3', '-ac', '2'],
    path,
  ]);
  return path;
}

async function fileDuration(path: string): Promise<number> {
  const { stdout } = await run('ffprobe', [
    '-v',
    'error',
    '-show_entries',
    'format=duration',
    '-of',
    'csv=p=0',
    path,
  ]);
  return Number(stdout.trim());
}

interface PlayerState {
  currentTime: number;
  duration: number;
  paused: boolean;
  ended: boolean;
  seeking: boolean;
  readyState: number;
  error: number | null;
  player: string | null;
  src: string;
  status: string;
  audioTrack: number | null;
  buffered: string;
}

/** What the first <video> of the page is doing (for the waits and their failure messages). */
function playerState(page: Page): Promise<PlayerState> {
  return page.evaluate(() => {
    const v = document.querySelector('video') as (HTMLVideoElement & { hls?: { audioTrack: number } }) | null;
    if (v === null) throw new Error('no <video> on the page');
    const ranges: string[] = [];
    for (let i = 0; i < v.buffered.length; i++) {
      ranges.push(`${v.buffered.start(i).toFixed(2)}-${v.buffered.end(i).toFixed(2)}`);
    }
    return {
      currentTime: v.currentTime,
      duration: v.duration,
      paused: v.paused,
      ended: v.ended,
      seeking: v.seeking,
      readyState: v.readyState,
      error: v.error?.code ?? null,
      player: v.dataset.player ?? null,
      src: v.currentSrc,
      status: document.querySelector('.player-status')?.textContent ?? '',
      audioTrack: v.hls?.audioTrack ?? null,
      buffered: ranges.join(' '),
    };
  });
}

/** Every request the page makes under /stream/, with its answer, for the assertions and the report. */
interface StreamRequest {
  path: string;
  status: number | null;
  at: number;
  /** From the request's start to the first byte of its answer (ms). */
  firstByteMs: number;
}

function recordStreamRequests(page: Page): StreamRequest[] {
  const log: StreamRequest[] = [];
  page.on('response', (res) => {
    const url = new URL(res.url());
    if (url.pathname.startsWith('/stream/'))
      log.push({
        path: url.pathname,
        status: res.status(),
        at: Date.now(),
        firstByteMs: res.request().timing().responseStart,
      });
  });
  page.on('requestfailed', (req) => {
    const url = new URL(req.url());
    if (url.pathname.startsWith('/stream/'))
      log.push({ path: url.pathname, status: null, at: Date.now(), firstByteMs: -1 });
  });
  return log;
}

/** Presses play (the page is allowed to autoplay) and times the first presented frame. */
async function pressPlay(page: Page): Promise<void> {
  await page.evaluate(() => {
    const v = document.querySelector('video') as HTMLVideoElement;
    const w = window as unknown as Record<string, unknown>;
    w.__playAt = performance.now();
    v.requestVideoFrameCallback(() => {
      w.__firstFrameMs = performance.now() - (w.__playAt as number);
    });
    v.play().catch((err: unknown) => {
      w.__playError = String(err);
    });
  });
}

/** Seeks to `target` (s), makes sure it plays, and resolves once the clock runs past it; returns the ms. */
async function seekAndPlay(
  page: Page,
  target: number,
  timeoutMs: number,
  what: string,
  outsideBuffer: boolean,
): Promise<number> {
  const buffered = (await playerState(page)).buffered;
  const inBuffer = buffered
    .split(' ')
    .filter((r) => r !== '')
    .some((r) => {
      const [from, to] = r.split('-').map(Number);
      return (from ?? Infinity) <= target && target < (to ?? -Infinity);
    });
  if (outsideBuffer)
    assert.equal(inBuffer, false, `${what}: ${target.toFixed(2)} s is outside the buffer (${buffered})`);
  const started = Date.now();
  await page.evaluate((to) => {
    const v = document.querySelector('video') as HTMLVideoElement;
    v.currentTime = to;
    if (v.paused) void v.play().catch(() => undefined);
  }, target);
  let last: PlayerState | null = null;
  await waitFor(
    async () => {
      last = await playerState(page);
      return !last.seeking && !last.paused && last.currentTime > target + 0.1;
    },
    () => `${what}: playing past ${target.toFixed(2)} s (${JSON.stringify(last)})`,
    { timeoutMs, intervalMs: 50 },
  );
  return Date.now() - started;
}

/** The player matrix's tolerance: audio and video start within 100 ms of each other after a seek. */
const START_TOLERANCE_SECONDS = 0.1;

/**
 * Where audio and video start after a seek to `target`, as the viewer gets them: in each live
 * SourceBuffer (the video's, the audio's), the buffered range holding the target (it starts there,
 * max(range start, target)) or else the first one after it (it starts late, at that range).
 */
async function avStart(page: Page, target: number): Promise<{ video: number | null; audio: number | null }> {
  // No named functions inside: tsx names them with a helper the page does not have.
  return page.evaluate((at) => {
    const made = (window as unknown as { __sourceBuffers: { mime: string; buffer: SourceBuffer }[] })
      .__sourceBuffers;
    const found: Record<string, number | null> = { video: null, audio: null };
    for (const kind of ['video', 'audio']) {
      // The latest SourceBuffer of the kind (a new page or a new MediaSource makes new ones).
      const entry = [...made].reverse().find((m) => m.mime.startsWith(`${kind}/`));
      if (entry === undefined) continue;
      let buffered: TimeRanges | null = null;
      try {
        buffered = entry.buffer.buffered;
      } catch {
        buffered = null; // removed from its MediaSource
      }
      for (let i = 0; buffered !== null && i < buffered.length; i++) {
        if (buffered.end(i) > at + 0.05) {
          found[kind] = Math.max(buffered.start(i), at);
          break;
        }
      }
    }
    return { video: found.video ?? null, audio: found.audio ?? null };
  }, target);
}

/** Audio and video after a seek start within the tolerance of each other. */
async function assertAvStart(page: Page, target: number, what: string): Promise<number> {
  const start = await avStart(page, target);
  assert.ok(
    start.video !== null && start.audio !== null,
    `${what}: audio and video buffered (${JSON.stringify(start)})`,
  );
  const gap = Math.abs((start.video ?? 0) - (start.audio ?? 0));
  assert.ok(
    gap <= START_TOLERANCE_SECONDS,
    `${what}: video starts at ${start.video?.toFixed(3)}, audio at ${start.audio?.toFixed(3)} (${gap.toFixed(3)} s apart)`,
  );
  return gap;
}

interface Timings {
  firstFrameMs: number;
  seekFarMs: number;
  seekBackMs: number;
  /** The largest distance between audio's and video's start after a seek (ms). */
  avGapMs: number;
}

/**
 * The whole-film checks for one conversion on its /movie page: it plays through hls.js, the clock
 * passes 3 s, the duration is the file's, a seek to 90 % plays within 8 s, it reaches `ended`, and a
 * seek back to 10 % plays again.
 */
async function playWholeFilm(page: Page, seconds: number, name: string): Promise<Timings> {
  const before = await playerState(page);
  assert.equal(before.player, 'hls.js', `${name}: the page hands the conversion to hls.js`);
  assert.match(before.src, /^blob:/, `${name}: the <video> plays a MediaSource, not the progressive file`);
  // A short clip fits in hls.js's 30 s of buffer ahead: keep it to 4 s here, so that the seeks
  // below land outside the buffer and go to the server (as they do in a whole film).
  await page.evaluate(() => {
    const v = document.querySelector('video') as HTMLVideoElement & {
      hls: { config: { maxBufferLength: number; maxMaxBufferLength: number } };
    };
    v.hls.config.maxBufferLength = 4;
    v.hls.config.maxMaxBufferLength = 4;
  });
  await pressPlay(page);
  let last: PlayerState | null = null;
  await waitFor(
    async () => {
      last = await playerState(page);
      return last.currentTime > 3;
    },
    () => `${name}: currentTime past 3 s (${JSON.stringify(last)})`,
    { timeoutMs: 20_000, intervalMs: 100 },
  );
  const firstFrameMs = await page.evaluate(
    () => (window as unknown as { __firstFrameMs?: number }).__firstFrameMs ?? -1,
  );
  const playing = await playerState(page);
  assert.ok(
    Math.abs(playing.duration - seconds) < 1,
    `${name}: duration ${playing.duration} s is within 1 s of the file's ${seconds} s`,
  );
  const gaps: number[] = [];
  const seekFarMs = await seekAndPlay(page, playing.duration * 0.9, 8_000, `${name}: seek to 90 %`, true);
  gaps.push(await assertAvStart(page, playing.duration * 0.9, `${name}: seek to 90 %`));
  await waitFor(
    async () => {
      last = await playerState(page);
      return last.ended;
    },
    () => `${name}: playback reaching the end (${JSON.stringify(last)})`,
    { timeoutMs: 10_000, intervalMs: 100 },
  );
  const seekBackMs = await seekAndPlay(
    page,
    playing.duration * 0.1,
    8_000,
    `${name}: seek back to 10 %`,
    false,
  );
  gaps.push(await assertAvStart(page, playing.duration * 0.1, `${name}: seek back to 10 %`));
  // The player matrix's other position: 50 % (after 90 %, which must reach the server, not the buffer).
  await seekAndPlay(page, playing.duration * 0.5, 8_000, `${name}: seek to 50 %`, false);
  gaps.push(await assertAvStart(page, playing.duration * 0.5, `${name}: seek to 50 %`));
  const after = await playerState(page);
  assert.equal(after.error, null, `${name}: no media error`);
  assert.equal(after.status, '', `${name}: nothing to report in the status line`);
  return { firstFrameMs, seekFarMs, seekBackMs, avGapMs: Math.round(Math.max(...gaps) * 1000) };
}

describe(
  'the /movie player in Chromium: conversions through HLS, direct files from the file',
  { skip: browserSkip() },
  () => {
    let t: TestServer;
    let browser: Browser;
    let page: Page;
    let media: string;
    let profile: string;
    let ids: Record<string, { movieId: number; fileId: number }>;
    const seconds: Record<string, number> = {};
    const pageErrors: string[] = [];
    let requests: StreamRequest[] = [];

    before(async () => {
      media = mkdtempSync(join(tmpdir(), 'reelshelf-hls-player-'));
      profile = mkdtempSync(join(tmpdir(), 'reelshelf-chromium-'));
      const files = {
        adaptive: await makeAdaptive(join(media, 'Adaptive (2001).mkv'), 20),
        transcode: await makeTranscode(join(media, 'Transcode (2002).mkv'), 12),
        direct: await makeFixture('h264_aac.mp4', join(media, 'Direct (2003).mp4'), 4),
      };
      for (const [name, path] of Object.entries(files)) seconds[name] = await fileDuration(path);
      t = await startTestServer();
      ids = await registerFiles(t.server.database.db, media, files);
      await t.server.services.analysis.analyzePending();
      browser = await chromium.launch({
        executablePath: chromiumExecutable(),
        headless: true,
        ignoreDefaultArgs: true,
        args: [...CHROMIUM_FLAGS, `--user-data-dir=${profile}`, '--remote-debugging-pipe'],
      });
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      // The SourceBuffers hls.js makes, by MIME type: where audio and video are buffered after a seek.
      await context.addInitScript(() => {
        const made: { mime: string; buffer: SourceBuffer }[] = [];
        (window as unknown as { __sourceBuffers: typeof made }).__sourceBuffers = made;
        const add = MediaSource.prototype.addSourceBuffer;
        MediaSource.prototype.addSourceBuffer = function (this: MediaSource, mime: string) {
          const buffer = add.call(this, mime);
          made.push({ mime, buffer });
          return buffer;
        };
      });
      page = await context.newPage();
      page.on('pageerror', (err) => pageErrors.push(err.message));
      requests = recordStreamRequests(page);
      await signIn(page, t.url, t.token);
    });

    after(async () => {
      await browser?.close();
      await t?.close();
      for (const dir of [media, profile]) if (dir) rmSync(dir, { recursive: true, force: true });
    });

    const movie = (name: string) => `${t.url}/movie/${ids[name]?.movieId ?? 0}?device=web`;
    const report = (name: string, timings: Timings) => {
      const progressive = `/stream/media_file/${ids[name]?.fileId ?? 0}`;
      assert.deepEqual(
        requests.filter((r) => r.path === progressive),
        [],
        `${name}: the page never opens the progressive stream of a conversion (it would build the whole file)`,
      );
      const refused = requests.filter((r) => r.status === null || r.status >= 400);
      const segments = requests.filter((r) => /\.(m4s|ts)$/.test(r.path));
      assert.ok(segments.length > 0, `${name}: segments were loaded`);
      const slowest = segments.reduce((a, b) => (b.firstByteMs > a.firstByteMs ? b : a));
      console.log(
        `# ${name}: ${segments.length} segments, slowest first byte ${slowest.firstByteMs.toFixed(0)} ms ` +
          `(${slowest.path.replace(/^.*\/hls\//, '')}), first frame ${timings.firstFrameMs.toFixed(0)} ms after play, ` +
          `seek to 90 % playing after ${timings.seekFarMs} ms, back to 10 % after ${timings.seekBackMs} ms, ` +
          `audio and video start at most ${timings.avGapMs} ms apart after a seek; ` +
          `${requests.length} /stream requests, refused: ${
            refused.length === 0 ? 'none' : refused.map((r) => `${r.path} ${r.status ?? 'failed'}`).join(', ')
          }`,
      );
    };

    it('an adaptive MKV (H.264 + English AC-3 + French AAC) plays through hls.js: start, seeks, end', async () => {
      requests.length = 0;
      await page.goto(movie('adaptive'));
      const video = page.locator('video');
      assert.match(
        (await video.getAttribute('data-hls-url')) ?? '',
        /\/stream\/media_file\/\d+\/master\.m3u8\?/,
      );
      // Before play only playlists are asked for: no segment starts a conversion.
      await waitFor(
        () => requests.some((r) => r.path.endsWith('/master.m3u8')),
        () => `the master playlist to load (${JSON.stringify(requests)})`,
        { timeoutMs: 10_000 },
      );
      assert.deepEqual(
        requests.filter((r) => /\.(m4s|mp4|ts)$/.test(r.path)),
        [],
        'no segment is fetched before play',
      );
      const timings = await playWholeFilm(page, seconds.adaptive ?? NaN, 'adaptive');
      report('adaptive', timings);
    });

    it('the audio choice lists English and French; French switches hls.audioTrack, loads its segments and plays on', async () => {
      const controls = page.locator('.player-controls');
      assert.equal(await controls.isVisible(), true, 'the audio choice shows for two tracks');
      const options = await page.locator('select[data-audio-tracks] option').allTextContents();
      assert.equal(options.length, 2, `two audio tracks: ${options.join(' | ')}`);
      assert.match(options[0] ?? '', /^English · /);
      assert.match(options[1] ?? '', /^French · /);
      console.log(`# audio choice: ${options.join(' | ')}`);
      const tracks = await page.evaluate(() => {
        const v = document.querySelector('video') as HTMLVideoElement & {
          hls: { audioTrack: number; audioTracks: { lang?: string; url: string }[] };
        };
        return {
          current: v.hls.audioTrack,
          list: v.hls.audioTracks.map((a) => ({ lang: a.lang ?? '', url: a.url })),
        };
      });
      const french = tracks.list.findIndex((a) => a.lang.startsWith('fr'));
      assert.ok(
        french >= 0 && french !== tracks.current,
        `a French track other than the current: ${JSON.stringify(tracks)}`,
      );
      const frenchRendition = /\/hls\/([^/]+)\/index\.m3u8/.exec(tracks.list[french]?.url ?? '')?.[1];
      assert.ok(frenchRendition !== undefined, `French playlist URL ${tracks.list[french]?.url}`);

      // The tone the page hears (English is 440 Hz, French 660 Hz), through Web Audio.
      await page.evaluate(() => {
        const v = document.querySelector('video') as HTMLVideoElement;
        const ctx = new AudioContext();
        const analyser = ctx.createAnalyser();
        analyser.fftSize = 8192;
        ctx.createMediaElementSource(v).connect(analyser);
        analyser.connect(ctx.destination);
        (window as unknown as Record<string, unknown>).__analyser = analyser;
        (window as unknown as Record<string, unknown>).__audioContext = ctx;
      });
      const tone = () =>
        page.evaluate(() => {
          const analyser = (window as unknown as { __analyser: AnalyserNode }).__analyser;
          const ctx = (window as unknown as { __audioContext: AudioContext }).__audioContext;
          const bins = new Float32Array(analyser.frequencyBinCount);
          analyser.getFloatFrequencyData(bins);
          let peak = 0;
          for (let i = 1; i < bins.length; i++)
            if ((bins[i] ?? -Infinity) > (bins[peak] ?? -Infinity)) peak = i;
          return {
            hz: (peak * ctx.sampleRate) / analyser.fftSize,
            db: bins[peak] ?? -Infinity,
            state: ctx.state,
          };
        });
      let heard: { hz: number; db: number; state: string } | null = null;
      await waitFor(
        async () => {
          heard = await tone();
          return Math.abs(heard.hz - ENGLISH_HZ) < 15 && heard.db > -60;
        },
        () => `the English tone (${ENGLISH_HZ} Hz) before the switch (heard ${JSON.stringify(heard)})`,
        { timeoutMs: 5_000, intervalMs: 100 },
      );

      const switchedAt = Date.now();
      const clockAtSwitch = (await playerState(page)).currentTime;
      await page.selectOption('select[data-audio-tracks]', String(french));
      let last: PlayerState | null = null;
      await waitFor(
        async () => {
          last = await playerState(page);
          return last.audioTrack === french;
        },
        () => `hls.audioTrack to become ${french} (${JSON.stringify(last)})`,
        { timeoutMs: 5_000 },
      );
      const segment = new RegExp(`/hls/${frenchRendition}/\\d+\\.(m4s|ts)$`);
      await waitFor(
        () => requests.find((r) => r.at >= switchedAt && segment.test(r.path) && r.status === 200),
        () =>
          `a French segment (${frenchRendition}) served after the switch (${JSON.stringify(requests.slice(-8))})`,
        { timeoutMs: 8_000 },
      );
      await waitFor(
        async () => {
          heard = await tone();
          return Math.abs(heard.hz - FRENCH_HZ) < 15 && heard.db > -60;
        },
        () => `the French tone (${FRENCH_HZ} Hz) after the switch (heard ${JSON.stringify(heard)})`,
        { timeoutMs: 8_000, intervalMs: 100 },
      );
      await waitFor(
        async () => {
          last = await playerState(page);
          return !last.paused && last.currentTime > clockAtSwitch + 1;
        },
        () => `playback to go on after the switch (${JSON.stringify(last)}, was at ${clockAtSwitch})`,
        { timeoutMs: 8_000, intervalMs: 100 },
      );
      console.log(
        `# audio switch: French tone heard ${Date.now() - switchedAt} ms after choosing it ` +
          `(clock ${clockAtSwitch.toFixed(2)} → ${(last as PlayerState | null)?.currentTime.toFixed(2)} s)`,
      );
    });

    it('an MPEG-2 + AC-3 MKV (transcode) plays through hls.js: start, seeks, end', async () => {
      requests.length = 0;
      await page.goto(movie('transcode'));
      assert.match((await page.locator('video').getAttribute('data-hls-url')) ?? '', /master\.m3u8/);
      assert.equal(
        await page.locator('.player-controls').isVisible(),
        false,
        'one audio track: no choice shown',
      );
      const timings = await playWholeFilm(page, seconds.transcode ?? NaN, 'transcode');
      report('transcode', timings);
    });

    it('a segment answered 503 + Retry-After is retried until it comes; a refused playlist is reported', async () => {
      // The first two answers for the first video segment are the engine's "still converting".
      let refused = 0;
      await page.route(/\/hls\/v\/0\.(m4s|ts)\?/, async (route) => {
        if (refused >= 2) return route.continue();
        refused++;
        return route.fulfill({
          status: 503,
          headers: { 'retry-after': '1', 'content-type': 'application/json' },
          body: JSON.stringify({
            error: 'artifact_building',
            message: 'The segment is still being converted.',
          }),
        });
      });
      try {
        await page.goto(movie('adaptive'));
        const started = Date.now();
        await pressPlay(page);
        let last: PlayerState | null = null;
        await waitFor(
          async () => {
            last = await playerState(page);
            return last.currentTime > 0.5;
          },
          () => `playback after two 503s (${refused} refused, ${JSON.stringify(last)})`,
          { timeoutMs: 15_000, intervalMs: 100 },
        );
        assert.equal(refused, 2);
        console.log(`# two 503s on the first segment: playing after ${Date.now() - started} ms`);
      } finally {
        await page.unroute(/\/hls\/v\/0\.(m4s|ts)\?/);
      }

      // A 4xx is not retried: the player stops and says why in the status line.
      await page.route(/\/master\.m3u8\?/, (route) =>
        route.fulfill({
          status: 401,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ error: 'unauthorized', message: 'The playback token has expired.' }),
        }),
      );
      try {
        await page.goto(movie('adaptive'));
        const status = page.locator('.player-status');
        await status.filter({ hasText: 'Playback stopped' }).waitFor({ timeout: 5_000 });
        assert.match((await status.textContent()) ?? '', /manifestLoadError, HTTP 401/);
        assert.equal(await status.getAttribute('data-kind'), 'error');
      } finally {
        await page.unroute(/\/master\.m3u8\?/);
      }
    });

    it('a direct H.264/AAC MP4 plays from its file URL, not HLS', async () => {
      requests.length = 0;
      await page.goto(movie('direct'));
      const video = page.locator('video');
      assert.equal(await video.getAttribute('data-hls-url'), null, 'no HLS for a direct file');
      await pressPlay(page);
      let last: PlayerState | null = null;
      await waitFor(
        async () => {
          last = await playerState(page);
          return last.currentTime > 1;
        },
        () => `the direct file to play past 1 s (${JSON.stringify(last)})`,
        { timeoutMs: 10_000, intervalMs: 100 },
      );
      const state = last as unknown as PlayerState;
      assert.equal(state.player, null, 'movie.js leaves a direct file alone');
      assert.match(state.src, new RegExp(`/stream/media_file/${ids.direct?.fileId}\\?.*token=`));
      assert.ok(
        requests.every((r) => !/\.m3u8$|\/hls\//.test(r.path)),
        `no HLS request: ${JSON.stringify(requests)}`,
      );
      assert.deepEqual(pageErrors, [], 'no script errors');
    });
  },
);
