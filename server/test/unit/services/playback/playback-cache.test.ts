import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CacheEntry } from '../../../../src/domain/playback/cache-eviction.ts';
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
});
