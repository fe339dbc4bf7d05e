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
const MAX_STALL_S = 2;
const DURATION_TOLERANCE_S = 1;

const FPS = 25;
const GOP = 3 * FPS;

interface Recipe {
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

const RECIPES: Recipe[] = [
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
async function film(recipe: Recipe, seconds: number): Promise<string> {
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

interface Library {
  url: string;
  movieId: number;
  fileId: number;
  prediction: string;
  streamUrl: string;
  hlsUrl: string | null;
  token: string;
}

/** A fresh data dir, the one film scanned into it, the real server started on it; all removed after `fn`. */
async function withLibrary<T>(file: string, recipe: Recipe, fn: (lib: Library) => Promise<T>): Promise<T> {
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
      env: { ...env, REELSHELF_PORT: '0', REELSHELF_HOST: '127.0.0.1' },
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
    const api = async <R>(path: string): Promise<R> => {
      const res = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } });
      if (!res.ok) {
        throw new StepError('api', `GET ${path} → ${res.status}: ${(await res.text()).slice(0, 500)}`);
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
    seek: null, endedAtS: null, endedMs: null, errors: [], events: [],
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
    const sk = s.seek;
    if (sk !== null && sk.doneMs === null && !v.seeking && !v.paused && ct > sk.target + 0.05) {
      sk.doneMs = t - sk.at;
      sk.landedS = ct;
    }
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
      s.seek = { target, at: now(), doneMs: null, landedS: null };
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
  seek: { target: number; at: number; doneMs: number | null; landedS: number | null } | null;
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
  seek10S?: number;
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

async function seekStep(
  page: Page,
  problems: string[],
  label: string,
  target: number,
  seconds: number,
): Promise<number> {
  await page.evaluate(`window.__bench.seek(${target})`);
  const done = await until(
    page,
    `${label} (to ${target.toFixed(1)} s, until currentTime passes it)`,
    seconds,
    (s) => s.seek?.doneMs !== null && s.seek?.doneMs !== undefined,
    problems,
  );
  return (done.seek?.doneMs ?? 0) / 1000;
}

async function signIn(page: Page, baseUrl: string, token: string): Promise<void> {
  await page.goto(`${baseUrl}/sign-in`);
  await page.getByLabel('Admin token').fill(token);
  await Promise.all([
    page.waitForURL(`${baseUrl}/library`, { timeout: 15_000 }),
    page.getByRole('button', { name: 'Sign in' }).click(),
  ]);
}

/** (a) The /movie/{id} page's player: first frame, 60 s, duration, seeks to 90 % and 10 %, the end. */
async function pagePart(browser: Browser, lib: Library, fileS: number, figures: PageFigures): Promise<void> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
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
    figures.seek90S = await seekStep(page, problems, 'seek 90 %', 0.9 * fileS, 60);
    figures.seek10S = await seekStep(page, problems, 'seek 10 %', 0.1 * fileS, 60);
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

function pageLine(recipe: Recipe, f: PageFigures, fileS: number): string {
  const parts = [
    `first frame ${s1(f.firstFrameS)}${f.via === undefined ? '' : ` (${f.via})`}`,
    `longest stall ${s1(f.stallS)} over ${PLAY_SECONDS} s`,
    `duration ${f.durationS === -1 ? 'Infinity' : s1(f.durationS)} (file ${s1(fileS)})`,
    `seek 90 % ${s1(f.seek90S)}`,
    `seek 10 % ${s1(f.seek10S)}`,
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
 * Issue 13's acceptance in Debian's Chromium against the real server: for an adaptive film (H.264 +
 * AC-3 → AAC) and a transcoded one (MPEG-2), the /movie page's player (first frame, 60 s of real-time
 * play, duration, seeks to 90 % and 10 %, the end), the bare progressive stream_url in a plain
 * <video>, and ffmpeg decoding the whole HLS presentation. `--quick`: 3-minute films.
 */
export async function benchPlayback(): Promise<void> {
  if (CHROMIUM.path === null) {
    console.log(`no Chromium (${CHROMIUM.reason}): playback benchmark skipped`);
    return;
  }
  const quick = process.argv.includes('--quick') || process.env.npm_config_quick === 'true';
  const seconds = quick ? 180 : 600;
  console.log(
    `${quick ? 'quick run: ' : ''}${seconds / 60}-minute 1280x720 films, device web, no prewarm; each part on a fresh server and data dir`,
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
    }
  } finally {
    await browser?.close().catch(() => undefined);
    rmSync(profile, { recursive: true, force: true });
  }
  console.log(`playback: ${failures === 0 ? 'every part ran' : `${failures} part(s) failed or missed`}`);
}
