/**
 * The one-pass trickplay command run through the real ffmpeg (under nice, with its watchdog) on
 * films whose colour changes on a known schedule: each thumbnail, cropped out of its sheet with
 * sharp, has the colour of the moment it must show (keyframe mode: the keyframe nearest its mark;
 * accurate mode: the frame at the mark); a 10-bit HDR10 HEVC film is tone-mapped, not washed out;
 * a stuck ffmpeg is ended by the watchdog and an aborted one is killed; a run is stopped (state T)
 * while a conversion slot is held and finishes after; a stopped ffmpeg still dies with its owner.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { TrickplayFfmpeg, TrickplayStalledError } from '../../src/adapters/trickplay-ffmpeg.ts';
import { conversionsBusy } from '../../src/domain/trickplay/making.ts';
import { ConversionSlots } from '../../src/services/playback/conversion-slots.ts';
import type { VideoCapabilities } from '../../src/domain/media/capabilities.ts';
import {
  buildSheetArgs,
  type SheetLayout,
  type SheetMode,
} from '../../src/domain/trickplay/sheet-command.ts';
import { fixtureFfmpeg } from '../helpers/media.ts';
import { type ColourFilm, FILM_FPS, makeColourFilm, SEGMENT_COLOURS } from '../helpers/trickplay-fixtures.ts';
import { alive } from '../helpers/process-alive.ts';

type Rgb = readonly [number, number, number];

const LAYOUT: SheetLayout = { interval_ms: 10_000, width: 64, height: 36, tile_width: 4, tile_height: 2 };

function video(hdr: VideoCapabilities['hdr']): { video: VideoCapabilities } {
  return {
    video: {
      index: 0,
      codec: hdr === 'sdr' ? 'h264' : 'hevc',
      profile: null,
      level: null,
      width: 160,
      height: 90,
      bit_depth: hdr === 'sdr' ? 8 : 10,
      pix_fmt: null,
      frame_rate: FILM_FPS,
      interlaced: false,
      codec_tag: null,
      hdr,
      dolby_vision: null,
      sar: null,
      anamorphic: false,
      rotation: 0,
      bitrate_bps: null,
    },
  };
}

let root = '';
let runs = 0;
const tool = new TrickplayFfmpeg(fixtureFfmpeg);

async function makeSheets(
  film: ColourFilm,
  mode: SheetMode,
  hdr: VideoCapabilities['hdr'] = 'sdr',
): Promise<{ dir: string; sheets: number; progress: number[] }> {
  const dir = join(root, `sheets-${runs++}`);
  mkdirSync(dir);
  const args = buildSheetArgs({
    source: film.path,
    outputDir: dir,
    layout: LAYOUT,
    mode,
    thumbnailCount: Math.ceil(film.durationSeconds / (LAYOUT.interval_ms / 1000)),
    maxKeyframeGapSeconds: film.gopSeconds,
    capabilities: video(hdr),
    threads: 1,
  });
  const progress: number[] = [];
  const result = await tool.run({
    args,
    outputDir: dir,
    durationSeconds: film.durationSeconds,
    onProgress: (percent) => progress.push(percent),
  });
  return { dir, sheets: result.sheets, progress };
}

/** Mean colour of every thumbnail of the sheets in `dir` (inner part: JPEG blurs the tile edges). */
async function thumbnailColours(dir: string, count: number): Promise<Rgb[]> {
  const perSheet = LAYOUT.tile_width * LAYOUT.tile_height;
  const colours: Rgb[] = [];
  for (let n = 0; n < count; n++) {
    const sheet = readFileSync(join(dir, `${Math.floor(n / perSheet)}.jpg`));
    const cell = n % perSheet;
    const left = (cell % LAYOUT.tile_width) * LAYOUT.width + 8;
    const top = Math.floor(cell / LAYOUT.tile_width) * LAYOUT.height + 6;
    // sharp's stats() describes the input, not the extract: the crop's pixels are averaged here.
    const { data, info } = await sharp(sheet)
      .extract({ left, top, width: LAYOUT.width - 16, height: LAYOUT.height - 12 })
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const sums = [0, 0, 0];
    for (let i = 0; i < data.length; i += info.channels) {
      for (let c = 0; c < 3; c++) sums[c] = (sums[c] ?? 0) + (data[i + c] ?? 0);
    }
    const pixels = data.length / info.channels;
    const [r, g, b] = sums.map((sum) => sum / pixels);
    colours.push([r ?? 0, g ?? 0, b ?? 0]);
  }
  return colours;
}

