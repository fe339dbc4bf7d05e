// The Letterboxd export's CSV (domain/import-export/letterboxd-export.ts): header, quoting, dates.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderLetterboxdCsv } from '../../../src/domain/import-export/letterboxd-export.ts';

describe('renderLetterboxdCsv', () => {
  it('an empty list is the header alone', () => {
    assert.equal(renderLetterboxdCsv([]), 'Title,Year,tmdbID,WatchedDate,Rating\r\n');
  });

  const cases: [string, Parameters<typeof renderLetterboxdCsv>[0][number], string][] = [
    ['plain', { title: 'Heat', year: 1995, tmdb_id: 949, watched_at: null }, 'Heat,1995,949,,'],
    [
      'a comma: quoted',
      { title: 'Paris, Texas', year: 1984, tmdb_id: null, watched_at: '2026-03-04T21:00:00.000Z' },
      '"Paris, Texas",1984,,2026-03-04,',
    ],
    [
      'quotes: doubled',
      { title: 'The "Good" Film', year: null, tmdb_id: null, watched_at: null },
      '"The ""Good"" Film",,,,',
    ],
    [
      'a line break: quoted',
      { title: 'Two\nLines', year: 2000, tmdb_id: 1, watched_at: null },
      '"Two\nLines",2000,1,,',
    ],
    ['no formula escape', { title: '-1', year: 2001, tmdb_id: null, watched_at: null }, '-1,2001,,,'],
  ];
  for (const [name, film, line] of cases) {
    it(name, () =>
      assert.equal(renderLetterboxdCsv([film]), `Title,Year,tmdbID,WatchedDate,Rating\r\n${line}\r\n`),
    );
  }

  it('sorts by normalized title, then year', () => {
    const text = renderLetterboxdCsv([
      { title: 'Heat', year: 1995, tmdb_id: null, watched_at: null },
      { title: 'The Abyss', year: 1989, tmdb_id: null, watched_at: null },
      { title: 'Heat', year: 1986, tmdb_id: null, watched_at: null },
    ]);
    assert.deepEqual(
      text
        .split('\r\n')
        .slice(1, 4)
        .map((l) => l.split(',').slice(0, 2).join(' ')),
      ['The Abyss 1989', 'Heat 1986', 'Heat 1995'],
    );
  });
});
