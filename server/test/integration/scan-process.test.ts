import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openDatabase } from '../../src/db/database.ts';
import type { JobStatus } from '../../src/repositories/job.repository.ts';
import { makeMediaTree } from '../helpers/media.ts';
import { startTestServer } from '../helpers/test-server.ts';
import { waitFor, within } from '../helpers/wait.ts';
import { testDatabaseEnv, testDatabaseUrl, testEngine } from '../helpers/test-database.ts';

const repo = new URL('../../../', import.meta.url).pathname;

function cli(args: string[], dataDir: string, env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['bin/reelshelf.mjs', ...args], {
    cwd: repo,
    env: {
      ...process.env,
      REELSHELF_DATA_DIR: dataDir,
      ...testDatabaseEnv(dataDir),
      REELSHELF_LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, output: () => out };
}

/** A table's rows as another process sees them: a connection of its own to the data dir's database. */
async function count(
  dataDir: string,
  table: 'staging_media_files' | 'media_files' | 'movies',
): Promise<number> {
  const other = await openDatabase(testDatabaseUrl(dataDir));
  try {
    const row = await other.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  } finally {
    await other.close();
  }
}

/**
 * The scan's job row. A finished scan enqueues other jobs (analysis, seek thumbnails), and
 * PostgreSQL returns rows in no set order (an updated row moves in the heap): the first row of the
 * table is not the scan.
 */
function scanJob(db: Awaited<ReturnType<typeof openDatabase>>['db']) {
  return db.selectFrom('jobs').selectAll().where('kind', '=', 'scan').orderBy('id').executeTakeFirstOrThrow();
}

describe('scan from the CLI, and a crash between staging and commit', () => {
  let media: string;
  before(async () => {
    media = mkdtempSync(join(tmpdir(), 'reelshelf-cli-media-'));
    await makeMediaTree(media, 60);
  });
  after(() => rmSync(media, { recursive: true, force: true }));

  it('a process killed after staging leaves the live tables as they were; the next start cleans up', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'reelshelf-crash-'));
    try {
      // The scan holds once all 60 files are staged (right before its commit) and says so: the kill
      // lands at that known state, however fast or slow the machine scans.
      const run = cli(['scan', media], dataDir, { REELSHELF_TEST_SCAN_PAUSE_AFTER: '60' });
      await waitFor(
        () => /test pause: scan held with 60 files staged/.test(run.output()) || run.child.exitCode !== null,
        () => `the scan to hold after staging: ${run.output()}`,
        { timeoutMs: 120_000 },
      );
      assert.equal(run.child.exitCode, null, `the scan ended before its pause point: ${run.output()}`);
      run.child.kill('SIGKILL');
      await run.exited;
      assert.equal(await count(dataDir, 'staging_media_files'), 60, 'rows were staged');
      assert.equal(await count(dataDir, 'media_files'), 0, 'no live media file written');
      assert.equal(await count(dataDir, 'movies'), 0, 'no movie written');

      const t = await startTestServer({ REELSHELF_DATA_DIR: dataDir });
      if (testEngine === 'postgres') {
        // Nodes share the database (docs/cluster.md): the next node takes the scan over (its claim
        // cleans the dead run's staging first) and finishes it, once.
        try {
          const job = await waitFor(
            async () => {
              const row = await scanJob(t.server.database.db);
              const status = row.status as JobStatus;
              return status === 'succeeded' || status === 'failed' ? row : undefined;
            },
            () => 'the taken-over scan to end',
            { timeoutMs: 120_000 },
          );
          assert.equal(job.status, 'succeeded', job.error ?? '');
          assert.ok(Number(job.attempts) >= 2, 'a second claim ran it');
          const staged = await t.server.database.db.selectFrom('staging_media_files').select('id').execute();
          assert.equal(staged.length, 0, 'no staging left');
          assert.equal(await count(dataDir, 'media_files'), 60);
        } finally {
          await t.close();
        }
        const again = cli(['scan', media], dataDir);
        assert.equal(await again.exited, 0, again.output());
        assert.match(again.output(), /unchanged 60/);
        return;
      }
      try {
        const job = await scanJob(t.server.database.db);
        assert.equal(job.status, 'failed');
        assert.match(job.error ?? '', /interrupted/);
        const report = (await (await t.api(`/api/scans/${job.id}`)).json()) as {
          status: string;
          message: string;
        };
        assert.equal(report.status, 'failed');
        const staged = await t.server.database.db.selectFrom('staging_media_files').select('id').execute();
        assert.equal(staged.length, 0, 'staging cleaned at start');
      } finally {
        await t.close();
      }

      const again = cli(['scan', media], dataDir);
      assert.equal(await again.exited, 0, again.output());
      assert.match(again.output(), /committed/);
      assert.match(
        again.output(),
        /found 60 · new 60 · changed 0 · moved 0 · unchanged 0 · missing 0 · errors 0/,
      );
      assert.equal(await count(dataDir, 'media_files'), 60);

      const rescan = cli(['scan', media], dataDir);
      assert.equal(await rescan.exited, 0);
      assert.match(rescan.output(), /unchanged 60/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('a cancelled scan commits nothing and leaves no staging rows', async () => {
    // The scan holds after its first write of staged rows until it is cancelled: the cancel lands
    // mid-scan, with rows in staging, however fast or slow the machine scans.
    let held: (stagedFiles: number) => void = () => undefined;
    const holding = new Promise<number>((resolve) => (held = resolve));
    const t = await startTestServer(
      {},
      {
        afterStagingWrite: (stagedFiles, signal) => {
          held(stagedFiles);
          return new Promise((resume) => {
            if (signal.aborted) resume();
            else signal.addEventListener('abort', () => resume(), { once: true });
          });
        },
      },
    );
    try {
      const root = await t.server.services.roots.create({ path: media });
      const { scan_id } = await t.server.services.scans.start(root.id);
      const stagedFiles = await within(holding, 120_000, () => 'the scan to write its first staged rows');
      assert.ok(stagedFiles > 0 && stagedFiles < 60, `held mid-scan (${stagedFiles} of 60 staged)`);
      const db = t.server.database.db;
      assert.ok((await db.selectFrom('staging_media_files').select('id').execute()).length > 0);
      const res = await t.api(`/api/scans/${scan_id}`, { method: 'DELETE' });
      const report = (await res.json()) as { status: string };
      assert.equal(report.status, 'cancelled');
      assert.equal((await db.selectFrom('media_files').select('id').execute()).length, 0);
      assert.equal((await db.selectFrom('staging_media_files').select('id').execute()).length, 0);
    } finally {
      await t.close();
    }
  });

  it('the CLI refuses what is not a folder', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'reelshelf-cli-'));
    try {
      const run = cli(['scan', join(media, 'no-such-folder')], dataDir);
      assert.equal(await run.exited, 1);
      assert.match(run.output(), /does not exist/);
      const usage = cli(['scan'], dataDir);
      assert.equal(await usage.exited, 2);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
