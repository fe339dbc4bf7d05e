import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type Browser, chromium, type Page } from 'playwright-core';
import type { LibraryResponse } from '@reelshelf/contract';
import { findChromium } from '../scripts/chromium.mjs';
import { matrixTargets, type Player, PLAYERS, playerPoints, type PointFigures } from './players.ts';

const run = promisify(execFile);
const repo = new URL('../', import.meta.url).pathname;

/** The Chromium the browser tests use too (scripts/chromium.mjs). */
const CHROMIUM = findChromium();
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--autoplay-policy=no-user-gesture-required',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
];
/** Generated films are kept here between runs, one file per recipe (its arguments' hash in the name). */
const CACHE = join(tmpdir(), 'reelshelf-bench', 'playback');
/** How far the players must play in real time before the first figures are taken. */
const PLAY_SECONDS = 60;
/** How long each player plays at each point of the matrix after its first frame. */
const HOLD_S = 2;
/** Audio and video must start within this of each other after a seek (issue 21). */
const AV_START_TARGET_MS = 100;
const MAX_STALL_S = 2;
const DURATION_TOLERANCE_S = 1;

const FPS = 25;
const GOP = 3 * FPS;

export interface Recipe {
  name: 'adaptive' | 'transcode';
  title: string;
  description: string;
  /** Acceptance target for the seek to 90 % in the page player. */
  seekTargetS: number;
  args(seconds: number): string[];
}

const sources = (seconds: number) => [
  '-f',
  'lavfi',
  '-i',
  `testsrc2=size=1280x720:rate=${FPS}:duration=${seconds}`,
  '-f',
  'lavfi',
  '-i',
  `sine=frequency=440:sample_rate=48000:duration=${seconds}`,
  '-map',
  '0:v',
  '-map',
  '1:a',
];
const ac3 = ['-c:a', 'ac3', '-b:a', '192k', '-ac', '2'];

export const RECIPES: Recipe[] = [
  {
    name: 'adaptive',
    title: 'Playback Adaptive',
    description: 'H.264 + AC-3 MKV',
    seekTargetS: 4,
    args: (s) => [
      ...sources(s),
      ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p'],
      ...['-g', String(GOP), '-keyint_min', String(GOP), '-sc_threshold', '0'],
      ...ac3,
      ...['-t', String(s)],
    ],
  },
  {
    name: 'transcode',
    title: 'Playback Transcode',
    description: 'MPEG-2 + AC-3 MKV',
    seekTargetS: 8,
    args: (s) => [
      ...sources(s),
      ...['-c:v', 'mpeg2video', '-q:v', '5', '-g', String(GOP), '-bf', '2'],
      ...ac3,
      ...['-t', String(s)],
    ],
  },
];

/** Processes this bench started, killed on the way out whatever happens. */
const children = new Set<ChildProcess>();
function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}
process.once('exit', () => {
  for (const child of children) killGroup(child, 'SIGKILL');
});

class StepError extends Error {
  constructor(
    readonly step: string,
    message: string,
  ) {
    super(message);
  }
}

const s1 = (n: number | null | undefined) => (n === null || n === undefined ? '?' : `${n.toFixed(1)} s`);
const verdict = (ok: boolean) => (ok ? 'ok' : 'MISSED');
/** A URL without its token, for messages. */
const shown = (url: string) => url.replace(/token=[^&]+/, 'token=…');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function ffprobeDuration(file: string): Promise<number> {
  const { stdout } = await run('ffprobe', [
    '-v',
    'error',
    '-show_entries',
    'format=duration',
    '-of',
    'default=nw=1:nk=1',
    file,
  ]);
  const d = Number(stdout.trim());
  if (!Number.isFinite(d)) throw new Error(`ffprobe gave no duration for ${file}: ${stdout}`);
  return d;
}

/** The film of a recipe, generated once per set of arguments and reused by later runs. */
export async function film(recipe: Recipe, seconds: number): Promise<string> {
  const args = recipe.args(seconds);
  const key = createHash('sha256').update(JSON.stringify(args)).digest('hex').slice(0, 12);
  const file = join(CACHE, `${recipe.name}-${seconds}s-${key}.mkv`);
  if (existsSync(file)) return file;
  mkdirSync(CACHE, { recursive: true });
  const partial = `${file}.part`;
  const t0 = performance.now();
  await run('ffmpeg', ['-hide_banner', '-v', 'error', '-y', ...args, '-f', 'matroska', partial], {
    timeout: 30 * 60_000,
    maxBuffer: 1 << 22,
  });
  renameSync(partial, file);
  console.log(
    `generated ${recipe.description}, ${seconds} s 1280x720 in ${((performance.now() - t0) / 1000).toFixed(0)} s: ${file}`,
  );
  return file;
}

