// A frozen HLS worker on PostgreSQL (issue 26 item 3; docs/cluster.md "Fencing"): SIGSTOP of the
// worker converting a film mid-run → it loses the run within lease + 5 s (its process lives: only the
// lease's end counts), the other worker goes on from the first missing segment and a reader (ffmpeg
// reading the HLS through an api node) sees at most a stall. Then SIGCONT: the zombie's ffmpeg had
// kept converting into its pipes, and the zombie writes those segments as it wakes; none of them
// replaces or is announced beside the successor's (its epoch's rows are those it had, the bytes
// served stay the successor's, no stray file of its epoch stays on disk) and it stops its ffmpeg by
// itself within a few seconds.
import assert from 'node:assert/strict';
import { type ChildProcess, execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { openDatabase, type OpenedDatabase } from '../../src/db/database.ts';
import { conversionsOf, LEASE_MS } from '../helpers/hls-nodes-scenario.ts';
import { fixtureFfmpeg } from '../helpers/media.ts';
import { makeConvertedFilm, readRateFfmpeg, startConvertingNodes } from '../helpers/converting-nodes.ts';
import { scanOneFilm } from '../helpers/scanned-film.ts';
import type { ServerProcess } from '../helpers/server-process.ts';
import { dropTestDatabase, testDatabaseUrl, testEngine } from '../helpers/test-database.ts';
import { waitFor } from '../helpers/wait.ts';

const run = promisify(execFile);
const TOKEN = 'hls-frozen-test-token-0123456789abcdef';
const SECONDS = 30;
/** How soon a thawed zombie must have stopped its ffmpeg (it learns at its first write or heartbeat). */
const ZOMBIE_STOPS_MS = 3_000;

describe(
  'a frozen HLS worker on PostgreSQL (SIGSTOP, then SIGCONT)',
  {
    skip:
      testEngine !== 'postgres' &&
      'several nodes share a PostgreSQL database (REELSHELF_TEST_DATABASE=postgres)',
    timeout: 180_000,
  },
  () => {
    let dataDir: string;
    let media: string;
    let film: string;
    let db: OpenedDatabase;
    const started: ServerProcess[] = [];
    let reader: ChildProcess | null = null;

    before(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'reelshelf-hls-frozen-'));
      media = mkdtempSync(join(tmpdir(), 'reelshelf-hls-frozen-media-'));
      film = await makeConvertedFilm(join(media, 'Frozen Worker (2004).mkv'), SECONDS);
      const nodes = await startConvertingNodes(dataDir, {
        token: TOKEN,
        ffmpeg: readRateFfmpeg(dataDir, 1),
        workers: 2,
      });
      started.push(nodes.api, ...nodes.workers);
      db = await openDatabase(testDatabaseUrl(dataDir), { pool: 2 });
    });

    after(async () => {
      if (reader !== null && reader.exitCode === null) reader.kill('SIGKILL');
      for (const s of started) {
        // A node still frozen (a failed test) hears no SIGTERM until it runs again.
        if (s.child.exitCode === null) s.child.kill('SIGCONT');
        else process.stderr.write(`node ${s.pid} ended ${s.child.exitCode}:\n${s.output()}\n`);
      }
      await Promise.all(started.map((s) => s.stop()));
      await db?.close();
      dropTestDatabase(testDatabaseUrl(dataDir));
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(media, { recursive: true, force: true });
    });

    async function runRow() {
      return db.db.selectFrom('hls_runs').selectAll().executeTakeFirstOrThrow();
    }

    async function segmentRows() {
      const rows = await db.db
        .selectFrom('hls_segments')
        .select(['rendition', 'idx', 'epoch', 'file_name', 'bytes'])
        .orderBy('rendition')
        .orderBy('idx')
        .execute();
      return rows.map((r) => `${r.rendition} ${r.idx} ${r.epoch} ${r.file_name} ${r.bytes}`);
    }

    it('the frozen worker loses its run, the other goes on, and thawed it neither writes over nor announces anything', async (t) => {
      const [api, ...workers] = started;
      assert.ok(api !== undefined);
      const info = await scanOneFilm(api.url, TOKEN, media);
      assert.equal(info.prediction, 'transcode');
      assert.ok(info.hlsUrl !== null);
      const master = new URL(info.hlsUrl);

      let readerErrors = '';
      const readerRun = run(
        fixtureFfmpeg,
        ['-hide_banner', '-v', 'error', '-i', master.href, '-f', 'null', '-'],
        {
          maxBuffer: 16 * 1024 * 1024,
        },
      );
      reader = readerRun.child;
      reader.stderr?.on('data', (d: Buffer) => (readerErrors += d.toString()));
      // Settled whatever happens (a failed assertion before the end must not leave it rejecting unheard).
      const reading = readerRun.then(
        () => ({ code: 0, errors: readerErrors }),
        (err: { code?: number }) => ({ code: err.code ?? -1, errors: readerErrors }),
      );

      // Two segments made, then the owner freezes (its ffmpeg, a process of its own, goes on into its pipes).
      const mid = await waitFor(
        async () => {
          const row = await runRow().catch(() => undefined);
          return row !== undefined && row.owner_node !== null && row.next_index >= row.start_index + 2
            ? row
            : null;
        },
        () => `the run to have made two segments (${readerErrors})`,
        { timeoutMs: 60_000, intervalMs: 100 },
      );
      const owner = await db.db
        .selectFrom('nodes')
        .select(['pid'])
        .where('id', '=', mid.owner_node ?? '')
        .executeTakeFirstOrThrow();
      const zombie = workers.find((w) => w.pid === owner.pid);
      const successor = workers.find((w) => w.pid !== owner.pid);
      assert.ok(zombie !== undefined && successor !== undefined, 'the owner is one of the workers');
      const zombieFfmpeg = conversionsOf(film).filter((c) => c.parent === zombie.pid);
      assert.equal(zombieFfmpeg.length, 1, 'the owner converts');
      zombie.child.kill('SIGSTOP');
      const frozenAt = Date.now();

      const taken = await waitFor(
        async () => {
          const row = await runRow();
          return row.epoch > mid.epoch && row.owner_node !== null ? row : null;
        },
        () => 'the other worker to take the run over',
        { timeoutMs: LEASE_MS + 15_000, intervalMs: 100 },
      );
      const tookMs = Date.now() - frozenAt;
      t.diagnostic(`taken over ${tookMs} ms after the freeze, at segment ${taken.start_index}`);
      assert.ok(tookMs < LEASE_MS + 5_000, `taken over after ${tookMs} ms`);
      assert.ok(tookMs >= LEASE_MS - 1_500, `not before the lease ran out (${tookMs} ms): its process lives`);
      const successorNode = await db.db
        .selectFrom('nodes')
        .select(['pid'])
        .where('id', '=', taken.owner_node ?? '')
        .executeTakeFirstOrThrow();
      assert.equal(successorNode.pid, successor.pid);
      // It goes on from the first segment missing (in some rendition) at or after where players were.
      assert.ok(taken.start_index > mid.start_index, `went on at ${taken.start_index}, not from the start`);
      const made = await db.db
        .selectFrom('hls_segments')
        .select(['rendition', 'idx'])
        .where('presentation_key', '=', taken.presentation_key)
        .execute();
      const renditions = new Set(made.map((r) => r.rendition));
      for (let i = taken.wanted_index; i < taken.start_index; i++)
        for (const r of renditions)
          assert.ok(
            made.some((m) => m.rendition === r && m.idx === i),
            `${r} ${i} was made by the frozen run`,
          );
      // What the frozen run had announced stays; what it announces from now on would be a fencing hole.
      const zombieRows = (await segmentRows()).filter((r) => r.split(' ')[2] === String(mid.epoch));

      // The successor announces a few segments; then the zombie wakes up.
      await waitFor(
        async () => {
          const row = await runRow();
          return row.next_index >= taken.start_index + 2;
        },
        () => 'the successor to make two segments',
        { timeoutMs: 30_000, intervalMs: 100 },
      );
      zombie.child.kill('SIGCONT');
      const thawedAt = Date.now();
      await waitFor(
        () => conversionsOf(film).every((c) => c.parent !== zombie.pid),
        () => `the thawed zombie to stop its ffmpeg: ${zombie.output()}`,
        { timeoutMs: ZOMBIE_STOPS_MS, intervalMs: 50 },
      );
      t.diagnostic(`the zombie stopped its ffmpeg ${Date.now() - thawedAt} ms after the thaw`);
      assert.equal(zombie.child.exitCode, null, `the zombie lives on: ${zombie.output()}`);
      const health = await fetch(`${zombie.url}/api/health`);
      assert.equal(health.status, 200, 'and serves');
      await health.arrayBuffer();

      const decoded = await reading;
      assert.equal(decoded.code, 0, decoded.errors);
      assert.equal(decoded.errors.trim(), '', 'the reader decoded the film without an error');

      // Nothing of the zombie's epoch was announced after the take-over; the run is the successor's.
      const rows = await segmentRows();
      assert.deepEqual(
        rows.filter((r) => r.split(' ')[2] === String(mid.epoch)),
        zombieRows,
        "the zombie's epoch announced nothing after the take-over",
      );
      const row = await runRow();
      assert.ok(row.epoch === taken.epoch, `no claim after the successor's (epoch ${row.epoch})`);
      // The successor's segments, as the api node serves them, are the successor's files.
      const folder = join(dataDir, 'segments', taken.presentation_key);
      for (const r of rows.map((s) => s.split(' ')).filter((s) => s[2] === String(taken.epoch))) {
        const [rendition, idx, , fileName] = r;
        if (rendition === undefined || fileName === undefined || idx === '-1') continue;
        const url = new URL(`hls/${rendition}/${idx}.m4s`, master);
        url.search = master.search;
        const served = Buffer.from(await (await fetch(url)).arrayBuffer());
        const onDisk = readFileSync(join(folder, rendition, fileName));
        assert.ok(served.equals(onDisk), `${rendition} ${idx}: served bytes are the successor's file`);
      }
      // The zombie's refused writes left nothing behind: every file of its epoch on disk is announced.
      const announced = new Set(rows.map((r) => r.split(' ')).map((r) => `${r[0]}/${r[3]}`));
      for (const rendition of readdirSync(folder, { withFileTypes: true })) {
        if (!rendition.isDirectory()) continue;
        for (const name of readdirSync(join(folder, rendition.name))) {
          if (!name.endsWith('.m4s') && !name.startsWith('init.')) continue;
          assert.ok(announced.has(`${rendition.name}/${name}`), `${rendition.name}/${name} is announced`);
        }
      }
      assert.ok(existsSync(folder));
    });
  },
);
