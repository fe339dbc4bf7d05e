import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  foreignKeyOrder,
  identityHighWater,
  isDerivedOrEngineTable,
  occupiedTables,
  planCopy,
  type SourceTable,
} from '../../../src/domain/database-copy/copy-plan.ts';
import {
  TableChecksum,
  canonicalRow,
  canonicalValue,
} from '../../../src/domain/database-copy/table-checksum.ts';
import { checkTargetUrl, redactUrl, withoutPassword } from '../../../src/domain/database-copy/target-url.ts';

const table = (name: string, references: string[] = [], columns = ['id', 'x'], primaryKey = ['id']) =>
  ({ name, columns, primaryKey, references }) satisfies SourceTable;

describe('isDerivedOrEngineTable', () => {
  const cases: [string, boolean][] = [
    ['movies', false],
    ['movie_studio', false],
    ['movie_search', true],
    ['movie_search_pending', true],
    ['movie_search_data', true],
    ['sqlite_sequence', true],
    ['sqlite_stat1', true],
    ['kysely_migration', true],
    ['kysely_migration_lock', true],
    ['users', false],
  ];
  for (const [name, skipped] of cases)
    it(`${name} → ${skipped}`, () => assert.equal(isDerivedOrEngineTable(name), skipped));
});

describe('foreignKeyOrder', () => {
  const cases: [string, SourceTable[], string[] | null][] = [
    ['no references: by name', [table('b'), table('a')], ['a', 'b']],
    [
      'parents first',
      [table('copies', ['movies', 'binders']), table('movies', ['binders']), table('binders')],
      ['binders', 'movies', 'copies'],
    ],
    ['a self-reference does not block', [table('nodes', ['nodes'])], ['nodes']],
    ['a reference to a table not copied is ignored', [table('a', ['movie_search'])], ['a']],
    ['a cycle has no order', [table('a', ['b']), table('b', ['a'])], null],
  ];
  for (const [name, tables, expected] of cases)
    it(name, () => assert.deepEqual(foreignKeyOrder(tables), expected));
});

describe('planCopy', () => {
  it('copies every table but the derived ones, in foreign-key order, with their keys', () => {
    const plan = planCopy(
      [
        table('movies'),
        table('movie_search'),
        table('editions', ['movies']),
        table('sqlite_sequence', [], ['name', 'seq'], []),
      ],
      [
        { name: 'movies', columns: ['id', 'x'] },
        { name: 'editions', columns: ['id', 'x', 'extra'] },
      ],
    );
    assert.deepEqual(plan, {
      ok: true,
      tables: [
        { name: 'movies', columns: ['id', 'x'], key: ['id'] },
        { name: 'editions', columns: ['id', 'x'], key: ['id'] },
      ],
      skipped: ['movie_search', 'sqlite_sequence'],
    });
  });
  it('keeps a composite key in key order', () => {
    const plan = planCopy(
      [table('watch_state', [], ['user_id', 'media_file_id', 'position'], ['user_id', 'media_file_id'])],
      [{ name: 'watch_state', columns: ['user_id', 'media_file_id', 'position'] }],
    );
    assert.ok(plan.ok);
    assert.deepEqual(plan.tables[0]?.key, ['user_id', 'media_file_id']);
  });
  const refusals: [string, SourceTable[], { name: string; columns: string[] }[], string[]][] = [
    ['a table the target lacks', [table('movies')], [], ['the target has no table movies']],
    [
      'a column the target lacks',
      [table('movies')],
      [{ name: 'movies', columns: ['id'] }],
      ["the target's movies has no column x"],
    ],
    [
      'no primary key',
      [table('loose', [], ['a'], [])],
      [{ name: 'loose', columns: ['a'] }],
      ['loose has no primary key to read it in order'],
    ],
    [
      'a cycle',
      [table('a', ['b']), table('b', ['a'])],
      [
        { name: 'a', columns: ['id', 'x'] },
        { name: 'b', columns: ['id', 'x'] },
      ],
      ['the foreign keys form a cycle: no table can go first'],
    ],
  ];
  for (const [name, source, target, problems] of refusals) {
    it(`refuses ${name}`, () => assert.deepEqual(planCopy(source, target), { ok: false, problems }));
  }
});

describe('occupiedTables', () => {
  const seeded = new Map([['users', 1]]);
  const cases: [string, [string, number][], Map<string, number>, { table: string; rows: number }[]][] = [
    [
      'a fresh database',
      [
        ['movies', 0],
        ['users', 1],
      ],
      seeded,
      [],
    ],
    [
      'no seed at all',
      [
        ['movies', 0],
        ['users', 0],
      ],
      seeded,
      [],
    ],
    ['a second person', [['users', 2]], seeded, [{ table: 'users', rows: 2 }]],
    ['a person who is not the seed', [['users', 1]], new Map(), [{ table: 'users', rows: 1 }]],
    [
      'rows anywhere, named in order',
      [
        ['movies', 3],
        ['binders', 1],
        ['kysely_migration', 8],
        ['movie_search', 3],
      ],
      seeded,
      [
        { table: 'binders', rows: 1 },
        { table: 'movies', rows: 3 },
      ],
    ],
  ];
  for (const [name, rows, seeds, expected] of cases) {
    it(name, () => assert.deepEqual(occupiedTables(new Map(rows), seeds), expected));
  }
});

