import { type Insertable, type InsertQueryBuilder, type InsertResult, sql } from 'kysely';
import type { Db } from './database.ts';
import type { Database } from './schema.ts';
import { sqlEngineOf } from './sql-engine.ts';

/** A value the JSON path carries exactly as the parameter path would. */
type Plain = string | number | null;

/**
 * An INSERT of many rows of `table` (chain `.returning(…)` / `.execute()` as on `insertInto`).
 *
 * SQLite: a multi-row `VALUES`. PostgreSQL: the same rows as one JSON parameter,
 * `INSERT … SELECT <columns> FROM json_populate_recordset(NULL::<table>, $1::json)` — the table's
 * own row type gives each column its type. A 500-row `VALUES` of 19 columns is 9,500 parameters that
 * Kysely builds, the driver binds and the server parses and plans one by one: an import of 10,000
 * movies spent ~2× SQLite's write time there (docs/database.md). Rows the JSON could carry
 * differently from the parameters (not all the same columns, an `undefined`, a value other than a
 * string, a finite number or null, a lone UTF-16 surrogate) take the `VALUES` path on both engines.
 */
export function insertRows<T extends keyof Database & string>(
  db: Db,
  table: T,
  rows: readonly Insertable<Database[T]>[],
): InsertQueryBuilder<Database, T, InsertResult> {
  const insert = db.insertInto(table);
  const records = sqlEngineOf(db) === 'postgres' ? asRecordset(rows) : null;
  if (records === null) return insert.values(rows);
  const columns = records.columns as (keyof Database[T] & string)[];
  return insert
    .columns(columns)
    .expression(
      sql`SELECT ${sql.join(columns.map((c) => sql.ref(c)))} FROM json_populate_recordset(NULL::${sql.table(table)}, ${records.json}::json)`,
    );
}

/**
 * The rows as one JSON array and their columns, or null when the JSON path would not insert exactly
 * what `VALUES` does: rows of other columns (a missing column takes its default in `VALUES`, null
 * in a recordset), `undefined` (left out by Kysely), booleans, bigints, non-finite numbers (bound
 * as text by the driver, `NaN` would be `null` in JSON), and lone surrogates (the driver's UTF-8
 * writes U+FFFD, PostgreSQL's JSON refuses the `\ud800` escape).
 */
export function asRecordset(rows: readonly object[]): { columns: string[]; json: string } | null {
  const first = rows[0];
  if (first === undefined) return null;
  const columns = Object.keys(first);
  // for…in, not Object.keys/values: no arrays made per row (30,000 rows an import).
  for (const row of rows as readonly Record<string, unknown>[]) {
    let at = 0;
    for (const key in row) {
      if (key !== columns[at] || !isPlain(row[key])) return null;
      at++;
    }
    if (at !== columns.length) return null;
  }
  const json = JSON.stringify(rows);
  // JSON.stringify writes a lone surrogate as a `\udXXX` escape (a pair stays raw); a literal
  // backslash before such text is `\\` and may match too: that row set just takes `VALUES`.
  if (/\\ud[89a-f]/i.test(json)) return null;
  return { columns, json };
}

function isPlain(value: unknown): value is Plain {
  return value === null || typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}
