import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type EditionState,
  LibraryMatcher,
  type MovieState,
} from '../../../src/domain/import-export/import-match.ts';
import { copyRow, csvItems, editionRow, movieRow, snapshot } from './plan-fixtures.ts';

/** GTIN-13, as the import stores barcodes. */
const BARCODE_A = '0012345678905';
const BARCODE_B = '0036000291452';
const BARCODE_C = '0012345678912';

/** Which stored movie id each item is matched to (null: a new movie). */
function matchIds(lib: ReturnType<typeof snapshot>, items: ReturnType<typeof csvItems>): (number | null)[] {
  const matcher = new LibraryMatcher(lib, items, false);
  const matches = matcher.claimAll(items);
  return items.map((item) => matches.get(item)?.row?.id ?? null);
}

describe('movie matching (table)', () => {
  const cases: {
    name: string;
    movies: Parameters<typeof movieRow>[0][];
    editions?: Parameters<typeof editionRow>[0][];
    copies?: Parameters<typeof copyRow>[0][];
    rows: Parameters<typeof csvItems>[0];
    expected: (number | null)[];
  }[] = [
    {
      name: 'TMDb id wins over a different title',
      movies: [{ id: 1, title: 'Alien', year: 1979, tmdb_id: 348 }],
      rows: [{ title: 'Alien - Director’s Cut', tmdbId: 348 }],
      expected: [1],
    },
    {
      name: 'IMDb id when no TMDb id',
      movies: [{ id: 1, title: 'Alien', imdb_id: 'tt0078748' }],
      rows: [{ title: 'Ailen', imdbId: 'tt0078748' }],
      expected: [1],
    },
    {
      name: 'normalised title + year',
      movies: [
        { id: 1, title: 'Solaris', year: 1972 },
        { id: 2, title: 'Solaris', year: 2002 },
      ],
      rows: [{ title: 'SOLARIS', year: 2002 }],
      expected: [2],
    },
    {
      name: 'a side without a year matches when exactly one candidate is left',
      movies: [{ id: 1, title: 'Heat', year: 1995 }],
      rows: [{ title: 'Heat' }],
      expected: [1],
    },
    {
      name: 'no year and two candidates: a new movie',
      movies: [
        { id: 1, title: 'Solaris', year: 1972 },
        { id: 2, title: 'Solaris', year: 2002 },
      ],
      rows: [{ title: 'Solaris' }],
      expected: [null],
    },
    {
      name: 'contradicting TMDb ids never match by title',
      movies: [{ id: 1, title: 'Dune', year: 1984, tmdb_id: 841 }],
      rows: [{ title: 'Dune', year: 1984, tmdbId: 438631 }],
      expected: [null],
    },
    {
      name: 'a barcode of an edition finds a movie filed under another title',
      movies: [{ id: 1, title: 'Le Samouraï', year: 1967 }],
      editions: [{ id: 10, movie_id: 1, barcode: BARCODE_A }],
      rows: [{ title: 'The Samurai', barcode: BARCODE_A }],
      expected: [1],
    },
    {
      name: 'a barcode two items share (a box set) is not used to match',
      movies: [{ id: 1, title: 'Trilogy box', year: 2001 }],
      editions: [{ id: 10, movie_id: 1, barcode: BARCODE_A }],
      rows: [
        { title: 'Part One', barcode: BARCODE_A },
        { title: 'Part Two', barcode: BARCODE_A },
      ],
      expected: [null, null],
    },
    {
      name: 'one library movie answers for one item only',
      movies: [{ id: 1, title: 'Heat', year: 1995 }],
      rows: [
        { title: 'Heat', year: 1995, format: 'DVD' },
        { title: 'Heat', year: 1995, tmdbId: 949, format: 'Blu-ray' },
      ],
      expected: [null, 1],
    },
    {
      name: 'of two equal candidates, the one whose binder slot holds the disc',
      movies: [
        { id: 1, title: 'Solaris', year: 1972 },
        { id: 2, title: 'Solaris', year: 1972 },
      ],
      copies: [{ id: 20, movie_id: 2, binder: 'A', slot: '7' }],
      rows: [{ title: 'Solaris', year: 1972, binder: 'A', slot: '7' }],
      expected: [2],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const lib = snapshot({
        movies: c.movies.map(movieRow),
        editions: (c.editions ?? []).map(editionRow),
        copies: (c.copies ?? []).map(copyRow),
      });
      // Each line its own item (as separate movies of a JSON file would be).
      const items = c.rows.flatMap((r) => csvItems([r]));
      assert.deepEqual(matchIds(lib, items), c.expected);
    });
  }
});

