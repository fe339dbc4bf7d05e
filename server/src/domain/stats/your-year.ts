import { parseGenres } from '../genres.ts';

/** A film a person played in the year (what the repository's grouped read gives). */
export interface PlayedFilm {
  movie_id: number | null;
  title: string;
  genres_json: string | null;
  plays: number;
  first_at: string;
  last_at: string;
  seconds: number;
}

export interface YearSummary {
  /** Distinct films with a play that started in the year. */
  films: number;
  plays: number;
  /** Time watched: the sum of each play's furthest position, in hours (one decimal). */
  hours: number;
  /** The top genres by films played (ties: by name), at most `top`. */
  genres: { name: string; films: number }[];
  /** The film of the first play and of the last play of the year. */
  first: { movie_id: number | null; title: string; at: string } | null;
  last: { movie_id: number | null; title: string; at: string } | null;
}

/**
 * "Your year" from the films a person played (pure: the page and the API show it). A film counts once
 * however often it was played; its genres count once each.
 */
export function summariseYear(films: readonly PlayedFilm[], top = 5): YearSummary {
  const genreFilms = new Map<string, number>();
  for (const f of films) {
    for (const g of new Set(parseGenres(f.genres_json))) genreFilms.set(g, (genreFilms.get(g) ?? 0) + 1);
  }
  const genres = [...genreFilms]
    .map(([name, count]) => ({ name, films: count }))
    .sort((a, b) => b.films - a.films || a.name.localeCompare(b.name))
    .slice(0, top);
  let first: PlayedFilm | null = null;
  let last: PlayedFilm | null = null;
  for (const f of films) {
    if (first === null || f.first_at < first.first_at) first = f;
    if (last === null || f.last_at > last.last_at) last = f;
  }
  const seconds = films.reduce((sum, f) => sum + Math.max(0, f.seconds), 0);
  return {
    films: films.length,
    plays: films.reduce((sum, f) => sum + f.plays, 0),
    hours: Math.round(seconds / 360) / 10,
    genres,
    first: first === null ? null : { movie_id: first.movie_id, title: first.title, at: first.first_at },
    last: last === null ? null : { movie_id: last.movie_id, title: last.title, at: last.last_at },
  };
}

/** The twelve months of a year, each with its plays (0 where none): `[{month: '01', plays}, …]`. */
export function monthsOfYear(
  rows: readonly { month: string; plays: number }[],
): { month: string; plays: number }[] {
  const by = new Map(rows.map((r) => [r.month, r.plays]));
  return Array.from({ length: 12 }, (_, i) => {
    const month = String(i + 1).padStart(2, '0');
    return { month, plays: by.get(month) ?? 0 };
  });
}
