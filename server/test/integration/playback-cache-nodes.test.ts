// The playback cache on one data dir shared by two nodes on PostgreSQL (issue 26; docs/cluster.md
// "The playback cache across nodes"): the worker's cleaner, which runs after its builds, keeps what
// the api node's players read — a finished HLS presentation and a progressive file streamed now —
// though it remembers neither, and removes them once nobody reads them.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { get, type ClientRequest, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { openDatabase, type OpenedDatabase } from '../../src/db/database.ts';
import { ARTIFACT_IN_USE_MS } from '../../src/domain/playback/cache-use.ts';
import { fixtureFfmpeg } from '../helpers/media.ts';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.ts';
import { dropTestDatabase, testDatabaseUrl, testEngine } from '../helpers/test-database.ts';
import { waitFor } from '../helpers/wait.ts';

const run = promisify(execFile);
const TOKEN = 'cache-nodes-test-token-0123456789abcdef';
/** The smallest bound REELSHELF_ARTIFACT_CACHE_MB accepts: two films' files fit, three do not. */
const BOUND_MB = 16;
/** Short, so the end of the test (nobody reads any more) comes soon; the player asks every 500 ms. */
const IDLE_SECONDS = 3;

/** 4 s of noisy 640x360 H.264 + AC-3 (as playback-cache.test.ts): ~7 MB as an artifact or segments. */
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

function bytesIn(path: string): number {
  if (!existsSync(path)) return 0;
  const info = statSync(path);
  if (!info.isDirectory()) return info.size;
  return readdirSync(path).reduce((sum, name) => sum + bytesIn(join(path, name)), 0);
}

interface Film {
  fileId: number;
  streamUrl: string;
  hlsUrl: string;
}

