/** Types of scripts/test-postgres.mjs (plain JavaScript: npm test's prelude runs it without tsx). */
export declare const TEST_PG_USER: string;
export interface TestPostgres {
  /** The superuser's URL of the cluster's `postgres` database. */
  url: string;
  /** The folder of the server's binaries (psql, pg_isready…). */
  bin: string;
  dir: string;
  stop(): Promise<void>;
}
export declare function findPostgresBin(): string | null;
export declare function ensurePostgresInstalled(): void;
export declare function startTestPostgres(): Promise<TestPostgres>;
