// The progressive stream_url while its artifact is still being built (issue 13, item 2): a player
// reading from the start (or from any byte, open-ended) must get the whole film, not what ffmpeg had
// written when the request arrived. Real HTTP, a real ffmpeg build, real ffprobe on what was received.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { LibraryResponse } from '@reelshelf/contract';
import { detectMediaTools } from '../../src/adapters/media-tools.ts';
import { INDETERMINATE_LAST_POS } from '../../src/http/stream-response.ts';
import { fixtureFfprobe } from '../helpers/keyframes.ts';
import { registerFiles } from '../helpers/library-fixtures.ts';
import { fixtureFfmpeg } from '../helpers/media.ts';
import { startTestServer, type TestServer } from '../helpers/test-server.ts';
import { waitFor, within } from '../helpers/wait.ts';

const run = promisify(execFile);

/** Seconds of the source film. */
const SOURCE_SECONDS = 24;
/**
 * The build reads its input at this many times real time (`-readrate`), so it lasts at least
 * SOURCE_SECONDS / READ_RATE seconds on any machine: long enough to be still growing when the
 * requests arrive, without guessing how fast this machine encodes.
 */
const READ_RATE = 4;

/** H.264 (a keyframe every 2 s) + AC-3 in Matroska: for a browser, an adaptive build (AC-3 → AAC). */
async function makeH264Ac3Mkv(path: string, seconds: number): Promise<string> {
  await run(
    fixtureFfmpeg,
    [
      ...['-hide_banner', '-loglevel', 'error', '-y'],
      ...['-f', 'lavfi', '-i', `testsrc2=duration=${seconds}:size=320x240:rate=25`],
      ...['-f', 'lavfi', '-i', `sine=frequency=440:duration=${seconds}:sample_rate=48000`],
      ...['-map', '0:v', '-map', '1:a'],
      ...['-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-g', '50'],
      ...['-c:a', 'ac3', '-b:a', '192k', '-ac', '2', '-metadata:s:a:0', 'language=eng'],
      path,
    ],
    { timeout: 120_000 },
  );
  return path;
}

/** An ffmpeg that runs the real one with its input read at `rate`× real time. */
function slowFfmpeg(dir: string, real: string, rate: number): string {
  const path = join(dir, 'ffmpeg-readrate');
  writeFileSync(path, `#!/bin/sh\nexec '${real.replaceAll("'", "'\\''")}' -readrate ${rate} "$@"\n`);
  chmodSync(path, 0o755);
  return path;
}

async function durationOf(path: string): Promise<number> {
  const { stdout } = await run(fixtureFfprobe, [
    ...['-v', 'error', '-show_entries', 'format=duration', '-of', 'default=nw=1:nk=1'],
    path,
  ]);
  return Number(stdout.trim());
}

/** A response whose body is read in the background: the headers now, the bytes when it ends. */
interface Pending {
  res: Response;
  body: Promise<Buffer>;
}

async function open(url: string, headers: Record<string, string> = {}): Promise<Pending> {
  const res = await fetch(url, { headers });
  const reader = res.body?.getReader();
  const body = (async () => {
    const chunks: Buffer[] = [];
    for (;;) {
      const next = await reader?.read();
      if (next === undefined || next.done) return Buffer.concat(chunks);
      chunks.push(Buffer.from(next.value));
    }
  })();
  // Observed by the test that awaits it; never an unhandled rejection in the meantime.
  body.catch(() => undefined);
  return { res, body };
}

