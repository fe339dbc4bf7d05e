// The playback cache's cleaner on a data dir two nodes share, on the engine under test (SQLite, or
// PostgreSQL with REELSHELF_TEST_DATABASE=postgres): node A's cleaner keeps what node B's players
// read (a finished presentation, a progressive file streamed now), and two nodes cleaning at once
// remove only what is over the bound (docs/cluster.md "The playback cache across nodes").
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DataStore } from '../../../../src/adapters/data-store.ts';
import type { OpenedDatabase } from '../../../../src/db/database.ts';
import type { CacheEntry } from '../../../../src/domain/playback/cache-eviction.ts';
import { ARTIFACT_IN_USE_MS } from '../../../../src/domain/playback/cache-use.ts';
import { ArtifactRepository } from '../../../../src/repositories/artifact.repository.ts';
import { HlsRunRepository } from '../../../../src/repositories/hls-run.repository.ts';
import { NodeLeaseRepository } from '../../../../src/repositories/node-lease.repository.ts';
import { artifactCacheKind } from '../../../../src/services/playback/artifact-files.ts';
import { ArtifactReaders } from '../../../../src/services/playback/artifact-readers.ts';
import { ReadyArtifactIndex } from '../../../../src/services/playback/artifact-index.ts';
import { HlsOwnership } from '../../../../src/services/playback/hls/hls-ownership.ts';
import { HlsSegmentStore } from '../../../../src/services/playback/hls/segment-store.ts';
import { segmentsCacheKind } from '../../../../src/services/playback/hls/segments-cache.ts';
import { PlaybackCache } from '../../../../src/services/playback/playback-cache.ts';
import { CLEAN_LEASE, cleanLease } from '../../../../src/wiring/playback-cache.ts';
import { registerFiles } from '../../../helpers/library-fixtures.ts';
import { openTestDatabase } from '../../../helpers/test-database.ts';

const IDLE_MS = 60_000;
const identity = (key: string) => ({ key, fileId: 1, device: 'web', burn: null, forPrewarm: false });

/** Node A's view of the shared segments area: it runs and remembers nothing of them. */
function nodeA(db: OpenedDatabase['db'], store: DataStore, now: () => number) {
  const ownership = new HlsOwnership(
    {
      repo: new HlsRunRepository(db),
      node: () => ({ id: 'node-a', role: 'api', host: 'host-a' }),
      peers: () => [],
      pidAlive: () => true,
    },
    now,
    null,
  );
  return segmentsCacheKind({
    presentations: { get: () => undefined },
    segments: new HlsSegmentStore(store),
    ownership,
    idleMs: IDLE_MS,
    now,
  });
}

