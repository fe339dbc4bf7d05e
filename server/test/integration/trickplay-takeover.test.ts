// A trickplay job taken over from a node presumed dead (docs/cluster.md "Fencing"), on one real
// database (SQLite, or PostgreSQL with REELSHELF_TEST_DATABASE=postgres) and one data dir, with real
// ffmpeg: node A makes a set and stalls before its last write (its heartbeat never comes); node B
// takes the job over and makes its own set, held before its last write too. A wakes: its part folder
// is its own epoch's (B's is untouched), it renames nothing and records nothing, and removes its part.
// Then B finishes: its set is the one recorded and on disk, and no part folder is left.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { systemClock } from '../../src/adapters/clock.ts';
import { DataStore } from '../../src/adapters/data-store.ts';
import { FileSystemAdapter } from '../../src/adapters/file-system.ts';
import { TrickplayFfmpeg } from '../../src/adapters/trickplay-ffmpeg.ts';
import { openDatabase, type OpenedDatabase } from '../../src/db/database.ts';
import type { LeaseTimings } from '../../src/domain/jobs/cluster-jobs.ts';
import type { JobKind } from '../../src/jobs/job-kind.ts';
import { JobRunner } from '../../src/jobs/job-runner.ts';
import { JobRepository } from '../../src/repositories/job.repository.ts';
import { MediaFileRepository } from '../../src/repositories/media-file.repository.ts';
import { TrickplayRepository } from '../../src/repositories/trickplay.repository.ts';
import { kyselyUnitOfWork } from '../../src/repositories/unit-of-work.ts';
import { MediaPathService } from '../../src/services/library/media-path.service.ts';
import { TrickplayService } from '../../src/services/trickplay/trickplay.service.ts';
import { fixtureFfmpeg } from '../helpers/media.ts';
import { dropTestDatabase, testDatabaseUrl } from '../helpers/test-database.ts';
import { jsonBody, startTestServer } from '../helpers/test-server.ts';
import { makeColourFilm } from '../helpers/trickplay-fixtures.ts';
import { within } from '../helpers/wait.ts';

/** Short leases (as cluster-jobs.test.ts): a take-over within seconds. */
const LEASE_MS = 2_000;
const FAST: Partial<LeaseTimings> = { leaseMs: LEASE_MS, heartbeatMs: 50, pollMs: 50, nodeDeadMs: LEASE_MS };

