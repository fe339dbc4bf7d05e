import { PostgresAdapter } from 'kysely';
import type { Db } from './database.ts';

export type SqlEngine = 'sqlite' | 'postgres';

/**
 * The engine under a Kysely instance or one of its transactions: for the few statements whose SQL
 * differs between SQLite and PostgreSQL (docs/database.md lists them). The adapter is the dialect's
 * own object, shared by a transaction and its database, so no registration can be missed.
 */
export function sqlEngineOf(db: Db): SqlEngine {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}
