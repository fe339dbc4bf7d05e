// RootWatchLeader (services/scan/root-watch-leader.ts): a node watches the roots while it holds the
// lease and stops when it finds it lost; `never` never watches, `always` (SQLite) at once without a
// lease; closing stops the watchers and gives the lease up.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RootWatchLeader } from '../../../src/services/scan/root-watch-leader.ts';
import type { RootWatchService } from '../../../src/services/scan/root-watch.service.ts';
import { waitFor } from '../../helpers/wait.ts';

/** Watch services as the leader makes them: started and closed, never restarted. */
function fakeWatches() {
  const made: { started: boolean; closed: boolean }[] = [];
  const make = () => {
    const state = { started: false, closed: false };
    made.push(state);
    const service = {
      start: async () => void (state.started = true),
      close: () => void (state.closed = true),
      rootAdded: async () => undefined,
      rootRemoved: () => undefined,
      watchState: () => ({ watching: true, pending: 0, scanning: false }),
    };
    return service as unknown as RootWatchService;
  };
  return { made, make };
}

describe('RootWatchLeader', () => {
  it('watches while it holds the lease, stops when it lost it, and starts afresh when it wins it back', async () => {
    const { made, make } = fakeWatches();
    let held = true;
    let released = 0;
    const leader = new RootWatchLeader({
      mode: 'leader',
      make,
      renewMs: 5,
      lease: { take: async () => held, release: async () => void released++ },
    });
    await leader.start();
    assert.equal(leader.watching, true);
    assert.equal(leader.watchState(1).watching, true);
    held = false;
    await waitFor(
      () => !leader.watching,
      () => 'the watch to stop once the lease is lost',
    );
    assert.deepEqual(made, [{ started: true, closed: true }]);
    assert.equal(leader.watchState(1).watching, false);
    held = true;
    await waitFor(
      () => leader.watching,
      () => 'the watch to start again',
    );
    assert.equal(made.length, 2, 'a fresh watch service (a closed one cannot start again)');
    await leader.close();
    assert.equal(leader.watching, false);
    assert.deepEqual(made[1], { started: true, closed: true });
    assert.equal(released, 1, 'the lease is given up');
  });

  it('a lease that cannot be renewed (database away) counts as lost', async () => {
    const { make } = fakeWatches();
    let failing = false;
    const leader = new RootWatchLeader({
      mode: 'leader',
      make,
      renewMs: 5,
      lease: {
        take: async () => {
          if (failing) throw new Error('connection refused');
          return true;
        },
        release: async () => undefined,
      },
    });
    await leader.start();
    assert.equal(leader.watching, true);
    failing = true;
    await waitFor(
      () => !leader.watching,
      () => 'the watch to stop',
    );
    await leader.close();
  });

  it('never: an api node does not watch; always: SQLite watches at once, with no lease', async () => {
    const never = fakeWatches();
    const apiNode = new RootWatchLeader({ mode: 'never', make: never.make, renewMs: 5 });
    await apiNode.start();
    assert.equal(apiNode.watching, false);
    assert.equal(never.made.length, 0);
    await apiNode.close();

    const always = fakeWatches();
    let asked = 0;
    const single = new RootWatchLeader({
      mode: 'always',
      make: always.make,
      renewMs: 5,
      lease: { take: async () => (asked++, false), release: async () => undefined },
    });
    await single.start();
    assert.equal(single.watching, true);
    assert.equal(asked, 0, 'no lease asked');
    await single.close();
    assert.deepEqual(always.made, [{ started: true, closed: true }]);
  });
});
