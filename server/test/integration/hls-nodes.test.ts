// HLS across nodes on one PostgreSQL (issue 26; docs/cluster.md "HLS across nodes"): an `api` node
// serves a conversion that workers make (it never runs ffmpeg), a seek on the api node restarts the
// worker's run, and `kill -9` of the worker mid-run → the other worker goes on from the first missing
// segment within lease + 5 s while a reader (ffmpeg reading the HLS through the api node) finishes
// without an error; a late announcement of the dead run's epoch is refused.
import assert from 'node:assert/strict';
import { type ChildProcess, execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { openDatabase, type OpenedDatabase } from '../../src/db/database.ts';
import { HlsRunRepository } from '../../src/repositories/hls-run.repository.ts';
import { fixtureFfmpeg } from '../helpers/media.ts';
import { makeConvertedFilm, readRateFfmpeg, startConvertingNodes } from '../helpers/converting-nodes.ts';
import { scanOneFilm } from '../helpers/scanned-film.ts';
import type { ServerProcess } from '../helpers/server-process.ts';
import { dropTestDatabase, testDatabaseUrl, testEngine } from '../helpers/test-database.ts';
import { waitFor } from '../helpers/wait.ts';

const run = promisify(execFile);
const TOKEN = 'hls-nodes-test-token-0123456789abcdef';
/** The claim's lease (DEFAULT_LEASE_TIMINGS.leaseMs). */
const LEASE_MS = 5_000;
const SECONDS = 40;

/** The parent pids of the ffmpeg processes converting `file` now (Linux /proc). */
function ffmpegParents(file: string): number[] {
  const parents: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      if (!cmdline.includes(file) || !cmdline.includes('ffmpeg')) continue;
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parents.push(Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // ended while we looked
    }
  }
  return parents;
}

