import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { OpenedDatabase } from '../../../src/db/database.ts';
import { openTestDatabase } from '../../helpers/test-database.ts';
import {
  MemoryProviderCache,
  type ProviderCache,
  ProviderCacheRepository,
} from '../../../src/repositories/provider-cache.repository.ts';

const T0 = new Date('2025-03-01T12:00:00.000Z');
const later = (ms: number) => new Date(T0.getTime() + ms);

function contract(name: string, make: () => ProviderCache) {
  describe(`${name} (ProviderCache contract)`, () => {
    it('absent → null', async () => {
      assert.equal(await make().get('tmdb', 'nothing', T0), null);
    });
    it('returns a body until it expires, then null', async () => {
      const cache = make();
      await cache.put('tmdb', 'movie:1', '{"a":1}', T0, 1000);
      assert.equal(await cache.get('tmdb', 'movie:1', T0), '{"a":1}');
      assert.equal(await cache.get('tmdb', 'movie:1', later(999)), '{"a":1}');
      assert.equal(await cache.get('tmdb', 'movie:1', later(1000)), null);
    });
    it('null ttl keeps forever', async () => {
      const cache = make();
      await cache.put('upcitemdb', 'lookup:1', '{}', T0, null);
      assert.equal(await cache.get('upcitemdb', 'lookup:1', later(10 * 365 * 86_400_000)), '{}');
    });
    it('put replaces (upsert), providers are separate namespaces', async () => {
      const cache = make();
      await cache.put('omdb', 'k', '"old"', T0, 1000);
      await cache.put('omdb', 'k', '"new"', later(5000), null);
      await cache.put('tmdb', 'k', '"other"', T0, null);
      assert.equal(await cache.get('omdb', 'k', later(100_000)), '"new"');
      assert.equal(await cache.get('tmdb', 'k', T0), '"other"');
    });
  });
}

let opened: OpenedDatabase;
before(async () => {
  opened = await openTestDatabase();
});
after(async () => {
  await opened.close();
});

let n = 0;
contract('ProviderCacheRepository', () => {
  // One database; each test uses its own provider prefix so they stay independent.
  const repo = new ProviderCacheRepository(opened.db);
  const prefix = `p${n++}:`;
  return {
    get: (p, k, now) => repo.get(prefix + p, k, now),
    put: (p, k, b, now, ttl) => repo.put(prefix + p, k, b, now, ttl),
  };
});
contract('MemoryProviderCache', () => new MemoryProviderCache());

describe('ProviderCacheRepository storage', () => {
  it('stores ISO timestamps and null expiry', async () => {
    const repo = new ProviderCacheRepository(opened.db);
    await repo.put('iso', 'a', '1', T0, 60_000);
    await repo.put('iso', 'b', '2', T0, null);
    const rows = await opened.db
      .selectFrom('provider_cache')
      .selectAll()
      .where('provider', '=', 'iso')
      .orderBy('cache_key')
      .execute();
    assert.deepEqual(
      rows.map((r) => [r.cache_key, r.fetched_at, r.expires_at]),
      [
        ['a', '2025-03-01T12:00:00.000Z', '2025-03-01T12:01:00.000Z'],
        ['b', '2025-03-01T12:00:00.000Z', null],
      ],
    );
  });
  it('purgeExpired and delete', async () => {
    const repo = new ProviderCacheRepository(opened.db);
    await repo.put('purge', 'old', '1', T0, 10);
    await repo.put('purge', 'keep', '2', T0, null);
    assert.ok((await repo.purgeExpired(later(20))) >= 1);
    assert.equal(await repo.get('purge', 'keep', later(20)), '2');
    assert.equal(await repo.delete('purge', 'keep'), true);
    assert.equal(await repo.delete('purge', 'keep'), false);
  });
});