/** The colour scaled to its brightest channel: hue and saturation without brightness. */
function chroma(rgb: Rgb): Rgb {
  const top = Math.max(1, ...rgb);
  return [rgb[0] / top, rgb[1] / top, rgb[2] / top];
}

function round(rgb: Rgb): number[] {
  return rgb.map((v) => Math.round(v));
}

function distance(a: Rgb, b: Rgb): number {
  return Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
}

/** Index of the schedule colour nearest `rgb` (the colours are ≥ 100 apart; noise and JPEG ≈ 10). */
function nearestColour(rgb: Rgb): number {
  let best = 0;
  SEGMENT_COLOURS.forEach((colour, index) => {
    if (distance(colour, rgb) < distance(SEGMENT_COLOURS[best] ?? colour, rgb)) best = index;
  });
  return best;
}

/** Keyframe times of a film whose keyframes are exactly every GOP. */
function keyframesNearest(film: ColourFilm, mark: number): number[] {
  const below = Math.floor(mark / film.gopSeconds) * film.gopSeconds;
  const above = below + film.gopSeconds;
  if (mark - below < above - mark || above >= film.durationSeconds) return [below];
  if (mark - below > above - mark) return [above];
  return [below, above];
}

async function sheetSizes(dir: string): Promise<string[]> {
  const names = readdirSync(dir).sort((a, b) => parseInt(a, 10) - parseInt(b, 10));
  return Promise.all(
    names.map(async (name) => {
      const meta = await sharp(join(dir, name)).metadata();
      return `${name} ${meta.width}x${meta.height}`;
    }),
  );
}

