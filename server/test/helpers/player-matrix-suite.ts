// The player matrix (issue 21), shared by its three test files (one presentation each, so each
// file stays well inside the per-file time limit and the files can run beside others): FFmpeg's demuxer (`ffmpeg -ss`), mpv and VLC open the server's HLS
// and play from 0, seek to 10 %, 50 %, 90 % and back, and across a join where the segments of two
// conversion runs meet; each must decode what it asked for with no decoder error and no corrupt
// packet, audio and video starting within 100 ms of each other. For an adaptive film (H.264 copied,
// cut at its keyframes) and a transcoded one (MPEG-2), each with two audio tracks and a text
// subtitle rendition; then the prewarmed TV presentation and the progressive file remuxed from it.
// The players are required (npm test installs them): a missing one fails, never skips. They run
// one after another (wall time: players mostly wait on real time, the machine has 2 cores).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { checkMediaPlaylist } from './hls-check.ts';
import { registerFiles } from './library-fixtures.ts';
import { fixtureFfmpeg } from './media.ts';
import {
  ffmpegPoint,
  matrixProblems,
  matrixTargets,
  type PlayerName,
  playMatrix,
  requirePlayers,
  type SeekPoint,
} from './player-matrix.ts';
import { ADMIN, startTestServer, type TestServer } from './test-server.ts';
import { waitFor } from './wait.ts';

const run = promisify(execFile);
const SECONDS = 20;
/** Seconds each player plays at each point. */
const PLAY_SECONDS = 1;
const SRT = `1
00:00:01,000 --> 00:00:03,000
Hello.

2
00:00:09,000 --> 00:00:11,000
Across a boundary.
`;

/** Two audio tracks (AC-3 English, AAC French at another rate) and an English SubRip track. */
async function makeFilm(path: string, video: string[], srt: string): Promise<string> {
  await run(fixtureFfmpeg, [
    ...['-hide_banner', '-loglevel', 'error', '-y'],
    ...['-f', 'lavfi', '-i', `testsrc2=duration=${SECONDS}:size=320x240:rate=25`],
    ...['-f', 'lavfi', '-i', `sine=frequency=440:duration=${SECONDS}:sample_rate=48000`],
    ...['-f', 'lavfi', '-i', `sine=frequency=660:duration=${SECONDS}:sample_rate=44100`],
    ...['-i', srt],
    ...['-map', '0:v', '-map', '1:a', '-map', '2:a', '-map', '3:s'],
    ...video,
    ...['-c:a:0', 'ac3', '-ac:a:0', '2', '-c:a:1', 'aac', '-ac:a:1', '2', '-c:s', 'srt'],
    ...['-metadata:s:a:0', 'language=eng', '-metadata:s:a:1', 'language=fre'],
    ...['-metadata:s:s:0', 'language=eng'],
    path,
  ]);
  return path;
}

const FILMS = {
  // H.264 with B-frames and irregular keyframes: copied and cut at its keyframes on web.
  adaptive: [
    ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-bf', '2'],
    ...['-force_key_frames', '0,1.5,4,4.6,8,9.2,12,13,15.4,16'],
  ],
  // MPEG-2: encoded to H.264 on web.
  transcode: ['-c:v', 'mpeg2video', '-q:v', '5', '-bf', '2'],
} as const;
export type Film = keyof typeof FILMS;
/** What one test file of the matrix plays: one film's web presentation, or the prewarmed TV one. */
export type MatrixPart = Film | 'prewarm';

const PLAYERS: PlayerName[] = ['ffmpeg', 'mpv', 'vlc'];

function report(player: PlayerName, points: SeekPoint[]): string {
  return points
    .map(
      (p) =>
        `${player} @${p.target}s: first frame ${p.firstFrameMs} ms, video ${p.video?.toFixed(3)}, ` +
        `audio ${p.audio?.toFixed(3)}, ${p.decodedSeconds.toFixed(1)} s${p.errors.length > 0 ? `, errors: ${p.errors.slice(0, 2).join(' | ')}` : ''}`,
    )
    .join('\n');
}

/** Every player of the matrix on one URL, one after another. */
async function matrix(url: string, duration: number, extra: number[]): Promise<string[]> {
  const problems: string[] = [];
  for (const player of PLAYERS) {
    const started = Date.now();
    // VLC plays from the start of the segment it seeks into, in real time (~4 s a point): its
    // demuxer crosses every join in the dump of the start point (demuxed at local speed to the end).
    const points = await playMatrix(player, url, duration, PLAY_SECONDS, player === 'vlc' ? [] : extra);
    console.log(`${report(player, points)}\n${player}: ${Date.now() - started} ms in all`);
    problems.push(...matrixProblems(player, points, PLAY_SECONDS * 0.9));
  }
  return problems;
}

