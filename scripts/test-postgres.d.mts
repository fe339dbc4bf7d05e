/** A throwaway PostgreSQL cluster (scripts/test-postgres.mjs). */
export interface TestPostgres {
  /** The superuser's URL of the `postgres` database. */
  url: string;
  /** The folder of initdb, postgres, psql… */
  bin: string;
  dir: string;
  stop(): Promise<void>;
}

export const TEST_PG_USER: string;
export function findPostgresBin(): string | null;
export function ensurePostgresInstalled(): void;
export function startTestPostgres(): Promise<TestPostgres>;
export function prepareTestPostgres(
  root: string,
): Promise<{ cluster: TestPostgres; env: Record<string, string> }>;
