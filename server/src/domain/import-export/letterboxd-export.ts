/**
 * @module import-export/letterboxd-export
 * What a person watched, as a CSV Letterboxd's importer reads (GET /api/export?format=letterboxd;
 * issue 27 item 5, docs/collector.md "Letterboxd export"). Letterboxd's import columns
 * (letterboxd.com/about/importing-data): `tmdbID` gives it an exact match, `Title` + `Year` a guess.
 *
 * Decisions:
 * - Header exactly `Title,Year,tmdbID,WatchedDate,Rating`; empty cells for what is not known.
 * - `WatchedDate`: the day (UTC, `YYYY-MM-DD`) of the person's last play or watched mark; empty for a
 *   film marked watched with no play of the person's (an imported "watched").
 * - `Rating`: empty. The library holds no person's own rating (its ratings are IMDb's, Rotten
 *   Tomatoes'…), and another site's score is not this person's.
 * - RFC 4180: comma, `"` quoting (a title with a comma, a quote or a line break is quoted, quotes
 *   doubled), CRLF record ends, no byte-order mark. No formula escape: the file is for Letterboxd's
 *   importer, which would take a `'` as part of the title.
 * - Deterministic: by normalized title, year, TMDb id, title.
 */
import { stringify } from 'csv-stringify/sync';
import { normalizeTitle } from '../titles.ts';
import { compareNullableNumber, compareText } from './fields.ts';

export const LETTERBOXD_HEADER = ['Title', 'Year', 'tmdbID', 'WatchedDate', 'Rating'] as const;

/** A watched film: `watched_at` is the ISO time of the person's last play or mark (null: none). */
export interface WatchedFilm {
  title: string;
  year: number | null;
  tmdb_id: number | null;
  watched_at: string | null;
}

/** The CSV's text. */
export function renderLetterboxdCsv(films: readonly WatchedFilm[]): string {
  const sorted = films
    .map((f) => ({ f, key: normalizeTitle(f.title) }))
    .sort(
      (a, b) =>
        compareText(a.key, b.key) ||
        compareNullableNumber(a.f.year, b.f.year) ||
        compareNullableNumber(a.f.tmdb_id, b.f.tmdb_id) ||
        compareText(a.f.title, b.f.title),
    )
    .map(({ f }) => [
      f.title,
      f.year === null ? '' : String(f.year),
      f.tmdb_id === null ? '' : String(f.tmdb_id),
      f.watched_at === null ? '' : f.watched_at.slice(0, 10),
      '',
    ]);
  return stringify([[...LETTERBOXD_HEADER], ...sorted], {
    record_delimiter: '\r\n',
    // csv-stringify quotes the delimiter, quotes and its record delimiter; a lone LF or CR too.
    quoted_match: /[\r\n]/,
  });
}
