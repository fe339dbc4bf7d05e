// Nodes as /api/health lists them, and — on PostgreSQL — several real server processes on one
// database (the same REELSHELF_DATABASE_URL): an api node queues and claims nothing, a scan started on
// one node is run and polled on another and committed once, both nodes starting a scan of one root
// join one job, and a killed node is dropped from health (take-overs: cluster-takeover.test.ts).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { HealthResponse, JobView, ScanReport } from '@reelshelf/contract';
import { loadConfig } from '../../src/config.ts';
import { makeMediaTree } from '../helpers/media.ts';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.ts';
import { dropTestDatabase, testDatabaseUrl, testEngine } from '../helpers/test-database.ts';
import { startTestServer } from '../helpers/test-server.ts';
import { waitFor } from '../helpers/wait.ts';

const TOKEN = 'cluster-test-token-0123456789abcdef';
/** The end states of a scan report ('committed' is a scan job that succeeded). */
const FINISHED = new Set(['committed', 'failed', 'cancelled']);

async function call<T>(node: { url: string }, path: string, init: RequestInit = {}): Promise<T> {
  const headers = new Headers(init.headers);
  headers.set('authorization', `Bearer ${TOKEN}`);
  if (init.body !== undefined) headers.set('content-type', 'application/json');
  const res = await fetch(`${node.url}${path}`, { ...init, headers });
  const body = (await res.json()) as T;
  assert.ok(res.ok, `${init.method ?? 'GET'} ${path}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

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
    let media: string;
    const started: ServerProcess[] = [];
    const dataDirs: string[] = [];

    before(async () => {
      media = mkdtempSync(join(tmpdir(), 'reelshelf-cluster-media-'));
      await makeMediaTree(media, 8);
    });
    after(async () => {
      // What a node that died said (a crash is the first thing to know when a test here fails).
      for (const s of started)
        if (s.child.exitCode !== null)
          process.stderr.write(`node ${s.pid} ended ${s.child.exitCode}:\n${s.output()}\n`);
      await Promise.all(started.map((s) => s.stop()));
      for (const dir of dataDirs) {
        dropTestDatabase(testDatabaseUrl(dir));
        rmSync(dir, { recursive: true, force: true });
      }
      rmSync(media, { recursive: true, force: true });
    });

    function dataDir(): string {
      const dir = mkdtempSync(join(tmpdir(), 'reelshelf-cluster-'));
      dataDirs.push(dir);
      return dir;
    }

    async function node(dir: string, role: 'all' | 'api' | 'worker'): Promise<ServerProcess> {
      const s = await startServerProcess(dir, {
        REELSHELF_API_TOKEN: TOKEN,
        REELSHELF_NODE_ROLE: role,
        // Scans only when the test starts them (a watcher's rescan would be a second scan job).
        REELSHELF_WATCH: 'off',
      });
      started.push(s);
      return s;
    }

    async function scanUntilDone(on: ServerProcess, id: number): Promise<ScanReport> {
      return waitFor(
        async () => {
          const report = await call<ScanReport>(on, `/api/scans/${id}`);
          const view = await call<JobView>(on, `/api/jobs/${id}`);
          assert.ok(view.progress.done <= view.progress.total, JSON.stringify(view));
          return FINISHED.has(report.status) ? report : null;
        },
        () => `scan ${id} to end, polled on ${on.url}`,
        { timeoutMs: 120_000, intervalMs: 100 },
      );
    }

    it('an api node queues and claims nothing; another node runs the scan, polled on either, once per root', async () => {
      const dir = dataDir();
      const a = await node(dir, 'api');
      const root = await call<{ id: number }>(a, '/api/library-roots', {
        method: 'POST',
        body: JSON.stringify({ path: media }),
      });
      const { scan_id } = await call<{ scan_id: number }>(a, `/api/library-roots/${root.id}/scan`, {
        method: 'POST',
      });
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      assert.equal((await call<JobView>(a, `/api/jobs/${scan_id}`)).status, 'queued', 'no node claimed it');

      const b = await node(dir, 'all');
      const first = await scanUntilDone(b, scan_id);
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
      const second = await scanUntilDone(a, fromA?.scan_id ?? 0);
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
