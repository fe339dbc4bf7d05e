// Named prepared statements on PostgreSQL for the statements a request waits on most (a search page,
// a scope's listing rows). PostgreSQL plans every unnamed statement anew: 2–3 ms of planning for the
// search CTE or the listing's one statement, where running it takes 0.4–2 ms (measured at 10,000
// movies). A named statement is parsed once per connection, and after five executions PostgreSQL
// keeps a generic plan when it costs no more than the custom ones (plan_cache_mode auto).
//
// Opt-in, not every statement: a generic plan is a risk for a query over skewed values (job states),
// and `IN ($1, …, $n)` lists would make a name per length. A statement opts in by ending with
// PREPARED_MARK (Kysely: `.modifyEnd(preparedMark)`, or `${preparedMark}` at the end of a `sql`
// template); SQLite ignores the comment (its statements are kept anyway, db/statement-cache.ts).
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type pg from 'pg';

export const PREPARED_MARK = '/* reelshelf:prepared */';

/** What a statement ends with to be prepared on PostgreSQL. */
export const preparedMark = sql.raw(PREPARED_MARK);

/** Named statements one connection keeps at most (a search has one text per number of words). */
export const PREPARED_PER_CONNECTION = 200;

/** What is known of a connection's named statements. */
export interface Prepared {
  names: Set<string>;
  /** Names PostgreSQL refused to run again (a migration changed a table under them). */
  refused: Set<string>;
}

const preparedOf = new WeakMap<pg.PoolClient, Prepared>();

/** The statement name of a text: the same on every connection and node. */
export function statementName(text: string): string {
  return `rs_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
}

/**
 * How to run `text` on a connection that holds `prepared`: by name when it opts in and the
 * connection may keep one more (or has it), unnamed otherwise.
 */
export function statementFor(text: string, prepared: Prepared): { name: string } | null {
  if (!text.endsWith(PREPARED_MARK)) return null;
  const name = statementName(text);
  if (prepared.refused.has(name)) return null;
  if (prepared.names.has(name)) return { name };
  if (prepared.names.size >= PREPARED_PER_CONNECTION) return null;
  return { name };
}

/**
 * PostgreSQL's "cached plan must not change result type": a migration run by another node (a
 * rolling upgrade) changed the columns a kept statement returns. The statement is run unnamed.
 */
function planChangedUnder(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  return e !== null && e.code === '0A000' && String(e.message).includes('cached plan');
}

function withNamedStatements(client: pg.PoolClient): PostgresPoolClient {
  let prepared = preparedOf.get(client);
  if (prepared === undefined) {
    prepared = { names: new Set(), refused: new Set() };
    preparedOf.set(client, prepared);
  }
  const kept = prepared;
  function query<R>(sqlText: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  function query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  function query<R>(
    first: string | PostgresCursor<R>,
    parameters?: ReadonlyArray<unknown>,
  ): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    if (typeof first !== 'string') {
      return client.query(first as unknown as pg.Submittable) as unknown as PostgresCursor<R>;
    }
    const values = [...(parameters ?? [])];
    const named = statementFor(first, kept);
    if (named === null) return client.query(first, values) as unknown as Promise<PostgresQueryResult<R>>;
    kept.names.add(named.name);
    const run = client.query({ name: named.name, text: first, values }) as unknown as Promise<
      PostgresQueryResult<R>
    >;
    return run.catch((error: unknown) => {
      if (!planChangedUnder(error)) throw error;
      kept.refused.add(named.name);
      return client.query(first, values) as unknown as Promise<PostgresQueryResult<R>>;
    });
  }
  return { query, release: () => client.release() };
}

/** The pool Kysely is given: pg's, whose connections run opted-in statements by name. */
export function poolWithNamedStatements(pool: pg.Pool): PostgresPool {
  return {
    connect: async () => withNamedStatements(await pool.connect()),
    end: () => pool.end(),
  };
}
