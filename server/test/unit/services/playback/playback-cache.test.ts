import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CacheEntry } from '../../../../src/domain/playback/cache-eviction.ts';
import { ArtifactReaders } from '../../../../src/services/playback/artifact-readers.ts';
import { PlaybackCache } from '../../../../src/services/playback/playback-cache.ts';

/** One kind of cached files in memory: sizes on "disk", last uses, what is in use. */
function kind(
  name: CacheEntry['kind'],
  disk: Map<string, number>,
  entries: Omit<CacheEntry, 'kind' | 'bytes'>[],
) {
  for (const e of entries) disk.set(`${name}:${e.key}`, 10);
  const removed: string[] = [];
  return {
    removed,
    source: {
      entries: async () =>
        entries
          .filter((e) => disk.has(`${name}:${e.key}`))
          .map((e) => ({ ...e, kind: name, bytes: disk.get(`${name}:${e.key}`) ?? 0 })),
      evict: async (key: string) => {
        disk.delete(`${name}:${key}`);
        removed.push(key);
      },
    },
  };
}

describe('PlaybackCache: one bound, one cleaner', () => {
  it('measures both kinds together and removes the least recently used first, never one in use', async () => {
    const disk = new Map<string, number>();
    const usage = async () => [...disk.values()].reduce((a, b) => a + b, 0);
    const cache = new PlaybackCache({ usage, boundBytes: 30 });
    const artifacts = kind('artifact', disk, [
      { key: 'a-old', lastUsedMs: 1, inUse: false },
      { key: 'a-new', lastUsedMs: 50, inUse: false },
    ]);
    const segments = kind('segments', disk, [
      { key: 's-running', lastUsedMs: 0, inUse: true },
      { key: 's-mid', lastUsedMs: 20, inUse: false },
      { key: 's-new', lastUsedMs: 60, inUse: false },
    ]);
    cache.register('artifact', artifacts.source);
    cache.register('segments', segments.source);
    await cache.clean();
    assert.deepEqual(artifacts.removed, ['a-old']);
    assert.deepEqual(segments.removed, ['s-mid']);
    assert.equal(await usage(), 30);
  });

  it('asks made while a clean runs share one more clean after it', async () => {
    let measured = 0;
    let letGo = () => {};
    const gate = new Promise<void>((resolve) => (letGo = resolve));
    const cache = new PlaybackCache({
      usage: async () => {
        measured++;
        if (measured === 1) await gate;
        return 0;
      },
      boundBytes: 1,
    });
    const first = cache.clean();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = cache.clean();
    const third = cache.clean();
    assert.equal(second, third, 'one clean for both asks');
    letGo();
    await Promise.all([first, second, third]);
    assert.equal(measured, 2, 'the running clean, then one more');
  });

  it('a failing kind is logged, never thrown at the caller', async () => {
    const warnings: string[] = [];
    const cache = new PlaybackCache({
      usage: async () => 100,
      boundBytes: 1,
      log: { warn: (_obj, msg) => warnings.push(msg) },
    });
    cache.register('artifact', {
      entries: async () => {
        throw new Error('disk gone');
      },
      evict: async () => undefined,
    });
    await cache.clean();
    assert.deepEqual(warnings, ['playback cache clean failed']);
  });

  it('a clean left over the bound by an entry in use cleans again later, once it is no longer', async () => {
    const disk = new Map<string, number>([['a', 10]]);
    let busy = true;
    let cleaned = () => {};
    const gone = new Promise<void>((resolve) => (cleaned = resolve));
    const cache = new PlaybackCache({
      usage: async () => [...disk.values()].reduce((a, b) => a + b, 0),
      boundBytes: 5,
      recheckMs: 1,
    });
    cache.register('artifact', {
      entries: async () => [{ kind: 'artifact', key: 'a', bytes: 10, lastUsedMs: 0, inUse: busy }],
      evict: async (key) => {
        disk.delete(key);
        cleaned();
      },
    });
    await cache.clean();
    assert.equal(disk.size, 1, 'in use: kept');
    busy = false; // a recent read grows old: no event says so
    const alive = setInterval(() => undefined, 1_000); // the clean's own timer does not hold the process
    await gone;
    clearInterval(alive);
    assert.equal(disk.size, 0);
  });

  it("a node that finds another's clean going waits for it, and gives up after the wait", async () => {
    const warnings: string[] = [];
    let tries = 0;
    const cache = new PlaybackCache({
      usage: async () => assert.fail('nothing is measured without the lease'),
      boundBytes: 1,
      lease: {
        take: async () => {
          tries++;
          return false;
        },
        release: async () => assert.fail('not held'),
        retryMs: 1,
        waitMs: 3,
      },
      log: { warn: (_obj, msg) => warnings.push(msg) },
    });
    await cache.clean();
    assert.equal(tries, 4, 'tried at 0, 1, 2 and 3 ms');
    assert.deepEqual(warnings, ['playback cache clean skipped: another node cleans']);
  });
});

describe('ArtifactReaders: the artifacts this node streams now', () => {
  it('refreshes the rows of open artifacts, once per artifact, and writes the last use at the close', async () => {
    const writes: string[] = [];
    const readers = new ArtifactReaders({
      touch: async (key) => void writes.push(key),
      refreshMs: 3_600_000,
    });
    const first = readers.opened('k1');
    const second = readers.opened('k1');
    const other = readers.opened('k2');
    await readers.refresh();
    assert.deepEqual(writes.sort(), ['k1', 'k2']);
    first();
    first(); // a close heard twice counts once
    assert.equal(readers.isOpen('k1'), true, 'one stream of k1 is still open');
    second();
    other();
    assert.equal(readers.isOpen('k1'), false);
    assert.deepEqual(writes.sort(), ['k1', 'k1', 'k2', 'k2'], 'each last close writes the last use');
    writes.length = 0;
    await readers.refresh();
    assert.deepEqual(writes, [], 'nothing open: nothing written');
  });

  it('a failed write is logged, the stream goes on', async () => {
    const warnings: string[] = [];
    const readers = new ArtifactReaders({
      touch: async () => {
        throw new Error('database gone');
      },
      log: { warn: (_obj, msg) => warnings.push(msg) },
    });
    const done = readers.opened('k');
    await readers.refresh();
    done();
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(warnings, ['artifact use not recorded', 'artifact use not recorded']);
  });
});
