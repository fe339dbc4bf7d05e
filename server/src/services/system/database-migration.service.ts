import {
  type CopyPlan,
  type SourceTable,
  type TableCopy,
  type TargetTable,
  identityHighWater,
  occupiedTables,
  planCopy,
} from '../../domain/database-copy/copy-plan.ts';
import { TableChecksum } from '../../domain/database-copy/table-checksum.ts';

/** A row as the ports hand it over: the plan's columns, in its order. */
export type RowValues = unknown[];

/** Reads a table in key order, a batch at a time (a table is never loaded whole). */
export interface TableReader {
  /** Up to `limit` rows whose key comes after `after` (null: from the first), in key order. */
  readBatch(table: TableCopy, after: readonly unknown[] | null, limit: number): Promise<RowValues[]>;
}

/** The library being moved (SQLite). */
export interface CopySource {
  describe(): Promise<SourceTable[]>;
  /** Runs `work` on one consistent snapshot (a read transaction): a server writing meanwhile is not seen. */
  snapshot<T>(work: (reader: SourceSnapshot) => Promise<T>): Promise<T>;
}

export interface SourceSnapshot extends TableReader {
  countRows(table: string): Promise<number>;
  /** The highest id each AUTOINCREMENT table ever handed out (deleted rows included). */
  highestIds(): Promise<Map<string, number>>;
}

/** The database the library moves into (PostgreSQL, already migrated to the same schema). */
export interface CopyTarget {
  describe(): Promise<{ tables: TargetTable[]; encoding: string }>;
  /** Rows per table (counted up to a cap: only "empty or not" and a rough size matter). */
  rowCounts(): Promise<Map<string, number>>;
  /** Rows the migrations themselves put in a fresh database (the first admin), per table. */
  seededRows(): Promise<Map<string, number>>;
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (writer: TargetWriter) => Promise<T>): Promise<T>;
}

export interface TargetWriter extends TableReader {
  /** Removes the migrations' seeded rows from these tables (parents first): the source brings its own. */
  removeSeededRows(tables: readonly string[]): Promise<void>;
  insertRows(table: TableCopy, rows: readonly RowValues[]): Promise<void>;
  /** Identity (or serial) columns per table. */
  identityColumns(): Promise<Map<string, string>>;
  /** The highest value of `column`, or null for an empty table. */
  maxValue(table: string, column: string): Promise<number | null>;
  /** Sets the column's sequence so that the next id is `highWater + 1` (null: 1). */
  advanceIdentity(table: string, column: string, highWater: number | null): Promise<void>;
  /** Runs `reelshelf_rebuild_search()` when the target has it; says whether it did. */
  rebuildSearch(): Promise<boolean>;
}

export interface TableResult {
  table: string;
  rows: number;
  sha256: string;
  /** The next id the target hands out, for tables with an identity column. */
  nextId: number | null;
}

export interface MigrationReport {
  tables: TableResult[];
  skipped: string[];
  searchRebuilt: boolean;
}

export interface MigrationProgress {
  phase: 'copying' | 'verifying';
  done: number;
  total: number;
}

/** Why a migration did not start or did not commit; the target holds nothing of it. */
export class DatabaseMigrationError extends Error {
  override name = 'DatabaseMigrationError';
  constructor(
    readonly reason: 'schema_mismatch' | 'target_not_empty' | 'target_encoding' | 'checksum_mismatch',
    message: string,
    readonly hint: string,
  ) {
    super(message);
  }
}

/** Rows per batch: within PostgreSQL's 65,535 bind parameters per statement, whatever the table's width. */
function batchRows(table: TableCopy, preferred: number): number {
  return Math.max(1, Math.min(preferred, Math.floor(30_000 / Math.max(1, table.columns.length))));
}

/**
 * `reelshelf migrate-database`: copies every table of a SQLite library into an empty PostgreSQL
 * database in one transaction (ids kept, identity sequences advanced), then reads every copied table
 * back and compares its row count and content checksum with the source's; any difference rolls the
 * whole copy back.
 */
export class DatabaseMigrationService {
  private readonly batchSize: number;

  constructor(
    private readonly source: CopySource,
    private readonly target: CopyTarget,
    options: { batchSize?: number } = {},
  ) {
    this.batchSize = options.batchSize ?? 1000;
  }

