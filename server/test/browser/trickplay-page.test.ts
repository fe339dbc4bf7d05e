// The /movie page's seek thumbnails in a real browser (Debian's Chromium, playwright-core) against a
// real server: films whose colour changes on a known schedule, their sheets made by the real ffmpeg
// pass (TrickplayFfmpeg + buildSheetArgs), the page's own seek bar under the player. Hovering at 50 %
// must show the thumbnail of the 50 % mark: the sheet URL and background-position the page chose
// (against locate()), and the pixels (the screenshot of the thumbnail box has the film's colour
// there). A direct MP4 and an MPEG-2 MKV that plays through HLS (hls.js) alike.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { type Browser, type Page } from 'playwright-core';
import sharp from 'sharp';
import { checkedFileAt } from '../../src/adapters/file-system.ts';
import { TrickplayFfmpeg } from '../../src/adapters/trickplay-ffmpeg.ts';
import type { VideoCapabilities } from '../../src/domain/media/capabilities.ts';
import {
  locate,
  planTrickplay,
  rokuLayout,
  type TrickplayLayout,
} from '../../src/domain/trickplay/geometry.ts';
import { buildSheetArgs } from '../../src/domain/trickplay/sheet-command.ts';
import { AppError } from '../../src/errors.ts';
import type { TrickplayMade, TrickplayReader } from '../../src/services/trickplay/trickplay-ports.ts';
import { browserSkip, launchChromium, signIn } from '../helpers/chromium.ts';
import { registerFiles } from '../helpers/library-fixtures.ts';
import { fixtureFfmpeg } from '../helpers/media.ts';
import { startTestServer, type TestServer } from '../helpers/test-server.ts';
import {
  type ColourFilm,
  FILM_FPS,
  FILM_HEIGHT,
  FILM_WIDTH,
  makeColourFilm,
  SEGMENT_COLOURS,
} from '../helpers/trickplay-fixtures.ts';
import { waitFor } from '../helpers/wait.ts';

const run = promisify(execFile);
type Rgb = readonly [number, number, number];

/**
 * 108 s: the 50 % point (54 s) is 4 s into thumbnail 5 (mark 50 s) and inside the colour segment
 * [45 s, 55 s) that holds the mark (colours change at 5, 15, 25 … s), so a pixel or two of pointer
 * rounding cannot change the answer. 2×2 sheets put it on sheet 1, cell 1 (not the first of either).
 */
const FILM_SECONDS = 108;
const GOP_SECONDS = 2;
const LAYOUT_OPTIONS = { intervalMs: 10_000, width: FILM_WIDTH, tileWidth: 2, tileHeight: 2 };
/** The generation of the made sets (the reader's, and so in the sheet URLs the API gives). */
const GENERATION = 1;

interface MadeSet {
  fileId: number;
  dir: string;
  layout: TrickplayLayout;
}

function sdrVideo(codec: string): { video: VideoCapabilities } {
  return {
    video: {
      index: 0,
      codec,
      profile: null,
      level: null,
      width: FILM_WIDTH,
      height: FILM_HEIGHT,
      bit_depth: 8,
      pix_fmt: null,
      frame_rate: FILM_FPS,
      interlaced: false,
      codec_tag: null,
      hdr: 'sdr',
      dolby_vision: null,
      sar: null,
      anamorphic: false,
      rotation: 0,
      bitrate_bps: null,
    },
  };
}

