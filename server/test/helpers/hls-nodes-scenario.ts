// Issue 26's acceptance for conversions across nodes, as one scenario that the test (a short film)
// and `npm run bench nodes` (a 10-minute one) both run: two API nodes and two workers on one
// PostgreSQL and one data dir. A film that must be converted is read by ffmpeg's HLS demuxer through
// a proxy that sends every request to the other API node than the one before; its segments are made
// on a worker (no API node ever runs ffmpeg). Once a quarter is read, the worker converting it is
// killed with SIGKILL: the other worker goes on from the first missing segment within lease + 5 s,
// and the reader sees at most a stall, never an error, and decodes the film end to end.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type AlternatingProxy, startAlternatingProxy } from './alternating-proxy.ts';
import { fixtureFfmpeg } from './media.ts';
import { scanOneFilm } from './scanned-film.ts';
import { type ServerProcess, startServerProcess } from './server-process.ts';
import { waitFor } from './wait.ts';

const run = promisify(execFile);

/** The job and run lease (docs/cluster.md): a killed node's runs are taken over within it + 5 s. */
export const LEASE_MS = 5_000;

export interface HlsNodesFigures {
  filmSeconds: number;
  segments: number;
  /** Four nodes started (the first migrates the database). */
  startMs: number;
  /** SIGKILL of the converting worker → the survivor's ffmpeg runs. */
  takeOverMs: number;
  /** The segment the survivor's run starts at, what the reader had, and the first one missing on disk. */
  resumedSegment: number;
  highestRead: number;
  firstMissing: number;
  /** The longest gap between two video segments the reader got. */
  longestStallMs: number;
  /** The reader's wall time from its start to its end. */
  readMs: number;
  /** Requests the proxy passed to each API node. */
  perNode: [number, number];
}

/** The ffmpeg processes converting `source`: pid, parent (the node that runs it) and argv. */
export function conversionsOf(source: string): { pid: number; parent: number; args: string[] }[] {
  const found: { pid: number; parent: number; args: string[] }[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const args = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      if (!args.includes(source) || !args.some((a) => a.endsWith('ffmpeg'))) continue;
      const status = readFileSync(`/proc/${name}/status`, 'utf8');
      const parent = Number(/^PPid:\s+(\d+)/m.exec(status)?.[1]);
      found.push({ pid: Number(name), parent, args });
    } catch {
      // it ended while we looked
    }
  }
  return found;
}

/** The `-ss` seconds of a conversion's argv (0 when it starts at the beginning). */
function startSecondsOf(args: string[]): number {
  const at = args.indexOf('-ss');
  return at < 0 ? 0 : Number(args[at + 1]);
}

