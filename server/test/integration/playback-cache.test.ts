import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { get, type IncomingMessage } from 'node:http';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { registerFiles } from '../helpers/library-fixtures.ts';
import { fixtureFfmpeg } from '../helpers/media.ts';
import { ARTIFACT_IN_USE_MS } from '../../src/domain/playback/cache-use.ts';
import { ArtifactRepository } from '../../src/repositories/artifact.repository.ts';
import { ADMIN, startTestServer, type TestServer } from '../helpers/test-server.ts';
import { waitFor } from '../helpers/wait.ts';

const run = promisify(execFile);

/** The smallest bound REELSHELF_ARTIFACT_CACHE_MB accepts: 16 MiB. */
const BOUND_MB = 16;
const BOUND = BOUND_MB * 1024 * 1024;

/**
 * 4 s of noisy 640x360 H.264 at ~14 Mb/s + AC-3 in MKV (`adaptive` on web: the video is copied, so
 * its artifact and its HLS segments are each about the film's size, ~7 MB): two fit the bound,
 * three do not.
 */
async function makeFilm(path: string, seed: number): Promise<string> {
  await run(fixtureFfmpeg, [
    ...['-hide_banner', '-loglevel', 'error', '-y'],
    ...[
      '-f',
      'lavfi',
      '-i',
      `testsrc2=duration=4:size=640x360:rate=25,noise=alls=60:allf=t:all_seed=${seed}`,
    ],
    ...['-f', 'lavfi', '-i', `sine=frequency=${300 + seed * 50}:duration=4:sample_rate=48000`],
    ...['-map', '0:v', '-map', '1:a', '-c:v', 'libx264', '-preset', 'ultrafast'],
    ...['-b:v', '14M', '-maxrate', '14M', '-bufsize', '7M', '-g', '25', '-c:a', 'ac3', '-ac', '2', path],
  ]);
  return path;
}

/** Bytes below a folder (0 when it is gone). */
function bytesIn(path: string): number {
  if (!existsSync(path)) return 0;
  const info = statSync(path);
  if (!info.isDirectory()) return info.size;
  return readdirSync(path).reduce((sum, name) => sum + bytesIn(join(path, name)), 0);
}

