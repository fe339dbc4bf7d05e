/**
 * @module database-copy/table-checksum
 * The content checksum `migrate-database` computes per table on both sides: SHA-256 over the rows in
 * primary-key order, each row serialised canonically. Values are normalised by kind, not by how an
 * engine or a driver hands them over, so the same data gives the same checksum on SQLite and
 * PostgreSQL (an integer 1 read as a number, a bigint or a boolean true is `i:1`; a text is its JSON
 * string), while a changed value, a value of another kind ('1' against 1), a lost or an extra row
 * changes it.
 */
import { createHash, type Hash } from 'node:crypto';

/**
 * One value as a canonical token: `null`, `i:<integer>`, `r:<shortest round-trip decimal>`,
 * `t:<JSON string>`, `b:<hex>` (bytes) or, for a Date, the text of its ISO form.
 */
export function canonicalValue(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'boolean') return value ? 'i:1' : 'i:0';
  if (typeof value === 'bigint') return `i:${value.toString()}`;
  if (typeof value === 'number') {
    if (Number.isInteger(value)) return `i:${Object.is(value, -0) ? '0' : value.toFixed(0)}`;
    return `r:${String(value)}`;
  }
  if (typeof value === 'string') return `t:${JSON.stringify(value)}`;
  if (value instanceof Date) return `t:${JSON.stringify(value.toISOString())}`;
  if (value instanceof Uint8Array) return `b:${Buffer.from(value).toString('hex')}`;
  // Anything else (a JSON column a driver parsed) as its JSON, so it still compares by content.
  return `j:${JSON.stringify(value)}`;
}

/** One row, its values in the plan's column order, as one line. */
export function canonicalRow(values: readonly unknown[]): string {
  return `${values.map(canonicalValue).join(',')}\n`;
}

/** Row count and SHA-256 of one table, fed row by row (a table is never held whole). */
export class TableChecksum {
  private readonly hash: Hash = createHash('sha256');
  private count = 0;

  add(values: readonly unknown[]): void {
    this.hash.update(canonicalRow(values));
    this.count++;
  }

  /** The count and the hex digest; call once, when every row is in. */
  finish(): { rows: number; sha256: string } {
    return { rows: this.count, sha256: this.hash.digest('hex') };
  }
}
