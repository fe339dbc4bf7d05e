// A progressive artifact build taken over from a frozen worker, on PostgreSQL (issue 26 item 3;
// docs/cluster.md "Fencing"): SIGSTOP of the worker building it (its ffmpeg, a process of its own,
// goes on writing) → the other worker takes the build over within lease + 5 s and builds its own
// part (`<key>.<epoch>.part.mp4`); a stream that followed the lost build ends instead of hanging or
// passing off another encode's bytes as its own, and a stream asked for now follows the successor's
// part to the end. Thawed mid-build, the zombie removes only its own part, renames nothing and
// records nothing: the artifact is the successor's, whole.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openDatabase, type OpenedDatabase } from '../../src/db/database.ts';
import { conversionsOf, LEASE_MS } from '../helpers/hls-nodes-scenario.ts';
import { makeFixture } from '../helpers/media.ts';
import { readRateFfmpeg, startConvertingNodes } from '../helpers/converting-nodes.ts';
import { scanOneFilm } from '../helpers/scanned-film.ts';
import type { ServerProcess } from '../helpers/server-process.ts';
import { dropTestDatabase, testDatabaseUrl, testEngine } from '../helpers/test-database.ts';
import { waitFor, within } from '../helpers/wait.ts';

const TOKEN = 'artifact-takeover-token-0123456789abcdef';
const SECONDS = 20;