  /** Checks that the target can take the library: the plan, or why not (nothing written). */
  async check(): Promise<Extract<CopyPlan, { ok: true }>> {
    const [sourceTables, target] = await Promise.all([this.source.describe(), this.target.describe()]);
    if (target.encoding.toUpperCase().replace('-', '') !== 'UTF8') {
      throw new DatabaseMigrationError(
        'target_encoding',
        `the target database's encoding is ${target.encoding}, not UTF8: titles and paths would not survive`,
        'create it with UTF8: createdb --encoding=UTF8 --template=template0 <name>',
      );
    }
    const plan = planCopy(sourceTables, target.tables);
    if (!plan.ok) {
      throw new DatabaseMigrationError(
        'schema_mismatch',
        `the target's schema differs from the library's: ${plan.problems.join('; ')}`,
        'run the same reelshelf version on both databases',
      );
    }
    const occupied = occupiedTables(await this.target.rowCounts(), await this.target.seededRows());
    if (occupied.length > 0) {
      const list = occupied.map((o) => `${o.table} (${o.rows} ${o.rows === 1 ? 'row' : 'rows'})`);
      throw new DatabaseMigrationError(
        'target_not_empty',
        `the target database is not empty: ${list.join(', ')}; nothing was written`,
        'migrate into a new, empty database (createdb <name>), or drop and recreate this one',
      );
    }
    return plan;
  }

  async migrate(onProgress: (p: MigrationProgress) => void = () => {}): Promise<MigrationReport> {
    const plan = await this.check();
    return this.source.snapshot(async (snapshot) => {
      const counts = new Map<string, number>();
      for (const table of plan.tables) counts.set(table.name, await snapshot.countRows(table.name));
      const total = [...counts.values()].reduce((a, b) => a + b, 0);
      const highest = await snapshot.highestIds();
      return this.target.transaction(async (writer) => {
        await writer.removeSeededRows(plan.tables.map((t) => t.name));
        const sums = new Map<string, { rows: number; sha256: string }>();
        let done = 0;
        onProgress({ phase: 'copying', done, total });
        for (const table of plan.tables) {
          const sum = new TableChecksum();
          await this.eachBatch(snapshot, table, async (rows) => {
            await writer.insertRows(table, rows);
            for (const row of rows) sum.add(row);
            done += rows.length;
            onProgress({ phase: 'copying', done, total });
          });
          sums.set(table.name, sum.finish());
        }
        const identities = await writer.identityColumns();
        const nextIds = new Map<string, number>();
        for (const table of plan.tables) {
          const column = identities.get(table.name);
          if (column === undefined) continue;
          const high = identityHighWater(await writer.maxValue(table.name, column), highest.get(table.name));
          await writer.advanceIdentity(table.name, column, high);
          nextIds.set(table.name, (high ?? 0) + 1);
        }
        const searchRebuilt = await writer.rebuildSearch();
        const results = await this.verify(writer, plan.tables, sums, total, onProgress);
        return {
          tables: results.map((r) => ({ ...r, nextId: nextIds.get(r.table) ?? null })),
          skipped: plan.skipped,
          searchRebuilt,
        };
      });
    });
  }

  /** Reads every copied table back from the target and compares it with what was read from the source. */
  private async verify(
    writer: TargetWriter,
    tables: readonly TableCopy[],
    sums: ReadonlyMap<string, { rows: number; sha256: string }>,
    total: number,
    onProgress: (p: MigrationProgress) => void,
  ): Promise<Omit<TableResult, 'nextId'>[]> {
    const results: Omit<TableResult, 'nextId'>[] = [];
    let done = 0;
    onProgress({ phase: 'verifying', done, total });
    for (const table of tables) {
      const sum = new TableChecksum();
      await this.eachBatch(writer, table, async (rows) => {
        for (const row of rows) sum.add(row);
        done += rows.length;
        onProgress({ phase: 'verifying', done, total });
      });
      const copied = sum.finish();
      const read = sums.get(table.name) ?? { rows: 0, sha256: '' };
      if (copied.rows !== read.rows || copied.sha256 !== read.sha256) {
        const what =
          copied.rows !== read.rows
            ? `${read.rows} rows in the library, ${copied.rows} in the target`
            : `the content checksums differ (library ${read.sha256.slice(0, 12)}…, target ${copied.sha256.slice(0, 12)}…)`;
        throw new DatabaseMigrationError(
          'checksum_mismatch',
          `${table.name} did not copy faithfully: ${what}; the target was rolled back and holds nothing`,
          'the library is unchanged; look for triggers or rules on the target that alter rows, and report the table',
        );
      }
      results.push({ table: table.name, ...copied });
    }
    return results;
  }

  /** Walks a table in key order, `batchSize` rows at a time, resuming after the last key read. */
  private async eachBatch(
    reader: TableReader,
    table: TableCopy,
    each: (rows: RowValues[]) => Promise<void>,
  ): Promise<void> {
    const limit = batchRows(table, this.batchSize);
    const keyAt = table.key.map((k) => table.columns.indexOf(k));
    let after: unknown[] | null = null;
    for (;;) {
      const rows = await reader.readBatch(table, after, limit);
      if (rows.length > 0) await each(rows);
      if (rows.length < limit) return;
      const last = rows[rows.length - 1] as RowValues;
      after = keyAt.map((i) => last[i]);
    }
  }
}
