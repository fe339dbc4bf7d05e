// Several job runners (nodes) on one real database, in one process: claims are disjoint, a dedupe key
// is one job cluster-wide, an api node claims nothing, a cancel or wait on one node reaches a job run
// by another, a lease that is not renewed is taken over, and the zombie's writes are refused (fencing).
// On SQLite and, with REELSHELF_TEST_DATABASE=postgres, on PostgreSQL (FOR UPDATE SKIP LOCKED).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { systemClock } from '../../src/adapters/clock.ts';
import type { LeaseTimings, NodeRole } from '../../src/domain/jobs/cluster-jobs.ts';
import {
  type JobContext,
  JobLeaseLostError,
  JobRunner,
  type NodeIdentity,
} from '../../src/jobs/job-runner.ts';
import { JobRepository } from '../../src/repositories/job.repository.ts';
import { openTestDatabase } from '../helpers/test-database.ts';
import { waitFor, within } from '../helpers/wait.ts';

type TestDb = Awaited<ReturnType<typeof openTestDatabase>>;

/**
 * Short timings, so take-overs come quickly; the lease is 40 heartbeats (it was 400 ms, which a
 * process on a loaded 2-core machine can go without one: a real take-over, and the job ran again).
 */
const LEASE_MS = 2_000;
const FAST: Partial<LeaseTimings> = { leaseMs: LEASE_MS, heartbeatMs: 50, pollMs: 50, nodeDeadMs: LEASE_MS };