describe('trickplay sheets with the real ffmpeg', { timeout: 300_000 }, () => {
  // Colour k from 10k − 7 s to 10k + 3 s: the keyframe nearest a mark (4-s GOP: within 2 s) has
  // colour k, while plain `fps=1/10` (the last picture before k·10 + 5 s) would show colour k + 1.
  let gop4: ColourFilm;
  // Colour k until 10k + 0.08 s (two frames after the mark); 12-s GOP.
  let gop12: ColourFilm;
  // Colour k from exactly 10k: a picture one frame early shows colour k − 1.
  let hdr: ColourFilm;
  let sdrTwin: ColourFilm;

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'reelshelf-trickplay-'));
    [gop4, gop12, hdr, sdrTwin] = await Promise.all([
      makeColourFilm(root, 'gop4.mp4', {
        durationSeconds: 130,
        offsetSeconds: 3,
        gopSeconds: 4,
        codec: 'h264',
      }),
      makeColourFilm(root, 'gop12.mp4', {
        durationSeconds: 60,
        offsetSeconds: 0.08,
        gopSeconds: 12,
        codec: 'h264',
      }),
      makeColourFilm(root, 'hdr10.mkv', {
        durationSeconds: 60,
        offsetSeconds: 0,
        gopSeconds: 4,
        codec: 'hevc10_hdr10',
      }),
      makeColourFilm(root, 'sdr.mp4', {
        durationSeconds: 60,
        offsetSeconds: 0,
        gopSeconds: 4,
        codec: 'h264',
      }),
    ]);
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  for (const mode of ['keyframes', 'accurate'] as const) {
    it(`${mode}: 130 s at 10 s, 4×2 tiles → 13 thumbnails on two 256×72 sheets, each the colour of its mark`, async () => {
      const { dir, sheets, progress } = await makeSheets(gop4, mode);
      assert.equal(sheets, 2);
      assert.deepEqual(await sheetSizes(dir), ['0.jpg 256x72', '1.jpg 256x72']);
      const colours = await thumbnailColours(dir, 13);
      const shown = colours.map(nearestColour);
      const expected = colours.map((_, k) => gop4.colourIndexAt(10 * k));
      assert.deepEqual(shown, expected);
      colours.forEach((rgb, k) =>
        assert.ok(distance(rgb, gop4.colourAt(10 * k)) < 30, `thumbnail ${k}: ${rgb.join(',')}`),
      );
      // The last sheet is padded black after its 5 real thumbnails.
      const padding = await thumbnailColours(dir, 16);
      assert.ok(padding.slice(13).every((rgb) => rgb.every((v) => v < 20)));
      assert.equal(progress.at(-1), 100);
      assert.ok(
        progress.every((p, i) => i === 0 || p >= (progress[i - 1] ?? 0)),
        progress.join(' '),
      );
    });
  }

  it('keyframes, 12-s GOP: each thumbnail is the keyframe nearest its mark (within 6 s)', async () => {
    const { dir, sheets } = await makeSheets(gop12, 'keyframes');
    assert.equal(sheets, 1);
    const shown = (await thumbnailColours(dir, 6)).map(nearestColour);
    shown.forEach((colour, k) => {
      const allowed = keyframesNearest(gop12, 10 * k).map((t) => gop12.colourIndexAt(t));
      assert.ok(
        allowed.includes(colour),
        `thumbnail ${k} shows colour ${colour}, expected one of ${allowed.join('/')}`,
      );
    });
  });

  it('accurate, 12-s GOP: each thumbnail is the frame at its mark (colour k ends 2 frames after it)', async () => {
    const { dir } = await makeSheets(gop12, 'accurate');
    const shown = (await thumbnailColours(dir, 6)).map(nearestColour);
    assert.deepEqual(
      shown,
      [0, 1, 2, 3, 4, 5].map((k) => gop12.colourIndexAt(10 * k)),
    );
  });

  it('10-bit HDR10 HEVC: tone-mapped thumbnails keep the colours of the SDR film, not washed out', async () => {
    const [toneMapped, plain, twin] = await Promise.all([
      makeSheets(hdr, 'accurate', 'hdr10').then(({ dir }) => thumbnailColours(dir, 6)),
      makeSheets(hdr, 'accurate', 'sdr').then(({ dir }) => thumbnailColours(dir, 6)),
      makeSheets(sdrTwin, 'accurate').then(({ dir }) => thumbnailColours(dir, 6)),
    ]);
    assert.deepEqual(twin.map(nearestColour), [0, 1, 2, 3, 4, 5]);
    // Hue and saturation: each colour scaled to its brightest channel. Hable (the conversions'
    // curve) also darkens SDR-level pictures by about a third, so brightness is held to ≥ 55 %.
    const off = toneMapped.map((rgb, k) => distance(chroma(rgb), chroma(twin[k] ?? rgb)));
    const washed = plain.map((rgb, k) => distance(chroma(rgb), chroma(twin[k] ?? rgb)));
    const detail = `tone-mapped ${JSON.stringify(toneMapped.map(round))}, untouched ${JSON.stringify(plain.map(round))}, SDR ${JSON.stringify(twin.map(round))}`;
    assert.ok(Math.max(...off) < 0.3, `chroma off by ${off.map((d) => d.toFixed(2)).join(' ')}: ${detail}`);
    toneMapped.forEach((rgb, k) =>
      assert.ok(Math.max(...rgb) >= 0.55 * Math.max(...(twin[k] ?? rgb)), detail),
    );
    // The check has teeth: the same film without the tone-mapping is washed out (greyish).
    washed.forEach((d, k) => assert.ok(d > (off[k] ?? 0) + 0.15, `untouched ${d.toFixed(2)}: ${detail}`));
  });

  it('the watchdog ends an ffmpeg that makes no headway (reading a FIFO nobody writes), under nice 19', async () => {
    const fifo = join(root, 'stuck.fifo');
    execFileSync('mkfifo', [fifo]);
    const dir = join(root, 'stuck');
    mkdirSync(dir);
    let pid = 0;
    let niceness: number | null = null;
    let command = '';
    let ioClass = '';
    const started = Date.now();
    await assert.rejects(
      tool.run({
        args: buildSheetArgs({
          source: fifo,
          outputDir: dir,
          layout: LAYOUT,
          mode: 'keyframes',
          thumbnailCount: 10,
          maxKeyframeGapSeconds: 4,
          capabilities: video('sdr'),
          threads: 1,
        }),
        outputDir: dir,
        durationSeconds: 100,
        stallMs: 1500,
        onSpawn: (p) => {
          pid = p;
          // Once nice and ionice have set the priority and exec'd ffmpeg (same pid).
          setTimeout(() => {
            niceness = Number(readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]?.split(' ')[16]);
            command = readFileSync(`/proc/${p}/comm`, 'utf8').trim();
            ioClass = execFileSync('ionice', ['-p', String(p)], { encoding: 'utf8' }).trim();
          }, 500);
        },
      }),
      (err: unknown) => err instanceof TrickplayStalledError,
    );
    assert.ok(Date.now() - started < 10_000);
    assert.ok(pid > 0);
    assert.throws(() => process.kill(pid, 0), /ESRCH/, 'ffmpeg is gone');
    assert.equal(command, 'ffmpeg');
    assert.equal(niceness, 19);
    assert.equal(ioClass, 'idle');
  });

  it('aborting kills ffmpeg at once', async () => {
    const fifo = join(root, 'abort.fifo');
    execFileSync('mkfifo', [fifo]);
    const dir = join(root, 'aborted');
    mkdirSync(dir);
    const controller = new AbortController();
    let pid = 0;
    const reason = new Error('cancelled by the test');
    await assert.rejects(
      tool.run({
        args: buildSheetArgs({
          source: fifo,
          outputDir: dir,
          layout: LAYOUT,
          mode: 'accurate',
          thumbnailCount: 10,
          maxKeyframeGapSeconds: 4,
          capabilities: video('sdr'),
          threads: 1,
        }),
        outputDir: dir,
        durationSeconds: 100,
        signal: controller.signal,
        onSpawn: (p) => {
          pid = p;
          setTimeout(() => controller.abort(reason), 300);
        },
      }),
      (err: unknown) => err === reason,
    );
    assert.throws(() => process.kill(pid, 0), /ESRCH/);
  });

  it('ffmpeg does not outlive its owner: killed with SIGKILL, the owner leaves an ffmpeg that exits', async () => {
    const fifo = join(root, 'owner.fifo');
    execFileSync('mkfifo', [fifo]);
    const dir = join(root, 'orphan');
    mkdirSync(dir);
    const owner = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        join(import.meta.dirname, '../helpers/trickplay-owner.ts'),
        fixtureFfmpeg,
        fifo,
        dir,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    // The film fed slowly through the FIFO, so ffmpeg is busy (and reporting) when its owner dies.
    const writer = createWriteStream(fifo);
    writer.on('error', () => {});
    // MPEG-TS: read as it comes (an MP4 with its index at the end waits for the whole file).
    const ts = join(root, 'owner.ts');
    execFileSync(fixtureFfmpeg, ['-v', 'error', '-i', gop4.path, '-c', 'copy', ts]);
    const film = readFileSync(ts);
    let offset = 0;
    const feed = setInterval(() => {
      if (offset < film.length) writer.write(film.subarray(offset, (offset += 4096)));
    }, 20);
    try {
      const pid = await new Promise<number>((resolve, reject) => {
        owner.stdout.once('data', (chunk: Buffer) => resolve(Number(String(chunk).trim())));
        owner.once('exit', () => reject(new Error('the owner exited before starting ffmpeg')));
      });
      await new Promise((resolve) => setTimeout(resolve, 1000));
      assert.doesNotThrow(() => process.kill(pid, 0), 'ffmpeg runs while its owner lives');
      owner.kill('SIGKILL');
      const deadline = Date.now() + 5000;
      while (Date.now() < deadline && alive(pid)) await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(alive(pid), false, 'ffmpeg exited once its owner was gone');
    } finally {
      clearInterval(feed);
      writer.destroy();
      owner.kill('SIGKILL');
    }
  });

  it('paused while a viewer’s conversion holds a slot: ffmpeg stopped (T), no stall counted, done after release', async () => {
    const slots = new ConversionSlots(1);
    const pause = {
      get paused() {
        return conversionsBusy(slots);
      },
      onChange: (l: () => void) => slots.onChange(l),
    };
    const viewer = slots.takeNow();
    const dir = join(root, 'paused');
    mkdirSync(dir);
    const states: string[] = [];
    const changes: boolean[] = [];
    let pid = 0;
    const run = tool.run({
      args: buildSheetArgs({
        source: gop4.path,
        outputDir: dir,
        layout: LAYOUT,
        mode: 'accurate',
        thumbnailCount: 13,
        maxKeyframeGapSeconds: 4,
        capabilities: video('sdr'),
        threads: 1,
      }),
      outputDir: dir,
      durationSeconds: gop4.durationSeconds,
      // Shorter than the pause: stopped time must not count as a stall.
      stallMs: 1000,
      pause,
      onPauseChange: (stopped) => changes.push(stopped),
      onSpawn: (p) => (pid = p),
    });
    await new Promise((resolve) => setTimeout(resolve, 2500));
    states.push(processState(pid));
    assert.deepEqual(readdirSync(dir), [], 'nothing written while stopped');
    viewer.release();
    const result = await run;
    assert.deepEqual(states, ['T']);
    assert.deepEqual(changes, [true, false]);
    assert.deepEqual(result, { sheets: 2, thumbnails: 13 });
  });

  it('a stopped (paused) ffmpeg still dies with its owner killed by SIGKILL (setpriv --pdeathsig)', async () => {
    const dir = join(root, 'orphan-paused');
    mkdirSync(dir);
    const owner = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        join(import.meta.dirname, '../helpers/trickplay-owner.ts'),
        fixtureFfmpeg,
        gop4.path,
        dir,
        'paused',
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let pid = 0;
    try {
      pid = await new Promise<number>((resolve, reject) => {
        owner.stdout.once('data', (chunk: Buffer) => resolve(Number(String(chunk).trim())));
        owner.once('exit', () => reject(new Error('the owner exited before starting ffmpeg')));
      });
      // Once setpriv, nice and ionice have exec'd ffmpeg (same pid) and it was stopped.
      const deadline = Date.now() + 5000;
      while (Date.now() < deadline && !(comm(pid) === 'ffmpeg' && processState(pid) === 'T')) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(comm(pid), 'ffmpeg');
      assert.equal(processState(pid), 'T', 'ffmpeg is stopped while its owner lives');
      owner.kill('SIGKILL');
      const gone = Date.now() + 5000;
      while (Date.now() < gone && alive(pid)) await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(alive(pid), false, 'the stopped ffmpeg died with its owner');
    } finally {
      owner.kill('SIGKILL');
      // A failed run leaves no stopped ffmpeg behind.
      if (pid > 0 && alive(pid)) process.kill(pid, 'SIGKILL');
    }
  });
});

/** The state letter of /proc/<pid>/stat (R, S, T, Z…), '' when gone. */
function processState(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[0] ?? '';
  } catch {
    return '';
  }
}

function comm(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}