function gate(): { open: () => void; opened: Promise<void> } {
  let open = (): void => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

describe('trickplay: a job taken over from a node presumed dead', { timeout: 180_000 }, () => {
  let scratch = '';
  let dataDir = '';
  let fileId = 0;
  let db: OpenedDatabase;
  const runners: JobRunner[] = [];

  before(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'reelshelf-trickplay-takeover-'));
    dataDir = join(scratch, 'data');
    const media = join(scratch, 'media');
    mkdirSync(media);
    mkdirSync(dataDir);
    await makeColourFilm(media, 'Handed Over (2005).mp4', {
      durationSeconds: 30,
      offsetSeconds: 0,
      gopSeconds: 4,
      codec: 'h264',
    });
    // Scanned by a server (seek thumbnails off: it makes none), which then stops.
    const server = await startTestServer({ REELSHELF_DATA_DIR: dataDir });
    try {
      const root = (await (
        await server.api('/api/library-roots', jsonBody('POST', { path: media }))
      ).json()) as {
        id: number;
      };
      const scan = await server.api(`/api/library-roots/${root.id}/scan?wait=true`, { method: 'POST' });
      assert.equal(scan.status, 200);
      const file = await server.server.database.db
        .selectFrom('media_files')
        .select('id')
        .executeTakeFirstOrThrow();
      fileId = file.id;
    } finally {
      await server.close();
    }
    db = await openDatabase(testDatabaseUrl(dataDir));
  });

  after(async () => {
    for (const r of runners) await r.close();
    await db?.close();
    dropTestDatabase(testDatabaseUrl(dataDir));
    rmSync(scratch, { recursive: true, force: true });
  });

  /**
   * A node: its own job runner and trickplay service on the shared database and data dir; its last
   * write of a set (the BIF) waits for `resume`, and what it renames and removes is recorded.
   */
  function node(id: string, timings: Partial<LeaseTimings>) {
    const store = new DataStore(dataDir);
    const reached = gate();
    const resume = gate();
    const ended = gate();
    const renamed: string[] = [];
    const removed: string[] = [];
    const held = Object.create(store) as DataStore;
    held.writeAtomic = async (area, path, bytes) => {
      if (path.endsWith('/trickplay.bif')) {
        reached.open();
        await resume.opened;
      }
      return store.writeAtomic(area, path, bytes);
    };
    held.commitFolder = async (area, from, to) => {
      renamed.push(from);
      return store.commitFolder(area, from, to);
    };
    held.removeFolder = async (area, path) => {
      await store.removeFolder(area, path);
      removed.push(path);
    };
    const runner = new JobRunner(db.db, systemClock, {
      engine: db.engine,
      ...(db.changes === undefined ? {} : { feed: db.changes }),
      // Two nodes on SQLite too (as cluster-jobs.test.ts): the job goes on elsewhere after a take-over.
      maxAttempts: 3,
      pidAlive: () => true,
      timings,
    });
    runners.push(runner);
    const service = new TrickplayService({
      configured: true,
      ffmpegAvailable: true,
      mode: 'accurate',
      rows: new TrickplayRepository(db.db),
      fenced: kyselyUnitOfWork(
        db.db,
        (trx) => ({ rows: new TrickplayRepository(trx), jobs: new JobRepository(trx) }),
        { frozenAfterMs: 1_500 },
      ),
      files: new MediaFileRepository(db.db),
      keyframes: { keyframesOf: async () => null }, // accurate mode reads no keyframe index
      paths: new MediaPathService(new FileSystemAdapter(), { followSymlinks: true, dataDir }),
      store: held,
      // The handler's end, for the test (a zombie's run ends without any row saying so).
      jobs: {
        register: <P>(name: string, kind: JobKind<P>) =>
          runner.register<P>(name, {
            ...kind,
            run: async (ctx) => {
              try {
                return await kind.run(ctx);
              } finally {
                ended.open();
              }
            },
          }),
        enqueue: (kind, payload, dedupeKey) => runner.enqueue(kind, payload, dedupeKey),
      },
      ffmpeg: new TrickplayFfmpeg(fixtureFfmpeg),
      slots: { inUse: 0, queued: 0, onChange: () => () => undefined },
      clock: systemClock,
      threads: 1,
    });
    const start = () =>
      runner.start({ id, role: 'all', host: `host-${id}`, pid: process.pid, version: 'test' });
    return { runner, service, reached, resume, ended, renamed, removed, start };
  }

  it('the zombie writes only its own part, renames and records nothing; the successor’s set is the one kept', async () => {
    const folder = join(dataDir, 'trickplay', String(fileId));
    // A claims the job and stalls before its BIF; it never renews its lease.
    const a = node('zombie', { ...FAST, heartbeatMs: 600_000 });
    await a.start();
    const { jobId } = await a.service.request(fileId, 'accurate');
    await within(a.reached.opened, 60_000, () => 'node A to make its sheets');
    const partNow = () => {
      const parts = readdirSync(folder).filter((name) => name.endsWith('.part'));
      assert.equal(parts.length, 1, `one part folder: ${parts.join(', ')}`);
      return `${fileId}/${parts[0]}`;
    };
    const aPart = partNow();

    // B takes the job over once A's lease ran out (take-over: epoch 2, B's claim: epoch 3).
    const b = node('successor', FAST);
    await b.start();
    await within(b.reached.opened, 60_000, () => 'node B to take the job over and make its sheets');
    const job = await db.db.selectFrom('jobs').selectAll().where('id', '=', jobId).executeTakeFirstOrThrow();
    assert.equal(job.epoch, 3);
    assert.equal(job.attempts, 2);
    const bPart = partNow();
    assert.notEqual(bPart, aPart, 'B never builds in the part folder of the run it took over');
    assert.equal(bPart, `${fileId}/${jobId}.3.part`, 'part folders carry the job and the epoch');
    assert.ok(b.removed.includes(aPart), "B's take-over removed A's part folder");

    // A wakes: it writes its BIF into its own part, then is refused: no rename, no row, its part removed.
    a.resume.open();
    await within(a.ended.opened, 30_000, () => "node A's run to end");
    await a.runner.close(); // and its last (refused) writes; it holds nothing to give back
    assert.deepEqual(a.renamed, [], 'the zombie renamed nothing');
    assert.deepEqual(readdirSync(folder), [bPart.split('/')[1]], "only B's part is there");
    assert.ok(readdirSync(join(dataDir, 'trickplay', bPart)).includes('sheets'), "B's part is whole");
    const meanwhile = await db.db
      .selectFrom('trickplay')
      .selectAll()
      .where('media_file_id', '=', fileId)
      .executeTakeFirstOrThrow();
    assert.deepEqual(
      [meanwhile.state, meanwhile.job_id, meanwhile.generation],
      ['running', jobId, null],
      'the row is still B’s run’s',
    );

    // B finishes: its set is renamed into place and recorded.
    b.resume.open();
    const done = await within(b.runner.wait(jobId), 60_000, () => 'node B to finish the job');
    assert.equal(done?.status, 'succeeded', done?.error ?? '');
    assert.equal(done?.epoch, 3);
    assert.deepEqual(b.renamed, [bPart]);
    assert.deepEqual(readdirSync(folder), [String(jobId)], 'the set, and no part folder');
    assert.ok(existsSync(join(folder, String(jobId), 'trickplay.bif')));
    const status = await b.service.status(fileId);
    assert.equal(status.state, 'ready', JSON.stringify(status));
    assert.equal(status.state === 'ready' ? status.made.generation : 0, jobId);
  });
});
