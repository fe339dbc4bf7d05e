import { type DataTypeNode, Kysely, Migrator, OperationNodeTransformer, PostgresDialect } from 'kysely';
import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';
import pg from 'pg';
import { registerChangeFeed } from './change-feed.ts';
import type { OpenedDatabase, OpenOptions } from './opened-database.ts';
import { migrationsFor } from './migrations/index.ts';
import { installChangeCapture } from './postgres-change-capture.ts';
import { PostgresChangeFeed } from './postgres-change-feed.ts';
import { preparingPool } from './prepared-statements.ts';
import type { Database } from './schema.ts';

/** pg's type ids: int8 (count(*), bigint columns) and numeric (sums) arrive as strings by default. */
const INT8 = 20;
const NUMERIC = 1700;

/**
 * The same values on both engines: whole numbers (ids, sizes, mtimes, counts) as JS numbers (every
 * one is far below 2^53), not strings.
 */
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) => {
    if (oid === INT8 || oid === NUMERIC) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format as 'text');
  }) as pg.CustomTypesConfig['getTypeParser'],
};

/**
 * Every `text` column the migrations create is `COLLATE "C"` on PostgreSQL: byte order, the order of
 * SQLite's BINARY collation, so titles sort alike on both engines (and as the listing's JS mirror of
 * that order expects, domain/library-listing/sqlite-order.ts), whatever the database's locale.
 */
class TextInByteOrder extends OperationNodeTransformer {
  protected override transformDataType(node: DataTypeNode): DataTypeNode {
    return node.dataType === 'text'
      ? { ...node, dataType: 'text collate "C"' as DataTypeNode['dataType'] }
      : node;
  }
}

class TextInByteOrderPlugin implements KyselyPlugin {
  private readonly transformer = new TextInByteOrder();
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return this.transformer.transformNode(args.node);
  }
  transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return Promise.resolve(args.result);
  }
}

/**
 * Opens a PostgreSQL database: a pool of `options.pool` connections (each waits at most 10 s for a
 * free one, never forever), the numbered migrations (Kysely takes an advisory lock, so nodes that
 * start at once migrate one at a time), the change triggers and this process's listener.
 */
export async function openPostgresDatabase(url: string, options: OpenOptions): Promise<OpenedDatabase> {
  const pool = new pg.Pool({
    connectionString: url,
    // No JIT: it compiles a query whose estimated cost passes jit_above_cost, ~100–200 ms of
    // compiling for a search or listing query that runs in a few (a bad estimate is enough).
    // random_page_cost 1.1 (default 4, for spinning disks): a library's tables are in memory, and at
    // 4 the planner hashes a whole table for a page's 200 credits (a seq scan of 20,000 persons)
    // where 200 index lookups take a tenth of the time.
    options: '-c jit=off -c random_page_cost=1.1',
    max: options.pool ?? 10,
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    types,
  });
  // An idle pooled connection that the server ends (a restart) must not crash the process.
  pool.on('error', () => {});
  // Nor one a request holds: the pool listens only to idle ones, and a session the server ends while
  // it is checked out (a restart, or an HLS owner frozen inside its announcement, ended by
  // idle_in_transaction_session_timeout) emits 'error' at once. Its holder gets the error at its
  // next statement, and the pool drops the connection when it is given back.
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: preparingPool(pool) }) });
  const fail = async (reason: string): Promise<never> => {
    await db.destroy();
    throw new Error(reason);
  };
  try {
    await pool.query('select 1');
  } catch (error) {
    return fail(`cannot reach PostgreSQL: ${error instanceof Error ? error.message : String(error)}`);
  }
  const migrator = new Migrator({
    db: db.withPlugin(new TextInByteOrderPlugin()),
    provider: { getMigrations: async () => migrationsFor('postgres') },
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error !== undefined || failed !== undefined) {
    const reason = error instanceof Error ? error.message : String(error ?? failed?.migrationName);
    return fail(`database migration failed: ${reason}`);
  }
  await installChangeCapture(db as unknown as Kysely<unknown>);
  const changes = new PostgresChangeFeed({ connectionString: url, types });
  try {
    await changes.start();
  } catch (cause) {
    return fail(`cannot listen for changes: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
  registerChangeFeed(db, changes);
  let closed = false;
  return {
    db,
    engine: 'postgres',
    changes,
    async close() {
      if (closed) return;
      closed = true;
      await changes.close();
      await db.destroy();
    },
  };
}
