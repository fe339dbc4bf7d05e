// "Your year" (issue 27 item 6) from the films a person played: pure, table-tested.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { monthsOfYear, type PlayedFilm, summariseYear } from '../../../src/domain/stats/your-year.ts';

function film(
  title: string,
  genres: string[] | null,
  plays: number,
  first: string,
  last: string,
  seconds: number,
): PlayedFilm {
  return {
    movie_id: title.length,
    title,
    genres_json: genres === null ? null : JSON.stringify(genres),
    plays,
    first_at: first,
    last_at: last,
    seconds,
  };
}

describe('summariseYear', () => {
  it('nothing played: zeros and no first or last film', () => {
    assert.deepEqual(summariseYear([]), {
      films: 0,
      plays: 0,
      hours: 0,
      genres: [],
      first: null,
      last: null,
    });
  });

  it('films once each, plays and hours summed, genres by films, first and last by play', () => {
    const s = summariseYear([
      film('Alien', ['Horror', 'Science Fiction'], 2, '2025-03-01T20:00:00Z', '2025-11-01T20:00:00Z', 9000),
      film('Up', ['Animation', 'Comedy'], 1, '2025-01-02T10:00:00Z', '2025-01-02T10:00:00Z', 5400),
      film('Heat', ['Crime', 'Drama', 'Drama'], 1, '2025-06-01T22:00:00Z', '2025-06-01T22:00:00Z', 0),
      film('Se7en', ['Crime', 'Horror'], 3, '2025-02-01T22:00:00Z', '2025-12-31T23:00:00Z', 1800),
      film('Unknown', null, 1, '2025-04-01T22:00:00Z', '2025-04-01T22:00:00Z', -5),
    ]);
    assert.equal(s.films, 5);
    assert.equal(s.plays, 8);
    assert.equal(s.hours, 4.5); // 16,200 s; a negative position counts as 0
    assert.deepEqual(s.genres, [
      { name: 'Crime', films: 2 },
      { name: 'Horror', films: 2 },
      { name: 'Animation', films: 1 },
      { name: 'Comedy', films: 1 },
      { name: 'Drama', films: 1 },
    ]);
    assert.equal(s.first?.title, 'Up');
    assert.deepEqual(s.last, { movie_id: 5, title: 'Se7en', at: '2025-12-31T23:00:00Z' });
  });

  it('unreadable genres count as none', () => {
    const f = { ...film('X', null, 1, 'a', 'a', 0), genres_json: '{not json' };
    assert.deepEqual(summariseYear([f]).genres, []);
  });
});

describe('monthsOfYear', () => {
  it('twelve months, January first, zeros where nothing was played', () => {
    const m = monthsOfYear([
      { month: '03', plays: 2 },
      { month: '12', plays: 1 },
    ]);
    assert.equal(m.length, 12);
    assert.deepEqual(m[0], { month: '01', plays: 0 });
    assert.deepEqual(m[2], { month: '03', plays: 2 });
    assert.deepEqual(m[11], { month: '12', plays: 1 });
  });
});
