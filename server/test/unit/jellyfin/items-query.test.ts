import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  itemOrder,
  mergeOrdered,
  pageOf,
  parseItemsQuery,
  queryValues,
  sortItems,
} from '../../../src/domain/jellyfin/items-query.ts';

describe('jellyfin items query', () => {
  it('reads keys in any case, arrays as A,B or repeated', () => {
    const cases: [Record<string, unknown>, string[]][] = [
      [{ Fields: 'Genres,Overview' }, ['Genres', 'Overview']],
      [{ fields: ['Genres', 'Overview'] }, ['Genres', 'Overview']],
      [{ FIELDS: 'Genres', fields: 'Overview' }, ['Genres', 'Overview']],
      [{ Fields: ' , ' }, []],
      [{}, []],
    ];
    for (const [raw, expected] of cases)
      assert.deepEqual(queryValues(raw, 'Fields'), expected, JSON.stringify(raw));
  });

  it('parses paging, order, sort keys and refuses bad numbers', () => {
    const ok = parseItemsQuery({
      startindex: '2',
      LIMIT: '5',
      sortBy: 'DateCreated,Bogus,sortname',
      SortOrder: 'Descending',
      Recursive: 'TRUE',
      ParentId: 'AB-CD',
    });
    assert.ok(ok.ok);
    assert.deepEqual(ok.query.sortBy, ['DateCreated', 'SortName']);
    assert.equal(ok.query.descending, true);
    assert.equal(ok.query.recursive, true);
    assert.equal(ok.query.parentId, 'abcd');
    assert.deepEqual([ok.query.startIndex, ok.query.limit], [2, 5]);
    for (const [raw, field] of [
      [{ Limit: '-1' }, 'Limit'],
      [{ StartIndex: 'x' }, 'StartIndex'],
      [{ Recursive: 'yes' }, 'Recursive'],
      [{ SortOrder: 'Up' }, 'SortOrder'],
    ] as const) {
      const bad = parseItemsQuery(raw);
      assert.ok(!bad.ok && bad.field === field, JSON.stringify(raw));
    }
  });

  it('sorts with null dates first, ties by name then id, and pages', () => {
    const items = [
      { Id: 'b', SortName: 'b', DateCreated: '2024', PremiereDate: null },
      { Id: 'a', SortName: 'a', DateCreated: null, PremiereDate: null },
      { Id: 'c', SortName: 'a', DateCreated: '2023', PremiereDate: null },
    ];
    assert.deepEqual(
      sortItems(items, { sortBy: [], descending: false }).map((i) => i.Id),
      ['a', 'c', 'b'],
    );
    assert.deepEqual(
      sortItems(items, { sortBy: ['DateCreated'], descending: false }).map((i) => i.Id),
      ['a', 'c', 'b'],
    );
    assert.deepEqual(
      sortItems(items, { sortBy: ['DateCreated'], descending: true }).map((i) => i.Id),
      ['b', 'c', 'a'],
    );
    assert.deepEqual(pageOf(items, { startIndex: 1, limit: 1 }), {
      Items: [items[1]],
      TotalRecordCount: 3,
      StartIndex: 1,
    });
    assert.equal(pageOf(items, { startIndex: 0, limit: null }).Items.length, 3);
  });

  it('merges fresh items into kept ones as a full sort orders them', () => {
    const item = (Id: string, SortName: string) => ({ Id, SortName, DateCreated: null, PremiereDate: null });
    const order = itemOrder({ sortBy: [], descending: false });
    const cases: [string[], string[]][] = [
      [[], []],
      [['a', 'c', 'e'], []],
      [[], ['b']],
      [
        ['b', 'd'],
        ['a', 'c', 'e'],
      ],
      [
        ['a', 'b'],
        ['c', 'd'],
      ],
      [
        ['c', 'd'],
        ['a', 'b'],
      ],
      [['m'], ['m']],
    ];
    for (const [kept, fresh] of cases) {
      const keptItems = kept.map((n, i) => item(`k${i}`, n));
      const freshItems = fresh.map((n, i) => item(`f${i}`, n));
      assert.deepEqual(
        mergeOrdered(keptItems, freshItems, order),
        sortItems([...keptItems, ...freshItems], { sortBy: [], descending: false }),
        JSON.stringify([kept, fresh]),
      );
    }
  });
});