describe('the playback cache: one bound over progressive artifacts and HLS segments', () => {
  let t: TestServer;
  let dir: string;
  let ids: Record<string, { movieId: number; fileId: number }>;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'reelshelf-playback-cache-'));
    const files: Record<string, string> = {};
    for (const [i, name] of ['artB', 'segA', 'segC', 'artD'].entries()) {
      files[name] = await makeFilm(join(dir, `${name} (200${i}).mkv`), i + 1);
    }
    // A presentation a player asked for within the idle time is in use (any node's player may read
    // it): 1 s, so the test waits only that long for an entry to be evictable.
    t = await startTestServer({
      REELSHELF_ARTIFACT_CACHE_MB: String(BOUND_MB),
      REELSHELF_HLS_IDLE_SECONDS: '1',
    });
    ids = await registerFiles(t.server.database.db, dir, files);
    await t.server.services.analysis.analyzePending();
  });
  after(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const fileId = (name: string) => ids[name]?.fileId ?? 0;
  const artifactsDir = () => join(t.dataDir, 'artifacts');
  const segmentsDir = () => join(t.dataDir, 'segments');

  /** Builds the progressive artifact (as a player opening stream_url starts it) and waits for its job. */
  async function buildArtifact(name: string): Promise<string> {
    const state = await t.server.services.artifacts.start(fileId(name), 'web');
    assert.equal(state.status, 'building', `${name} builds`);
    if (state.status !== 'building') return '';
    await t.server.services.jobs.wait(state.jobId);
    return join(artifactsDir(), `${state.artifact.artifact_key}.mp4`);
  }

  /** Plays a film over HLS until its run has made every segment, and returns its presentation folder. */
  async function playHls(name: string): Promise<string> {
    const id = fileId(name);
    const before = new Set(existsSync(segmentsDir()) ? readdirSync(segmentsDir()) : []);
    const q = new URLSearchParams({ device: 'web', token: t.server.services.tokens.sign(id, 'web', ADMIN) });
    const master = await fetch(`${t.url}/stream/media_file/${id}/master.m3u8?${q}`);
    assert.equal(master.status, 200);
    await master.text();
    const res = await fetch(`${t.url}/stream/media_file/${id}/hls/v/0.m4s?${q}`);
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    // Copied video: the run goes to the film's end in a moment, then the cache is cleaned.
    await waitFor(
      () => t.server.services.hls.running() === 0,
      () => `the HLS run of ${name} to end`,
    );
    const made = readdirSync(segmentsDir()).filter((key) => !before.has(key));
    assert.equal(made.length, 1, `one presentation folder for ${name}`);
    return join(segmentsDir(), made[0] ?? '');
  }

  it('fills it with both kinds; the least recently used go, whatever their kind, until it fits', async () => {
    // Oldest first: an artifact, two HLS presentations, an artifact.
    const artB = await buildArtifact('artB');
    const segA = await playHls('segA');
    const segAPlayedAt = Date.now();
    const segC = await playHls('segC');
    // Sizes as made on disk (checked, so the test says so if another ffmpeg makes them too small or large).
    for (const [name, path] of Object.entries({ artB, segA, segC })) {
      const bytes = bytesIn(path);
      if (bytes === 0) continue; // already evicted: its size no longer matters
      assert.ok(
        bytes > BOUND / 3 && bytes < BOUND / 2,
        `${name}: ${bytes} bytes, two must fit and three not`,
      );
    }
    // Recent uses are in use (docs/cluster.md "The playback cache across nodes"): B's last use and A's
    // last request are let grow old before D is made, so only the order decides below.
    const rowB = await new ArtifactRepository(t.server.database.db).getByKey(basename(artB, '.mp4'));
    const evictableAt = Math.max(
      Date.parse(rowB?.last_used_at ?? new Date(0).toISOString()) + ARTIFACT_IN_USE_MS,
      segAPlayedAt + 1_000,
    );
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, evictableAt - Date.now()) + 100));
    const artD = await buildArtifact('artD');

    // Four items of ~7 MB under a 16 MiB bound: the two least recently used go — the artifact B
    // first (used before anything else), then the presentation A — and C and D stay.
    const describeDisk = () =>
      JSON.stringify({
        artB: bytesIn(artB),
        segA: bytesIn(segA),
        segC: bytesIn(segC),
        artD: bytesIn(artD),
        total: bytesIn(artifactsDir()) + bytesIn(segmentsDir()),
        bound: BOUND,
      });
    await waitFor(
      () => !existsSync(artB) && !existsSync(segA),
      () => `the artifact B and the segments of A to be evicted: ${describeDisk()}`,
      { timeoutMs: 10_000 },
    );
    assert.ok(existsSync(segC), `the segments of C stay: ${describeDisk()}`);
    assert.ok(existsSync(artD), `the artifact just made stays: ${describeDisk()}`);
    assert.ok(
      bytesIn(artifactsDir()) + bytesIn(segmentsDir()) <= BOUND,
      `within the bound: ${describeDisk()}`,
    );

    // What went is forgotten: B is no longer ready, A's segments are made again when played.
    assert.equal((await t.server.services.artifacts.state(fileId('artB'), 'web')).status, 'not_ready');
    assert.equal((await t.server.services.artifacts.state(fileId('artD'), 'web')).status, 'ready');
  });

  it('a progressive file being streamed is in use until its response closes (its row says so to every node)', async () => {
    const id = fileId('artD');
    const state = await t.server.services.artifacts.state(id, 'web');
    assert.equal(state.status, 'ready');
    if (state.status !== 'ready') return;
    const key = state.artifact.artifact_key;
    const readers = t.server.services.artifacts.readers;
    const q = new URLSearchParams({ device: 'web', token: t.server.services.tokens.sign(id, 'web', ADMIN) });
    // One chunk read, the rest (megabytes) left in flight: the response stays open until the player
    // hangs up (its socket destroyed, as a player that stops does).
    const req = get(`${t.url}/stream/media_file/${id}?${q}`);
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      req.once('response', resolve);
      req.once('error', reject);
    });
    assert.equal(res.statusCode, 200);
    await new Promise((resolve) => res.once('data', resolve));
    res.pause();
    assert.equal(readers.isOpen(key), true, 'open while the player reads');
    const before = Date.now();
    req.destroy();
    await waitFor(
      () => !readers.isOpen(key),
      () => 'the stream to close on the server',
    );
    // Its last use is written at the close (another node's cleaner reads that).
    await waitFor(
      async () => {
        const row = await new ArtifactRepository(t.server.database.db).getByKey(key);
        return row !== undefined && Date.parse(row.last_used_at) >= before;
      },
      () => 'the last use to be written at the close',
    );
  });
});