/** Registers the matrix's suite for one presentation (a test file each). */
export function playerMatrixSuite(part: MatrixPart): void {
  describe(`the player matrix (${part}): ffmpeg, mpv and VLC play and seek it`, () => {
    let t: TestServer;
    let media: string;
    let ids: Record<string, { movieId: number; fileId: number }>;

    before(async () => {
      requirePlayers();
      media = mkdtempSync(join(tmpdir(), 'reelshelf-matrix-'));
      const srt = join(media, 'en.srt');
      writeFileSync(srt, SRT);
      const files: Record<string, string> = {};
      // The prewarmed presentation is the transcoded film's.
      const name: Film = part === 'prewarm' ? 'transcode' : part;
      files[name] = await makeFilm(join(media, `${name}.mkv`), [...FILMS[name]], srt);
      t = await startTestServer({ REELSHELF_HLS_IDLE_SECONDS: '120' });
      ids = await registerFiles(t.server.database.db, media, files);
      await t.server.services.analysis.analyzePending();
    });
    after(async () => {
      await t?.close();
      if (media !== undefined) rmSync(media, { recursive: true, force: true });
    });

    const fileId = (film: Film) => ids[film]?.fileId ?? 0;
    const hlsBase = (film: Film) => `${t.url}/stream/media_file/${fileId(film)}`;
    const query = (film: Film, device: string) =>
      new URLSearchParams({
        device,
        token: t.server.services.tokens.sign(fileId(film), device, ADMIN),
      }).toString();

    /**
     * Makes the segments of three runs: the last segment first (run A), then the middle on (run B,
     * which runs to the end and keeps A's last segment), then the start (run C, which keeps B's):
     * joins of two runs between the middle's neighbours and before the last segment.
     */
    async function crossRunJoins(film: Film, device: string): Promise<number[]> {
      const q = query(film, device);
      const base = hlsBase(film);
      const segments = checkMediaPlaylist(
        await (await fetch(`${base}/hls/v/index.m3u8?${q}`)).text(),
      ).segments;
      const renditions = ['v', 'a0', 'a1'];
      const hls = t.server.services.hls;
      const get = async (index: number) => {
        for (const rendition of renditions) {
          const res = await fetch(`${base}/hls/${rendition}/${index}.ts?${q}`);
          assert.equal(res.status, 200, `${film} ${rendition}/${index}.ts`);
          await res.arrayBuffer();
        }
      };
      const runs = hls.counts.runsStarted;
      const last = segments.length - 1;
      const middle = Math.floor(segments.length / 2);
      await get(last);
      await waitFor(
        () => hls.running() === 0 || null,
        () => 'run A to end',
        { timeoutMs: 60_000 },
      );
      await get(middle);
      await get(last - 1);
      await waitFor(
        () => hls.running() === 0 || null,
        () => 'run B to end',
        { timeoutMs: 60_000 },
      );
      await get(0);
      assert.equal(hls.counts.runsStarted, runs + 3, 'three runs made the segments');
      const startOf = (index: number) => segments.slice(0, index).reduce((sum, s) => sum + s.duration, 0);
      return [startOf(middle), startOf(last)];
    }

    for (const film of part === 'prewarm' ? [] : [part]) {
      it(`${film}: every player plays from 0, seeks to 10/50/90 % and back, and across the joins of two runs`, async () => {
        const url = `${hlsBase(film)}/master.m3u8?${query(film, 'web')}`;
        const joins = await crossRunJoins(film, 'web');
        // Issue 21: FFmpeg's HLS demuxer (<= 7.0) cannot seek in any fMP4 HLS; every web presentation
        // is MPEG-TS. The issue's own check: -ss on the video playlist alone decodes what it asked for.
        const video = `${hlsBase(film)}/hls/v/index.m3u8?${query(film, 'web')}`;
        const playlist = await (await fetch(video)).text();
        assert.doesNotMatch(playlist, /EXT-X-MAP/, `${film}: TS segments carry their own tables`);
        assert.match(playlist, /^0\.ts\?/m, `${film}: TS segment URIs`);
        const { stdout, stderr } = await run(fixtureFfmpeg, [
          ...['-hide_banner', '-v', 'error', '-ss', '10', '-i', video, '-t', '2'],
          ...['-map', '0:v:0', '-f', 'framecrc', '-'],
        ]);
        assert.equal(stderr.trim(), '', `${film}: ffmpeg -ss 10 on the video playlist`);
        const frames = stdout.split('\n').filter((line) => /^0,/.test(line)).length;
        assert.ok(frames >= 45, `${film}: ffmpeg -ss 10 decoded ${frames} frames of 2 s at 25 fps`);
        // The whole film from 0 through every join: no corrupt packet, no timestamp going back.
        const whole = await ffmpegPoint(url, 0, SECONDS + 1);
        assert.deepEqual(whole.errors, [], `${film}: ffmpeg across the joins`);
        assert.ok(whole.decodedSeconds > SECONDS - 0.5, `${film}: ${whole.decodedSeconds} s decoded`);
        // The matrix, plus a start 1 s before each join played across it.
        const problems = await matrix(
          url,
          SECONDS,
          joins.map((join) => join - 1),
        );
        assert.deepEqual(problems, [], problems.join('\n'));
      });
    }

    if (part === 'prewarm')
      it('the prewarmed TV presentation and the progressive file remuxed from it: the same matrix', async () => {
        const film: Film = 'transcode';
        const id = fileId(film);
        const started = await t.api(`/api/media-file/${id}/prewarm-tv`, { method: 'POST' });
        assert.ok([200, 202].includes(started.status), `prewarm answered ${started.status}`);
        await waitFor(
          async () => {
            const state = (await (await t.api(`/api/media-file/${id}/prewarm-tv`)).json()) as {
              status: string;
            };
            return state.status === 'ready' ? state : null;
          },
          () => 'the prewarm to be ready',
          { timeoutMs: 120_000, intervalMs: 100 },
        );
        const q = query(film, 'tv');
        const runs = t.server.services.hls.counts.runsStarted;
        const problems = [
          ...(await matrix(`${hlsBase(film)}/master.m3u8?${q}`, SECONDS, [])),
          ...(await matrix(`${t.url}/stream/media_file/${id}?${q}`, SECONDS, [])),
        ];
        assert.deepEqual(problems, [], problems.join('\n'));
        assert.equal(
          t.server.services.hls.counts.runsStarted,
          runs,
          'a prewarmed film plays with no conversion',
        );
      });

    it('the matrix positions: the start, 10 %, 50 %, 90 % and the start again', () => {
      assert.deepEqual(matrixTargets(SECONDS), [0, 2, 10, 18, 0]);
    });
  });
}
