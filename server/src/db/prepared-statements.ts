import { createHash } from 'node:crypto';
import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type pg from 'pg';

/**
 * A statement whose SQL starts with this comment is a named (prepared) statement on PostgreSQL:
 * parsed once per connection, and after PostgreSQL's first five custom plans planned once too when
 * its generic plan is no dearer.
 * For hot statements whose parsing and planning cost more than running them: the listing's
 * presentation rows of a few movies (a rebuild after one change) spent ~0.5–2 ms of server time in
 * parse and bind against ~0.2 ms of execution (docs/database.md). Only for texts that are few
 * (each stays prepared on every pooled connection) and whose result columns never change with the
 * schema (a prepared statement's result type is fixed at its first parse). SQLite ignores the
 * comment (its statement cache keeps every text prepared already).
 */
export const PREPARED = '/* prepared */ ';

/** The statement's name on every connection: one per text (pg refuses a name reused for another text). */
export function preparedName(text: string): string {
  return `reelshelf_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
}

/**
 * The pool Kysely is given: pg's, whose clients run {@link PREPARED} texts as named statements. Each
 * client keeps one wrapper (Kysely keys its connections by the client object it is handed).
 */
export function preparingPool(pool: pg.Pool): PostgresPool {
  const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  return {
    async connect() {
      const client = await pool.connect();
      let wrapper = wrappers.get(client);
      if (wrapper === undefined) {
        wrapper = new PreparingClient(client);
        wrappers.set(client, wrapper);
      }
      return wrapper;
    },
    end: () => pool.end(),
  };
}

class PreparingClient implements PostgresPoolClient {
  constructor(private readonly client: pg.PoolClient) {}

  query<R>(sql: string, parameters: readonly unknown[]): Promise<PostgresQueryResult<R>>;
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  query<R>(
    sqlOrCursor: string | PostgresCursor<R>,
    parameters: readonly unknown[] = [],
  ): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    const client = this.client as unknown as PostgresPoolClient;
    if (typeof sqlOrCursor !== 'string') return client.query(sqlOrCursor);
    if (!sqlOrCursor.startsWith(PREPARED)) return client.query<R>(sqlOrCursor, parameters);
    const config: pg.QueryConfig<unknown[]> = {
      name: preparedName(sqlOrCursor),
      text: sqlOrCursor,
      values: [...parameters],
    };
    return this.client.query(config) as unknown as Promise<PostgresQueryResult<R>>;
  }

  release(): void {
    this.client.release();
  }
}
