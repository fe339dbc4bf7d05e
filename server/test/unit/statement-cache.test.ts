import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { withStatementCache } from '../../src/db/statement-cache.ts';

describe('withStatementCache', () => {
  it('prepares a query text once and answers it again with the same statement', () => {
    const sqlite = new BetterSqlite3(':memory:');
    const db = withStatementCache(sqlite);
    const first = db.prepare('SELECT 1 AS one');
    assert.equal(db.prepare('SELECT 1 AS one'), first);
    assert.deepEqual(first.all([]), [{ one: 1 }]);
    sqlite.close();
  });

  it('gives a fresh statement while the kept one is still iterating', () => {
    const sqlite = new BetterSqlite3(':memory:');
    const db = withStatementCache(sqlite);
    const sql = 'SELECT value FROM json_each(?)';
    const outer = db.prepare(sql);
    const seen: unknown[] = [];
    for (const row of outer.iterate(['[1,2]'])) {
      const inner = db.prepare(sql);
      assert.notEqual(inner, outer);
      seen.push(row, inner.all(['[9]']));
    }
    assert.deepEqual(seen, [{ value: 1 }, [{ value: 9 }], { value: 2 }, [{ value: 9 }]]);
    assert.equal(db.prepare(sql), outer, 'the kept one is used again once done');
    sqlite.close();
  });

  it('keeps at most `capacity` statements, dropping the least recently used', () => {
    const sqlite = new BetterSqlite3(':memory:');
    const db = withStatementCache(sqlite, 2);
    const a = db.prepare('SELECT 1');
    const b = db.prepare('SELECT 2');
    assert.equal(db.prepare('SELECT 1'), a, 'a is now the most recent');
    db.prepare('SELECT 3');
    assert.equal(db.prepare('SELECT 1'), a);
    assert.notEqual(db.prepare('SELECT 2'), b, 'b was dropped');
    sqlite.close();
  });

  it('a kept statement still works after the schema changes', () => {
    const sqlite = new BetterSqlite3(':memory:');
    const db = withStatementCache(sqlite);
    sqlite.exec('CREATE TABLE t (a INTEGER)');
    db.prepare('INSERT INTO t (a) VALUES (?)').run([1]);
    const select = db.prepare('SELECT * FROM t');
    assert.deepEqual(select.all([]), [{ a: 1 }]);
    sqlite.exec('ALTER TABLE t ADD COLUMN b TEXT');
    db.prepare('INSERT INTO t (a) VALUES (?)').run([2]);
    assert.deepEqual(db.prepare('SELECT * FROM t').all([]), [
      { a: 1, b: null },
      { a: 2, b: null },
    ]);
    sqlite.close();
  });
});
