import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/**
 * The SQLite handle Kysely is given, with its prepared statements kept (least recently used go first).
 * Kysely's SQLite driver prepares every query anew: compiling the SQL took ~10% of the CPU of a stream
 * request (profiled), and a query's text repeats on every request. A statement still iterating
 * (`busy`: a streamed select) is not shared; the next caller gets a fresh one. Statements survive
 * schema changes (SQLite recompiles them), and the cache is bounded because `IN (?, ?, …)` lists
 * make new texts.
 */
export function withStatementCache(sqlite: BetterSqlite3.Database, capacity = 512): SqliteDatabase {
  const statements = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(sql: string): SqliteStatement {
      const kept = statements.get(sql);
      if (kept !== undefined && !kept.busy) {
        // Most recently used last, so the oldest is the first key.
        statements.delete(sql);
        statements.set(sql, kept);
        return kept;
      }
      const statement = sqlite.prepare(sql);
      if (kept === undefined) {
        statements.set(sql, statement);
        if (statements.size > capacity) {
          const oldest = statements.keys().next().value;
          if (oldest !== undefined) statements.delete(oldest);
        }
      }
      return statement;
    },
  };
}
