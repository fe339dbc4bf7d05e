// A PostgreSQL cluster for tests that need one whatever engine the suite runs on (migrate-database
// copies SQLite into PostgreSQL): the run's cluster when `npm test` started one
// (REELSHELF_TEST_POSTGRES_URL), else a throwaway cluster of this file's own, stopped by `stop()`.
// Every database made here is empty (not from the migrated template) and dropped by `stop()`.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { startTestPostgres, type TestPostgres } from '../../../scripts/test-postgres.mjs';

export interface PostgresForTests {
  /** A new, empty database (no tables); its URL. */
  createDatabase(): Promise<string>;
  /** Runs one statement on a database (superuser). */
  query<R extends pg.QueryResultRow>(url: string, text: string, values?: unknown[]): Promise<R[]>;
  /** Drops the databases made here; stops the cluster when it is this file's own. */
  stop(): Promise<void>;
}

export async function postgresForTests(): Promise<PostgresForTests> {
  const shared = process.env.REELSHELF_TEST_POSTGRES_URL;
  const own: TestPostgres | null = shared === undefined || shared === '' ? await startTestPostgres() : null;
  const adminUrl = own?.url ?? (shared as string);
  const made: string[] = [];
  const run = async <R extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query<R>(text, values)).rows;
    } finally {
      await client.end();
    }
  };
  const urlOf = (name: string) => {
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    return url.href;
  };
  return {
    async createDatabase() {
      const name = `mig_${randomBytes(8).toString('hex')}`;
      await run(adminUrl, `CREATE DATABASE "${name}" TEMPLATE template0 ENCODING 'UTF8'`);
      made.push(name);
      return urlOf(name);
    },
    query: run,
    async stop() {
      if (own !== null) {
        await own.stop();
        return;
      }
      for (const name of made) await run(adminUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
  };
}