describe('identityHighWater', () => {
  const cases: [number | null, number | undefined, number | null][] = [
    [null, undefined, null],
    [5, undefined, 5],
    [5, 9, 9], // rows 6–9 were deleted in the library: never handed out again
    [12, 9, 12],
    [null, 4, 4],
    [0, 0, null],
  ];
  for (const [max, seq, expected] of cases) {
    it(`max ${max}, sqlite_sequence ${seq} → ${expected}`, () =>
      assert.equal(identityHighWater(max, seq), expected));
  }
});

describe('canonicalValue: the same data gives the same token, whatever the engine hands over', () => {
  const cases: [unknown, string][] = [
    [null, 'null'],
    [undefined, 'null'],
    [1, 'i:1'],
    [1n, 'i:1'],
    [true, 'i:1'],
    [false, 'i:0'],
    [-0, 'i:0'],
    [1.0, 'i:1'],
    [1.5, 'r:1.5'],
    [1e21, 'i:1e+21'],
    [1700000000123, 'i:1700000000123'],
    ['x', 't:"x"'],
    ['1', 't:"1"'],
    ['', 't:""'],
    ['a,b\nc"', 't:"a,b\\nc\\""'],
    ['Amélie', 't:"Amélie"'],
    [Buffer.from([0, 255]), 'b:00ff'],
    [new Uint8Array([1, 2]), 'b:0102'],
    [new Date('2024-01-02T03:04:05.000Z'), 't:"2024-01-02T03:04:05.000Z"'],
  ];
  for (const [value, token] of cases) {
    it(`${String(value)} (${typeof value}) → ${token}`, () => assert.equal(canonicalValue(value), token));
  }
});

describe('TableChecksum', () => {
  const sum = (rows: unknown[][]) => {
    const s = new TableChecksum();
    for (const r of rows) s.add(r);
    return s.finish();
  };
  it('is the same for the same rows however each engine types them', () => {
    assert.deepEqual(
      sum([
        [1, 'x', null],
        [2, 'y', 3],
      ]),
      sum([
        [1n, 'x', null],
        [2, 'y', 3n],
      ]),
    );
  });
  it('sees a changed value, a value of another kind, a missing or extra row and another order', () => {
    const base = sum([
      [1, 'x'],
      [2, 'y'],
    ]);
    for (const other of [
      [
        [1, 'x'],
        [2, 'Y'],
      ],
      [
        ['1', 'x'],
        [2, 'y'],
      ],
      [[1, 'x']],
      [
        [1, 'x'],
        [2, 'y'],
        [3, 'z'],
      ],
      [
        [2, 'y'],
        [1, 'x'],
      ],
      [[1, 'x,2'], ['y']],
    ]) {
      assert.notEqual(sum(other).sha256, base.sha256, JSON.stringify(other));
    }
    assert.equal(base.rows, 2);
  });
  it('an empty table has the digest of nothing', () => {
    assert.deepEqual(sum([]), {
      rows: 0,
      sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    });
  });
  it('a row is one line', () => assert.equal(canonicalRow([1, 'a', null]), 'i:1,t:"a",null\n'));
});

describe('checkTargetUrl', () => {
  const refused: [string | undefined, RegExp][] = [
    [undefined, /needs --to/],
    ['', /needs --to/],
    ['sqlite:/tmp/x.sqlite', /not a PostgreSQL URL/],
    ['mysql://u:secret@h/db', /not a PostgreSQL URL/],
    ['postgres://u:secret@h', /names no database/],
    ['postgres://u:secret@h/', /names no database/],
    ['postgres://u:secret@/db', /not a valid URL/],
    ['postgres://u:secret@:5432/db', /not a valid URL|names no host/],
  ];
  for (const [raw, message] of refused) {
    it(`refuses ${String(raw)}`, () => {
      const check = checkTargetUrl(raw);
      assert.equal(check.ok, false);
      if (check.ok) return;
      assert.match(check.message, message);
      assert.ok(!`${check.message} ${check.hint}`.includes('secret'), 'the password is never shown');
    });
  }
  it('accepts postgres:// and postgresql://, shown without the password', () => {
    assert.deepEqual(checkTargetUrl('postgres://u:s3cret@db.lan:5432/reelshelf'), {
      ok: true,
      url: 'postgres://u:s3cret@db.lan:5432/reelshelf',
      shown: 'postgres://u:***@db.lan:5432/reelshelf',
    });
    assert.equal(checkTargetUrl('postgresql://u@db/reelshelf').ok, true);
  });
});

describe('redactUrl and withoutPassword', () => {
  const cases: [string, string][] = [
    ['postgres://u:pw@h/db', 'postgres://u:***@h/db'],
    ['postgres://u@h/db', 'postgres://u@h/db'],
    ['not a url://u:pw@x', 'not a url://…'],
  ];
  for (const [raw, shown] of cases) it(`${raw} → ${shown}`, () => assert.equal(redactUrl(raw), shown));
  it('removes the password, as written and decoded, from a message', () => {
    const url = 'postgres://u:p%40ss@h/db';
    assert.equal(
      withoutPassword(`failed for ${url} with p@ss and p%40ss`, url),
      'failed for postgres://u:***@h/db with *** and ***',
    );
    assert.equal(withoutPassword('no secret here', 'postgres://u@h/db'), 'no secret here');
  });
});
