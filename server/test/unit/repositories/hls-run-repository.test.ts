// The HLS run rows and segment announcements on the engine under test (SQLite, or PostgreSQL with
// REELSHELF_TEST_DATABASE=postgres): one claim wins, epochs fence every owner write, renewals say
// which runs a node still holds, the cache's removal takes the rows along.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KyselyPlugin } from 'kysely';
import type { OpenedDatabase } from '../../../src/db/database.ts';
import { HlsRunRepository, INIT_INDEX } from '../../../src/repositories/hls-run.repository.ts';
import { openTestDatabase } from '../../helpers/test-database.ts';
import { within } from '../../helpers/wait.ts';

const NOW = 1_700_000_000_000;
const run = (key: string) => ({ key, fileId: 1, device: 'web', burn: null, forPrewarm: false });

describe('HlsRunRepository', () => {
  let opened: OpenedDatabase;
  let repo: HlsRunRepository;
  before(async () => {
    opened = await openTestDatabase();
    repo = new HlsRunRepository(opened.db);
  });
  after(() => opened.close());

  it('of two nodes claiming at once one wins, under epoch 1; the loser gets nothing', async () => {
    const [a, b] = await Promise.all([
      repo.claim(run('k1'), 'node-a', NOW, NOW + 5_000, 3),
      repo.claim(run('k1'), 'node-b', NOW, NOW + 5_000, 3),
    ]);
    const won = [a, b].filter((r) => r !== undefined);
    assert.equal(won.length, 1);
    assert.equal(won[0]?.epoch, 1);
    assert.equal(won[0]?.start_index, 3);
    assert.equal(won[0]?.next_index, 3);
  });

  it('a claim whose lease ran out is taken over under the next epoch; the old owner is fenced out', async () => {
    const first = await repo.claim(run('k2'), 'node-z', NOW, NOW + 5_000, 0);
    assert.ok(first);
    assert.equal(
      await repo.announce('k2', 1, { rendition: 'v', idx: INIT_INDEX, bytes: 10, fileName: 'init.1.mp4' }),
      true,
    );
    assert.equal(
      await repo.announce('k2', 1, { rendition: 'v', idx: 0, bytes: 100, fileName: '0.1.m4s' }),
      true,
    );
    assert.equal(await repo.claim(run('k2'), 'node-b', NOW + 1_000, NOW + 6_000, 1), undefined, 'lease live');
    const taken = await repo.claim(run('k2'), 'node-b', NOW + 6_000, NOW + 11_000, 1);
    assert.equal(taken?.epoch, 2);
    assert.equal(taken?.owner_node, 'node-b');
    // The zombie wakes: its announcement, renewal and release are refused.
    assert.equal(
      await repo.announce('k2', 1, { rendition: 'v', idx: 1, bytes: 100, fileName: '1.1.m4s' }),
      false,
    );
    assert.deepEqual(await repo.renew('node-z', NOW + 20_000), []);
    assert.equal(await repo.release('k2', 1, null, NOW + 6_000), false);
    assert.equal(
      await repo.announce('k2', 2, { rendition: 'v', idx: 1, bytes: 100, fileName: '1.2.m4s' }),
      true,
    );
    const segments = (await repo.segments('k2')).map((s) => [s.rendition, s.idx, s.epoch, s.file_name]);
    segments.sort((x, y) => Number(x[1]) - Number(y[1]));
    assert.deepEqual(segments, [
      ['v', -1, 1, 'init.1.mp4'],
      ['v', 0, 1, '0.1.m4s'],
      ['v', 1, 2, '1.2.m4s'],
    ]);
    const row = await repo.get('k2');
    assert.equal(row?.next_index, 2, 'progress follows the announcements');
  });

  it('renewal returns the rows a node holds; a release gives the row back with its error', async () => {
    await repo.claim(run('k3'), 'node-c', NOW, NOW + 5_000, 0);
    const renewed = await repo.renew('node-c', NOW + 9_000);
    assert.deepEqual(
      renewed.map((r) => [r.presentation_key, r.lease_until]),
      [['k3', NOW + 9_000]],
    );
    assert.equal(await repo.release('k3', 1, 'ffmpeg said no', NOW + 1), true);
    const row = await repo.get('k3');
    assert.equal(row?.owner_node, null);
    assert.equal(row?.error, 'ffmpeg said no');
    assert.equal(
      await repo.announce('k3', 1, { rendition: 'v', idx: 0, bytes: 1, fileName: '0.1.m4s' }),
      false,
    );
  });

  it('an api node asks: the row is made, asked, and a worker finds it claimable until claimed', async () => {
    const asked = await repo.want(run('k4'), 5, true, NOW);
    assert.equal(asked.asked, 1);
    assert.equal(asked.wanted_index, 5);
    assert.equal(asked.wanted_seq, 1);
    const seek = await repo.want(run('k4'), 9, false, NOW + 10);
    assert.equal(seek.wanted_seq, 2);
    assert.equal(seek.wanted_index, 9);
    assert.ok((await repo.claimable(NOW + 20, NOW - 60_000)).some((r) => r.presentation_key === 'k4'));
    const claimed = await repo.claim(run('k4'), 'node-w', NOW + 20, NOW + 5_020, 9);
    assert.equal(claimed?.asked, 0);
    assert.ok(!(await repo.claimable(NOW + 30, NOW - 60_000)).some((r) => r.presentation_key === 'k4'));
    // Its owner vanishes while players still ask: claimable again once the lease ran out.
    await repo.touch('k4', NOW + 4_000);
    assert.ok((await repo.claimable(NOW + 6_000, NOW - 60_000)).some((r) => r.presentation_key === 'k4'));
    // …but not when nobody asked for the idle time.
    assert.ok(!(await repo.claimable(NOW + 6_000, NOW + 5_000)).some((r) => r.presentation_key === 'k4'));
  });

  it('forget removes the segment rows, and the run row unless a live lease holds it', async () => {
    await repo.claim(run('k5'), 'node-a', NOW, NOW + 5_000, 0);
    await repo.announce('k5', 1, { rendition: 'v', idx: 0, bytes: 1, fileName: '0.1.m4s' });
    await repo.forget('k5', NOW + 1_000);
    assert.deepEqual(await repo.segments('k5'), []);
    assert.ok(await repo.get('k5'), 'held: the row stays');
    await repo.forget('k5', NOW + 10_000);
    assert.equal(await repo.get('k5'), undefined);
  });

  it('an owner frozen inside its announcement does not hold the take-over up (PostgreSQL: its session ends)', async (t) => {
    if (opened.engine !== 'postgres') {
      t.skip('SQLite has one node: no other process waits on its lock');
      return;
    }
    // The zombie's statements pause after its fencing UPDATE, as a process stopped between the
    // transaction's statements (SIGSTOP, a paused VM) would: its row lock is held meanwhile.
    const frozen = { armed: false, reached: gate(), thaw: gate() };
    const updates = new WeakSet<object>();
    const freezer: KyselyPlugin = {
      transformQuery(args) {
        if (args.node.kind === 'UpdateQueryNode') updates.add(args.queryId);
        return args.node;
      },
      async transformResult(args) {
        if (frozen.armed && updates.has(args.queryId)) {
          frozen.armed = false;
          frozen.reached.open();
          await frozen.thaw.opened;
        }
        return args.result;
      },
    };
    const zombie = new HlsRunRepository(opened.db.withPlugin(freezer));
    const now = Date.now();
    assert.ok(await zombie.claim(run('k6'), 'node-z', now, now + 300, 0));
    frozen.armed = true;
    const announcing = zombie
      .announce('k6', 1, { rendition: 'v', idx: 0, bytes: 1, fileName: '0.1.m4s' })
      .then(
        (landed) => ({ landed, error: null }),
        (error: unknown) => ({ landed: false, error }),
      );
    try {
      await within(frozen.reached.opened, 5_000, () => "the zombie's fencing update");
      await new Promise((resolve) => setTimeout(resolve, 400)); // its lease runs out
      const startedAt = Date.now();
      const taken = await within(
        repo.claim(run('k6'), 'node-s', Date.now(), Date.now() + 5_000, 0),
        8_000,
        () => "the take-over, held behind the frozen owner's lock",
      );
      const waitedMs = Date.now() - startedAt;
      t.diagnostic(`the take-over waited ${waitedMs} ms for the frozen owner's lock`);
      assert.equal(taken?.epoch, 2, 'taken over');
      assert.ok(waitedMs < 4_500, `within the lease, not the freeze (${waitedMs} ms)`);
    } finally {
      frozen.thaw.open();
    }
    // Thawed, its announcement does not land (its session was ended: the transaction rolled back).
    const outcome = await announcing;
    assert.equal(outcome.landed, false, String(outcome.error));
    assert.deepEqual(await repo.segments('k6'), []);
    assert.equal((await repo.get('k6'))?.owner_node, 'node-s');
  });
});

function gate(): { open: () => void; opened: Promise<void> } {
  let open = (): void => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}