export interface Library {
  url: string;
  movieId: number;
  fileId: number;
  prediction: string;
  streamUrl: string;
  hlsUrl: string | null;
  token: string;
  /** The server's API with the admin bearer; throws a StepError on a non-2xx answer. */
  api<R>(path: string, method?: string): Promise<R>;
}

/** A fresh data dir, the one film scanned into it, the real server started on it; all removed after `fn`. */
export async function withLibrary<T>(
  file: string,
  recipe: Recipe,
  fn: (lib: Library) => Promise<T>,
): Promise<T> {
  const media = mkdtempSync(join(tmpdir(), 'reelshelf-bench-playback-media-'));
  const dataDir = mkdtempSync(join(tmpdir(), 'reelshelf-bench-playback-data-'));
  let child: ChildProcess | undefined;
  try {
    const folder = join(media, `${recipe.title} (2020)`);
    mkdirSync(folder);
    const target = join(folder, `${recipe.title} (2020).mkv`);
    try {
      linkSync(file, target);
    } catch {
      copyFileSync(file, target);
    }
    const env = { ...process.env, REELSHELF_DATA_DIR: dataDir, REELSHELF_LOG_LEVEL: 'warn' };
    try {
      await run(process.execPath, ['bin/reelshelf.mjs', 'scan', media], { cwd: repo, env, timeout: 120_000 });
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string; message: string };
      throw new StepError('scan', `reelshelf scan ${media} failed: ${e.message} ${e.stdout ?? ''}`);
    }
    const server = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], {
      cwd: repo,
      env: {
        ...env,
        REELSHELF_PORT: '0',
        REELSHELF_HOST: '127.0.0.1',
        REELSHELF_JELLYFIN_PORT: 'off',
        REELSHELF_JELLYFIN_DISCOVERY_PORT: 'off',
        REELSHELF_DLNA_SSDP_PORT: 'off',
        REELSHELF_TRICKPLAY: 'off',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, so its ffmpeg runs go with it.
      detached: true,
    });
    child = server;
    children.add(server);
    let out = '';
    server.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    server.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      const deadline = setTimeout(() => {
        clearInterval(timer);
        reject(new StepError('server start', `no "listening on" within 60 s: ${out.slice(-2000)}`));
      }, 60_000);
      const timer = setInterval(() => {
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (m?.[1] !== undefined) {
          clearInterval(timer);
          clearTimeout(deadline);
          resolve(m[1]);
        }
      }, 50);
      server.once('exit', (code) => {
        clearInterval(timer);
        clearTimeout(deadline);
        reject(new StepError('server start', `server exited ${code}: ${out.slice(-2000)}`));
      });
    });
    const token = readFileSync(join(dataDir, 'api-token'), 'utf8').trim();
    const api = async <R>(path: string, method = 'GET'): Promise<R> => {
      const res = await fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${token}` } });
      if (!res.ok) {
        throw new StepError('api', `${method} ${path} → ${res.status}: ${(await res.text()).slice(0, 500)}`);
      }
      return (await res.json()) as R;
    };
    const item = (await api<LibraryResponse>('/library?device=web')).items.find(
      (i) => i.title === recipe.title,
    );
    const edition = item?.editions[0];
    if (item?.movie_id === undefined || item.movie_id === null || edition === undefined) {
      throw new StepError('library', `"${recipe.title}" is not in GET /library?device=web after the scan`);
    }
    const info = await api<{ prediction: string; stream_url: string; hls_url: string | null }>(
      `/api/media-file/${edition.media_file_id}/playback?device=web`,
    );
    return await fn({
      url,
      movieId: item.movie_id,
      fileId: edition.media_file_id,
      prediction: info.prediction,
      streamUrl: `${url}${info.stream_url}`,
      hlsUrl: info.hls_url === null ? null : `${url}${info.hls_url}`,
      token,
      api,
    });
  } finally {
    if (child !== undefined) {
      const exited = new Promise<void>((resolve) => {
        if (child?.exitCode !== null || child.signalCode !== null) resolve();
        else child.once('exit', () => resolve());
      });
      killGroup(child, 'SIGTERM');
      await Promise.race([exited, sleep(10_000)]);
      // The server and whatever it left running (ffmpeg) in its group.
      killGroup(child, 'SIGKILL');
      children.delete(child);
    }
    rmSync(media, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * Installed in the page (as a string: tsx's helpers do not exist there) on one <video>: the time
 * from play to the first advance of currentTime, the longest time currentTime stood still while
 * playing (not paused, not seeking, before `ended`), each seek's time until currentTime passes the
 * seek point, and where `ended` fired. Sampled every 50 ms on the page's own clock.
 */
const MONITOR = String.raw`(selector) => {
  const v = document.querySelector(selector);
  if (v === null) return false;
  const now = () => performance.now();
  const s = {
    pressedAt: null, firstFrameMs: null, playingMs: null, srcAtFirstFrame: null,
    lastTime: 0, lastAdvance: 0, maxStallMs: 0, maxStallAtS: null,
    windowStallMs: null, windowReachedMs: null, windowEnd: null, waitingCount: 0,
    seek: null, endedAtS: null, endedMs: null, errors: [], events: [], decodeErrors: [],
  };
  // hls.js (movie.js sets video.hls): its media and demux errors, not the network's or stalls.
  const STALLS = /bufferStalled|bufferNudgeOnStall|bufferSeekOverHole|bufferFull/;
  let hooked = false;
  const hook = () => {
    if (hooked || !v.hls || !window.Hls) return;
    hooked = true;
    v.hls.on(window.Hls.Events.ERROR, (_e, d) => {
      if (d.type === window.Hls.ErrorTypes.NETWORK_ERROR || STALLS.test(d.details ?? '')) return;
      const at = s.seek === null ? 'start' : 'seek to ' + s.seek.target;
      if (s.decodeErrors.length < 50) s.decodeErrors.push(at + ': ' + d.type + ' ' + d.details + (d.fatal ? ' (fatal)' : '') + (d.reason ? ' ' + d.reason : ''));
    });
  };
  // Where audio and video start at the playhead: the buffered range of each SourceBuffer (kept by
  // the init script) that holds it, clamped to the seek target (what is before it is not played).
  const avStart = (target) => {
    const list = window.__benchSourceBuffers ?? [];
    const startOf = (kind) => {
      const sb = list.find((b) => b.mime.startsWith(kind));
      if (sb === undefined) return undefined;
      try {
        const r = sb.buffer.buffered;
        for (let i = 0; i < r.length; i++) {
          if (r.start(i) <= v.currentTime + 0.001 && v.currentTime <= r.end(i) + 0.001) return Math.max(r.start(i), target);
        }
      } catch { return null; }
      return null;
    };
    const a = startOf('audio');
    const vi = startOf('video');
    // One SourceBuffer for both (muxed): they start together as far as MSE tells.
    if (a === undefined || vi === undefined) return list.length === 1 ? 0 : null;
    return a === null || vi === null ? null : Math.round((a - vi) * 1000);
  };
  const log = (e) => { if (s.events.length < 300) s.events.push(Math.round(now()) + ' ' + e + ' t=' + v.currentTime.toFixed(2)); };
  const tick = () => {
    const t = now();
    const ct = v.currentTime;
    if (s.pressedAt !== null && s.firstFrameMs === null && ct > 0 && !v.paused) {
      s.firstFrameMs = t - s.pressedAt;
      s.srcAtFirstFrame = v.currentSrc;
      s.lastAdvance = t;
      s.lastTime = ct;
    }
    hook();
    const sk = s.seek;
    if (sk !== null && sk.doneMs === null && !v.seeking && !v.paused && ct > sk.target + 0.05) {
      sk.doneMs = t - sk.at;
      sk.landedS = ct;
      sk.avStartMs = avStart(sk.target);
    }
    if (s.firstFrameMs !== null && s.avStartMs === undefined) s.avStartMs = avStart(0);
    const active = s.firstFrameMs !== null && !v.paused && !v.ended && !v.seeking && (sk === null || sk.doneMs !== null);
    if (!active || ct > s.lastTime + 0.001) {
      s.lastAdvance = t;
      s.lastTime = ct;
    } else if (t - s.lastAdvance > s.maxStallMs) {
      s.maxStallMs = t - s.lastAdvance;
      s.maxStallAtS = ct;
    }
    if (s.windowEnd !== null && s.windowReachedMs === null && ct >= s.windowEnd && s.seek === null) {
      s.windowReachedMs = t - s.pressedAt;
      s.windowStallMs = s.maxStallMs;
    }
  };
  setInterval(tick, 50);
  v.addEventListener('timeupdate', tick);
  for (const e of ['loadstart', 'loadedmetadata', 'canplay', 'playing', 'waiting', 'seeking', 'seeked', 'stalled', 'pause', 'ended', 'emptied', 'durationchange']) {
    v.addEventListener(e, () => log(e));
  }
  v.addEventListener('playing', () => { if (s.playingMs === null && s.pressedAt !== null) s.playingMs = now() - s.pressedAt; });
  v.addEventListener('waiting', () => { if (s.firstFrameMs !== null && !v.seeking) s.waitingCount++; });
  v.addEventListener('ended', () => { s.endedAtS = v.currentTime; s.endedMs = now(); tick(); });
  v.addEventListener('error', () => s.errors.push('media error ' + (v.error ? v.error.code + ' ' + v.error.message : '?')));
  const play = () => v.play().catch((e) => s.errors.push('play() rejected: ' + e.name + ': ' + e.message));
  const ranges = () => { const r = []; for (let i = 0; i < v.buffered.length; i++) r.push(v.buffered.start(i).toFixed(1) + '-' + v.buffered.end(i).toFixed(1)); return r.join(','); };
  window.__bench = {
    play(windowEnd) { s.windowEnd = windowEnd; s.pressedAt = now(); log('play pressed'); play(); },
    seek(target) {
      s.seek = { target, at: now(), doneMs: null, landedS: null, avStartMs: null };
      s.maxStallMs = 0;
      s.endedAtS = null;
      log('seek to ' + target);
      v.currentTime = target;
      if (v.paused) play();
    },
    snapshot() {
      const d = v.duration;
      return Object.assign({}, s, {
        now: now(),
        currentTime: v.currentTime,
        duration: Number.isFinite(d) ? d : (d === Infinity ? -1 : null),
        paused: v.paused, seeking: v.seeking, ended: v.ended,
        readyState: v.readyState, networkState: v.networkState,
        currentSrc: v.currentSrc, buffered: ranges(),
        mediaError: v.error ? v.error.code + ' ' + v.error.message : null,
        corruptedFrames: v.getVideoPlaybackQuality ? v.getVideoPlaybackQuality().corruptedVideoFrames : 0,
        events: s.events.slice(-25),
      });
    },
  };
  return true;
}`;

interface Snapshot {
  pressedAt: number | null;
  firstFrameMs: number | null;
  playingMs: number | null;
  srcAtFirstFrame: string | null;
  maxStallMs: number;
  maxStallAtS: number | null;
  windowStallMs: number | null;
  windowReachedMs: number | null;
  waitingCount: number;
  seek: {
    target: number;
    at: number;
    doneMs: number | null;
    landedS: number | null;
    avStartMs: number | null;
  } | null;
  /** A/V start at the first frame from 0 (undefined until then). */
  avStartMs?: number | null;
  decodeErrors: string[];
  corruptedFrames: number;
  endedAtS: number | null;
  endedMs: number | null;
  errors: string[];
  events: string[];
  now: number;
  currentTime: number;
  duration: number | null;
  paused: boolean;
  seeking: boolean;
  ended: boolean;
  readyState: number;
  networkState: number;
  currentSrc: string;
  buffered: string;
  mediaError: string | null;
}

/** Network and script trouble a page ran into, for failure messages. */
function watch(page: Page): string[] {
  const problems: string[] = [];
  const add = (p: string) => {
    if (problems.length < 50) problems.push(p);
  };
  page.on('response', (r) => {
    if (r.status() >= 400) add(`HTTP ${r.status()} ${r.request().method()} ${shown(r.url())}`);
  });
  page.on('requestfailed', (r) => add(`request failed ${shown(r.url())}: ${r.failure()?.errorText ?? '?'}`));
  page.on('pageerror', (e) => add(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') add(`console ${m.type()}: ${m.text().slice(0, 300)}`);
  });
  return problems;
}

const snapshot = (page: Page) => page.evaluate('window.__bench.snapshot()') as Promise<Snapshot>;

/** Polls the page until `done` holds, or fails `step` after `seconds` with the player's state. */
async function until(
  page: Page,
  step: string,
  seconds: number,
  done: (s: Snapshot) => boolean,
  problems: string[],
  why: (s: Snapshot) => string = () => '',
): Promise<Snapshot> {
  const deadline = performance.now() + seconds * 1000;
  for (;;) {
    const snap = await snapshot(page);
    if (done(snap)) return snap;
    if (snap.mediaError !== null || performance.now() > deadline) {
      const state =
        `currentTime ${snap.currentTime.toFixed(2)}, duration ${snap.duration ?? '?'}, paused ${snap.paused}, ` +
        `seeking ${snap.seeking}, readyState ${snap.readyState}, networkState ${snap.networkState}, ` +
        `buffered [${snap.buffered}], src ${shown(snap.currentSrc) || '(none)'}`;
      const cause = snap.mediaError !== null ? `media error ${snap.mediaError}` : `not within ${seconds} s`;
      throw new StepError(
        step,
        [
          `${cause}${why(snap)}; ${state}`,
          ...snap.errors,
          ...problems.slice(-12),
          `last events: ${snap.events.slice(-10).join(' | ')}`,
        ].join('\n    '),
      );
    }
    await sleep(250);
  }
}

function via(src: string | null): string {
  if (src === null || src === '') return 'no source';
  if (src.startsWith('blob:')) return 'MSE (hls.js)';
  if (src.includes('.m3u8')) return 'native HLS';
  return 'progressive src';
}

interface PageFigures {
  via?: string;
  firstFrameS?: number;
  stallS?: number;
  durationS?: number | null;
  seek90S?: number;
  /** hls.js at the matrix's points (0, 10 %, 50 %, 90 %, 0). */
  points?: PointFigures[];
  endedAtS?: number;
  stallAfterSeeksS?: number;
}

/** Play, 60 s of real time, and the longest stall in it; returns the snapshot at 60 s. */
async function playWindow(page: Page, problems: string[], figures: PageFigures): Promise<void> {
  await page.evaluate(`window.__bench.play(${PLAY_SECONDS})`);
  const first = await until(
    page,
    'first frame (play → currentTime > 0)',
    60,
    (s) => s.firstFrameMs !== null,
    problems,
  );
  figures.firstFrameS = (first.firstFrameMs ?? 0) / 1000;
  figures.via = via(first.srcAtFirstFrame);
  const reached = await until(
    page,
    `play past ${PLAY_SECONDS} s`,
    PLAY_SECONDS + 60,
    (s) => s.windowReachedMs !== null,
    problems,
    (s) => ` (longest stall so far ${(s.maxStallMs / 1000).toFixed(1)} s at ${s.maxStallAtS ?? '?'} s)`,
  );
  figures.stallS = (reached.windowStallMs ?? 0) / 1000;
  figures.durationS = reached.duration;
}

/** Seeks, waits until the picture moves past the target, and plays HOLD_S more (errors show up). */
async function seekStep(page: Page, problems: string[], target: number, seconds: number): Promise<Snapshot> {
  await page.evaluate(`window.__bench.seek(${target})`);
  const done = await until(
    page,
    `seek to ${target.toFixed(1)} s (until currentTime passes it)`,
    seconds,
    (s) => s.seek?.doneMs !== null && s.seek?.doneMs !== undefined,
    problems,
  );
  await sleep(HOLD_S * 1000);
  return done;
}

/** Installed before the page's scripts: every SourceBuffer made, with its type (hls.js: audio, video). */
const SOURCE_BUFFER_SPY = String.raw`(() => {
  window.__benchSourceBuffers = [];
  if (typeof MediaSource === 'undefined') return;
  const add = MediaSource.prototype.addSourceBuffer;
  MediaSource.prototype.addSourceBuffer = function (mime) {
    const buffer = add.call(this, mime);
    window.__benchSourceBuffers.unshift({ mime, buffer });
    return buffer;
  };
})()`;

async function signIn(page: Page, baseUrl: string, token: string): Promise<void> {
  await page.goto(`${baseUrl}/sign-in`);
  await page.getByLabel('Admin token').fill(token);
  await Promise.all([
    page.waitForURL(`${baseUrl}/library`, { timeout: 15_000 }),
    page.getByRole('button', { name: 'Sign in' }).click(),
  ]);
}

/**
 * (a) The /movie/{id} page's player (hls.js): first frame, 60 s, duration, the matrix's seeks (10 %,
 * 50 %, 90 %, back to 0), the end.
 */
async function pagePart(browser: Browser, lib: Library, fileS: number, figures: PageFigures): Promise<void> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addInitScript(SOURCE_BUFFER_SPY);
  try {
    const page = await context.newPage();
    const problems = watch(page);
    await signIn(page, lib.url, lib.token).catch((err: unknown) => {
      throw new StepError('sign in', `${String(err)}\n    ${problems.join('\n    ')}`);
    });
    const movieUrl = `${lib.url}/movie/${lib.movieId}?device=web`;
    const res = await page.goto(movieUrl);
    if (res === null || res.status() !== 200) {
      throw new StepError('movie page', `GET ${movieUrl} → ${res?.status() ?? 'no response'}`);
    }
    await page.waitForSelector('video.player', { state: 'attached', timeout: 15_000 }).catch(() => {
      throw new StepError('movie page', `no video.player on ${movieUrl}`);
    });
    const installed = await page.evaluate(`(${MONITOR})('video.player')`);
    if (installed !== true) throw new StepError('movie page', 'monitor not installed');
    await playWindow(page, problems, figures);
    const start = await snapshot(page);
    const points: PointFigures[] = [
      {
        target: 0,
        firstFrameS: figures.firstFrameS ?? null,
        landedS: null,
        avStartMs: start.avStartMs ?? null,
        errors: [],
      },
    ];
    figures.points = points;
    let seen = 0;
    const newErrors = (snap: Snapshot) => {
      const fresh = snap.decodeErrors.slice(seen);
      seen = snap.decodeErrors.length;
      return fresh;
    };
    (points[0] as PointFigures).errors = newErrors(start);
    for (const target of matrixTargets(fileS).slice(1)) {
      const done = await seekStep(page, problems, target, 60);
      const after = await snapshot(page);
      (points[points.length - 1] as PointFigures).errors.push(...newErrors(done));
      points.push({
        target,
        firstFrameS: (done.seek?.doneMs ?? 0) / 1000,
        landedS: done.seek?.landedS ?? null,
        avStartMs: done.seek?.avStartMs ?? null,
        errors: newErrors(after),
      });
      if (target === matrixTargets(fileS)[3]) figures.seek90S = (done.seek?.doneMs ?? 0) / 1000;
    }
    const endTarget = fileS - 20;
    await page.evaluate(`window.__bench.seek(${endTarget})`);
    const ended = await until(
      page,
      `seek to ${endTarget.toFixed(1)} s (end − 20 s) and wait for 'ended'`,
      80,
      (s) => s.endedAtS !== null,
      problems,
    );
    figures.endedAtS = ended.endedAtS ?? undefined;
    figures.stallAfterSeeksS = ended.maxStallMs / 1000;
    const last = points[points.length - 1] as PointFigures;
    last.errors.push(...newErrors(ended));
    if (ended.mediaError !== null) last.errors.push(`media error ${ended.mediaError}`);
    if (ended.corruptedFrames > 0) last.errors.push(`${ended.corruptedFrames} corrupted video frames`);
  } finally {
    await context.close();
  }
}

/** (b) The bare progressive stream_url in a plain <video src>: first frame and 60 s. */
async function progressivePart(browser: Browser, lib: Library, figures: PageFigures): Promise<void> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    const problems = watch(page);
    const src = lib.streamUrl.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
    await page.setContent(`<!doctype html><video class="bare" preload="none" src="${src}"></video>`);
    const installed = await page.evaluate(`(${MONITOR})('video.bare')`);
    if (installed !== true) throw new StepError('blank page', 'monitor not installed');
    await playWindow(page, problems, figures);
  } finally {
    await context.close();
  }
}

interface DecodeFigures {
  exit: number | string;
  decodedS: number | null;
  wallS: number;
  stderrTail: string;
}

/** (c) ffmpeg reads the whole HLS presentation (first video and audio rendition) and decodes it. */
async function decodePart(hlsUrl: string, fileS: number): Promise<DecodeFigures> {
  const limitS = Math.max(300, fileS * 3);
  const t0 = performance.now();
  const child = spawn(
    'ffmpeg',
    [
      ...['-hide_banner', '-nostats', '-loglevel', 'warning', '-progress', 'pipe:1'],
      ...['-i', hlsUrl, '-map', '0:v:0', '-map', '0:a:0', '-f', 'null', '-'],
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  children.add(child);
  let progress = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    progress = (progress + d.toString()).slice(-4000);
  });
  child.stderr.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-20_000);
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(child, 'SIGKILL');
  }, limitS * 1000);
  const code = await new Promise<number | string>((resolve) => {
    child.once('error', (err) => resolve(`spawn error ${err.message}`));
    child.once('exit', (c, signal) => resolve(c ?? `signal ${signal}`));
  });
  clearTimeout(timer);
  children.delete(child);
  const wallS = (performance.now() - t0) / 1000;
  const times = [...progress.matchAll(/out_time_us=(\d+)/g)].map((m) => Number(m[1]) / 1e6);
  return {
    exit: timedOut ? `killed after ${limitS} s` : code,
    decodedS: times.length === 0 ? null : (times[times.length - 1] ?? null),
    wallS,
    stderrTail: stderr.trim().split('\n').slice(-8).join('\n    '),
  };
}

const PLAYER_LABEL: Record<Player | 'hls.js', string> = {
  ffmpeg: 'ffmpeg (its demuxer: -ss before -i)',
  mpv: 'mpv 0.35 (--vo=null --ao=null, one process seeking)',
  vlc: 'VLC 3.0 (cvlc as nobody, dummy outputs, --start-time)',
  'hls.js': 'hls.js in Chromium (the /movie page)',
};

const pad = (text: string, width: number) => text.padEnd(width);
const ms = (n: number | null) => (n === null ? '?' : `${Math.round(n)} ms`);

/**
 * One table of a player on a film: each point's time to first frame, where it landed, the A/V
 * start and the decode errors, with the targets (no decode error, A/V start within 100 ms).
 * Returns how many points missed a target.
 */
function printTable(title: string, points: PointFigures[]): number {
  console.log(`  ${title}`);
  console.log(
    `    ${pad('point', 12)}${pad('first frame', 13)}${pad('landed at', 12)}${pad('A/V start', 12)}${pad('decode errors', 15)}targets`,
  );
  let missed = 0;
  for (const p of points) {
    const av = p.avStartMs;
    const ok =
      p.errors.length === 0 && p.firstFrameS !== null && av !== null && Math.abs(av) <= AV_START_TARGET_MS;
    if (!ok) missed++;
    console.log(
      `    ${pad(`${p.target.toFixed(1)} s`, 12)}${pad(s1(p.firstFrameS), 13)}` +
        `${pad(p.landedS === null ? '-' : `${p.landedS.toFixed(2)} s`, 12)}${pad(ms(av), 12)}` +
        `${pad(String(p.errors.length), 15)}${verdict(ok)}`,
    );
  }
  const errors = points.flatMap((p) => p.errors.map((e) => `@${p.target.toFixed(1)} s: ${e}`));
  for (const e of errors.slice(0, 6)) console.log(`      ${e.slice(0, 300)}`);
  if (errors.length > 6) console.log(`      … ${errors.length - 6} more`);
  return missed;
}

/** The matrix of one player on the HLS presentation (a fresh server: its seeks find nothing made). */
async function hlsPlayerPart(lib: Library, player: Player, fileS: number): Promise<PointFigures[]> {
  if (lib.hlsUrl === null) {
    throw new StepError(
      'playback info',
      `GET /api/media-file/${lib.fileId}/playback?device=web has no hls_url`,
    );
  }
  return playerPoints(player, lib.hlsUrl, fileS, HOLD_S);
}

interface PrewarmState {
  status: string;
  message?: string;
  reason?: string;
}

/** POST prewarm-tv and wait until it is ready; returns the seconds it took. */
async function prewarm(lib: Library, fileS: number): Promise<number> {
  const path = `/api/media-file/${lib.fileId}/prewarm-tv`;
  const t0 = performance.now();
  let state = await lib.api<PrewarmState>(path, 'POST');
  const deadline = t0 + Math.max(600, fileS * 3) * 1000;
  while (state.status === 'building') {
    if (performance.now() > deadline)
      throw new StepError('prewarm', `still building: ${state.message ?? ''}`);
    await sleep(1000);
    state = await lib.api<PrewarmState>(path);
  }
  if (state.status !== 'ready') {
    throw new StepError('prewarm', `ended ${state.status}: ${state.reason ?? state.message ?? ''}`);
  }
  return (performance.now() - t0) / 1000;
}

function pageLine(recipe: Recipe, f: PageFigures, fileS: number): string {
  const parts = [
    `first frame ${s1(f.firstFrameS)}${f.via === undefined ? '' : ` (${f.via})`}`,
    `longest stall ${s1(f.stallS)} over ${PLAY_SECONDS} s`,
    `duration ${f.durationS === -1 ? 'Infinity' : s1(f.durationS)} (file ${s1(fileS)})`,
    `seek 90 % ${s1(f.seek90S)}`,
    `ended at ${s1(f.endedAtS)}`,
  ];
  if (f.stallAfterSeeksS !== undefined)
    parts.push(`longest stall after the last seek ${s1(f.stallAfterSeeksS)}`);
  const targets: string[] = [];
  if (f.seek90S !== undefined)
    targets.push(`seek 90 % ≤ ${recipe.seekTargetS} s ${verdict(f.seek90S <= recipe.seekTargetS)}`);
  if (f.stallS !== undefined) targets.push(`no stall > ${MAX_STALL_S} s ${verdict(f.stallS <= MAX_STALL_S)}`);
  if (f.durationS !== undefined) {
    const ok = f.durationS !== null && Math.abs(f.durationS - fileS) <= DURATION_TOLERANCE_S;
    targets.push(`duration within ${DURATION_TOLERANCE_S} s ${verdict(ok)}`);
  }
  if (f.endedAtS !== undefined) {
    targets.push(`ends at the file's end ${verdict(Math.abs(f.endedAtS - fileS) <= DURATION_TOLERANCE_S)}`);
  }
  return `playback ${recipe.name} page: ${parts.join(', ')} — targets: ${targets.join(', ') || 'none reached'}`;
}