/** The sheets of `source` through the real one-pass ffmpeg (keyframe mode), as the job makes them. */
async function makeSet(source: string, dir: string, codec: string): Promise<TrickplayLayout> {
  const plan = planTrickplay(
    { durationSeconds: FILM_SECONDS, displayWidth: FILM_WIDTH, displayHeight: FILM_HEIGHT },
    LAYOUT_OPTIONS,
  );
  assert.ok(plan.ok, plan.ok ? '' : plan.message);
  const { layout } = plan;
  mkdirSync(dir, { recursive: true });
  const args = buildSheetArgs({
    source,
    outputDir: dir,
    layout: {
      interval_ms: layout.intervalMs,
      width: layout.thumbnailWidth,
      height: layout.thumbnailHeight,
      tile_width: layout.tileWidth,
      tile_height: layout.tileHeight,
    },
    mode: 'keyframes',
    thumbnailCount: layout.thumbnailCount,
    maxKeyframeGapSeconds: GOP_SECONDS,
    capabilities: sdrVideo(codec),
    threads: 1,
  });
  const made = await new TrickplayFfmpeg(fixtureFfmpeg).run({
    args,
    outputDir: dir,
    durationSeconds: FILM_SECONDS,
  });
  assert.equal(made.sheets, Math.ceil(layout.thumbnailCount / (layout.tileWidth * layout.tileHeight)));
  return layout;
}

/**
 * The made sets as the server's trickplay reader (ServerOverrides.trickplayReader): the real routes
 * (GET /api/media-file/{id}/trickplay, the /stream sheets) serve them. The sets are made with 2×2
 * sheets, which the job does not make, so that the 50 % mark lies on a sheet past the first.
 */
function readerOfSets(sets: () => readonly MadeSet[]): TrickplayReader {
  const madeOf = (fileId: number): TrickplayMade | null => {
    const set = sets().find((s) => s.fileId === fileId);
    if (set === undefined) return null;
    const sheetBytes = Array.from(
      { length: Math.ceil(set.layout.thumbnailCount / (set.layout.tileWidth * set.layout.tileHeight)) },
      (_, i) => statSync(join(set.dir, `${i}.jpg`)).size,
    );
    return {
      fileId,
      generation: GENERATION,
      mode: 'keyframes',
      layout: set.layout,
      sheetBytes,
      // No Roku re-cut or BIF is made here: the page reads neither.
      roku: { layout: rokuLayout(set.layout) ?? set.layout, sheetBytes },
      bifBytes: 0,
      madeAt: new Date(0).toISOString(),
    };
  };
  const notFound = () => new AppError('not_found', { status: 404, message: 'No such sheet.' });
  return {
    enabled: true,
    status: (fileId) => {
      const made = madeOf(fileId);
      return Promise.resolve(made === null ? { state: 'none' } : { state: 'ready', made });
    },
    made: (fileId) => Promise.resolve(madeOf(fileId)),
    madeMany: (fileIds) =>
      Promise.resolve(
        new Map(
          fileIds.flatMap((id) => {
            const made = madeOf(id);
            return made === null ? [] : [[id, made] as const];
          }),
        ),
      ),
    sheet: (fileId, generation, variant, index) => {
      const set = sets().find((s) => s.fileId === fileId);
      if (set === undefined || generation !== GENERATION || variant !== 'sheets')
        return Promise.reject(notFound());
      const path = join(set.dir, `${index}.jpg`);
      try {
        const stat = statSync(path);
        return Promise.resolve(checkedFileAt(path, stat.size, stat.mtimeMs));
      } catch {
        return Promise.reject(notFound());
      }
    },
    bif: () => Promise.reject(notFound()),
  };
}

/** Every sheet the page asks the network for, as `fileId/index` (whoever answers it). */
function recordSheetRequests(page: Page): string[] {
  const seen: string[] = [];
  page.on('request', (request) => {
    const match = /\/stream\/media_file\/(\d+)\/trickplay\/\d+\/(\d+)\.jpg/.exec(request.url());
    if (match !== null) seen.push(`${match[1]}/${match[2]}`);
  });
  return seen;
}

interface ThumbState {
  previewHidden: boolean;
  thumbHidden: boolean;
  backgroundImage: string;
  backgroundPosition: string;
  width: number;
  height: number;
  thumbnail: string | null;
  sheet: string | null;
  sheetState: string | null;
  time: string;
}

