// Nodes as /api/health lists them, and — on PostgreSQL — several real server processes on one
// database (the same REELSHELF_DATABASE_URL): an api node queues and claims nothing, a scan started on
// one node is run and polled on another and committed once, both nodes starting a scan of one root
// join one job, and a killed node is dropped from health (take-overs: cluster-takeover.test.ts).
import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { describe, it } from 'node:test';
import type { HealthResponse, JobView, ScanReport } from '@reelshelf/contract';
import { loadConfig } from '../../src/config.ts';
import { callNode as call, clusterFixture } from '../helpers/cluster-fixture.ts';
import { testEngine } from '../helpers/test-database.ts';
import { startTestServer } from '../helpers/test-server.ts';
import { waitFor } from '../helpers/wait.ts';

describe('nodes in /api/health', () => {
  it('a server lists itself: its role, a fresh heartbeat, its machine only for the admin', async () => {
    const t = await startTestServer({ REELSHELF_NODE_ROLE: 'worker' });
    try {
      const anonymous = (await (await t.api('/api/health', { auth: false })).json()) as HealthResponse;
      assert.equal(anonymous.nodes.length, 1, JSON.stringify(anonymous.nodes));
      const [seen] = anonymous.nodes;
      assert.equal(seen?.role, 'worker');
      assert.equal(seen?.self, true);
      assert.equal(seen?.host, null, 'no machine names for anyone');
      assert.equal(seen?.pid, null);
      assert.ok((seen?.heartbeat_age_ms ?? Infinity) < 3_000, JSON.stringify(seen));
      assert.deepEqual(seen?.load.conversions.limit, t.config.maxConversions);
      const admin = (await (await t.api('/api/health')).json()) as HealthResponse;
      assert.equal(admin.nodes[0]?.host, hostname());
      assert.equal(admin.nodes[0]?.pid, process.pid);
      // The heartbeat goes on (every second).
      await waitFor(
        async () => {
          const again = (await (await t.api('/api/health')).json()) as HealthResponse;
          return (again.nodes[0]?.heartbeat_at ?? '') > (seen?.heartbeat_at ?? '');
        },
        () => 'a newer heartbeat',
        { timeoutMs: 5_000, intervalMs: 200 },
      );
    } finally {
      await t.close();
    }
  });

  it('REELSHELF_NODE_ROLE accepts all, api or worker', () => {
    assert.equal(loadConfig({}).nodeRole, 'all');
    assert.equal(loadConfig({ REELSHELF_NODE_ROLE: 'API' }).nodeRole, 'api');
    assert.throws(
      () => loadConfig({ REELSHELF_NODE_ROLE: 'boss' }),
      /REELSHELF_NODE_ROLE=boss is not valid: expected one of all, api, worker/,
    );
  });
});

describe(
  'several server processes on one PostgreSQL database',
  {
    skip:
      testEngine !== 'postgres' &&
      'several nodes share a PostgreSQL database (REELSHELF_TEST_DATABASE=postgres)',
    timeout: 300_000,
  },
  () => {
    const cluster = clusterFixture('cluster', 8);

    it('an api node queues and claims nothing; another node runs the scan, polled on either, once per root', async () => {
      const dir = cluster.dataDir();
      const a = await cluster.node(dir, 'api');
      const root = await call<{ id: number }>(a, '/api/library-roots', {
        method: 'POST',
        body: JSON.stringify({ path: cluster.media() }),
      });
      const { scan_id } = await call<{ scan_id: number }>(a, `/api/library-roots/${root.id}/scan`, {
        method: 'POST',
      });
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      assert.equal((await call<JobView>(a, `/api/jobs/${scan_id}`)).status, 'queued', 'no node claimed it');

      const b = await cluster.node(dir, 'all');
      const first = await cluster.scanUntilDone(b, scan_id, 120_000);
      assert.equal(first.status, 'committed', JSON.stringify(first));
      assert.equal(first.counts.new, 8);
      assert.deepEqual(await call<ScanReport>(a, `/api/scans/${scan_id}`), first, 'the same report on A');

      // Both nodes start a scan of the root at once: one job.
      const [fromA, fromB] = await Promise.all(
        [a, b].map((n) =>
          call<{ scan_id: number }>(n, `/api/library-roots/${root.id}/scan`, { method: 'POST' }),
        ),
      );
      assert.equal(fromA?.scan_id, fromB?.scan_id, 'one scan per root cluster-wide');
      const second = await cluster.scanUntilDone(a, fromA?.scan_id ?? 0, 120_000);
      assert.equal(second.status, 'committed');
      assert.equal(second.counts.unchanged, 8);
      assert.equal(second.counts.new, 0);
      const scans = await call<{ items: JobView[] }>(b, '/api/jobs?kind=scan');
      assert.equal(scans.items.length, 2, JSON.stringify(scans.items));

      // Health on A lists both nodes with fresh heartbeats; a killed node is dropped within seconds.
      const health = await call<HealthResponse>(a, '/api/health');
      const roles = health.nodes.map((n) => [n.pid, n.role, n.self]);
      assert.deepEqual(roles, [
        [a.pid, 'api', true],
        [b.pid, 'all', false],
      ]);
      for (const n of health.nodes) assert.ok(n.heartbeat_age_ms < 3_000, JSON.stringify(n));
      b.child.kill('SIGKILL');
      await b.exited;
      const killedAt = Date.now();
      await waitFor(
        async () => (await call<HealthResponse>(a, '/api/health')).nodes.every((n) => n.pid !== b.pid),
        () => 'the killed node to leave /api/health',
        { timeoutMs: 15_000, intervalMs: 200 },
      );
      assert.ok(Date.now() - killedAt < 5_000 + 3_000, `dropped after ${Date.now() - killedAt} ms`);
    });
  },
);