function progressiveLine(recipe: Recipe, f: PageFigures): string {
  const targets =
    f.stallS === undefined
      ? 'none reached'
      : `no stall > ${MAX_STALL_S} s ${verdict(f.stallS <= MAX_STALL_S)}`;
  return (
    `playback ${recipe.name} progressive stream_url: first frame ${s1(f.firstFrameS)}, ` +
    `longest stall ${s1(f.stallS)} over ${PLAY_SECONDS} s — targets: ${targets}`
  );
}

function failure(recipe: Recipe, part: string, err: unknown): string {
  const step = err instanceof StepError ? err.step : 'unexpected error';
  const message = err instanceof Error ? err.message : String(err);
  return `playback ${recipe.name} ${part}: FAILED at ${step}: ${message}`;
}

/**
 * Issues 13 and 21 against the real server: for an adaptive film (H.264 + AC-3 → AAC) and a
 * transcoded one (MPEG-2), the /movie page's player in Debian's Chromium (first frame, 60 s of
 * real-time play, duration, the matrix's seeks, the end), the bare progressive stream_url in a plain
 * <video>, ffmpeg decoding the whole HLS presentation, then the player matrix (ffmpeg, mpv, VLC; a
 * fresh server each) on hls_url and on the prewarmed tv stream_url. `--quick`: 3-minute films.
 */