describe('the progressive stream_url while its artifact is built', () => {
  let t: TestServer;
  let media: string;
  let dataDir: string;
  let tools: string;
  let ids: Record<string, { movieId: number; fileId: number }>;

  before(async () => {
    media = mkdtempSync(join(tmpdir(), 'reelshelf-growing-media-'));
    dataDir = mkdtempSync(join(tmpdir(), 'reelshelf-growing-data-'));
    tools = mkdtempSync(join(tmpdir(), 'reelshelf-growing-tools-'));
    const film = await makeH264Ac3Mkv(join(media, 'film.mkv'), SOURCE_SECONDS);
    // Other lengths: files registered without a fingerprint share an artifact when their sizes match.
    const cancelled = await makeH264Ac3Mkv(join(media, 'cancelled.mkv'), SOURCE_SECONDS + 2);
    const client = await makeH264Ac3Mkv(join(media, 'client.mkv'), SOURCE_SECONDS + 4);
    const detected = await detectMediaTools({ ffmpeg: fixtureFfmpeg, ffprobe: fixtureFfprobe });
    assert.ok(detected.ffmpeg.available, `ffmpeg at ${fixtureFfmpeg}`);
    const ffmpeg = { ...detected.ffmpeg, path: slowFfmpeg(tools, detected.ffmpeg.path, READ_RATE) };
    t = await startTestServer({ REELSHELF_DATA_DIR: dataDir }, { tools: { ...detected, ffmpeg } });
    ids = await registerFiles(t.server.database.db, media, { film, cancelled, client });
    await t.server.services.analysis.analyzePending();
  });
  after(async () => {
    await t.close();
    for (const dir of [media, dataDir, tools]) rmSync(dir, { recursive: true, force: true });
  });

  const streamUrl = async (name: string): Promise<string> => {
    const body = (await (await t.api('/library?device=web')).json()) as LibraryResponse;
    const item = body.items.find((i) => i.movie_id === ids[name]?.movieId);
    const edition = item?.editions[item.default_edition_index];
    assert.ok(edition, `edition of ${name}`);
    assert.equal(edition.playback_prediction, 'adaptive', 'the browser gets a built artifact (AC-3 → AAC)');
    return `${t.url}${edition.stream_url}`;
  };
  const stateOf = async (name: string) =>
    (await t.server.services.artifacts.state(ids[name]?.fileId ?? 0, 'web')).status;
  const written = (): number =>
    readdirSync(join(dataDir, 'artifacts'))
      .filter((f) => f.endsWith('.part.mp4'))
      .reduce((sum, f) => sum + statSync(join(dataDir, 'artifacts', f)).size, 0);

  it('bytes=0- and bytes=a- follow the build to its end; a bounded range gets what is written', async () => {
    const url = await streamUrl('film');
    // The request itself starts the build (nothing was prepared before).
    const fromStart = await open(url, { range: 'bytes=0-' });
    assert.equal(fromStart.res.status, 200, 'bytes=0- is answered as the whole representation');
    assert.equal(fromStart.res.headers.get('content-length'), null, 'the length is not known yet');
    assert.equal(fromStart.res.headers.get('content-range'), null);
    assert.equal(fromStart.res.headers.get('accept-ranges'), 'none', 'a stream while it grows');
    assert.equal(fromStart.res.headers.get('content-type'), 'video/mp4');
    assert.equal(fromStart.res.headers.get('cache-control'), 'no-store');
    assert.equal(fromStart.res.headers.get('etag'), null);

    // Some fragments are on disk, far from all of them: take a start in the middle of those.
    const partBytes = await waitFor(
      async () => {
        assert.equal(await stateOf('film'), 'building', 'still building while the test waits');
        const size = written();
        return size >= 64 * 1024 ? size : null;
      },
      () => `64 KiB written (${written()} so far)`,
      { timeoutMs: 60_000 },
    );
    const a = Math.floor(partBytes / 2);
    const fromMiddle = await open(url, { range: `bytes=${a}-` });
    assert.equal(fromMiddle.res.status, 206);
    assert.equal(fromMiddle.res.headers.get('content-range'), `bytes ${a}-${INDETERMINATE_LAST_POS}/*`);
    assert.equal(fromMiddle.res.headers.get('content-length'), null);
    assert.equal(fromMiddle.res.headers.get('accept-ranges'), 'bytes');

    // Bounded ranges: what is written, as before.
    const inside = await open(url, { range: 'bytes=100-1123' });
    assert.equal(inside.res.status, 206);
    assert.equal(inside.res.headers.get('content-range'), 'bytes 100-1123/*');
    assert.equal(inside.res.headers.get('content-length'), '1024');
    const beyond = await open(url, { range: 'bytes=0-999999999' });
    assert.equal(beyond.res.status, 206);
    const range = /^bytes 0-(\d+)\/\*$/.exec(beyond.res.headers.get('content-range') ?? '');
    assert.ok(range, `a bounded range past the written bytes: ${beyond.res.headers.get('content-range')}`);
    const writtenThen = Number(range[1]) + 1;
    assert.equal(beyond.res.headers.get('content-length'), String(writtenThen));
    assert.equal(await stateOf('film'), 'building', 'every answer above came while the file grew');

    const deadline = 120_000;
    const whole = await within(fromStart.body, deadline, () => 'the bytes=0- body to end with the build');
    const tail = await within(fromMiddle.body, deadline, () => 'the bytes=a- body to end with the build');
    const [insideBody, beyondBody] = [await inside.body, await beyond.body];
    assert.equal(await stateOf('film'), 'ready', 'the followed bodies ended when the build did');

    // The finished artifact, as a fresh GET now serves it (exact length, validators).
    const done = await fetch(url);
    assert.equal(done.status, 200);
    assert.ok(done.headers.get('etag'), 'the finished file has validators');
    assert.equal(done.headers.get('accept-ranges'), 'bytes');
    const finished = Buffer.from(await done.arrayBuffer());
    assert.equal(done.headers.get('content-length'), String(finished.length));
    assert.ok(writtenThen < finished.length, `the bounded range got less than the film (${writtenThen})`);

    assert.equal(whole.length, finished.length, 'bytes=0- received the whole finished file');
    assert.ok(whole.equals(finished), 'bytes=0- received exactly the finished bytes');
    assert.equal(tail.length, finished.length - a);
    assert.ok(tail.equals(finished.subarray(a)), 'bytes=a- received exactly the finished bytes from a');
    assert.ok(insideBody.equals(finished.subarray(100, 1124)));
    assert.ok(beyondBody.equals(finished.subarray(0, writtenThen)));

    // What a player received from the start is the whole film.
    const received = join(dataDir, 'received.mp4');
    writeFileSync(received, whole);
    const seconds = await durationOf(received);
    assert.ok(Math.abs(seconds - SOURCE_SECONDS) <= 1, `ffprobe reads ${seconds} s of ${SOURCE_SECONDS} s`);

    // Once complete: today's exact RFC 9110 ranges on the finished file.
    const exact = await fetch(url, { headers: { range: `bytes=${a}-` } });
    assert.equal(exact.status, 206);
    assert.equal(exact.headers.get('content-range'), `bytes ${a}-${finished.length - 1}/${finished.length}`);
    assert.ok(Buffer.from(await exact.arrayBuffer()).equals(finished.subarray(a)));
  });

  it('ffmpeg as the player: its first frame comes while the build runs, and it gets every frame', async () => {
    const url = await streamUrl('client');
    const frames = (SOURCE_SECONDS + 4) * 25;
    // framecrc prints one line per video frame as it is demuxed: when the first comes, and how many.
    const player = spawn(fixtureFfmpeg, ['-v', 'error', '-i', url, '-map', '0:v', '-f', 'framecrc', '-']);
    let stderr = '';
    player.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    let firstFrameState: Promise<string> | null = null;
    let count = 0;
    let pending = '';
    player.stdout.on('data', (chunk: Buffer) => {
      const lines = (pending + chunk.toString()).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        if (!line.startsWith('0,')) continue;
        count++;
        firstFrameState ??= stateOf('client');
      }
    });
    const code = await within(
      new Promise<number | null>((resolve) => player.on('close', resolve)),
      120_000,
      () => `ffmpeg to read the stream to its end (${count} frames so far)`,
    );
    assert.equal(code, 0, `ffmpeg exit code (stderr: ${stderr})`);
    assert.ok(firstFrameState, 'ffmpeg decoded frames');
    assert.equal(
      await firstFrameState,
      'building',
      'ffmpeg played before the build ended (no scan of it first)',
    );
    assert.equal(count, frames, `every frame of the film (${count} of ${frames})`);
    assert.equal(await stateOf('client'), 'ready');
  });

  it('a build that ends without a file aborts the followed body instead of ending it cleanly', async () => {
    const url = await streamUrl('cancelled');
    const followed = await open(url, { range: 'bytes=0-' });
    assert.equal(followed.res.status, 200);
    await waitFor(
      () => written() > 0,
      () => 'the build to write its first fragment',
      { timeoutMs: 60_000 },
    );
    assert.equal(await stateOf('cancelled'), 'building');
    assert.ok(await t.server.services.artifacts.cancel(ids.cancelled?.fileId ?? 0, 'web'), 'cancelled');
    await assert.rejects(
      within(followed.body, 30_000, () => 'the followed body to settle after the cancel'),
      (err: Error) => !/gave up/.test(err.message),
      'the body errors (no final chunk): a client cannot take the first seconds for the whole film',
    );
  });
});