/** A whole response body, or how it failed (a stream aborted mid-body). */
async function readBody(url: string): Promise<{ status: number; bytes: Buffer; error: string | null }> {
  const res = await fetch(url);
  const chunks: Buffer[] = [];
  try {
    if (res.body === null) return { status: res.status, bytes: Buffer.alloc(0), error: null };
    const reader = res.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(Buffer.from(value));
    }
    return { status: res.status, bytes: Buffer.concat(chunks), error: null };
  } catch (err) {
    return { status: res.status, bytes: Buffer.concat(chunks), error: String(err) };
  }
}

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe(
  'a progressive build taken over from a frozen worker (PostgreSQL)',
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

    before(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'reelshelf-artifact-takeover-'));
      media = mkdtempSync(join(tmpdir(), 'reelshelf-artifact-takeover-media-'));
      // H.264 + DTS: the TV device needs the audio converted, so a progressive artifact is built.
      film = await makeFixture('h264_dts.mkv', join(media, 'Built Twice (2006).mkv'), SECONDS);
      const nodes = await startConvertingNodes(dataDir, {
        token: TOKEN,
        ffmpeg: readRateFfmpeg(dataDir, 1),
        workers: 2,
      });
      started.push(nodes.api, ...nodes.workers);
      db = await openDatabase(testDatabaseUrl(dataDir), { pool: 2 });
    });

    after(async () => {
      for (const s of started) {
        if (s.child.exitCode === null) s.child.kill('SIGCONT');
        else process.stderr.write(`node ${s.pid} ended ${s.child.exitCode}:\n${s.output()}\n`);
      }
      await Promise.all(started.map((s) => s.stop()));
      await db?.close();
      dropTestDatabase(testDatabaseUrl(dataDir));
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(media, { recursive: true, force: true });
    });

    const buildJob = () =>
      db.db.selectFrom('jobs').selectAll().where('kind', '=', 'artifact').orderBy('id').executeTakeFirst();
    const artifactFiles = () =>
      existsSync(join(dataDir, 'artifacts')) ? readdirSync(join(dataDir, 'artifacts')) : [];

    it('the successor builds in its own part, streams follow it, and the thawed zombie leaves its artifact whole', async (t) => {
      const [api, ...workers] = started;
      assert.ok(api !== undefined);
      const scanned = await scanOneFilm(api.url, TOKEN, media, 'tv');
      assert.notEqual(scanned.prediction, 'direct');
      const info = await fetch(`${api.url}/api/media-file/${scanned.fileId}/playback?device=tv`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      const { stream_url: streamPath } = (await info.json()) as { stream_url: string };
      const streamUrl = new URL(streamPath, api.url).href;

      // A player starts the build (on a worker) and follows it through the api node.
      const first = readBody(streamUrl);
      const held = await waitFor(
        async () => {
          const job = await buildJob();
          const part = artifactFiles().find((n) => n.includes('.part.'));
          return job?.status === 'running' &&
            job.owner_node !== null &&
            part !== undefined &&
            statSync(join(dataDir, 'artifacts', part)).size > 0
            ? job
            : null;
        },
        () => `the build to run on a worker: ${JSON.stringify(artifactFiles())}`,
        { timeoutMs: 60_000, intervalMs: 100 },
      );
      const owner = await db.db
        .selectFrom('nodes')
        .select('pid')
        .where('id', '=', held.owner_node ?? '')
        .executeTakeFirstOrThrow();
      const zombie = workers.find((w) => w.pid === owner.pid);
      const successor = workers.find((w) => w.pid !== owner.pid);
      assert.ok(zombie !== undefined && successor !== undefined, 'a worker builds it');
      const zombiePart = artifactFiles().find((n) => n.includes('.part.'));
      zombie.child.kill('SIGSTOP');
      const frozenAt = Date.now();

      const taken = await waitFor(
        async () => {
          const job = await buildJob();
          return job !== undefined &&
            job.epoch > held.epoch + 1 &&
            job.status === 'running' &&
            job.owner_node !== null
            ? job
            : null;
        },
        () => 'the other worker to take the build over',
        { timeoutMs: LEASE_MS + 15_000, intervalMs: 100 },
      );
      const tookMs = Date.now() - frozenAt;
      t.diagnostic(`taken over ${tookMs} ms after the freeze (epoch ${held.epoch} → ${taken.epoch})`);
      assert.ok(tookMs < LEASE_MS + 5_000, `taken over after ${tookMs} ms`);
      const successorNode = await db.db
        .selectFrom('nodes')
        .select('pid')
        .where('id', '=', taken.owner_node ?? '')
        .executeTakeFirstOrThrow();
      assert.equal(successorNode.pid, successor.pid);

      // The successor's part, never the zombie's.
      const successorPart = await waitFor(
        () => {
          const part = artifactFiles().find((n) => n.includes('.part.') && n !== zombiePart);
          return part !== undefined && statSync(join(dataDir, 'artifacts', part)).size > 0 ? part : null;
        },
        () => `the successor's part: ${JSON.stringify(artifactFiles())}`,
        { timeoutMs: 30_000, intervalMs: 100 },
      );
      t.diagnostic(`parts: the zombie's ${zombiePart}, the successor's ${successorPart}`);

      // A stream asked for now follows the successor's build to its end.
      const second = readBody(streamUrl);
      // The zombie wakes mid-build: it stops its ffmpeg, renames and records nothing.
      zombie.child.kill('SIGCONT');
      await waitFor(
        () => conversionsOf(film).every((c) => c.parent !== zombie.pid),
        () => `the thawed zombie to stop its ffmpeg: ${zombie.output()}`,
        { timeoutMs: 5_000, intervalMs: 50 },
      );
      // The stream that followed the lost build ends (at the latest with the build): never a hang.
      const lost = await within(first, 60_000, () => 'the stream of the lost build to end');
      const followed = await within(second, 60_000, () => "the stream of the successor's build to end");
      assert.equal(followed.status, 200);
      assert.equal(followed.error, null, 'the stream of the current build ends cleanly');

      const done = await waitFor(
        async () => {
          const job = await buildJob();
          return job !== undefined && job.status !== 'running' && job.status !== 'queued' ? job : null;
        },
        () => 'the build to end',
        { timeoutMs: 60_000, intervalMs: 100 },
      );
      assert.equal(done.status, 'succeeded', done.error ?? '');
      assert.equal(done.epoch, taken.epoch, 'ended by the successor');
      const row = await db.db.selectFrom('artifacts').selectAll().executeTakeFirstOrThrow();
      assert.equal(row.status, 'ready', row.error ?? '');
      assert.equal(zombie.child.exitCode, null, 'the zombie lives on');
      // Only the finished artifact is there: no part of either run.
      await waitFor(
        () => artifactFiles().every((n) => !n.includes('.part.') && !n.includes('.remux.')),
        () => `no part file left: ${JSON.stringify(artifactFiles())}`,
        { timeoutMs: 5_000, intervalMs: 100 },
      );
      const finished = readFileSync(join(dataDir, 'artifacts', `${row.artifact_key}.mp4`));
      assert.equal(finished.length, row.size_bytes);
      assert.equal(
        sha(followed.bytes),
        sha(finished),
        "the stream got the successor's artifact, byte for byte",
      );
      // The lost stream did not pass the zombie's encode off as the artifact.
      if (lost.error === null)
        assert.equal(sha(lost.bytes), sha(finished), 'a clean end is the finished artifact');
      t.diagnostic(`the lost stream: ${lost.bytes.length} bytes, ${lost.error ?? 'ended cleanly'}`);
    });
  },
);
