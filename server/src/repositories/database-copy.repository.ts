import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../db/database.ts';
import type { SourceTable, TableCopy, TargetTable } from '../domain/database-copy/copy-plan.ts';

/**
 * The table-level reads and writes of `reelshelf migrate-database` (services/system/
 * database-migration.service.ts): generic over table and column names, which come from the
 * databases' own catalogues, never from input, and are quoted as identifiers all the same.
 */

type Row = Record<string, unknown>;

function columnList(columns: readonly string[]): RawBuilder<unknown> {
  return sql.join(columns.map((c) => sql.ref(c)));
}

/** Reads a table in key order after a key: the same statement on SQLite and PostgreSQL. */
class TableRows {
  constructor(protected readonly db: Db) {}

  async readBatch(table: TableCopy, after: readonly unknown[] | null, limit: number): Promise<unknown[][]> {
    const key = columnList(table.key);
    // Row-value comparison: `(a, b) > (x, y)` is the key order on both engines (text keys in byte
    // order: SQLite's BINARY, the target's COLLATE "C").
    const where = after === null ? sql`` : sql`where (${key}) > (${sql.join([...after])})`;
    const result = await sql<Row>`select ${columnList(table.columns)} from ${sql.table(table.name)}
      ${where} order by ${key} limit ${limit}`.execute(this.db);
    return result.rows.map((row) => table.columns.map((c) => row[c]));
  }
}

/** The SQLite library being moved. */
export class SqliteCopySource {
  constructor(private readonly db: Db) {}

  async describe(): Promise<SourceTable[]> {
    const tables = await sql<{ name: string }>`select name from sqlite_master
      where type = 'table' order by name`.execute(this.db);
    const out: SourceTable[] = [];
    for (const { name } of tables.rows) {
      const columns = await sql<{ name: string; pk: number }>`select name, pk
        from pragma_table_info(${name}) order by cid`.execute(this.db);
      const references = await sql<{ table: string }>`select "table"
        from pragma_foreign_key_list(${name})`.execute(this.db);
      out.push({
        name,
        columns: columns.rows.map((c) => c.name),
        primaryKey: columns.rows
          .filter((c) => c.pk > 0)
          .sort((a, b) => a.pk - b.pk)
          .map((c) => c.name),
        references: [...new Set(references.rows.map((r) => r.table))],
      });
    }
    return out;
  }

  /** One read transaction: every table is read as it was at its first read. */
  snapshot<T>(work: (reader: SqliteSnapshot) => Promise<T>): Promise<T> {
    return this.db.transaction().execute((trx) => work(new SqliteSnapshot(trx)));
  }
}

export class SqliteSnapshot extends TableRows {
  async countRows(table: string): Promise<number> {
    const res = await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(this.db);
    return Number(res.rows[0]?.n ?? 0);
  }

  async highestIds(): Promise<Map<string, number>> {
    const exists = await sql<{ n: number }>`select count(*) as n from sqlite_master
      where type = 'table' and name = 'sqlite_sequence'`.execute(this.db);
    if (Number(exists.rows[0]?.n ?? 0) === 0) return new Map();
    const res = await sql<{ name: string; seq: number }>`select name, seq from sqlite_sequence`.execute(
      this.db,
    );
    return new Map(res.rows.map((r) => [r.name, Number(r.seq)]));
  }
}

/** At most this many rows are counted per table when checking that the target is empty. */
const COUNT_CAP = 1000;

/** The PostgreSQL database the library moves into (migrated by openDatabase before this sees it). */
export class PostgresCopyTarget {
  /**
   * @param freshlyMigrated the database had no table before openDatabase migrated it (adapters/
   * postgres-probe.ts): every row it holds now was put there by the migrations themselves.
   */
  constructor(
    private readonly db: Db,
    private readonly freshlyMigrated: boolean,
  ) {}

  async describe(): Promise<{ tables: TargetTable[]; encoding: string }> {
    const res = await sql<{ table_name: string; column_name: string }>`
      select c.table_name, c.column_name
      from information_schema.columns c
      join information_schema.tables t
        on t.table_schema = c.table_schema and t.table_name = c.table_name and t.table_type = 'BASE TABLE'
      where c.table_schema = current_schema()
      order by c.table_name, c.ordinal_position`.execute(this.db);
    const tables = new Map<string, string[]>();
    for (const r of res.rows) tables.set(r.table_name, [...(tables.get(r.table_name) ?? []), r.column_name]);
    const encoding = await sql<{ server_encoding: string }>`show server_encoding`.execute(this.db);
    return {
      tables: [...tables].map(([name, columns]) => ({ name, columns })),
      encoding: encoding.rows[0]?.server_encoding ?? 'unknown',
    };
  }

