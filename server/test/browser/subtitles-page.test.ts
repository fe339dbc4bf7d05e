// Subtitles on the /movie page in a real browser: Debian's Chromium (playwright-core) against a real
// server, a real scan and real ffmpeg. Every text track of an edition is a <track> (WebVTT from the
// server); the default one shows. A direct MP4 plays them beside its file, a conversion beside hls.js,
// which must not add the HLS master's SUBTITLES renditions (the same tracks) a second time.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { LibraryResponse } from '@reelshelf/contract';
import { type Browser, chromium, type Page } from 'playwright-core';
import { moviePage } from '../../src/http/pages/movie.page.ts';
import { fixtureFfmpeg } from '../helpers/media.ts';
import { ADMIN, jsonBody, startTestServer, type TestServer } from '../helpers/test-server.ts';
import { browserSkip, chromiumExecutable, chromiumFlags, signIn } from '../helpers/chromium.ts';
import { waitFor, within } from '../helpers/wait.ts';

const run = promisify(execFile);
const CHROMIUM_FLAGS = chromiumFlags({ autoplay: true });
const Q = ['-hide_banner', '-loglevel', 'error', '-y'];
const SECONDS = 8;
/** Cue times may differ from the source by the container's rounding (mov_text: 1/1000 s ticks). */
const TOLERANCE_S = 0.02;

interface Cue {
  start: number;
  end: number;
  text: string;
}

/** The direct MP4's English track (mov_text): a two-line cue and one with an accent. */
const DIRECT_EN: Cue[] = [
  { start: 1, end: 2.5, text: 'Hello from the file.' },
  { start: 3.25, end: 4.75, text: 'Two lines\nof text.' },
  { start: 6, end: 7.2, text: 'Café at six.' },
];
/** The MKV's embedded English SubRip (default). */
const MKV_EN: Cue[] = [
  { start: 1, end: 2.5, text: 'Hello there.' },
  { start: 4.25, end: 5.75, text: 'General Kenobi.' },
  { start: 6.5, end: 7.5, text: '<i>You are a bold one.</i>' },
];
/** The MKV's sidecar `Talking (2004).fr.srt` (UTF-8, accents). */
const SIDECAR_FR: Cue[] = [
  { start: 2, end: 3.5, text: 'Ça va très bien.' },
  { start: 5, end: 6.25, text: 'À bientôt !' },
];