function thumbState(page: Page): Promise<ThumbState> {
  return page.evaluate(() => {
    const preview = document.querySelector('.seek-preview') as HTMLElement;
    const thumb = document.querySelector('.seek-thumb') as HTMLElement;
    const style = getComputedStyle(thumb);
    const box = thumb.getBoundingClientRect();
    return {
      previewHidden: preview.hidden,
      thumbHidden: thumb.hidden,
      backgroundImage: style.backgroundImage,
      backgroundPosition: style.backgroundPosition,
      width: box.width,
      height: box.height,
      thumbnail: thumb.dataset.thumbnail ?? null,
      sheet: thumb.dataset.sheet ?? null,
      sheetState: thumb.dataset.sheetState ?? null,
      time: document.querySelector('.seek-time')?.textContent ?? '',
    };
  });
}

/** The seek bar's box on the screen, scrolled to the middle of it (room for the preview above). */
async function barBox(page: Page): Promise<{ x: number; y: number; width: number; height: number }> {
  await page.locator('.seek-bar').evaluate((bar) => bar.scrollIntoView({ block: 'center' }));
  const box = await page.locator('.seek-bar').boundingBox();
  assert.ok(box !== null && box.width > 100, `the seek bar is laid out (${JSON.stringify(box)})`);
  return box;
}

/** The length the page's seek bar uses: the <video>'s, else the page's data-duration-seconds. */
function pageDuration(page: Page): Promise<number> {
  return page.evaluate(() => {
    const v = document.querySelector('video.player') as HTMLVideoElement;
    if (Number.isFinite(v.duration) && v.duration > 0) return v.duration;
    return Number(v.dataset.durationSeconds);
  });
}

/** Mean colour of the screenshot of the thumbnail box (its inner part: JPEG blurs the edges). */
async function thumbnailColour(page: Page): Promise<Rgb> {
  const png = await page.locator('.seek-thumb').screenshot();
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const inset = 12;
  const sums = [0, 0, 0];
  let pixels = 0;
  for (let y = inset; y < info.height - inset; y++) {
    for (let x = inset; x < info.width - inset; x++) {
      const at = (y * info.width + x) * info.channels;
      for (let c = 0; c < 3; c++) sums[c] = (sums[c] ?? 0) + (data[at + c] ?? 0);
      pixels++;
    }
  }
  assert.ok(pixels > 1000, `a thumbnail-sized screenshot (${info.width}×${info.height})`);
  const [r, g, b] = sums.map((sum) => sum / pixels);
  return [r ?? 0, g ?? 0, b ?? 0];
}

function distance(a: Rgb, b: Rgb): number {
  return Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
}

function nearestColour(rgb: Rgb): number {
  let best = 0;
  SEGMENT_COLOURS.forEach((colour, index) => {
    if (distance(colour, rgb) < distance(SEGMENT_COLOURS[best] ?? colour, rgb)) best = index;
  });
  return best;
}

/** Two frames, so that a picture just decoded has been painted before a screenshot. */
async function painted(page: Page): Promise<void> {
  await page.evaluate(
    () => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))),
  );
}