  async rowCounts(): Promise<Map<string, number>> {
    const { tables } = await this.describe();
    const out = new Map<string, number>();
    for (const { name } of tables) {
      const res = await sql<{ n: number }>`select count(*) as n
        from (select 1 from ${sql.table(name)} limit ${COUNT_CAP}) capped`.execute(this.db);
      out.set(name, Number(res.rows[0]?.n ?? 0));
    }
    return out;
  }

  /**
   * The rows the migrations put in a new database. A database that had no table before this command
   * migrated it holds nothing else. Otherwise (a database migrated earlier) only the first admin of
   * migration 0006 (`admin`, no password, no PIN) is known to be one: a target holding exactly that
   * row counts as empty.
   */
  async seededRows(): Promise<Map<string, number>> {
    if (this.freshlyMigrated) return this.rowCounts();
    const res = await sql<{ total: number; seed: number }>`select count(*) as total,
        count(*) filter (where name_key = 'admin' and password_hash is null and pin_hash is null) as seed
      from users`.execute(this.db);
    const row = res.rows[0];
    return row !== undefined && Number(row.total) === 1 && Number(row.seed) === 1
      ? new Map([['users', 1]])
      : new Map();
  }

  transaction<T>(work: (writer: PostgresCopyWriter) => Promise<T>): Promise<T> {
    return this.db.transaction().execute((trx) => work(new PostgresCopyWriter(trx, this.freshlyMigrated)));
  }
}

export class PostgresCopyWriter extends TableRows {
  constructor(
    db: Db,
    private readonly freshlyMigrated: boolean,
  ) {
    super(db);
  }

  /** Removes the seeded rows of the tables about to be copied (given parents first; emptied children first). */
  async removeSeededRows(tables: readonly string[]): Promise<void> {
    if (this.freshlyMigrated) {
      for (const table of [...tables].reverse()) await sql`delete from ${sql.table(table)}`.execute(this.db);
      return;
    }
    // Only the lone seeded admin (the emptiness check let nothing else through).
    await sql`delete from users where name_key = 'admin' and password_hash is null and pin_hash is null
      and (select count(*) from users) = 1`.execute(this.db);
  }

  async insertRows(table: TableCopy, rows: readonly unknown[][]): Promise<void> {
    if (rows.length === 0) return;
    const values = sql.join(rows.map((row) => sql`(${sql.join(row)})`));
    await sql`insert into ${sql.table(table.name)} (${columnList(table.columns)}) values ${values}`.execute(
      this.db,
    );
  }

  async identityColumns(): Promise<Map<string, string>> {
    const res = await sql<{ table_name: string; column_name: string }>`
      select table_name, column_name from information_schema.columns
      where table_schema = current_schema()
        and pg_get_serial_sequence(quote_ident(table_name), column_name) is not null`.execute(this.db);
    return new Map(res.rows.map((r) => [r.table_name, r.column_name]));
  }

  async maxValue(table: string, column: string): Promise<number | null> {
    const res = await sql<{ high: number | null }>`select max(${sql.ref(column)}) as high
      from ${sql.table(table)}`.execute(this.db);
    const high = res.rows[0]?.high;
    return high === null || high === undefined ? null : Number(high);
  }

  async advanceIdentity(table: string, column: string, highWater: number | null): Promise<void> {
    const sequence = sql`pg_get_serial_sequence(${`"${table}"`}, ${column})`;
    await (
      highWater === null
        ? sql`select setval(${sequence}, 1, false)`
        : sql`select setval(${sequence}, ${highWater}, true)`
    ).execute(this.db);
  }

  async rebuildSearch(): Promise<boolean> {
    const res = await sql<{ kind: string }>`select p.prokind as kind from pg_proc p
      join pg_namespace n on n.oid = p.pronamespace
      where p.proname = 'reelshelf_rebuild_search' and n.nspname = current_schema()
      order by p.oid limit 1`.execute(this.db);
    const kind = res.rows[0]?.kind;
    if (kind === undefined) return false;
    await (
      kind === 'p' ? sql`call reelshelf_rebuild_search()` : sql`select reelshelf_rebuild_search()`
    ).execute(this.db);
    return true;
  }
}
