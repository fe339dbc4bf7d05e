// Several real server processes on one PostgreSQL database (the cluster tests: cluster-nodes and the
// lost-node take-overs): a generated media tree, data dirs whose databases are dropped afterwards,
// nodes started with a role, and scans polled to their end through the HTTP API.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import type { JobView, ScanReport } from '@reelshelf/contract';
import { makeMediaTree } from './media.ts';
import { startServerProcess, type ServerProcess } from './server-process.ts';
import { dropTestDatabase, testDatabaseUrl } from './test-database.ts';
import { waitFor } from './wait.ts';

export const CLUSTER_TOKEN = 'cluster-test-token-0123456789abcdef';
/** The end states of a scan report ('committed' is a scan job that succeeded). */
const FINISHED = new Set(['committed', 'failed', 'cancelled']);

/** A call to a node's API as the admin; fails the test on a non-2xx answer. */
export async function callNode<T>(node: { url: string }, path: string, init: RequestInit = {}): Promise<T> {
  const headers = new Headers(init.headers);
  headers.set('authorization', `Bearer ${CLUSTER_TOKEN}`);
  if (init.body !== undefined) headers.set('content-type', 'application/json');
  const res = await fetch(`${node.url}${path}`, { ...init, headers });
  const body = (await res.json()) as T;
  assert.ok(res.ok, `${init.method ?? 'GET'} ${path}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

export interface ClusterFixture {
  /** The generated media tree (made in `before`). */
  media(): string;
  /** A new data dir; its folder and its database go in `after`. */
  dataDir(): string;
  /** A server process on `dir` in this role (watching off: scans only when the test starts them). */
  node(dir: string, role: 'all' | 'api' | 'worker'): Promise<ServerProcess>;
  /** Other processes the test starts (a CLI): killed in `after` if still running. */
  adopt(child: ChildProcess): void;
  /** Polls scan `id` on `on` until it ended; progress never shows more done than total meanwhile. */
  scanUntilDone(on: ServerProcess, id: number, timeoutMs: number): Promise<ScanReport>;
}

/** Registers the before/after hooks of the enclosing describe and returns its fixture. */
export function clusterFixture(name: string, mediaFiles: number): ClusterFixture {
  let media = '';
  const started: ServerProcess[] = [];
  const children: ChildProcess[] = [];
  const dataDirs: string[] = [];

  before(async () => {
    media = mkdtempSync(join(tmpdir(), `reelshelf-${name}-media-`));
    await makeMediaTree(media, mediaFiles);
  });
  after(async () => {
    // What a node that died said (a crash is the first thing to know when a test here fails).
    for (const s of started)
      if (s.child.exitCode !== null)
        process.stderr.write(`node ${s.pid} ended ${s.child.exitCode}:\n${s.output()}\n`);
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await Promise.all(started.map((s) => s.stop()));
    for (const dir of dataDirs) {
      dropTestDatabase(testDatabaseUrl(dir));
      rmSync(dir, { recursive: true, force: true });
    }
    if (media !== '') rmSync(media, { recursive: true, force: true });
  });

  return {
    media: () => media,
    dataDir() {
      const dir = mkdtempSync(join(tmpdir(), `reelshelf-${name}-`));
      dataDirs.push(dir);
      return dir;
    },
    async node(dir, role) {
      const s = await startServerProcess(dir, {
        REELSHELF_API_TOKEN: CLUSTER_TOKEN,
        REELSHELF_NODE_ROLE: role,
        // A watcher's rescan would be a second scan job.
        REELSHELF_WATCH: 'off',
      });
      started.push(s);
      return s;
    },
    adopt(child) {
      children.push(child);
    },
    async scanUntilDone(on, id, timeoutMs) {
      return waitFor(
        async () => {
          const report = await callNode<ScanReport>(on, `/api/scans/${id}`);
          const view = await callNode<JobView>(on, `/api/jobs/${id}`);
          assert.ok(view.progress.done <= view.progress.total, JSON.stringify(view));
          return FINISHED.has(report.status) ? report : null;
        },
        () => `scan ${id} to end, polled on ${on.url}`,
        { timeoutMs, intervalMs: 100 },
      );
    },
  };
}