export async function benchPlayback(): Promise<void> {
  if (CHROMIUM.path === null) {
    console.log(`no Chromium (${CHROMIUM.reason}): playback benchmark skipped`);
    return;
  }
  const quick = process.argv.includes('--quick') || process.env.npm_config_quick === 'true';
  const seconds = quick ? 180 : 600;
  console.log(
    `${quick ? 'quick run: ' : ''}${seconds / 60}-minute 1280x720 films, device web (tv after the prewarm); each part on a fresh server and data dir`,
  );
  const films = new Map<Recipe, { file: string; durationS: number }>();
  for (const recipe of RECIPES) {
    const file = await film(recipe, seconds);
    films.set(recipe, { file, durationS: await ffprobeDuration(file) });
  }

  const profile = mkdtempSync(join(tmpdir(), 'reelshelf-bench-chromium-'));
  let browser: Browser | undefined;
  let failures = 0;
  try {
    browser = await chromium.launch({
      executablePath: CHROMIUM.path,
      headless: true,
      ignoreDefaultArgs: true,
      args: [...CHROMIUM_FLAGS, `--user-data-dir=${profile}`, '--remote-debugging-pipe'],
    });
    for (const recipe of RECIPES) {
      const { file, durationS: fileS } = films.get(recipe) ?? { file: '', durationS: 0 };
      const checkPrediction = (lib: Library) => {
        if (lib.prediction !== recipe.name) {
          console.log(
            `  note: ${recipe.description} is predicted ${lib.prediction} on web (expected ${recipe.name})`,
          );
        }
      };

      const page: PageFigures = {};
      try {
        await withLibrary(file, recipe, async (lib) => {
          checkPrediction(lib);
          await pagePart(browser as Browser, lib, fileS, page);
        });
        console.log(pageLine(recipe, page, fileS));
      } catch (err) {
        failures++;
        console.log(pageLine(recipe, page, fileS));
        console.log(failure(recipe, 'page', err));
      }
      if (page.points !== undefined) {
        failures += Math.min(
          1,
          printTable(`${recipe.name} hls_url — ${PLAYER_LABEL['hls.js']}`, page.points),
        );
      }

      const bare: PageFigures = {};
      try {
        await withLibrary(file, recipe, (lib) => progressivePart(browser as Browser, lib, bare));
        console.log(progressiveLine(recipe, bare));
      } catch (err) {
        failures++;
        console.log(progressiveLine(recipe, bare));
        console.log(failure(recipe, 'progressive stream_url', err));
      }

      try {
        await withLibrary(file, recipe, async (lib) => {
          if (lib.hlsUrl === null) {
            throw new StepError(
              'playback info',
              `GET /api/media-file/${lib.fileId}/playback?device=web has no hls_url`,
            );
          }
          const d = await decodePart(lib.hlsUrl, fileS);
          const speed = d.decodedS === null ? '?' : (d.decodedS / d.wallS).toFixed(2);
          const ok =
            d.exit === 0 && d.decodedS !== null && Math.abs(d.decodedS - fileS) <= DURATION_TOLERANCE_S;
          console.log(
            `playback ${recipe.name} hls decode (ffmpeg -i hls_url -f null): exit ${d.exit}, decoded ${s1(d.decodedS)} ` +
              `(file ${s1(fileS)}), wall ${d.wallS.toFixed(1)} s → ${speed}× real time ` +
              `— targets: exit 0 and duration within ${DURATION_TOLERANCE_S} s ${verdict(ok)}`,
          );
          if (!ok) {
            failures++;
            if (d.stderrTail !== '') console.log(`    ffmpeg: ${d.stderrTail}`);
          }
        });
      } catch (err) {
        failures++;
        console.log(failure(recipe, 'hls decode', err));
      }

      // The player matrix on hls_url: each player on a fresh server, one player at a time.
      for (const player of PLAYERS) {
        try {
          const points = await withLibrary(file, recipe, (lib) => hlsPlayerPart(lib, player, fileS));
          failures += Math.min(1, printTable(`${recipe.name} hls_url — ${PLAYER_LABEL[player]}`, points));
        } catch (err) {
          failures++;
          console.log(failure(recipe, `hls ${player}`, err));
        }
      }

      // The progressive stream_url of the finished artifact after a prewarm (device tv).
      try {
        await withLibrary(file, recipe, async (lib) => {
          const tookS = await prewarm(lib, fileS);
          const info = await lib.api<{ stream_url: string }>(
            `/api/media-file/${lib.fileId}/playback?device=tv`,
          );
          console.log(`  ${recipe.name}: prewarm-tv ready in ${tookS.toFixed(1)} s`);
          for (const player of PLAYERS) {
            const points = await playerPoints(player, `${lib.url}${info.stream_url}`, fileS, HOLD_S);
            failures += Math.min(
              1,
              printTable(`${recipe.name} prewarmed stream_url (tv) — ${PLAYER_LABEL[player]}`, points),
            );
          }
        });
      } catch (err) {
        failures++;
        console.log(failure(recipe, 'prewarmed stream_url', err));
      }
    }
  } finally {
    await browser?.close().catch(() => undefined);
    rmSync(profile, { recursive: true, force: true });
  }
  console.log(`playback: ${failures === 0 ? 'every part ran' : `${failures} part(s) failed or missed`}`);
}