function gate(): { open: () => void; opened: Promise<void> } {
  let open = (): void => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

describe('jobs shared by several nodes on one database', { timeout: 120_000 }, () => {
  let db: TestDb;
  const runners: JobRunner[] = [];

  before(async () => {
    db = await openTestDatabase();
  });
  after(async () => {
    for (const r of runners) await r.close();
    await db.close();
  });

  /** A node of the test: its own runner on the shared database, on a host of its own (no pid checks). */
  function node(
    id: string,
    role: NodeRole = 'all',
    timings: Partial<LeaseTimings> = FAST,
  ): {
    runner: JobRunner;
    start: () => Promise<void>;
  } {
    const runner = new JobRunner(db.db, systemClock, {
      engine: db.engine,
      feed: db.changes,
      maxAttempts: 3,
      pidAlive: () => true,
      timings,
    });
    runners.push(runner);
    const identity: NodeIdentity = { id, role, host: `host-${id}`, pid: process.pid, version: 'test' };
    return { runner, start: () => runner.start(identity) };
  }

  it('claims of two nodes racing for the same jobs are disjoint (SKIP LOCKED on PostgreSQL)', async () => {
    const repo = new JobRepository(db.db, db.engine);
    const now = new Date().toISOString();
    for (let i = 0; i < 12; i += 1) {
      await repo.insertQueued({ kind: 'race', dedupe_key: null, payload_json: '{}', created_at: now });
    }
    const claims = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        repo.claimNext(['race'], `owner-${i % 2}`, Date.now() + 5000, now),
      ),
    );
    const ids = claims.filter((c) => c !== undefined).map((c) => c.id);
    assert.equal(ids.length, 12, 'every queued job was claimed');
    assert.equal(new Set(ids).size, 12, 'no job was claimed twice');
    for (const c of claims) if (c !== undefined) assert.equal(c.epoch, 1);
  });

  it('a commit fenced by the job row lands only for the epoch that holds the job', async () => {
    const repo = new JobRepository(db.db, db.engine);
    const now = new Date().toISOString();
    await repo.insertQueued({ kind: 'commit', dedupe_key: null, payload_json: '{}', created_at: now });
    const claimed = await repo.claimNext(['commit'], 'zombie', Date.now() - 1, now);
    assert.ok(claimed !== undefined);
    const taken = await repo.takeOver(claimed, 'successor', Date.now() + 5000);
    assert.equal(taken?.epoch, claimed.epoch + 1);
    // The zombie's commit: its fence check fails inside the transaction, so its write is rolled back.
    await assert.rejects(
      db.db.transaction().execute(async (trx) => {
        await trx.insertInto('settings').values({ key: 'zombie-commit', value: '1' }).execute();
        await new JobRepository(trx, db.engine).assertHeld(claimed);
      }),
      JobLeaseLostError,
    );
    const leaked = await db.db
      .selectFrom('settings')
      .select('key')
      .where('key', '=', 'zombie-commit')
      .execute();
    assert.deepEqual(leaked, [], 'nothing of the zombie’s transaction landed');
    assert.equal(await repo.setProgress(claimed, 5, 10), false, 'its progress is refused');
    assert.equal(await repo.finish(claimed, 'succeeded', null, null, now), false, 'its end is refused');
    assert.equal(await repo.setProgress({ id: claimed.id, epoch: taken?.epoch ?? 0 }, 5, 10), true);
    await new JobRepository(db.db, db.engine).assertHeld({ id: claimed.id, epoch: taken?.epoch ?? 0 });
  });

  it('a take-over decided on a stale read is refused when the owner renewed its lease meanwhile', async () => {
    // A sweep reads the running jobs, is held up (a slow query, a busy event loop), and by its own
    // clock the lease it read has run out; the owner renewed it in between. Fenced by the epoch
    // alone (a renewal keeps the epoch) the take-over landed, and the job ran on two nodes at once.
    const repo = new JobRepository(db.db, db.engine);
    const now = new Date().toISOString();
    await repo.insertQueued({ kind: 'stale', dedupe_key: null, payload_json: '{}', created_at: now });
    const claimed = await repo.claimNext(['stale'], 'owner', Date.now() - 1, now);
    assert.ok(claimed !== undefined);
    const seen = (await repo.listRunning()).find((r) => r.id === claimed.id);
    assert.ok(seen !== undefined && (seen.lease_until ?? 0) < Date.now(), 'read with its lease run out');
    await repo.renewLeases('owner', Date.now() + 60_000);
    assert.equal(await repo.takeOver(seen, 'sweeper', Date.now() + 5000), undefined, 'refused');
    assert.equal((await repo.getById(claimed.id))?.owner_node, 'owner');
    // A lease that has really run out, read as it is, is taken.
    await repo.renewLeases('owner', Date.now() - 1);
    const expired = (await repo.listRunning()).find((r) => r.id === claimed.id);
    assert.ok(expired !== undefined);
    const taken = await repo.takeOver(expired, 'sweeper', Date.now() + 5000);
    assert.equal(taken?.owner_node, 'sweeper');
    assert.equal(taken?.epoch, claimed.epoch + 1);
  });

  it('two nodes run a queue of jobs between them, each job once', async () => {
    const a = node('disjoint-a');
    const b = node('disjoint-b');
    const ran: { job: number; node: string }[] = [];
    for (const [name, n] of [
      ['disjoint-a', a],
      ['disjoint-b', b],
    ] as const) {
      n.runner.register<{ n: number }>('work', {
        concurrency: 2,
        run: async (ctx) => {
          ran.push({ job: ctx.jobId, node: name });
          await new Promise((resolve) => setTimeout(resolve, 100));
          return { by: name };
        },
      });
    }
    await a.start();
    await b.start();
    const ids: number[] = [];
    for (let i = 0; i < 10; i += 1) ids.push((await a.runner.enqueue('work', { n: i })).id);
    const rows = await Promise.all(ids.map((id) => within(b.runner.wait(id), 30_000, () => `job ${id}`)));
    for (const row of rows) assert.equal(row?.status, 'succeeded');
    assert.deepEqual(
      ran.map((r) => r.job).sort((x, y) => x - y),
      ids,
      'each job ran exactly once',
    );
    assert.ok(
      ran.some((r) => r.node === 'disjoint-a') && ran.some((r) => r.node === 'disjoint-b'),
      JSON.stringify(ran),
    );
    await a.runner.close();
    await b.runner.close();
  });

  it('one active job per dedupe key cluster-wide: both nodes starting it join one job', async () => {
    const a = node('dedupe-a');
    const b = node('dedupe-b');
    const release = gate();
    let runs = 0;
    for (const n of [a, b]) {
      n.runner.register('keyed', {
        concurrency: 1,
        run: async () => {
          runs += 1;
          await release.opened;
        },
      });
    }
    await a.start();
    await b.start();
    const [fromA, fromB] = await Promise.all([
      a.runner.enqueue('keyed', {}, 'root:1'),
      b.runner.enqueue('keyed', {}, 'root:1'),
    ]);
    assert.equal(fromA.id, fromB.id, 'one job');
    assert.equal([fromA.created, fromB.created].filter(Boolean).length, 1, 'created once');
    await waitFor(
      () => runs === 1,
      () => 'the keyed job to start',
    );
    const again = await b.runner.enqueue('keyed', {}, 'root:1');
    assert.deepEqual(again, { id: fromA.id, created: false }, 'a running job is joined too');
    release.open();
    assert.equal((await a.runner.wait(fromA.id))?.status, 'succeeded');
    const next = await b.runner.enqueue('keyed', {}, 'root:1');
    assert.equal(next.created, true, 'an ended job frees its key');
    assert.equal((await b.runner.wait(next.id))?.status, 'succeeded');
    assert.equal(runs, 2);
    await a.runner.close();
    await b.runner.close();
  });

  it('an api node enqueues and claims nothing; a worker runs what it queued', async () => {
    const api = node('api-only', 'api');
    let ranOn: string | null = null;
    api.runner.register('chore', {
      concurrency: 1,
      run: async () => {
        ranOn = 'api';
      },
    });
    await api.start();
    const { id } = await api.runner.enqueue('chore', {});
    await new Promise((resolve) => setTimeout(resolve, 500)); // ten polls of the api node
    assert.equal((await api.runner.get(id))?.status, 'queued', 'still queued on an api node');
    assert.equal(ranOn, null);
    const worker = node('api-worker', 'worker');
    worker.runner.register('chore', {
      concurrency: 1,
      run: async () => {
        ranOn = 'worker';
      },
    });
    await worker.start();
    const row = await within(api.runner.wait(id), 10_000, () => 'the worker to run the api node’s job');
    assert.equal(row?.status, 'succeeded');
    assert.equal(ranOn, 'worker');
    const listed = (await api.runner.liveNodes()).map((n) => [n.id, n.role]);
    assert.deepEqual(
      listed.filter(([id]) => id === 'api-only' || id === 'api-worker'),
      [
        ['api-only', 'api'],
        ['api-worker', 'worker'],
      ],
    );
    await worker.runner.close();
    assert.ok(
      (await api.runner.liveNodes()).every((n) => n.id !== 'api-worker'),
      'a node that stopped is no longer listed',
    );
    await api.runner.close();
  });

  it('a cancel asked on one node stops the job another node runs; wait on either sees the end', async () => {
    const a = node('cancel-a');
    const b = node('cancel-b', 'api');
    const started = gate();
    a.runner.register('long', {
      concurrency: 1,
      run: async (ctx: JobContext<unknown>) => {
        started.open();
        await untilAborted(ctx.signal);
      },
    });
    b.runner.register('long', { concurrency: 1, run: async () => undefined });
    await a.start();
    await b.start();
    const { id } = await b.runner.enqueue('long', {});
    await within(started.opened, 10_000, () => 'node A to start the job');
    assert.equal((await b.runner.describe(id)).status, 'running');
    assert.equal(await b.runner.cancel(id), true);
    const row = await within(b.runner.wait(id), 10_000, () => 'the cancel to reach node A');
    assert.equal(row?.status, 'cancelled');
    assert.equal(await b.runner.cancel(id), false, 'an ended job is not active');
    // A queued job no node claims (only the api node knows its kind) is cancelled in place.
    b.runner.register('parked', { concurrency: 1, run: async () => undefined });
    const { id: parked } = await b.runner.enqueue('parked', {});
    assert.equal(await b.runner.cancel(parked), true);
    assert.equal((await a.runner.wait(parked))?.status, 'cancelled');
    await a.runner.close();
    await b.runner.close();
  });

  it('a lease not renewed is taken over; the zombie’s writes are refused (fencing)', async () => {
    // Node A claims and then stalls: its heartbeat never comes (as if frozen or cut off).
    const a = node('zombie-a', 'all', { ...FAST, heartbeatMs: 600_000 });
    const b = node('zombie-b');
    const aRunning = gate();
    const aResume = gate();
    const zombie: { reportError?: unknown; aborted?: boolean; epoch?: number } = {};
    const recovered: number[] = [];
    a.runner.register('fenced', {
      concurrency: 1,
      run: async (ctx: JobContext<unknown>) => {
        zombie.epoch = ctx.epoch;
        ctx.progress(1, 10);
        aRunning.open();
        await aResume.opened;
        ctx.progress(9, 10);
        try {
          await ctx.report({ by: 'A' });
        } catch (err) {
          zombie.reportError = err;
        }
        zombie.aborted = ctx.signal.aborted;
        return { by: 'A' };
      },
    });
    b.runner.register('fenced', {
      concurrency: 1,
      run: async (ctx: JobContext<unknown>) => {
        ctx.progress(10, 10);
        return { by: 'B', epoch: ctx.epoch };
      },
      recover: async (job) => {
        recovered.push(job.id);
      },
    });
    await a.start();
    const { id } = await a.runner.enqueue('fenced', {});
    await within(aRunning.opened, 10_000, () => 'node A to claim the job');
    const startedAt = Date.now();
    await b.start();
    const done = await within(b.runner.wait(id), 10_000, () => 'node B to take the job over');
    const tookMs = Date.now() - startedAt;
    assert.equal(done?.status, 'succeeded');
    assert.ok(tookMs < LEASE_MS + 5000, `taken over within lease + 5 s (${tookMs} ms)`);
    assert.deepEqual(recovered, [id], 'the kind cleaned up once before the job ran again');
    // Claim by A (1), take-over by B (2), claim by B (3).
    assert.equal(done?.epoch, 3);
    assert.equal(done?.attempts, 2);
    assert.deepEqual(JSON.parse(done?.result_json ?? 'null'), { by: 'B', epoch: 3 });
    assert.equal(zombie.epoch, 1);

    aResume.open();
    await waitFor(
      () => zombie.aborted !== undefined,
      () => 'the zombie to write',
    );
    assert.ok(zombie.reportError instanceof JobLeaseLostError, String(zombie.reportError));
    assert.equal(zombie.aborted, true, 'its signal says it lost the job');
    await a.runner.close(); // waits for its handler and its last (refused) writes
    const after = await a.runner.get(id);
    assert.equal(after?.status, 'succeeded');
    assert.deepEqual(JSON.parse(after?.result_json ?? 'null'), { by: 'B', epoch: 3 });
    assert.deepEqual(
      [after?.progress_done, after?.progress_total],
      [10, 10],
      'the zombie’s progress did not land',
    );
    await b.runner.close();
  });

  it('a node that stops cleanly gives its jobs back to the queue; another node runs them', async () => {
    const a = node('handover-a');
    const b = node('handover-b', 'worker');
    const aRunning = gate();
    a.runner.register('handover', {
      concurrency: 1,
      run: async (ctx: JobContext<unknown>) => {
        aRunning.open();
        await untilAborted(ctx.signal);
        throw new Error('stopped');
      },
    });
    b.runner.register('handover', { concurrency: 1, run: async () => ({ by: 'B' }) });
    await a.start();
    const { id } = await a.runner.enqueue('handover', {});
    await within(aRunning.opened, 10_000, () => 'node A to run the job');
    await a.runner.close();
    const given = await a.runner.get(id);
    assert.equal(given?.status, 'queued', 'given back, not failed');
    assert.equal(given?.owner_node, null);
    await b.start();
    const row = await within(b.runner.wait(id), 10_000, () => 'node B to run the given-back job');
    assert.equal(row?.status, 'succeeded');
    assert.deepEqual(JSON.parse(row?.result_json ?? 'null'), { by: 'B' });
    await b.runner.close();
  });
});
