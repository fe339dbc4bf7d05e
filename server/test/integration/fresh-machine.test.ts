/**
 * A fresh machine: no ffmpeg or ffprobe on the PATH and no REELSHELF_FFMPEG/REELSHELF_FFPROBE.
 * `npm start` (the real main.ts in its own process) falls back to the static builds installed from
 * npm, analyses a scanned file with the bundled ffprobe, and says which binaries it uses.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { bundledToolPath } from '../../src/adapters/media-tools.ts';
import { buildArtifactArgs } from '../../src/domain/ffmpeg/artifact-command.ts';
import { parseFfprobe } from '../../src/domain/media/capabilities.ts';
import type { PlaybackPlan } from '../../src/domain/playback/decision-types.ts';
import { makeFixture } from '../helpers/media.ts';
import { encode, plan } from '../unit/ffmpeg/fixtures.ts';
import { testDatabaseEnv } from '../helpers/test-database.ts';

const run = promisify(execFile);

const repo = new URL('../../../', import.meta.url).pathname;
const TOKEN = 'fresh-machine-test-token-0123456789';

interface Started {
  child: ChildProcess;
  url: string;
  /** Everything the process printed so far. */
  output: () => string;
}

/** Starts `node server/src/main.ts` with `env` and waits for the "listening on" line. */
async function startMain(env: NodeJS.ProcessEnv): Promise<Started> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], {
    cwd: repo,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const append = (chunk: Buffer) => {
    out += chunk.toString('utf8');
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "listening" line within 30 s:\n${out}`)), 30_000);
    const check = () => {
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', check);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`main.ts exited (${code}) before listening:\n${out}`));
    });
  });
  return { child, url, output: () => out };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

describe('a fresh machine: no ffmpeg/ffprobe on the PATH', () => {
  let dir: string;
  let started: Started | null = null;
  const bundledProbe = bundledToolPath('ffprobe');
  const bundledFfmpeg = bundledToolPath('ffmpeg');

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'reelshelf-fresh-'));
    // Made beforehand with the system ffmpeg; the server below never sees it.
    await makeFixture('h264_aac.mp4', join(dir, 'media', 'Fresh Start (2001)', 'Fresh Start (2001).mp4'));
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    symlinkSync(process.execPath, join(bin, 'node'));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PATH: bin,
      REELSHELF_DATA_DIR: join(dir, 'data'),
      ...testDatabaseEnv(join(dir, 'data')),
      REELSHELF_HOST: '127.0.0.1',
      REELSHELF_PORT: '0',
      REELSHELF_JELLYFIN_PORT: 'off',
      REELSHELF_JELLYFIN_DISCOVERY_PORT: 'off',
      REELSHELF_DLNA_SSDP_PORT: 'off',
      REELSHELF_TRICKPLAY: 'off',
      REELSHELF_API_TOKEN: TOKEN,
      REELSHELF_LOG_LEVEL: 'warn',
    };
    delete env.REELSHELF_FFMPEG;
    delete env.REELSHELF_FFPROBE;
    started = await startMain(env);
  });

  after(async () => {
    if (started !== null) await stop(started.child);
    rmSync(dir, { recursive: true, force: true });
  });

  const api = async (path: string, init: RequestInit = {}): Promise<Response> => {
    assert.ok(started !== null);
    const headers = new Headers(init.headers);
    headers.set('authorization', `Bearer ${TOKEN}`);
    if (init.body !== undefined) headers.set('content-type', 'application/json');
    return fetch(`${started.url}${path}`, { ...init, headers });
  };

  it('the start-up lines name the bundled binaries and what the bundled ffmpeg lacks', () => {
    assert.ok(started !== null && bundledProbe !== null && bundledFfmpeg !== null);
    const out = started.output();
    assert.ok(out.includes(`ffprobe: ${bundledProbe} (the static build bundled from npm), version N-`), out);
    assert.ok(out.includes(`ffmpeg: ${bundledFfmpeg} (the static build bundled from npm)`), out);
    assert.ok(
      out.includes(
        "warning: bundled ffmpeg 4.1: no AV1 encoding (libsvtav1); install Debian's ffmpeg for it",
      ),
      out,
    );
    assert.doesNotMatch(out, /ffprobe not found|ENOENT/);
  });

  it('/api/health names the bundled ffprobe (path, version) and what the bundled ffmpeg lacks', async () => {
    const health = (await (await api('/api/health')).json()) as {
      ffprobe: { available: boolean; path: string; source: string; version: string; release: string };
      ffmpeg: { available: boolean; path: string; source: string; release: string; lacks: string[] };
      transcode_available: boolean;
      warnings: string[];
    };
    assert.equal(health.ffprobe.available, true);
    assert.equal(health.ffprobe.source, 'bundled');
    assert.equal(health.ffprobe.path, bundledProbe);
    assert.match(health.ffprobe.version, /^N-66595-g/);
    assert.equal(health.ffmpeg.source, 'bundled');
    assert.equal(health.ffmpeg.path, bundledFfmpeg);
    assert.equal(health.ffmpeg.release, '4.1');
    assert.deepEqual(health.ffmpeg.lacks, ['no AV1 encoding (libsvtav1)']);
    assert.equal(health.transcode_available, true);
    assert.ok(health.warnings.some((w) => w.startsWith('bundled ffmpeg 4.1: no AV1 encoding')));
  });

  it('a scanned file is analysed by the bundled ffprobe and plays directly', async () => {
    const created = await api('/api/library-roots', {
      method: 'POST',
      body: JSON.stringify({ path: join(dir, 'media') }),
    });
    assert.equal(created.status, 201);
    const root = (await created.json()) as { id: number };
    const scan = await api(`/api/library-roots/${root.id}/scan?wait=true`, { method: 'POST' });
    assert.equal(scan.status, 200, await scan.clone().text());
    const movies = (await (await api('/api/movies?q=Fresh')).json()) as { items: { id: number }[] };
    const movieId = movies.items[0]?.id;
    assert.ok(movieId !== undefined);
    const movie = (await (await api(`/api/movies/${movieId}`)).json()) as {
      media_files: { analysis_status: string }[];
    };
    assert.deepEqual(
      movie.media_files.map((f) => f.analysis_status),
      ['analyzed'],
    );
    const library = (await (await api('/library?device=web')).json()) as {
      items: { movie_id: number; editions: { playback_status_code: string }[] }[];
    };
    const item = library.items.find((i) => i.movie_id === movieId);
    assert.equal(item?.editions[0]?.playback_status_code, 'direct_play');
  });
});

describe('the bundled ffmpeg 4.1 makes every conversion a decision may plan for it', () => {
  let dir: string;
  let source: string;
  const ffmpeg = bundledToolPath('ffmpeg') ?? 'ffmpeg';
  const ffprobe = bundledToolPath('ffprobe') ?? 'ffprobe';
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'reelshelf-bundled-'));
    source = await makeFixture('h264_aac.mp4', join(dir, 'source.mp4'), 1);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const probe = async (file: string) => {
    const { stdout } = await run(ffprobe, [
      '-v',
      'error',
      '-show_format',
      '-show_streams',
      '-of',
      'json',
      file,
    ]);
    return parseFfprobe(JSON.parse(stdout) as unknown, statSync(file).size);
  };

  const cases: [string, PlaybackPlan, string, string][] = [
    ['remux', plan(), 'h264 320x240', 'aac'],
    [
      'AAC → E-AC-3',
      plan({ audio: { codec: 'eac3', channels: 2, bitrate: 256_000 } }),
      'h264 320x240',
      'eac3',
    ],
    ['AAC → AC-3', plan({ audio: { codec: 'ac3', channels: 2, bitrate: 256_000 } }), 'h264 320x240', 'ac3'],
    // The bounded scale is the part ffmpeg 4.1 refused while it used force_divisible_by (from 4.2).
    [
      'H.264 scaled into 200x200',
      plan({ video: encode({ maxWidth: 200, maxHeight: 200 }) }),
      'h264 200x150',
      'aac',
    ],
    [
      'HEVC 10-bit HDR10',
      plan({ video: encode({ codec: 'hevc', tag: 'hvc1', bitDepth: 10, hdr: 'hdr10' }) }),
      'hevc 320x240',
      'aac',
    ],
  ];
  cases.forEach(([name, artifactPlan, video, audio], i) => {
    it(name, async () => {
      const output = join(dir, `out-${i}.mp4`);
      const args = buildArtifactArgs({
        source,
        output,
        plan: artifactPlan,
        capabilities: await probe(source),
      });
      await run(ffmpeg, args, { timeout: 60_000 });
      const made = await probe(output);
      assert.equal(`${made.video?.codec} ${made.video?.width}x${made.video?.height}`, video);
      assert.equal(made.audio[0]?.codec, audio);
    });
  });
});