function srtTime(seconds: number): string {
  const ms = Math.round(seconds * 1000);
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(
    Math.floor(ms / 1000) % 60,
  )},${pad(ms % 1000, 3)}`;
}

function srt(cues: Cue[]): string {
  return cues.map((c, i) => `${i + 1}\n${srtTime(c.start)} --> ${srtTime(c.end)}\n${c.text}\n`).join('\n');
}

/** H.264 + AAC in MP4 with the SRT as an English mov_text track flagged default: direct on web. */
async function makeDirect(dir: string): Promise<string> {
  const source = join(dir, 'direct-en.srt');
  writeFileSync(source, srt(DIRECT_EN));
  const path = join(dir, 'Direct (2003)', 'Direct (2003).mp4');
  mkdirSync(join(dir, 'Direct (2003)'));
  await run(fixtureFfmpeg, [
    ...Q,
    ...['-f', 'lavfi', '-i', `testsrc2=duration=${SECONDS}:size=320x240:rate=25`],
    ...['-f', 'lavfi', '-i', `sine=frequency=440:duration=${SECONDS}:sample_rate=48000`],
    ...['-i', source],
    ...['-map', '0:v', '-map', '1:a', '-map', '2:s'],
    ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-g', '25'],
    ...['-c:a', 'aac', '-ac', '2', '-c:s', 'mov_text'],
    ...['-metadata:s:s:0', 'language=eng', '-disposition:s:0', 'default'],
    ...['-movflags', '+faststart'],
    path,
  ]);
  rmSync(source);
  return path;
}

/** H.264 + AC-3 in MKV (adaptive on web) with an English SubRip flagged default, and a French sidecar. */
async function makeConverted(dir: string): Promise<string> {
  const source = join(dir, 'mkv-en.srt');
  writeFileSync(source, srt(MKV_EN));
  mkdirSync(join(dir, 'Talking (2004)'));
  const path = join(dir, 'Talking (2004)', 'Talking (2004).mkv');
  await run(fixtureFfmpeg, [
    ...Q,
    ...['-f', 'lavfi', '-i', `testsrc2=duration=${SECONDS}:size=320x240:rate=25`],
    ...['-f', 'lavfi', '-i', `sine=frequency=440:duration=${SECONDS}:sample_rate=48000`],
    ...['-i', source],
    ...['-map', '0:v', '-map', '1:a', '-map', '2:s'],
    ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-g', '50'],
    ...['-c:a', 'ac3', '-ac', '2', '-c:s', 'srt'],
    ...['-metadata:s:a:0', 'language=eng', '-metadata:s:s:0', 'language=eng'],
    ...['-disposition:s:0', 'default'],
    path,
  ]);
  rmSync(source);
  writeFileSync(join(dir, 'Talking (2004)', 'Talking (2004).fr.srt'), srt(SIDECAR_FR));
  return path;
}

interface TrackState {
  kind: string;
  label: string;
  language: string;
  mode: string;
  /** The <track> element's readyState (2 = loaded, 3 = error); -1 for a track without one. */
  elementState: number;
  src: string | null;
  cues: Cue[] | null;
  active: string[];
}

interface VideoState {
  player: string | null;
  currentTime: number;
  paused: boolean;
  readyState: number;
  error: number | null;
  levels: number;
  hlsSubtitleTracks: number | null;
  tracks: TrackState[];
}

/** The first <video>'s text tracks (as the browser holds them) and where it is. */
function videoState(page: Page): Promise<VideoState> {
  return page.evaluate(() => {
    const v = document.querySelector('video') as
      (HTMLVideoElement & { hls?: { levels: unknown[]; subtitleTracks: unknown[] } }) | null;
    if (v === null) throw new Error('no <video> on the page');
    const elements = Array.from(v.querySelectorAll('track'));
    const tracks = Array.from(v.textTracks).map((t) => {
      const element = elements.find((e) => e.track === t);
      return {
        kind: t.kind,
        label: t.label,
        language: t.language,
        mode: t.mode,
        elementState: element?.readyState ?? -1,
        src: element?.getAttribute('src') ?? null,
        cues:
          t.cues === null
            ? null
            : Array.from(t.cues).map((c) => ({
                start: c.startTime,
                end: c.endTime,
                text: (c as VTTCue).text,
              })),
        active: t.activeCues === null ? [] : Array.from(t.activeCues).map((c) => (c as VTTCue).text),
      };
    });
    return {
      player: v.dataset.player ?? null,
      currentTime: v.currentTime,
      paused: v.paused,
      readyState: v.readyState,
      error: v.error?.code ?? null,
      levels: v.hls?.levels.length ?? 0,
      hlsSubtitleTracks: v.hls === undefined ? null : v.hls.subtitleTracks.length,
      tracks,
    };
  });
}

function assertCues(actual: Cue[] | null, expected: Cue[], what: string): void {
  assert.ok(actual !== null, `${what}: the track has cues`);
  assert.equal(actual.length, expected.length, `${what}: ${JSON.stringify(actual)}`);
  expected.forEach((e, i) => {
    const a = actual[i] as Cue;
    assert.equal(a.text, e.text, `${what}: cue ${i} text`);
    assert.ok(
      Math.abs(a.start - e.start) <= TOLERANCE_S,
      `${what}: cue ${i} starts at ${a.start}, source ${e.start}`,
    );
    assert.ok(Math.abs(a.end - e.end) <= TOLERANCE_S, `${what}: cue ${i} ends at ${a.end}, source ${e.end}`);
  });
}

/** Waits until the text track labelled `label` is loaded and has cues; returns the page's state then. */
async function loadedTrack(page: Page, label: string, what: string): Promise<TrackState> {
  let last: VideoState | null = null;
  return waitFor(
    async () => {
      last = await videoState(page);
      const track = last.tracks.find((t) => t.label === label);
      return track !== undefined && track.elementState === 2 && (track.cues?.length ?? 0) > 0 ? track : null;
    },
    () => `${what}: the "${label}" track loaded with cues (${JSON.stringify(last)})`,
    { timeoutMs: 10_000, intervalMs: 50 },
  );
}

/**
 * Plays until the clock reaches `at` (s), pauses there (checked on every presented frame), and
 * returns the cues the showing track holds active then: the subtitles line up with the picture.
 */
async function activeCuesAt(page: Page, at: number, what: string): Promise<VideoState> {
  await within(
    // No named inner functions: tsx would wrap them in a helper the page does not have.
    page.evaluate(async (target) => {
      const v = document.querySelector('video') as HTMLVideoElement;
      const started = v.play();
      while (v.currentTime < target) {
        await new Promise((resolve) => v.requestVideoFrameCallback(resolve));
      }
      v.pause();
      await started;
    }, at),
    20_000,
    () => `${what}: playback reaching ${at} s`,
  );
  let last: VideoState | null = null;
  return waitFor(
    async () => {
      last = await videoState(page);
      return last.paused && last.tracks.some((t) => t.mode === 'showing' && t.active.length > 0)
        ? last
        : null;
    },
    () => `${what}: a showing track with an active cue at ${at} s (${JSON.stringify(last)})`,
    { timeoutMs: 3_000, intervalMs: 50 },
  );
}

describe(
  'subtitles on the /movie page in Chromium: a <track> for every text track, the default one showing',
  { skip: browserSkip() },
  () => {
    let t: TestServer;
    let browser: Browser;
    let page: Page;
    let media: string;
    let profile: string;
    const movies: Record<string, { movieId: number; fileId: number }> = {};
    const pageErrors: string[] = [];
    const requests: { path: string; status: number }[] = [];

    before(async () => {
      media = mkdtempSync(join(tmpdir(), 'reelshelf-subtitles-page-'));
      profile = mkdtempSync(join(tmpdir(), 'reelshelf-chromium-'));
      await Promise.all([makeDirect(media), makeConverted(media)]);
      t = await startTestServer();
      const root = await t.api('/api/library-roots', jsonBody('POST', { path: media }));
      assert.equal(root.status, 201);
      const { id } = (await root.json()) as { id: number };
      const scan = await t.api(`/api/library-roots/${id}/scan?wait=true`, { method: 'POST' });
      assert.equal(scan.status, 200, await scan.clone().text());
      const library = (await (await t.api('/library?device=web')).json()) as LibraryResponse;
      for (const item of library.items) {
        const fileId = item.editions[0]?.media_file_id;
        if (fileId !== undefined && item.movie_id !== null)
          movies[item.title] = { movieId: item.movie_id, fileId };
      }
      assert.deepEqual(Object.keys(movies).sort(), ['Direct', 'Talking'], JSON.stringify(library.items));
      browser = await chromium.launch({
        executablePath: chromiumExecutable(),
        headless: true,
        ignoreDefaultArgs: true,
        args: [...CHROMIUM_FLAGS, `--user-data-dir=${profile}`, '--remote-debugging-pipe'],
      });
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      page = await context.newPage();
      page.on('pageerror', (err) => pageErrors.push(err.message));
      page.on('response', (res) => {
        const url = new URL(res.url());
        if (url.pathname.startsWith('/stream/')) requests.push({ path: url.pathname, status: res.status() });
      });
      await signIn(page, t.url, t.token);
    });

    after(async () => {
      await browser?.close();
      await t?.close();
      for (const dir of [media, profile]) if (dir) rmSync(dir, { recursive: true, force: true });
    });

    const moviePath = (title: string) => `${t.url}/movie/${movies[title]?.movieId ?? 0}?device=web`;

    it('a direct MP4 with a mov_text track: one <track>, showing, cues as in the source SRT, in step with the picture', async () => {
      requests.length = 0;
      await page.goto(moviePath('Direct'));
      const video = page.locator('video');
      assert.equal(await video.getAttribute('data-hls-url'), null, 'a direct file plays from its own URL');
      const elements = await page.locator('video track').evaluateAll((list) =>
        list.map((e) => ({
          kind: e.getAttribute('kind'),
          label: e.getAttribute('label'),
          srclang: e.getAttribute('srclang'),
          default: e.hasAttribute('default'),
          src: e.getAttribute('src'),
        })),
      );
      assert.equal(elements.length, 1, JSON.stringify(elements));
      assert.deepEqual(
        { ...elements[0], src: undefined },
        { kind: 'subtitles', label: 'English', srclang: 'en', default: true, src: undefined },
      );
      assert.match(
        elements[0]?.src ?? '',
        new RegExp(`^/stream/media_file/${movies.Direct?.fileId}/subtitles/0\\.vtt\\?.*token=`),
      );

      const track = await loadedTrack(page, 'English', 'direct');
      assert.equal(track.mode, 'showing', 'the default track shows without a click');
      assertCues(track.cues, DIRECT_EN, 'direct, English');
      const state = await activeCuesAt(page, 1.6, 'direct');
      assert.equal(state.tracks.length, 1, `one text track: ${JSON.stringify(state.tracks)}`);
      assert.deepEqual(state.tracks[0]?.active, [DIRECT_EN[0]?.text], `at ${state.currentTime} s`);
      assert.equal(state.player, null, 'movie.js leaves a direct file alone');
      assert.equal(state.error, null);
      assert.ok(
        requests.every((r) => r.status < 400 && !/\.m3u8$|\/hls\//.test(r.path)),
        JSON.stringify(requests),
      );
      console.log(
        `# direct: English cues ${JSON.stringify(track.cues)}; active at ${state.currentTime.toFixed(2)} s`,
      );
    });

    it('a converted MKV through hls.js: two tracks (embedded English default showing, French sidecar) once each; French loads its cues when chosen', async () => {
      requests.length = 0;
      await page.goto(moviePath('Talking'));
      const video = page.locator('video');
      assert.match((await video.getAttribute('data-hls-url')) ?? '', /\/master\.m3u8\?/);
      const elements = await page
        .locator('video track')
        .evaluateAll((list) =>
          list.map((e) => [e.getAttribute('label'), e.getAttribute('srclang'), e.hasAttribute('default')]),
        );
      assert.deepEqual(elements, [
        ['English', 'en', true],
        ['French', 'fr', false],
      ]);

      const english = await loadedTrack(page, 'English', 'converted');
      assert.equal(english.mode, 'showing');
      assertCues(english.cues, MKV_EN, 'converted, English');
      // The master is parsed (it lists the SUBTITLES group) and playback runs: hls.js added nothing.
      let last: VideoState | null = null;
      await waitFor(
        async () => {
          last = await videoState(page);
          return last.levels > 0;
        },
        () => `hls.js to parse the master playlist (${JSON.stringify(last)})`,
        { timeoutMs: 10_000 },
      );
      const master = requests.find((r) => r.path.endsWith('/master.m3u8'));
      assert.equal(master?.status, 200, JSON.stringify(requests));
      const playing = await activeCuesAt(page, 1.6, 'converted');
      assert.equal(playing.player, 'hls.js');
      assert.equal(playing.error, null);
      assert.deepEqual(
        playing.tracks.map((tr) => [tr.kind, tr.label, tr.language, tr.mode]),
        [
          ['subtitles', 'English', 'en', 'showing'],
          ['subtitles', 'French', 'fr', 'disabled'],
        ],
        'video.textTracks holds each track once',
      );
      assert.equal(playing.hlsSubtitleTracks, 0, 'hls.js offers no subtitle track of its own');
      assert.deepEqual(playing.tracks[0]?.active, [MKV_EN[0]?.text], `at ${playing.currentTime} s`);
      assert.deepEqual(
        requests.filter((r) => /\/hls\/s\d+\//.test(r.path)),
        [],
        'hls.js loads no subtitle rendition',
      );

      // The person picks French: its cues load (from the sidecar's WebVTT) and show.
      await page.evaluate(() => {
        const tracks = (document.querySelector('video') as HTMLVideoElement).textTracks;
        for (const tr of Array.from(tracks)) tr.mode = tr.label === 'French' ? 'showing' : 'disabled';
      });
      const french = await loadedTrack(page, 'French', 'converted');
      assert.equal(french.mode, 'showing');
      assertCues(french.cues, SIDECAR_FR, 'converted, French sidecar');
      const after = await activeCuesAt(page, 2.4, 'converted, French');
      assert.deepEqual(after.tracks[1]?.active, [SIDECAR_FR[0]?.text], `at ${after.currentTime} s`);
      assert.equal(after.tracks.length, 2);
      assert.equal(after.hlsSubtitleTracks, 0);
      const refused = requests.filter((r) => r.status >= 400);
      assert.deepEqual(refused, [], 'no /stream request refused');
      assert.deepEqual(pageErrors, [], 'no script errors');
      console.log(
        `# converted: ${requests.length} /stream requests; French cues ${JSON.stringify(french.cues)}; ` +
          `active at ${after.currentTime.toFixed(2)} s: ${JSON.stringify(after.tracks[1]?.active)}`,
      );
    });

    it('an image track is listed under the player as burned in on request, never as a <track>', async () => {
      // No ffmpeg encodes PGS from text: the page is rendered with a playback answer that adds one.
      const { movieId, fileId } = movies.Talking ?? { movieId: 0, fileId: 0 };
      const services = t.server.services;
      const item = await services.library.getMovieItem(ADMIN, movieId, 'web');
      const info = await services.playback.info(fileId, 'web', ADMIN);
      const withImage = {
        ...info,
        subtitles: [
          ...info.subtitles,
          {
            index: 9,
            language: 'fre',
            label: 'French (forced)',
            forced: true,
            default: false,
            sdh: false,
            format: 'pgs',
            kind: 'image' as const,
            url: null,
          },
        ],
      };
      const markup = moviePage({
        movie: await services.movies.get(movieId),
        item,
        device: 'web',
        devices: [{ id: 'web', name: 'Chrome/Firefox' }],
        playback: new Map([[fileId, withImage]]),
      }).toString();
      assert.equal((markup.match(/<track\b/g) ?? []).length, 2, 'text tracks only');
      assert.match(
        markup,
        /<li data-subtitle-index="9">\s*French \(forced\) PGS —\s*burned in on request\s*<\/li>/,
      );
    });
  },
);