describe('the playback cache on a data dir shared by nodes', () => {
  let opened: OpenedDatabase;
  let dir: string;
  let store: DataStore;
  before(async () => {
    opened = await openTestDatabase();
    dir = mkdtempSync(join(tmpdir(), 'reelshelf-cache-nodes-'));
    store = new DataStore(dir);
  });
  after(async () => {
    await opened.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("B's players reading a finished presentation keep its row's last request fresh, at most once a second", async () => {
    const key = '0123456789abcdef0123456789abcdef';
    const runs = new HlsRunRepository(opened.db);
    let now = Date.now();
    const claimed = await runs.claim(identity(key), 'node-w', now, now + 5_000, 0);
    assert.ok(claimed);
    await runs.release(key, claimed.epoch, null, now);
    const ownershipB = new HlsOwnership(
      {
        repo: runs,
        node: () => ({ id: 'node-b', role: 'api', host: 'host-b' }),
        peers: () => [],
        pidAlive: () => true,
      },
      () => now,
      null,
    );
    const requestAt = async (ms: number) => {
      now = ms;
      ownershipB.touch({ key, claim: null });
      // The write is not awaited by the request: read once it landed.
      for (let i = 0; i < 100 && (await runs.get(key))?.last_request_at !== ms; i++) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return (await runs.get(key))?.last_request_at;
    };
    const start = now;
    assert.equal(await requestAt(start + 10_000), start + 10_000);
    now = start + 10_500;
    ownershipB.touch({ key, claim: null }); // within the second: not written
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal((await runs.get(key))?.last_request_at, start + 10_000);
    assert.equal(await requestAt(start + 11_000), start + 11_000);
    assert.equal(await requestAt(start + 12_000), start + 12_000);
    // While this node owns the run, its own memory keeps it (other nodes see the owner's lease).
    now = start + 20_000;
    ownershipB.touch({ key, claim: { epoch: 2, handledSeq: 0 } });
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal((await runs.get(key))?.last_request_at, start + 12_000);
  });

  it("A keeps a finished presentation B's players read (the row's last request), evicts it once idle", async () => {
    const key = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
    mkdirSync(join(dir, 'segments', key, 'v'), { recursive: true });
    writeFileSync(join(dir, 'segments', key, 'v', '0.1.m4s'), Buffer.alloc(4096));
    const runs = new HlsRunRepository(opened.db);
    let now = Date.now();
    // B converted it to the end and gave the run back; its players go on reading it.
    const claimed = await runs.claim(identity(key), 'node-b', now, now + 5_000, 0);
    assert.ok(claimed);
    assert.equal(await runs.release(key, claimed.epoch, null, now), true);
    await runs.touch(key, now + 1_000);
    now += 2_000;

    const kind = nodeA(opened.db, store, () => now);
    const [entry] = await kind.entries();
    assert.deepEqual(entry, { kind: 'segments', key, bytes: 4096, lastUsedMs: now - 1_000, inUse: true });
    const cache = new PlaybackCache({
      usage: async () => (await store.usage('segments')).bytes,
      boundBytes: 0,
    });
    cache.register('segments', kind);
    await cache.clean();
    assert.ok(existsSync(join(dir, 'segments', key)), "B's presentation stays");
    await kind.evict(key);
    assert.ok(existsSync(join(dir, 'segments', key)), 'an eviction asked directly re-checks the row');

    // No player of any node asked for the idle time: it goes, with its rows.
    now += IDLE_MS;
    await cache.clean();
    assert.equal(existsSync(join(dir, 'segments', key)), false);
    assert.equal(await runs.get(key), undefined);
  });

  it('A keeps a progressive file B streams now (its row refreshed while open), evicts it once closed', async () => {
    const film = join(dir, 'film.mkv');
    writeFileSync(film, Buffer.alloc(16));
    const { film: ids } = await registerFiles(opened.db, dir, { film });
    assert.ok(ids);
    const records = new ArtifactRepository(opened.db);
    const key = 'f00dfeedf00dfeedf00dfeedf00dfeed';
    const path = join(dir, 'artifacts', `${key}.mp4`);
    mkdirSync(join(dir, 'artifacts'), { recursive: true });
    writeFileSync(path, Buffer.alloc(8192));
    let now = Date.now();
    const iso = () => new Date(now).toISOString();
    await records.upsertBuilding({
      artifact_key: key,
      media_file_id: ids.fileId,
      device: 'web',
      source_fingerprint: 'fp',
      plan_json: '{}',
      path,
      job_id: 1,
      now: iso(),
    });
    await records.finish(key, 'ready', { size_bytes: 8192, now: iso() });

    /** A node's view of the artifacts (its own streams, its clock). */
    const kindOf = (readers: ArtifactReaders) =>
      artifactCacheKind({
        records,
        store,
        index: new ReadyArtifactIndex(),
        justMade: new Set(),
        openHere: (k) => readers.isOpen(k),
        nowMs: () => now,
        nameOf: (row) => store.locate('artifacts', row.path),
        removeFile: async (row) => store.remove('artifacts', store.locate('artifacts', row.path) ?? ''),
      });
    const touch = (k: string) => records.touch(k, iso());
    const readersB = new ArtifactReaders({ touch, refreshMs: 3_600_000 });
    const readersA = new ArtifactReaders({ touch, refreshMs: 3_600_000 });
    const cacheA = new PlaybackCache({
      usage: async () => (await store.usage('artifacts')).bytes,
      boundBytes: 0,
    });
    cacheA.register('artifact', kindOf(readersA));

    // B's stream opens and reads for minutes: its refreshes keep the row recent.
    now += 600_000;
    await touch(key); // the stream's start (StreamService.target)
    const done = readersB.opened(key);
    for (let i = 0; i < 5; i++) {
      now += ARTIFACT_IN_USE_MS - 1;
      await readersB.refresh();
      await cacheA.clean();
      assert.ok(existsSync(path), `streamed by B, kept by A (${i})`);
    }
    // B's stream ends: its last use is written, and once the window passed A may evict it.
    done();
    now += ARTIFACT_IN_USE_MS;
    await cacheA.clean();
    assert.equal(existsSync(path), false);
    assert.equal(await records.getByKey(key), undefined);
  });

  it('two nodes cleaning at once remove only what is over the bound (one clean at a time)', async () => {
    // One shared "disk": ten entries of 10 bytes, bound 60: four must go, not eight.
    const disk = new Map<string, number>();
    for (let i = 0; i < 10; i++) disk.set(`e${i}`, 10);
    const usage = async () => [...disk.values()].reduce((a, b) => a + b, 0);
    const kind = {
      entries: async (): Promise<CacheEntry[]> =>
        [...disk.entries()].map(([key, bytes]) => ({
          kind: 'artifact' as const,
          key,
          bytes,
          lastUsedMs: Number(key.slice(1)),
          inUse: false,
        })),
      evict: async (key: string) => void disk.delete(key),
    };
    // A has measured and is held there until B found the lease taken.
    let letA = () => {};
    const aHeld = new Promise<void>((resolve) => (letA = resolve));
    let bTried = () => {};
    const bRefused = new Promise<void>((resolve) => (bTried = resolve));
    const clock = { now: () => new Date() };
    const leaseA = cleanLease(opened.db, clock, 'proc-a');
    const leaseB = cleanLease(opened.db, clock, 'proc-b');
    let aMeasures = () => {};
    const aMeasuring = new Promise<void>((resolve) => (aMeasures = resolve));
    const cacheA = new PlaybackCache({
      usage: async () => {
        const total = await usage();
        aMeasures();
        await aHeld;
        return total;
      },
      boundBytes: 60,
      lease: leaseA,
    });
    const cacheB = new PlaybackCache({
      usage,
      boundBytes: 60,
      lease: {
        ...leaseB,
        retryMs: 10,
        take: async () => {
          const got = await leaseB.take();
          if (!got) bTried();
          return got;
        },
      },
    });
    cacheA.register('artifact', kind);
    cacheB.register('artifact', kind);
    const a = cacheA.clean();
    // A measures (under the lease) while B starts its clean.
    await aMeasuring;
    const leases = new NodeLeaseRepository(opened.db);
    assert.equal(await leases.holder(CLEAN_LEASE, Date.now()), 'proc-a');
    const b = cacheB.clean();
    // B found the lease taken (or, with no lease, cleaned by itself meanwhile): A goes on.
    await Promise.race([bRefused, b]);
    letA();
    await Promise.all([a, b]);
    assert.deepEqual([...disk.keys()], ['e4', 'e5', 'e6', 'e7', 'e8', 'e9'], 'the four oldest went, no more');
    assert.equal(await leases.holder(CLEAN_LEASE, Date.now()), null, 'given back');
  });
});