describe(
  'HLS across nodes on PostgreSQL: an api node, two workers',
  {
    skip:
      testEngine !== 'postgres' &&
      'several nodes share a PostgreSQL database (REELSHELF_TEST_DATABASE=postgres)',
    timeout: 240_000,
  },
  () => {
    let dataDir: string;
    let media: string;
    let film: string;
    let db: OpenedDatabase;
    let api: ServerProcess;
    const workers: ServerProcess[] = [];
    const started: ServerProcess[] = [];
    let watcher: NodeJS.Timeout | null = null;
    let reader: ChildProcess | null = null;
    const ffmpegOf = new Set<number>();

    before(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'reelshelf-hls-nodes-'));
      media = mkdtempSync(join(tmpdir(), 'reelshelf-hls-nodes-media-'));
      film = await makeConvertedFilm(join(media, 'Made On A Worker (2004).mkv'), SECONDS);
      const nodes = await startConvertingNodes(dataDir, {
        token: TOKEN,
        ffmpeg: readRateFfmpeg(dataDir, 1),
        workers: 2,
      });
      api = nodes.api;
      workers.push(...nodes.workers);
      started.push(api, ...workers);
      db = await openDatabase(testDatabaseUrl(dataDir), { pool: 2 });
      // Who runs ffmpeg for the film, all along.
      watcher = setInterval(() => {
        for (const parent of ffmpegParents(film)) ffmpegOf.add(parent);
      }, 100);
    });

    after(async () => {
      if (watcher !== null) clearInterval(watcher);
      if (reader !== null && reader.exitCode === null) reader.kill('SIGKILL');
      for (const s of started)
        if (s.child.exitCode !== null && s.child.signalCode !== 'SIGKILL')
          process.stderr.write(`node ${s.pid} ended ${s.child.exitCode}:\n${s.output()}\n`);
      // A node that does not stop within 20 s of SIGTERM is a bug: said, then killed.
      await Promise.all(
        started.map(async (s) => {
          const timer = setTimeout(() => {
            process.stderr.write(`node ${s.pid} did not stop on SIGTERM:\n${s.output()}\n`);
            s.child.kill('SIGKILL');
          }, 20_000);
          await s.stop();
          clearTimeout(timer);
        }),
      );
      await db?.close();
      dropTestDatabase(testDatabaseUrl(dataDir));
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(media, { recursive: true, force: true });
    });

    async function runRow() {
      return db.db.selectFrom('hls_runs').selectAll().executeTakeFirst();
    }

    it('the api node serves what a worker converts, a seek restarts the run there, a killed worker’s run goes on elsewhere', async (t) => {
      // Scanned through the api node: a worker runs the scan.
      const film = await scanOneFilm(api.url, TOKEN, media);
      assert.equal(film.prediction, 'transcode');
      assert.ok(film.hlsUrl !== null);
      const master = new URL(film.hlsUrl);
      const segment = (index: number) => {
        const url = new URL(`hls/v/${index}.m4s`, master);
        url.search = master.search;
        return fetch(url);
      };

      // The first segment, through the api node: a worker claims the run and makes it.
      const first = await segment(0);
      assert.equal(first.status, 200, await first.clone().text());
      assert.ok((await first.arrayBuffer()).byteLength > 0);
      const claimed = await runRow();
      assert.ok(claimed?.owner_node !== null && claimed !== undefined);
      assert.equal(claimed.start_index, 0);

      // A seek far ahead on the api node: the owner restarts its run there, on the same claim.
      const far = await segment(7);
      assert.equal(far.status, 200, await far.clone().text());
      await far.arrayBuffer();
      const sought = await runRow();
      assert.equal(sought?.owner_node, claimed.owner_node, 'the same worker');
      assert.equal(sought?.epoch, claimed.epoch, 'the same claim');
      assert.equal(sought?.start_index, 7, 'restarted at the segment asked for');

      // A reader of the whole film through the api node; the owner is killed while it converts.
      const reading = run(
        fixtureFfmpeg,
        ['-hide_banner', '-v', 'error', '-i', master.href, '-f', 'null', '-'],
        {
          maxBuffer: 16 * 1024 * 1024,
        },
      );
      reader = reading.child;
      const mid = await waitFor(
        async () => {
          const row = await runRow();
          return row !== undefined && row.start_index < 7 && row.next_index >= row.start_index + 2
            ? row
            : null;
        },
        () => 'the reader to have the run restarted at the start and two segments made',
        { timeoutMs: 60_000, intervalMs: 100 },
      );
      const owner = await db.db
        .selectFrom('nodes')
        .select(['pid'])
        .where('id', '=', mid.owner_node ?? '')
        .executeTakeFirstOrThrow();
      const victim = workers.find((w) => w.pid === owner.pid);
      assert.ok(victim !== undefined, 'the owner is one of the workers');
      victim.child.kill('SIGKILL');
      const killedAt = Date.now();
      await victim.exited;
      const taken = await waitFor(
        async () => {
          const row = await runRow();
          return row !== undefined && row.epoch > mid.epoch && row.owner_node !== null ? row : null;
        },
        () => 'the other worker to take the run over',
        { timeoutMs: LEASE_MS + 15_000, intervalMs: 100 },
      );
      const tookMs = Date.now() - killedAt;
      t.diagnostic(`taken over ${tookMs} ms after the kill, at segment ${taken.start_index}`);
      assert.ok(tookMs < LEASE_MS + 5_000, `taken over after ${tookMs} ms`);
      assert.notEqual(taken.owner_node, mid.owner_node);
      // It goes on from the first segment missing (in some rendition) at or after where players were.
      assert.ok(taken.start_index > mid.start_index, `went on at ${taken.start_index}, not from the start`);
      const made = await db.db
        .selectFrom('hls_segments')
        .select(['rendition', 'idx'])
        .where('presentation_key', '=', taken.presentation_key)
        .execute();
      const renditions = new Set(made.map((r) => r.rendition));
      assert.ok(renditions.size >= 2, `video and audio: ${[...renditions].join(', ')}`);
      for (let i = taken.wanted_index; i < taken.start_index; i++) {
        for (const r of renditions) {
          assert.ok(
            made.some((m) => m.rendition === r && m.idx === i),
            `${r} ${i}, before the new start, was made by the dead run`,
          );
        }
      }

      const decoded = await reading;
      assert.equal(decoded.stderr.trim(), '', 'the reader decoded the film without an error');
      const probe = await run('ffprobe', [
        '-v',
        'error',
        '-show_entries',
        'format=duration',
        '-of',
        'csv=p=0',
        master.href,
      ]);
      assert.ok(Math.abs(Number(probe.stdout.trim()) - SECONDS) < 1, `duration ${probe.stdout.trim()}`);

      // The api node never ran ffmpeg; both workers' runs are fenced by their epochs.
      assert.ok(
        !ffmpegOf.has(api.pid),
        `ffmpeg ran under ${[...ffmpegOf].join(', ')}; the api node is ${api.pid}`,
      );
      const repo = new HlsRunRepository(db.db);
      const zombie = await repo.announce(taken.presentation_key, mid.epoch, {
        rendition: 'v',
        idx: SECONDS,
        bytes: 1,
        fileName: `${SECONDS}.${mid.epoch}.m4s`,
      });
      assert.equal(zombie, false, "the dead run's epoch announces nothing");
      const epochs = await db.db
        .selectFrom('hls_segments')
        .select(['idx', 'epoch', 'file_name'])
        .where('rendition', '=', 'v')
        .execute();
      for (const s of epochs) assert.ok(s.file_name.includes(`.${s.epoch}.`), JSON.stringify(s));
    });
  },
);
