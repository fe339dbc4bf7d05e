// The jobs channel announces what changed a job, and nothing else (PostgreSQL: migration 0014). Its
// statement trigger announced every UPDATE naming `status`, rows or none, so an idle node's empty
// claim woke every runner, this one too, and each claimed again: ~90 empty claims a second per node
// for ever. On SQLite the channel is silent (subscribeJobs never calls), and these hold trivially.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { systemClock } from '../../src/adapters/clock.ts';
import { JobRunner } from '../../src/jobs/job-runner.ts';
import { JobRepository } from '../../src/repositories/job.repository.ts';
import { openTestDatabase } from '../helpers/test-database.ts';

type TestDb = Awaited<ReturnType<typeof openTestDatabase>>;

describe('the jobs channel', { timeout: 60_000 }, () => {
  let db: TestDb;
  let heard = 0;

  before(async () => {
    db = await openTestDatabase();
    db.changes.subscribeJobs(() => {
      heard += 1;
    });
  });
  after(async () => {
    await db.close();
  });

  /** Notifications heard because of the writes `write` commits (catchUp: every earlier one is in). */
  async function heardFrom(write: () => Promise<unknown>): Promise<number> {
    await db.changes.catchUp();
    const before = heard;
    await write();
    await db.changes.catchUp();
    return heard - before;
  }

  it('is silent for a claim that takes nothing, and speaks for one that takes a job', async () => {
    const repo = new JobRepository(db.db, db.engine);
    const now = new Date().toISOString();
    assert.equal(await heardFrom(() => repo.claimNext(['nothing-queued'], 'n1', Date.now() + 5000, now)), 0);
    if (db.engine !== 'postgres') return;
    assert.equal(
      await heardFrom(() =>
        repo.insertQueued({ kind: 'notify', dedupe_key: null, payload_json: '{}', created_at: now }),
      ),
      1,
    );
    assert.equal(await heardFrom(() => repo.claimNext(['notify'], 'n1', Date.now() + 5000, now)), 1);
  });

  it('an idle runner does not wake itself: it claims at its poll, not in a loop', async () => {
    const runner = new JobRunner(db.db, systemClock, {
      engine: db.engine,
      feed: db.changes,
      maxAttempts: 3,
      pidAlive: () => true,
      timings: { pollMs: 200 },
    });
    runner.register('idle', { concurrency: 1, run: async () => undefined });
    try {
      await runner.start({
        id: 'idle-node',
        role: 'all',
        host: 'idle-host',
        pid: process.pid,
        version: 'test',
      });
      await db.changes.catchUp();
      const before = heard;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      await db.changes.catchUp();
      // Each of its ~5 polls in that second finds nothing: none of them is announced.
      assert.equal(heard - before, 0);
    } finally {
      await runner.close();
    }
  });
});
