// The wish list's pure rules (domain/wishes.ts): when a wish names a film, when two wishes are one,
// and what an import does with its wish rows.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  compareWishes,
  filmKey,
  type InWish,
  planWishes,
  sameWish,
  wishMatchesFilm,
  type WishRow,
} from '../../src/domain/wishes.ts';

const NOW = '2026-11-27T00:00:00.000Z';
const stored = (id: number, title: string, year: number | null, tmdb: number | null = null): WishRow => ({
  id,
  ...filmKey(title, year, tmdb),
  title,
  note: null,
  created_at: NOW,
});
const row = (n: number, title: string, year: number | null, tmdb: number | null = null): InWish => ({
  row: n,
  title,
  year,
  tmdb_id: tmdb,
  note: null,
});

describe('wishMatchesFilm', () => {
  const cases: [string, Parameters<typeof filmKey>, Parameters<typeof filmKey>, boolean][] = [
    ['same TMDb id', ['Heat', 1995, 949], ['Heat (1995)', null, 949], true],
    ['both ids, different: a remake', ['Heat', 1995, 949], ['Heat', 1995, 1], false],
    ['no id: title + year', ['The Matrix', 1999, null], ['Matrix, The', 1999, 603], true],
    ['no id: another year', ['Heat', 1995, null], ['Heat', 1986, null], false],
    ['no year on both', ['Amélie', null, null], ['amelie', null, null], true],
    ['a year on one only', ['Heat', null, null], ['Heat', 1995, null], false],
  ];
  for (const [name, wish, film, expected] of cases) {
    it(name, () => assert.equal(wishMatchesFilm(filmKey(...wish), filmKey(...film)), expected));
    // The import's indexed plan says the same as the rule, pair by pair.
    it(`${name} (planWishes' index)`, () => {
      const [title, year, tmdb] = wish;
      const plan = planWishes([row(2, title, year, tmdb)], [], [filmKey(...film)], NOW);
      assert.equal(plan.owned, expected ? 1 : 0);
      const stored = planWishes(
        [],
        [{ id: 7, ...filmKey(...wish), title, note: null, created_at: NOW }],
        [filmKey(...film)],
        NOW,
      );
      assert.deepEqual(stored.fulfilled, expected ? [7] : []);
    });
  }
});

describe('sameWish', () => {
  it('one TMDb id, or one title + year, is one wish', () => {
    assert.equal(sameWish(filmKey('Heat', 1995, 949), filmKey('Other', 2000, 949)), true);
    assert.equal(sameWish(filmKey('Heat', 1995, 949), filmKey('heat', 1995, 1)), true);
    assert.equal(sameWish(filmKey('Heat', 1995, null), filmKey('Heat', 1986, null)), false);
  });
});

describe('planWishes', () => {
  it('creates new wishes, counts re-imports, skips owned films, fulfils stored wishes now owned', () => {
    const plan = planWishes(
      [
        row(2, 'Heat', 1995),
        row(3, 'Alien', 1979),
        row(4, 'Dune', 2021),
        row(5, 'Heat', 1995),
        row(6, 'Up', 2009),
      ],
      [stored(1, 'Alien', 1979), stored(2, 'Inception', 2010, 27205)],
      [filmKey('Dune', 2021, null), filmKey('Inception', 2010, 27205)],
      NOW,
    );
    assert.deepEqual(
      plan.create.map((w) => [w.title, w.year]),
      [
        ['Heat', 1995],
        ['Up', 2009],
      ],
    );
    assert.equal(plan.unchanged, 2, 'Alien is wished already; the second Heat row is the first');
    assert.equal(plan.owned, 1);
    assert.deepEqual(plan.fulfilled, [2]);
    assert.match(plan.warnings.join('\n'), /row 4/);
  });

  it('a dry run and a write plan the same; a second run creates nothing', () => {
    const rows = [row(2, 'Heat', 1995)];
    const first = planWishes(rows, [], [], NOW);
    const again = planWishes(rows, [{ id: 1, ...(first.create[0] as Omit<WishRow, 'id'>) }], [], NOW);
    assert.equal(again.create.length, 0);
    assert.equal(again.unchanged, 1);
  });
});

describe('compareWishes', () => {
  it('by normalized title, then year, then TMDb id', () => {
    const list = [stored(1, 'The Heat', 2013), stored(2, 'Alien', 1979), stored(3, 'Heat', 1995)];
    assert.deepEqual(
      [...list].sort(compareWishes).map((w) => w.id),
      [2, 3, 1],
    );
  });
});