/** Segment start times of a media playlist (film seconds from the first segment). */
function segmentStarts(playlist: string): number[] {
  const starts: number[] = [];
  let t = 0;
  for (const match of playlist.matchAll(/^#EXTINF:([\d.]+)/gm)) {
    starts.push(t);
    t += Number(match[1]);
  }
  return starts;
}

/** Segment indexes on disk per rendition folder (whatever the file naming: `<n>….m4s`). */
function segmentsOnDisk(dataDir: string): Set<number>[] {
  const root = join(dataDir, 'segments');
  const made: Set<number>[] = [];
  if (!existsSync(root)) return made;
  for (const key of readdirSync(root)) {
    for (const rendition of readdirSync(join(root, key), { withFileTypes: true })) {
      if (!rendition.isDirectory()) continue;
      const set = new Set<number>();
      for (const name of readdirSync(join(root, key, rendition.name))) {
        const match = /^(\d+)\D[^/]*m4s$/.exec(name);
        if (match !== null) set.add(Number(match[1]));
      }
      made.push(set);
    }
  }
  return made;
}

/** The lowest segment index missing from any rendition folder on disk. */
function firstMissingOnDisk(dataDir: string): number {
  const made = segmentsOnDisk(dataDir);
  let i = 0;
  while (made.length > 0 && made.every((s) => s.has(i))) i++;
  return i;
}

/** How many segments every rendition has on disk (the fewest of any). */
function madeOnDisk(dataDir: string): number {
  const made = segmentsOnDisk(dataDir);
  return made.length === 0 ? 0 : Math.min(...made.map((s) => s.size));
}

/**
 * Runs the scenario on `databaseUrl` (an empty PostgreSQL database) and returns its figures; every
 * promise of the acceptance is asserted on the way. Cleans up its processes and folders.
 */
export async function playThroughApiNodes(options: {
  filmSeconds: number;
  /** The film's picture size: big enough that its conversion takes a while (default 640x360). */
  size?: string;
  databaseUrl: string;
  onPhase?: (what: string) => void;
}): Promise<HlsNodesFigures> {
  const { filmSeconds, databaseUrl } = options;
  const phase = options.onPhase ?? (() => undefined);
  const dataDir = mkdtempSync(join(tmpdir(), 'reelshelf-hls-nodes-'));
  const media = mkdtempSync(join(tmpdir(), 'reelshelf-hls-nodes-media-'));
  const token = 'hls-nodes-scenario-token-0123456789';
  const nodes: ServerProcess[] = [];
  let proxy: AlternatingProxy | null = null;
  let sampler: NodeJS.Timeout | undefined;
  let reader: ReturnType<typeof spawn> | null = null;
  try {
    const film = join(media, 'Long Evening (2004).mkv');
    // MPEG-2 video and AC-3 audio: the web device plays neither, so every segment is converted.
    await run(fixtureFfmpeg, [
      ...['-hide_banner', '-loglevel', 'error', '-y'],
      ...['-f', 'lavfi', '-i', `testsrc2=duration=${filmSeconds}:size=${options.size ?? '640x360'}:rate=25`],
      ...['-f', 'lavfi', '-i', `sine=frequency=440:duration=${filmSeconds}:sample_rate=48000`],
      ...['-map', '0:v', '-map', '1:a', '-c:v', 'mpeg2video', '-q:v', '6', '-c:a', 'ac3', '-ac', '2', film],
    ]);
    phase('film made');
    const env = (role: string) => ({
      REELSHELF_API_TOKEN: token,
      REELSHELF_DATABASE_URL: databaseUrl,
      REELSHELF_NODE_ROLE: role,
    });
    const startedAt = Date.now();
    // The first API node migrates the database; then the other three.
    const a = await startServerProcess(dataDir, env('api'), { timeoutMs: 120_000 });
    nodes.push(a);
    const [b, w1, w2] = await Promise.all(
      ['api', 'worker', 'worker'].map((role) =>
        startServerProcess(dataDir, env(role), { timeoutMs: 120_000 }),
      ),
    );
    assert.ok(b && w1 && w2);
    nodes.push(b, w1, w2);
    const startMs = Date.now() - startedAt;
    phase('nodes up');
    // The scan is started on A and made by a worker (API nodes claim no jobs).
    const info = await scanOneFilm(a.url, token, media);
    assert.equal(info.prediction, 'transcode');
    assert.ok(info.hlsUrl !== null);
    phase('scanned');

    proxy = await startAlternatingProxy([a.url, b.url]);
    const log = proxy.log;
    // The same path and query (the token), asked of the proxy.
    const onA = new URL(info.hlsUrl);
    const master = new URL(`${onA.pathname}${onA.search}`, proxy.url);
    const videoPlaylist = new URL('hls/v/index.m3u8', master);
    videoPlaylist.search = master.search;
    const starts = segmentStarts(await (await fetch(videoPlaylist)).text());
    assert.ok(starts.length > 8, `${starts.length} segments`);

    // Who converts, sampled all along: never an API node.
    const converters = new Set<number>();
    sampler = setInterval(() => {
      for (const c of conversionsOf(film)) converters.add(c.parent);
    }, 100);

    const readStarted = Date.now();
    const started = spawn(
      fixtureFfmpeg,
      ['-hide_banner', '-v', 'error', '-i', master.toString(), '-f', 'null', '-'],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    reader = started;
    let readerErrors = '';
    started.stderr?.on('data', (d: Buffer) => (readerErrors += d.toString()));
    const readerDone = new Promise<number | null>((resolve) => started.once('exit', (code) => resolve(code)));

    // fMP4 or MPEG-TS segments, as the device's plan has them (whole, or ranges of them).
    const videoSegment = /\/hls\/v\/(\d+)\.(?:m4s|ts)\?/;
    const readVideo = () =>
      log.flatMap((r) => {
        const m = videoSegment.exec(r.path);
        return m === null || (r.status !== 200 && r.status !== 206) ? [] : [Number(m[1])];
      });
    // A quarter of the film made (and read as it came), then the worker converting it dies.
    const quarter = Math.max(2, Math.floor(starts.length / 4));
    await waitFor(
      () => conversionsOf(film).length === 1 && madeOnDisk(dataDir) >= quarter,
      () =>
        `a quarter (${quarter}) of the segments made (made ${madeOnDisk(dataDir)}, read ${readVideo().length}; ${readerErrors}); ` +
        `requests: ${JSON.stringify(log.slice(-4))}; converting: ${JSON.stringify(conversionsOf(film).map((c) => c.parent))}`,
      { timeoutMs: 240_000, intervalMs: 50 },
    );
    phase(`a quarter made (${readVideo().length} read)`);
    const running = conversionsOf(film);
    assert.equal(running.length, 1, `one conversion runs: ${JSON.stringify(running)}`);
    const victim = [w1, w2].find((w) => w.pid === running[0]?.parent);
    const survivor = [w1, w2].find((w) => w !== victim);
    assert.ok(victim && survivor, `the conversion runs on a worker (parent ${running[0]?.parent})`);
    const highestRead = Math.max(...readVideo());
    victim.child.kill('SIGKILL');
    const killedAt = Date.now();
    await victim.exited;
    await waitFor(
      () => conversionsOf(film).every((c) => c.parent !== victim.pid),
      () => 'the dead worker’s ffmpeg to end with it',
      { timeoutMs: 10_000 },
    );
    const firstMissing = firstMissingOnDisk(dataDir);
    phase('worker killed');

    const takeOver = await waitFor(
      () => conversionsOf(film).find((c) => c.parent === survivor.pid),
      () => 'the surviving worker to take the conversion over',
      { timeoutMs: LEASE_MS + 30_000, intervalMs: 50 },
    );
    const takeOverMs = Date.now() - killedAt;
    const resumedAt = startSecondsOf(takeOver.args);
    const resumedSegment = starts.findIndex((s) => Math.abs(s - resumedAt) < 0.05);
    phase(
      `taken over after ${takeOverMs} ms at segment ${resumedSegment} (read ${highestRead}, missing ${firstMissing})`,
    );
    assert.ok(takeOverMs <= LEASE_MS + 5_000, `taken over within lease + 5 s (${takeOverMs} ms)`);
    assert.ok(
      resumedSegment > highestRead,
      `what the reader had is not made again (${resumedSegment} > ${highestRead})`,
    );
    // At most one segment written but not yet announced when the worker died is made again.
    assert.ok(
      resumedSegment >= firstMissing - 1 && resumedSegment <= firstMissing,
      `resumed at the first missing segment (${resumedSegment}; made on disk up to ${firstMissing})`,
    );

    const code = await readerDone;
    const readMs = Date.now() - readStarted;
    clearInterval(sampler);
    phase('read to the end');
    assert.equal(code, 0, readerErrors);
    assert.equal(readerErrors.trim(), '', 'the reader saw no error');
    assert.deepEqual(
      log.filter((r) => r.status >= 400),
      [],
      'no request failed',
    );
    assert.deepEqual(
      [...new Set(readVideo())].sort((x, y) => x - y),
      starts.map((_, i) => i),
      'every segment was read',
    );
    const perNode: [number, number] = [
      log.filter((r) => r.upstream === 0).length,
      log.filter((r) => r.upstream === 1).length,
    ];
    assert.ok(perNode[0] > 0 && perNode[1] > 0, 'both API nodes answered');
    assert.ok(!converters.has(a.pid) && !converters.has(b.pid), 'no API node ran ffmpeg');
    const times = log.filter((r) => videoSegment.test(r.path)).map((r) => r.doneAt);
    let longestStallMs = 0;
    for (let i = 1; i < times.length; i++) {
      longestStallMs = Math.max(longestStallMs, (times[i] ?? 0) - (times[i - 1] ?? 0));
    }
    const probe = await run('ffprobe', [
      ...['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0'],
      master.toString(),
    ]);
    assert.ok(Math.abs(Number(probe.stdout.trim()) - filmSeconds) < 1, `duration ${probe.stdout.trim()}`);
    return {
      filmSeconds,
      segments: starts.length,
      startMs,
      takeOverMs,
      resumedSegment,
      highestRead,
      firstMissing,
      longestStallMs,
      readMs,
      perNode,
    };
  } finally {
    clearInterval(sampler);
    if (reader !== null && reader.exitCode === null) reader.kill('SIGKILL');
    await proxy?.close();
    for (const node of nodes) if (node.child.exitCode === null) node.child.kill('SIGKILL');
    await Promise.all(nodes.map((n) => n.exited));
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(media, { recursive: true, force: true });
  }
}
