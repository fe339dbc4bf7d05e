// Which engine the tests run on: SQLite (the default) or, with REELSHELF_TEST_DATABASE=postgres, the
// throwaway PostgreSQL cluster scripts/test-postgres.mjs started for the run (its URL in
// REELSHELF_TEST_POSTGRES_URL). Every test that makes a server or opens a database asks here, so one
// switch moves the whole suite; on PostgreSQL each data dir gets a database of its own, made from a
// migrated template.
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { openDatabase, type OpenedDatabase } from '../../src/db/database.ts';

export type TestEngine = 'sqlite' | 'postgres';

export const testEngine: TestEngine =
  process.env.REELSHELF_TEST_DATABASE === 'postgres' ? 'postgres' : 'sqlite';

/** The template every test database is copied from (migrated once per run by the runner). */
export const TEMPLATE_DATABASE = 'reelshelf_template';

function adminUrl(): URL {
  const raw = process.env.REELSHELF_TEST_POSTGRES_URL;
  if (raw === undefined || raw === '') {
    throw new Error(
      'REELSHELF_TEST_DATABASE=postgres needs the cluster npm test starts: run the tests through `npm test` (or `npm run test:repeat`), which sets REELSHELF_TEST_POSTGRES_URL',
    );
  }
  return new URL(raw);
}

/** Runs one statement as the cluster's superuser (synchronously: call sites build env objects). */
function adminSql(statement: string): { ok: boolean; stderr: string } {
  const psql = process.env.REELSHELF_TEST_POSTGRES_PSQL ?? 'psql';
  const res = spawnSync(psql, ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', adminUrl().href, '-c', statement], {
    encoding: 'utf8',
  });
  return { ok: res.status === 0, stderr: res.stderr ?? String(res.error) };
}

const made = new Set<string>();

/** Makes (once) the database named `name` from the template and returns its URL. */
function postgresDatabase(name: string): string {
  if (!made.has(name)) {
    const res = adminSql(`CREATE DATABASE "${name}" TEMPLATE ${TEMPLATE_DATABASE}`);
    if (!res.ok && !/already exists/.test(res.stderr))
      throw new Error(`cannot create ${name}: ${res.stderr}`);
    made.add(name);
  }
  const url = adminUrl();
  url.pathname = `/${name}`;
  return url.href;
}

/** Drops a database made here (a server's close): its connections are ended first. */
export function dropTestDatabase(url: string): void {
  if (!url.startsWith('postgres')) return;
  const name = new URL(url).pathname.slice(1);
  made.delete(name);
  adminSql(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
}

/**
 * The database URL of a data dir: SQLite's file in it, or the PostgreSQL database named after it
 * (the same name from every process, so a CLI a test spawns on the data dir meets the server's rows).
 */
export function testDatabaseUrl(dataDir: string): string {
  if (testEngine === 'sqlite') return `sqlite:${join(dataDir, 'reelshelf.sqlite')}`;
  const name = `t_${createHash('sha256').update(dataDir).digest('hex').slice(0, 24)}`;
  return postgresDatabase(name);
}

/** The environment a server or CLI process on `dataDir` needs for the engine under test. */
export function testDatabaseEnv(dataDir: string): Record<string, string> {
  return testEngine === 'sqlite' ? {} : { REELSHELF_DATABASE_URL: testDatabaseUrl(dataDir) };
}

/** A fresh, migrated, empty database of the engine under test (SQLite in memory). */
export async function openTestDatabase(): Promise<OpenedDatabase & { url: string }> {
  const url =
    testEngine === 'sqlite' ? 'sqlite::memory:' : postgresDatabase(`t_${randomBytes(12).toString('hex')}`);
  const opened = await openDatabase(url, { pool: 4 });
  return {
    ...opened,
    url,
    async close() {
      await opened.close();
      dropTestDatabase(url);
    },
  };
}
