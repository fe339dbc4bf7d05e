// insertRows (db/bulk-insert.ts): on PostgreSQL many rows go as one JSON recordset instead of a
// multi-row VALUES; what lands must be exactly what VALUES writes, on the engine under test.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { asRecordset, insertRows } from '../../src/db/bulk-insert.ts';
import type { OpenedDatabase } from '../../src/db/database.ts';
import { openTestDatabase } from '../helpers/test-database.ts';

const NOW = '2026-01-01T00:00:00.000Z';

describe('asRecordset: which row sets the JSON path carries', () => {
  const cases: { name: string; rows: object[]; columns: string[] | null }[] = [
    { name: 'no rows', rows: [], columns: null },
    {
      name: 'strings, finite numbers, nulls',
      rows: [
        { a: 'x', b: 1, c: null },
        { a: 'y "q" \\ \n', b: -2.5, c: 'é😀' },
      ],
      columns: ['a', 'b', 'c'],
    },
    { name: 'a row without a column', rows: [{ a: 1, b: 2 }, { a: 1 }], columns: null },
    {
      name: 'a row with another column',
      rows: [
        { a: 1, b: 2 },
        { a: 1, c: 2 },
      ],
      columns: null,
    },
    {
      name: 'columns in another order',
      rows: [
        { a: 1, b: 2 },
        { b: 2, a: 1 },
      ],
      columns: null,
    },
    { name: 'undefined', rows: [{ a: 1, b: undefined }], columns: null },
    { name: 'a boolean', rows: [{ a: true }], columns: null },
    { name: 'a bigint', rows: [{ a: 1n }], columns: null },
    { name: 'NaN', rows: [{ a: Number.NaN }], columns: null },
    { name: 'Infinity', rows: [{ a: Number.POSITIVE_INFINITY }], columns: null },
    { name: 'an object', rows: [{ a: { b: 1 } }], columns: null },
    { name: 'a lone high surrogate', rows: [{ a: 'x\ud800y' }], columns: null },
    { name: 'a lone low surrogate', rows: [{ a: '\udc00' }], columns: null },
    { name: 'a surrogate pair', rows: [{ a: '\ud83d\ude00' }], columns: ['a'] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = asRecordset(c.rows);
      assert.deepEqual(got?.columns ?? null, c.columns);
      if (got !== null) assert.deepEqual(JSON.parse(got.json), c.rows);
    });
  }
});

describe('insertRows writes what a multi-row VALUES writes', () => {
  let opened: OpenedDatabase;
  before(async () => {
    opened = await openTestDatabase();
  });
  after(() => opened.close());

  const titles = [
    'Plain',
    `Quotes ' " and \\ backslash`,
    'Line\nbreak\ttab',
    'Été – ünïcödé 😀',
    '{"looks": ["like", "json"]}',
    '',
  ];
  const movie = (title: string, i: number) => ({
    title,
    sort_title: title.toLowerCase(),
    normalized_title: title.toLowerCase(),
    original_title: i % 2 === 0 ? null : `${title} (original)`,
    year: i % 3 === 0 ? null : 1990 + i,
    overview: null,
    tagline: null,
    runtime_minutes: i === 1 ? 2_147_483_647 : null,
    tmdb_id: null,
    imdb_id: `tt${String(i).padStart(7, '0')}`,
    genres_json: '["Drama"]',
    tmdb_collection_id: null,
    tmdb_collection_name: null,
    binder_id: null,
    has_digital_store_a: i % 2,
    has_digital_store_b: 0,
    watched: 1,
    certification: null,
    created_at: NOW,
    updated_at: NOW,
  });

  async function both(rows: ReturnType<typeof movie>[], tag: string) {
    const { db } = opened;
    const values = await db
      .insertInto('movies')
      .values(rows.map((r) => ({ ...r, overview: `${tag} values` })))
      .returning(['id', 'title'])
      .execute();
    const bulk = await insertRows(
      db,
      'movies',
      rows.map((r) => ({ ...r, overview: `${tag} bulk` })),
    )
      .returning(['id', 'title'])
      .execute();
    assert.deepEqual(
      bulk.map((r) => r.title),
      values.map((r) => r.title),
      'RETURNING gives every row back',
    );
    const read = async (overview: string) =>
      (
        await db.selectFrom('movies').selectAll().where('overview', '=', overview).orderBy('id').execute()
      ).map(({ id: _id, overview: _o, ...rest }) => rest);
    assert.deepEqual(await read(`${tag} bulk`), await read(`${tag} values`));
  }

  it('text with quotes, backslashes, control characters and non-ASCII; nulls; integers', async () => {
    assert.notEqual(asRecordset(titles.map((t, i) => movie(t, i))), null, 'the JSON path on PostgreSQL');
    await both(
      titles.map((t, i) => movie(t, i)),
      'plain',
    );
  });

  it('a lone surrogate (the VALUES path on both engines)', async () => {
    assert.equal(asRecordset([movie('Broken \ud800 title', 1)]), null);
    await both([movie('Broken \ud800 title', 1), movie('Fine', 2)], 'surrogate');
  });

  it('columns left out take their defaults', async () => {
    const { db } = opened;
    const row = {
      title: 'Defaults',
      sort_title: 'defaults',
      normalized_title: 'defaults',
      original_title: null,
      year: null,
      overview: 'defaults',
      tagline: null,
      runtime_minutes: null,
      tmdb_id: null,
      imdb_id: null,
      created_at: NOW,
      updated_at: NOW,
    };
    await insertRows(db, 'movies', [row, { ...row, title: 'Defaults 2' }]).execute();
    const stored = await db
      .selectFrom('movies')
      .select(['has_digital_store_a', 'has_digital_store_b', 'watched', 'certification'])
      .where('overview', '=', 'defaults')
      .execute();
    assert.deepEqual(stored, [
      { has_digital_store_a: 0, has_digital_store_b: 0, watched: 0, certification: null },
      { has_digital_store_a: 0, has_digital_store_b: 0, watched: 0, certification: null },
    ]);
  });

  it('a row breaking a constraint fails the whole statement on both paths', async () => {
    const { db } = opened;
    const rows = [
      { movie_id: 999_999, label: null, format: 'DVD', barcode: null, region: null, created_at: NOW },
    ];
    await assert.rejects(insertRows(db, 'disc_editions', rows).execute());
    await assert.rejects(db.insertInto('disc_editions').values(rows).execute());
  });
});