describe('the /movie page’s seek thumbnails in Chromium', { skip: browserSkip() }, () => {
  let t: TestServer;
  let browser: Browser;
  let page: Page;
  let media: string;
  let profile: string;
  let film: ColourFilm;
  let ids: Record<string, { movieId: number; fileId: number }>;
  const sets = new Map<string, MadeSet>();
  let sheetRequests: string[] = [];
  const pageErrors: string[] = [];

  before(async () => {
    media = mkdtempSync(join(tmpdir(), 'reelshelf-trickplay-page-'));
    profile = mkdtempSync(join(tmpdir(), 'reelshelf-chromium-'));
    film = await makeColourFilm(media, 'Colours (2020).mp4', {
      durationSeconds: FILM_SECONDS,
      offsetSeconds: 5,
      gopSeconds: GOP_SECONDS,
      codec: 'h264',
    });
    // The same pictures as MPEG-2 in MKV: a conversion on `web`, played through HLS.
    const converted = join(media, 'Colours MPEG-2 (2021).mkv');
    await run(fixtureFfmpeg, [
      ...['-hide_banner', '-loglevel', 'error', '-y', '-i', film.path],
      ...['-c:v', 'mpeg2video', '-q:v', '3', '-g', String(GOP_SECONDS * FILM_FPS), converted],
    ]);
    t = await startTestServer({}, { trickplayReader: readerOfSets(() => [...sets.values()]) });
    ids = await registerFiles(t.server.database.db, media, { direct: film.path, hls: converted });
    await t.server.services.analysis.analyzePending();
    for (const [name, source, codec] of [
      ['direct', film.path, 'h264'],
      ['hls', converted, 'mpeg2video'],
    ] as const) {
      const dir = join(media, `sheets-${name}`);
      const layout = await makeSet(source, dir, codec);
      sets.set(name, { fileId: ids[name]?.fileId ?? 0, dir, layout });
    }
    browser = await launchChromium(profile);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.on('pageerror', (err) => pageErrors.push(err.message));
    // The pages' CSP (no inline styles, images from 'self'): a violation is logged on the console.
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) pageErrors.push(message.text());
    });
    sheetRequests = recordSheetRequests(page);
    await signIn(page, t.url, t.token);
  });

  after(async () => {
    await browser?.close();
    await t?.close();
    for (const dir of [media, profile]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const open = async (name: string) => {
    sheetRequests.length = 0;
    // The pointer out of the way: nothing is hovered before the test hovers it.
    await page.mouse.move(0, 0);
    await page.goto(`${t.url}/movie/${ids[name]?.movieId ?? 0}?device=web`);
    await page.locator('.seek-bar').waitFor({ state: 'visible', timeout: 10_000 });
  };

  /** Hovers the seek bar at `fraction` and returns the thumbnail the page shows once its sheet is in. */
  const hoverAt = async (fraction: number): Promise<ThumbState> => {
    const bar = await barBox(page);
    await page.mouse.move(bar.x + fraction * bar.width, bar.y + bar.height / 2, { steps: 4 });
    let state: ThumbState | null = null;
    await waitFor(
      async () => {
        state = await thumbState(page);
        return !state.thumbHidden && state.sheetState === 'loaded';
      },
      () => `a thumbnail with its sheet loaded at ${fraction * 100} % (${JSON.stringify(state)})`,
      { timeoutMs: 10_000 },
    );
    await painted(page);
    return thumbState(page);
  };

  /** The acceptance check: hover at 50 % shows the 50 % mark's thumbnail, by its cell and its pixels. */
  const checkFiftyPercent = async (name: string) => {
    const set = sets.get(name) as MadeSet;
    await waitFor(
      () => page.locator('[data-seek]').getAttribute('data-trickplay'),
      () => `${name}: the page read the trickplay answer`,
      { timeoutMs: 10_000 },
    );
    assert.equal(await page.locator('[data-seek]').getAttribute('data-trickplay'), 'ready');
    assert.deepEqual(sheetRequests, [], `${name}: no sheet is fetched before the first hover`);

    const durationS = await pageDuration(page);
    assert.ok(Math.abs(durationS - FILM_SECONDS) < 0.5, `${name}: the bar's length ${durationS} s`);
    const shown = await hoverAt(0.5);
    const expected = locate(set.layout, (durationS / 2) * 1000);
    assert.equal(expected.thumbnail, 5, 'the 50 % point (54 s) is thumbnail 5 (mark 50 s)');
    assert.deepEqual(
      {
        thumbnail: shown.thumbnail,
        sheet: shown.sheet,
        position: shown.backgroundPosition,
        size: `${shown.width}×${shown.height}`,
      },
      {
        thumbnail: String(expected.thumbnail),
        sheet: String(expected.sheet),
        position: `${expected.x === 0 ? '0' : `-${expected.x}`}px ${expected.y === 0 ? '0' : `-${expected.y}`}px`,
        size: `${expected.width}×${expected.height}`,
      },
      `${name}: the cell locate() gives for the 50 % point`,
    );
    // 54 s, or a hair under it when the pointer's position is rounded to a whole pixel.
    assert.match(shown.time, /^0:5[34]$/, `${name}: the time under the thumbnail`);
    const sheetPath = `/stream/media_file/${set.fileId}/trickplay/${GENERATION}/${expected.sheet}.jpg?`;
    assert.ok(
      shown.backgroundImage.startsWith(`url("${t.url}${sheetPath}`),
      `${name}: the sheet of the mark, ${sheetPath}: ${shown.backgroundImage}`,
    );
    assert.deepEqual(
      sheetRequests,
      [`${set.fileId}/${expected.sheet}`],
      `${name}: that one sheet, fetched once`,
    );

    const mark = expected.thumbnail * (set.layout.intervalMs / 1000);
    const colour = await thumbnailColour(page);
    const want = film.colourAt(mark);
    console.log(
      `# ${name}: at 50 % (${(durationS / 2).toFixed(2)} s) thumbnail ${expected.thumbnail} (sheet ${expected.sheet} at ` +
        `${expected.x},${expected.y}); screenshot mean colour ${colour.map(Math.round).join(',')}, ` +
        `the film at ${mark} s ${want.join(',')} (distance ${distance(colour, want).toFixed(1)})`,
    );
    assert.equal(
      nearestColour(colour),
      film.colourIndexAt(mark),
      `${name}: the screenshot shows the film's colour at ${mark} s`,
    );
    assert.ok(distance(colour, want) < 40, `${name}: close to it (${distance(colour, want).toFixed(1)})`);
    assert.equal(film.colourIndexAt(mark), film.colourIndexAt(durationS / 2), 'the same colour at 50 %');
  };

  it('a direct MP4: hovering the seek bar at 50 % shows the thumbnail of the 50 % mark', async () => {
    await open('direct');
    assert.equal(await page.locator('video.player').getAttribute('data-hls-url'), null);
    await waitFor(
      () =>
        page.evaluate(() => Number.isFinite((document.querySelector('video') as HTMLVideoElement).duration)),
      () => 'the direct file’s metadata',
      { timeoutMs: 10_000 },
    );
    await checkFiftyPercent('direct');
  });

  it('dragging shows the thumbnail under the pointer and seeks on release; sheets are kept', async () => {
    const set = sets.get('direct') as MadeSet;
    const bar = await barBox(page);
    const y = bar.y + bar.height / 2;
    // From the 50 % hover to 40 % (43.2 s: thumbnail 4, still sheet 1), then press.
    await page.mouse.move(bar.x + 0.4 * bar.width, y);
    await page.mouse.down();
    // Drag past the end of the bar and back (the pointer is captured: the drag goes on outside it).
    await page.mouse.move(bar.x + bar.width + 60, y - 80, { steps: 5 });
    const pastEnd = await thumbState(page);
    assert.equal(
      pastEnd.thumbnail,
      String(set.layout.thumbnailCount - 1),
      'past the end: the last thumbnail',
    );
    await page.mouse.move(bar.x + 0.9 * bar.width, y, { steps: 5 });
    let state: ThumbState | null = null;
    await waitFor(
      async () => {
        state = await thumbState(page);
        return state.thumbnail === '9' && state.sheetState === 'loaded' && !state.previewHidden;
      },
      () => `thumbnail 9 (97.2 s) while dragging (${JSON.stringify(state)})`,
      { timeoutMs: 10_000 },
    );
    const during = await page.evaluate(
      () => (document.querySelector('video') as HTMLVideoElement).currentTime,
    );
    assert.equal(during, 0, 'no seek while dragging');
    await page.mouse.up();
    const target = 0.9 * FILM_SECONDS;
    await waitFor(
      () =>
        page.evaluate(
          (want) => Math.abs((document.querySelector('video') as HTMLVideoElement).currentTime - want) < 0.5,
          target,
        ),
      () => `the video seeked to ≈ ${target} s on release`,
      { timeoutMs: 5_000 },
    );
    const now = await page.locator('.seek-bar').getAttribute('aria-valuenow');
    assert.equal(now, String(Math.floor(target)));
    // Sheet 1 (from the 50 % hover) is not fetched again; sheet 2 was, once.
    assert.deepEqual(
      [...sheetRequests].sort(),
      [`${set.fileId}/1`, `${set.fileId}/2`],
      'each sheet fetched once, on first use',
    );
    // The keyboard seeks too (no thumbnail needed for it): Home, then one arrow step of 5 s.
    const videoTime = () =>
      page.evaluate(() => (document.querySelector('video') as HTMLVideoElement).currentTime);
    await page.locator('.seek-bar').press('Home');
    await waitFor(
      async () => (await videoTime()) === 0,
      () => 'Home to seek to 0',
      { timeoutMs: 5_000 },
    );
    await page.locator('.seek-bar').press('ArrowRight');
    await waitFor(
      async () => Math.abs((await videoTime()) - 5) < 0.01,
      () => 'ArrowRight to seek 5 s on',
      { timeoutMs: 5_000 },
    );
    await page.mouse.move(bar.x + 0.5 * bar.width, y + 300);
    await waitFor(
      async () => (await thumbState(page)).previewHidden,
      () => 'the preview to hide once the pointer leaves the bar',
      { timeoutMs: 5_000 },
    );
  });

  it('an HLS conversion (MPEG-2 MKV through hls.js): hovering at 50 % shows the 50 % mark', async () => {
    await open('hls');
    assert.match((await page.locator('video.player').getAttribute('data-hls-url')) ?? '', /master\.m3u8/);
    await waitFor(
      () => page.locator('video.player').getAttribute('data-player'),
      () => 'movie.js to hand the conversion to hls.js',
      { timeoutMs: 10_000 },
    );
    assert.equal(await page.locator('video.player').getAttribute('data-player'), 'hls.js');
    await checkFiftyPercent('hls');
  });

  it('an ApiError from the trickplay route: no thumbnail, the time alone, no script error', async () => {
    const api = /\/api\/media-file\/\d+\/trickplay(\?|$)/;
    await page.route(api, (route) =>
      route.fulfill({
        status: 404,
        contentType: 'application/json',
        body: JSON.stringify({ error: 'not_found', message: 'No seek thumbnails yet.', hint: 'Make them.' }),
      }),
    );
    try {
      await open('direct');
      await waitFor(
        () => page.locator('[data-seek]').getAttribute('data-trickplay'),
        () => 'the page to read the error',
        { timeoutMs: 10_000 },
      );
      assert.equal(await page.locator('[data-seek]').getAttribute('data-trickplay'), 'none');
      const bar = await barBox(page);
      await page.mouse.move(bar.x + 0.5 * bar.width, bar.y + bar.height / 2, { steps: 3 });
      let state: ThumbState | null = null;
      await waitFor(
        async () => {
          state = await thumbState(page);
          return !state.previewHidden && /^0:5[34]$/.test(state.time);
        },
        () => `the time at 50 % (${JSON.stringify(state)})`,
        { timeoutMs: 5_000 },
      );
      assert.equal((state as ThumbState | null)?.thumbHidden, true, 'no thumbnail box');
      assert.deepEqual(sheetRequests, [], 'no sheet asked for');
      assert.equal(await page.locator('.player-status').textContent(), '', 'nothing said about it');
    } finally {
      await page.unroute(api);
    }
    assert.deepEqual(pageErrors, [], 'no script error and no CSP violation on any page');
  });
});