/** The value, or a failed assertion (instead of a `!`). */
function present<T>(value: T | undefined | null, what: string): T {
  assert.ok(value !== undefined && value !== null, `${what} is missing`);
  return value;
}

describe('edition and copy matching', () => {
  const lib = () =>
    snapshot({
      movies: [
        movieRow({ id: 1, title: 'Heat', year: 1995 }),
        movieRow({ id: 2, title: 'Ronin', year: 1998 }),
      ],
      editions: [
        editionRow({ id: 10, movie_id: 1, format: 'DVD', barcode: BARCODE_A }),
        editionRow({ id: 11, movie_id: 1, format: 'Blu-ray' }),
        editionRow({ id: 12, movie_id: 2, format: 'DVD', barcode: BARCODE_B }),
      ],
      copies: [
        copyRow({ id: 20, movie_id: 1, edition_id: 10, binder: 'A', slot: '1' }),
        copyRow({ id: 21, movie_id: 2, edition_id: 12, binder: 'A', slot: '2' }),
        copyRow({ id: 22, movie_id: 1, edition_id: 11, binder: 'B', slot: null }),
      ],
    });

  it('by barcode, by format without one, fills an empty barcode, and never takes another movie’s', () => {
    // One item with three editions (lines of one movie).
    const items = csvItems([
      { title: 'Heat', year: 1995, format: 'DVD', barcode: BARCODE_A },
      { title: 'Heat', year: 1995, format: 'Blu-ray', barcode: BARCODE_C },
      { title: 'Heat', year: 1995, format: '4K', barcode: BARCODE_B },
    ]);
    const matcher = new LibraryMatcher(lib(), items, false);
    const item = present(items[0], 'item');
    const movie: MovieState = present(matcher.claimAll(items).get(item), 'match');
    assert.equal(movie.row?.id, 1);
    const matches = matcher.matchEditions(movie, item.editions);
    assert.deepEqual(
      matches.map((m) =>
        m.edition === null ? { new: m.barcode } : { id: m.edition.ref.id, fill: m.fillBarcode },
      ),
      [{ id: 10, fill: null }, { id: 11, fill: BARCODE_C }, { new: null }],
    );
    assert.equal(matcher.barcodeOwner.get(BARCODE_C), movie);
  });

  it('a slot names one disc: another movie’s or another edition’s disc there is a conflict', () => {
    const items = csvItems([{ title: 'Heat', year: 1995 }]);
    const matcher = new LibraryMatcher(lib(), items, false);
    const movie = present(matcher.claimAll(items).get(present(items[0], 'item')), 'match');
    const dvd: EditionState = present(movie.editions[0], 'DVD');
    const bluray: EditionState = present(movie.editions[1], 'Blu-ray');
    const at = { row: 2, field: 'slot' };
    const copy = (binder: string | null, slot: string | null) => ({ binder, slot, notes: null, at });
    assert.equal(matcher.matchCopy(movie, dvd, copy('A', '2')).kind, 'slot_taken_by_movie');
    assert.equal(matcher.matchCopy(movie, bluray, copy('A', '1')).kind, 'slot_taken_by_edition');
    const inSlot = matcher.matchCopy(movie, dvd, copy('A', '1'));
    assert.equal(inSlot.kind === 'copy' && inSlot.copy.id, 20);
    assert.equal(matcher.matchCopy(movie, dvd, copy('A', '9')).kind, 'none');
    const inBinder = matcher.matchCopy(movie, bluray, copy('B', null));
    assert.equal(inBinder.kind === 'copy' && inBinder.copy.id, 22);
    const anyBinder = matcher.matchCopy(movie, bluray, copy(null, null));
    assert.equal(anyBinder.kind === 'copy' && anyBinder.copy.id, 22);
  });
});