describe(
  'the playback cache on a data dir two nodes share (PostgreSQL)',
  {
    skip:
      testEngine !== 'postgres' &&
      'several nodes share a PostgreSQL database (REELSHELF_TEST_DATABASE=postgres)',
    timeout: 240_000,
  },
  () => {
    let dataDir: string;
    let media: string;
    let db: OpenedDatabase;
    let api: ServerProcess;
    let worker: ServerProcess;
    const films = new Map<string, Film>();
    const open: ClientRequest[] = [];
    let player: NodeJS.Timeout | null = null;

    before(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'reelshelf-cache-nodes-'));
      media = mkdtempSync(join(tmpdir(), 'reelshelf-cache-nodes-media-'));
      for (const [i, name] of ['segA', 'artB', 'artC', 'artD'].entries()) {
        await makeFilm(join(media, `${name} (200${i}).mkv`), i + 1);
      }
      const env = (role: string) => ({
        REELSHELF_API_TOKEN: TOKEN,
        REELSHELF_NODE_ROLE: role,
        REELSHELF_WATCH: 'off',
        REELSHELF_ARTIFACT_CACHE_MB: String(BOUND_MB),
        REELSHELF_HLS_IDLE_SECONDS: String(IDLE_SECONDS),
      });
      api = await startServerProcess(dataDir, env('api'));
      worker = await startServerProcess(dataDir, env('worker'));
      db = await openDatabase(testDatabaseUrl(dataDir), { pool: 2 });

      const auth = { authorization: `Bearer ${TOKEN}` };
      const call = async <T>(path: string, init: RequestInit = {}): Promise<T> => {
        const res = await fetch(`${api.url}${path}`, { ...init, headers: { ...auth, ...init.headers } });
        assert.ok(res.ok, `${path}: ${res.status}`);
        return (await res.json()) as T;
      };
      const root = await call<{ id: number }>('/api/library-roots', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ path: media }),
      });
      await call(`/api/library-roots/${root.id}/scan?wait=true`, { method: 'POST' });
      const movies = await call<{ items: { id: number; title: string }[] }>('/api/movies');
      for (const m of movies.items) {
        const movie = await call<{ media_files: { id: number }[] }>(`/api/movies/${m.id}`);
        const fileId = movie.media_files[0]?.id ?? 0;
        const info = await call<{ stream_url: string; hls_url: string | null }>(
          `/api/media-file/${fileId}/playback?device=web`,
        );
        assert.ok(info.hls_url !== null, `${m.title} is converted for the web`);
        films.set(m.title, {
          fileId,
          streamUrl: new URL(info.stream_url, api.url).toString(),
          hlsUrl: new URL(info.hls_url, api.url).toString(),
        });
      }
      assert.equal(films.size, 4);
    });

    after(async () => {
      if (player !== null) clearInterval(player);
      for (const req of open) req.destroy();
      for (const s of [api, worker])
        if (s !== undefined && s.child.exitCode !== null)
          process.stderr.write(`node ${s.pid} ended ${s.child.exitCode}:\n${s.output()}\n`);
      await Promise.all([api?.stop(), worker?.stop()]);
      await db?.close();
      dropTestDatabase(testDatabaseUrl(dataDir));
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(media, { recursive: true, force: true });
    });

    const film = (name: string): Film => {
      const f = films.get(name);
      assert.ok(f, name);
      return f;
    };
    const segmentUrl = (name: string, index: number) => {
      const master = new URL(film(name).hlsUrl);
      const url = new URL(`hls/v/${index}.m4s`, master);
      url.search = master.search;
      return url.toString();
    };
    const artifactRow = (name: string) =>
      db.db
        .selectFrom('artifacts')
        .selectAll()
        .where('media_file_id', '=', film(name).fileId)
        .where('device', '=', 'web')
        .executeTakeFirst();
    /** The artifact is ready and its build's job (whose clean ran before it ended) has ended. */
    const built = async (name: string) =>
      waitFor(
        async () => {
          const row = await artifactRow(name);
          if (row?.status !== 'ready' || row.job_id === null) return false;
          const job = await db.db
            .selectFrom('jobs')
            .select('status')
            .where('id', '=', row.job_id)
            .executeTakeFirst();
          return job?.status === 'succeeded' ? row : false;
        },
        () => `the artifact of ${name} to be built and its clean done`,
        { timeoutMs: 60_000 },
      );
    /** Reads the whole progressive file through the api node (the worker builds it). */
    const streamWhole = async (name: string) => {
      const res = await fetch(film(name).streamUrl);
      assert.equal(res.status, 200);
      await res.arrayBuffer();
      return built(name);
    };
    const describeDisk = () =>
      JSON.stringify({
        artifacts: readdirSync(join(dataDir, 'artifacts')).map((n) => [
          n,
          bytesIn(join(dataDir, 'artifacts', n)),
        ]),
        segments: existsSync(join(dataDir, 'segments'))
          ? readdirSync(join(dataDir, 'segments')).map((n) => [n, bytesIn(join(dataDir, 'segments', n))])
          : [],
      });

    it("the worker's cleaner keeps what the api node's players read, and removes it once nobody does", async () => {
      // A player on the api node plays A over HLS to the end (the worker converts: copied video, in a
      // moment) and goes on reading it: a segment every 500 ms.
      const first = await fetch(segmentUrl('segA', 0));
      assert.equal(first.status, 200);
      await first.arrayBuffer();
      const presentation = await waitFor(
        async () => {
          const row = await db.db.selectFrom('hls_runs').selectAll().executeTakeFirst();
          return row !== undefined && row.owner_node === null && row.next_index > 0 ? row : false;
        },
        () => 'the worker to finish the presentation of A and give its run back',
        { timeoutMs: 60_000 },
      );
      const folder = join(dataDir, 'segments', presentation.presentation_key);
      let reads = 0;
      player = setInterval(() => {
        void fetch(segmentUrl('segA', reads++ % 2))
          .then((r) => r.arrayBuffer())
          .catch(() => undefined);
      }, 500);

      // Another player on the api node opens B's progressive file and reads it slowly: one chunk,
      // the rest left in flight for the whole test.
      const req = get(film('artB').streamUrl);
      open.push(req);
      const res = await new Promise<IncomingMessage>((resolve, reject) => {
        req.once('response', resolve);
        req.once('error', reject);
      });
      assert.equal(res.statusCode, 200);
      await new Promise((resolve) => res.once('data', resolve));
      res.pause();
      const rowB = await built('artB');
      const fileB = join(dataDir, 'artifacts', `${rowB.artifact_key}.mp4`);

      // Past every window of a single read: only the players' going on keeps A and B now.
      await new Promise((resolve) =>
        setTimeout(resolve, Math.max(ARTIFACT_IN_USE_MS, IDLE_SECONDS * 1000) + 500),
      );
      // C is built on the worker: three films' files, two fit. The worker runs nothing of A and
      // streams nothing of B, yet its clean keeps both (before: A's folder dated by its files, B's
      // row by its stream's start, both evicted).
      await streamWhole('artC');
      assert.ok(existsSync(folder), `A's presentation, read on the api node, stays: ${describeDisk()}`);
      assert.ok(existsSync(fileB), `B's file, streamed on the api node, stays: ${describeDisk()}`);

      // Both players stop; once their last uses are older than the windows, D's build makes room.
      if (player !== null) clearInterval(player);
      player = null;
      req.destroy();
      await new Promise((resolve) =>
        setTimeout(resolve, Math.max(ARTIFACT_IN_USE_MS, IDLE_SECONDS * 1000) + 1_000),
      );
      await streamWhole('artD');
      await waitFor(
        () => !existsSync(folder) || !existsSync(fileB),
        () => `the least recently used of A and B to be evicted: ${describeDisk()}`,
        { timeoutMs: 10_000 },
      );
      const total = bytesIn(join(dataDir, 'artifacts')) + bytesIn(join(dataDir, 'segments'));
      assert.ok(total <= BOUND_MB * 1024 * 1024, `within the bound: ${describeDisk()}`);
    });
  },
);
