// A node killed (or frozen) mid-scan on PostgreSQL: it loses its lease, another node takes the scan
// over within lease + 5 s and commits it once; the frozen one, thawed, writes nothing (fencing). The
// first node is `reelshelf scan` held at a known point (all files staged, before its commit).
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { openDatabase, type OpenedDatabase } from '../../src/db/database.ts';
import { CLUSTER_TOKEN, clusterFixture } from './cluster-fixture.ts';
import { testDatabaseEnv, testDatabaseUrl, testEngine } from './test-database.ts';
import { waitFor } from './wait.ts';

const repo = new URL('../../../', import.meta.url).pathname;
/** The lease of docs/cluster.md (DEFAULT_LEASE_TIMINGS.leaseMs). */
const LEASE_MS = 5_000;

/** The suite for one way of losing the node that runs a scan (one per file: each fits a file's time). */
export function lostNodeSuite(how: 'SIGKILL' | 'SIGSTOP'): void {
  describe(
    `a node lost mid-scan on PostgreSQL (${how})`,
    {
      skip:
        testEngine !== 'postgres' &&
        'several nodes share a PostgreSQL database (REELSHELF_TEST_DATABASE=postgres)',
      timeout: 170_000,
    },
    () => {
      const cluster = clusterFixture('takeover', 8);

      /** `reelshelf scan` as the first node, held once every file is staged (before its commit). */
      async function heldCliScan(dir: string): Promise<{ child: ChildProcess; output: () => string }> {
        const child = spawn(process.execPath, ['bin/reelshelf.mjs', 'scan', cluster.media()], {
          cwd: repo,
          env: {
            ...process.env,
            REELSHELF_DATA_DIR: dir,
            REELSHELF_LOG_LEVEL: 'warn',
            REELSHELF_API_TOKEN: CLUSTER_TOKEN,
            REELSHELF_TEST_SCAN_PAUSE_AFTER: '8',
            ...testDatabaseEnv(dir),
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        cluster.adopt(child);
        let out = '';
        child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
        child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
        await waitFor(
          () => {
            if (child.exitCode !== null) throw new Error(`the CLI ended: ${out}`);
            return /test pause: scan held/.test(out);
          },
          () => `the CLI's scan to hold: ${out}`,
          { timeoutMs: 120_000 },
        );
        return { child, output: () => out };
      }

      async function scanJob(db: OpenedDatabase) {
        return db.db
          .selectFrom('jobs')
          .selectAll()
          .where('kind', '=', 'scan')
          .orderBy('id')
          .executeTakeFirstOrThrow();
      }

      {
        it(`a node ${how === 'SIGKILL' ? 'killed' : 'frozen'} mid-scan: another takes it over within lease + 5 s and it commits once`, async () => {
          const dir = cluster.dataDir();
          const cli = await heldCliScan(dir);
          const worker = await cluster.node(dir, 'worker');
          const db = await openDatabase(testDatabaseUrl(dir), { pool: 2 });
          try {
            const held = await scanJob(db);
            assert.equal(held.status, 'running');
            assert.equal(held.attempts, 1);
            assert.ok(held.owner_node !== null);
            cli.child.kill(how);
            const stoppedAt = Date.now();
            const taken = await waitFor(
              async () => {
                const row = await scanJob(db);
                return row.attempts >= 2 || row.status !== 'running' ? row : null;
              },
              () => 'another node to take the scan over',
              { timeoutMs: LEASE_MS + 15_000, intervalMs: 100 },
            );
            const tookMs = Date.now() - stoppedAt;
            assert.ok(tookMs < LEASE_MS + 5_000, `taken over after ${tookMs} ms`);
            if (how === 'SIGSTOP') {
              // Its process is alive: only the lease's end lets another node take the job.
              assert.ok(tookMs >= LEASE_MS - 1_500, `not before the lease ran out (${tookMs} ms)`);
            }
            assert.notEqual(taken.owner_node, held.owner_node);
            const report = await cluster.scanUntilDone(worker, held.id, 60_000);
            assert.equal(report.status, 'committed', JSON.stringify(report));
            assert.equal(report.counts.new, 8, JSON.stringify(report.counts));
            if (how === 'SIGSTOP') {
              // The zombie wakes up: its lease is gone, its writes are refused, it commits nothing.
              cli.child.kill('SIGCONT');
              await waitFor(
                () => cli.child.exitCode !== null,
                () => `the thawed CLI to end: ${cli.output()}`,
                { timeoutMs: 60_000 },
              );
            } else {
              assert.equal(cli.child.signalCode, 'SIGKILL');
            }
            const after = await scanJob(db);
            assert.equal(after.status, 'succeeded');
            assert.deepEqual(JSON.parse(after.result_json ?? 'null')?.counts?.new, 8);
            const count = async (table: 'media_files' | 'movies' | 'staging_media_files') =>
              Number(
                (
                  await db.db
                    .selectFrom(table)
                    .select((eb) => eb.fn.countAll().as('n'))
                    .executeTakeFirstOrThrow()
                ).n,
              );
            assert.equal(await count('media_files'), 8, 'committed once');
            assert.equal(await count('movies'), 8);
            assert.equal(await count('staging_media_files'), 0);
          } finally {
            await db.close();
          }
        });
      }
    },
  );
}
