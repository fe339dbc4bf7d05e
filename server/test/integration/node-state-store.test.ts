// The tables of the shared node state on the engine under test (migration 0016): the watch lease is
// held by one node at a time and passes on when it runs out or is given up; failures counted at once
// by two "nodes" (two connection pools on PostgreSQL) are all counted; a stop mark keeps the later
// expiry; and on PostgreSQL each change reaches the other node's change feed (subscribeState).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openDatabase, type OpenedDatabase } from '../../src/db/database.ts';
import type { StateMessage } from '../../src/domain/cluster/state-message.ts';
import { afterFailure } from '../../src/domain/people/failure-window.ts';
import { AuthFailureRepository } from '../../src/repositories/auth-failure.repository.ts';
import { NodeLeaseRepository } from '../../src/repositories/node-lease.repository.ts';
import { PlaybackStopRepository } from '../../src/repositories/playback-stop.repository.ts';
import { openTestDatabase, testEngine } from '../helpers/test-database.ts';

describe(`shared node state tables (${testEngine})`, () => {
  let one: OpenedDatabase & { url: string };
  /** Another node: its own pool and feed on PostgreSQL; the same handle on SQLite (one node). */
  let other: OpenedDatabase;
  const heard: StateMessage[] = [];

  before(async () => {
    one = await openTestDatabase();
    other = testEngine === 'postgres' ? await openDatabase(one.url, { pool: 4 }) : one;
    other.changes.subscribeState((message) => heard.push(message));
  });
  after(async () => {
    if (other !== one) await other.close();
    await one.close();
  });

  it('the watch lease: one holder, renewed by it, taken once it ran out, passed on when given up', async () => {
    const a = new NodeLeaseRepository(one.db);
    const b = new NodeLeaseRepository(other.db);
    assert.equal(await a.take('root-watch', 'A', 1000, 6000), true);
    assert.equal(await b.take('root-watch', 'B', 2000, 7000), false, 'held by A');
    assert.equal(await a.take('root-watch', 'A', 3000, 8000), true, 'A renews');
    assert.equal(await b.take('root-watch', 'B', 7999, 12_999), false, 'not yet run out');
    assert.equal(await b.take('root-watch', 'B', 8001, 13_001), true, 'A stopped renewing: B takes it');
    assert.equal(await a.take('root-watch', 'A', 8002, 13_002), false, 'A finds it lost the lease');
    assert.equal(await a.holder('root-watch', 9000), 'B');
    await a.release('root-watch', 'A');
    assert.equal(await a.holder('root-watch', 9000), 'B', 'only the holder gives it up');
    await b.release('root-watch', 'B');
    assert.equal(
      await a.take('root-watch', 'A', 9000, 14_000),
      true,
      'given up: the next one takes it at once',
    );
  });

  it('failures counted at once on two nodes are all counted', async () => {
    const a = new AuthFailureRepository(one.db);
    const b = new AuthFailureRepository(other.db);
    const now = 1_000_000;
    const fail = (repo: AuthFailureRepository, i: number) =>
      repo.fail('account:anna', `10.0.0.${i}`, (current) =>
        afterFailure(current, now, 60_000, `10.0.0.${i}`),
      );
    await Promise.all(Array.from({ length: 20 }, (_, i) => fail(i % 2 === 0 ? a : b, i)));
    const [row] = await a.startedAfter(now - 60_000);
    assert.equal(row?.count, 20);
    assert.equal(row?.addresses.length, 20);
    await a.expire(now + 1);
    assert.deepEqual(await a.startedAfter(0), []);
  });

  it('a stop mark keeps the later expiry and goes once it is past', async () => {
    const stops = new PlaybackStopRepository(one.db);
    await stops.put('1|session|4|7', 7200);
    await new PlaybackStopRepository(other.db).put('1|session|4|7', 3600);
    assert.deepEqual(await stops.live(0), [{ stop_key: '1|session|4|7', until_s: 7200 }]);
    await stops.expire(7200);
    assert.deepEqual(await stops.live(0), []);
  });

  it(
    'each change reaches the other node at once (PostgreSQL)',
    { skip: testEngine !== 'postgres' },
    async () => {
      heard.length = 0;
      await new PlaybackStopRepository(one.db).put('2|key|9|5', 10_800);
      await other.changes.catchUp();
      assert.deepEqual(heard, [{ topic: 'stop', data: { k: '2|key|9|5', u: 10_800 } }]);
    },
  );
});
