/**
 * @module database-copy/copy-plan
 * Which tables `reelshelf migrate-database` copies, in which order, and whether the target may take
 * them: pure decisions over the two databases' descriptions (docs/database.md, "Moving a library to
 * PostgreSQL").
 */

/** A table as the source (SQLite) describes it. */
export interface SourceTable {
  name: string;
  /** Column names in declaration order. */
  columns: readonly string[];
  /** Primary-key columns in key order (empty: none). */
  primaryKey: readonly string[];
  /** Tables its foreign keys point at (itself included when it does). */
  references: readonly string[];
}

/** A table as the target (PostgreSQL) describes it. */
export interface TargetTable {
  name: string;
  columns: readonly string[];
}

/** One table to copy: the columns written (and checksummed) in this order, read in `key` order. */
export interface TableCopy {
  name: string;
  columns: readonly string[];
  key: readonly string[];
}

export type CopyPlan =
  { ok: true; tables: TableCopy[]; skipped: string[] } | { ok: false; problems: string[] };

/**
 * Tables that are not library data: SQLite's own (`sqlite_sequence`, `sqlite_stat1`), Kysely's
 * migration bookkeeping (each database keeps its own), and the full-text index with its shadow and
 * pending tables (FTS5 on SQLite, rebuilt from the movies on the target).
 */
export function isDerivedOrEngineTable(name: string): boolean {
  return (
    name.startsWith('sqlite_') ||
    name === 'kysely_migration' ||
    name === 'kysely_migration_lock' ||
    name === 'movie_search' ||
    name.startsWith('movie_search_')
  );
}

/**
 * Orders the tables so that every table comes after the tables its foreign keys point at (ties by
 * name, so the order is the same on every run); a self-reference does not count. Null when the
 * references form a cycle (no order can satisfy it without deferring constraints).
 */
export function foreignKeyOrder(tables: readonly SourceTable[]): string[] | null {
  const names = new Set(tables.map((t) => t.name));
  const waitingOn = new Map<string, Set<string>>();
  for (const t of tables) {
    waitingOn.set(t.name, new Set(t.references.filter((r) => r !== t.name && names.has(r))));
  }
  const order: string[] = [];
  while (waitingOn.size > 0) {
    const ready = [...waitingOn].filter(([, deps]) => deps.size === 0).map(([name]) => name);
    if (ready.length === 0) return null;
    ready.sort();
    for (const name of ready) {
      order.push(name);
      waitingOn.delete(name);
    }
    for (const deps of waitingOn.values()) for (const name of ready) deps.delete(name);
  }
  return order;
}

/**
 * The copy plan: every source table but the derived and engine ones, in foreign-key order, each
 * checked against the target (the same schema, since both are migrated by the same code: a missing
 * table or column means the two programs differ, and nothing is copied).
 */
export function planCopy(source: readonly SourceTable[], target: readonly TargetTable[]): CopyPlan {
  const skipped = source.filter((t) => isDerivedOrEngineTable(t.name)).map((t) => t.name);
  const copied = source.filter((t) => !isDerivedOrEngineTable(t.name));
  const targetColumns = new Map(target.map((t) => [t.name, new Set(t.columns)]));
  const problems: string[] = [];
  for (const table of copied) {
    const columns = targetColumns.get(table.name);
    if (columns === undefined) {
      problems.push(`the target has no table ${table.name}`);
      continue;
    }
    const missing = table.columns.filter((c) => !columns.has(c));
    if (missing.length > 0) problems.push(`the target's ${table.name} has no column ${missing.join(', ')}`);
    if (table.primaryKey.length === 0) problems.push(`${table.name} has no primary key to read it in order`);
  }
  const order = foreignKeyOrder(copied);
  if (order === null) problems.push('the foreign keys form a cycle: no table can go first');
  if (problems.length > 0 || order === null) return { ok: false, problems };
  const byName = new Map(copied.map((t) => [t.name, t]));
  const tables = order.map((name) => {
    const t = byName.get(name) as SourceTable;
    return { name, columns: [...t.columns], key: [...t.primaryKey] };
  });
  return { ok: true, tables, skipped: skipped.sort() };
}

/** A table of the target that already holds rows of its own. */
export interface OccupiedTable {
  table: string;
  rows: number;
}

/**
 * The target tables that hold rows beyond those its migrations seed (`seeded`: rows per table that a
 * freshly migrated database has, e.g. the first admin), derived and engine tables aside. Empty: the
 * target may be written.
 */
export function occupiedTables(
  rows: ReadonlyMap<string, number>,
  seeded: ReadonlyMap<string, number>,
): OccupiedTable[] {
  const out: OccupiedTable[] = [];
  for (const [table, count] of [...rows].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (isDerivedOrEngineTable(table)) continue;
    const own = count - (seeded.get(table) ?? 0);
    if (own > 0) out.push({ table, rows: count });
  }
  return out;
}

/**
 * The value an identity sequence is set to after the copy: the highest id the target now holds, or
 * the highest the source ever handed out (SQLite's AUTOINCREMENT never reuses the id of a deleted
 * row, and neither should the target), whichever is larger; null when neither exists (the sequence
 * then starts at 1).
 */
export function identityHighWater(maxId: number | null, sourceHighest: number | undefined): number | null {
  const high = Math.max(maxId ?? 0, sourceHighest ?? 0);
  return high > 0 ? high : null;
}
