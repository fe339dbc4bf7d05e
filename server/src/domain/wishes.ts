/**
 * @module wishes
 * The wish list's rules (issue 27 item 5, docs/collector.md "Wish list"), pure: when a wish and a film
 * are the same film, when two wishes are one, and what an import does with its wish rows.
 */
import { normalizeTitle } from './titles.ts';

/** A film as the wish rules see it: its TMDb id (when known), its normalized title and year. */
export interface FilmKey {
  tmdb_id: number | null;
  normalized_title: string;
  year: number | null;
}

/** A wish as stored. */
export interface WishRow extends FilmKey {
  id: number;
  title: string;
  note: string | null;
  created_at: string;
}

/** A wish to create. */
export type NewWish = Omit<WishRow, 'id'>;

/** The key of a title and year (what the unique index of migration 0020 holds: no year counts as 0). */
export function titleYearKey(key: Pick<FilmKey, 'normalized_title' | 'year'>): string {
  return `${key.normalized_title}\u0000${key.year ?? 0}`;
}

/** A film's key from its title, year and TMDb id. */
export function filmKey(title: string, year: number | null, tmdbId: number | null): FilmKey {
  return { tmdb_id: tmdbId, normalized_title: normalizeTitle(title), year };
}

/**
 * Whether a wish names this film: the same TMDb id when both have one (a remake of the same year is
 * another film); otherwise the same normalized title and year. repositories/wish.repository.ts says
 * the same in SQL.
 */
export function wishMatchesFilm(wish: FilmKey, film: FilmKey): boolean {
  if (wish.tmdb_id !== null && film.tmdb_id !== null) return wish.tmdb_id === film.tmdb_id;
  return titleYearKey(wish) === titleYearKey(film);
}

/**
 * Whether two wishes are one (no duplicates either way): the same TMDb id, or the same normalized
 * title and year — the two unique indexes of the table.
 */
export function sameWish(a: FilmKey, b: FilmKey): boolean {
  if (a.tmdb_id !== null && a.tmdb_id === b.tmdb_id) return true;
  return titleYearKey(a) === titleYearKey(b);
}

/** A wish row of an import file (a CLZ `Wish List` row, a Letterboxd watchlist line, a JSON wish). */
export interface InWish {
  /** The line (CSV) or the item (JSON) it came from. */
  row: number;
  title: string;
  year: number | null;
  tmdb_id: number | null;
  note: string | null;
}

/** What an import does with wishes: all counted in a dry run exactly as written. */
export interface WishPlan {
  create: NewWish[];
  /** Wish rows that are wishes already (a re-import). */
  unchanged: number;
  /** Wish rows of films the library owns (or that the same import brings as owned): not wished. */
  owned: number;
  /** Stored wishes whose film the import brings as owned: they leave the list. */
  fulfilled: number[];
  warnings: string[];
}

/**
 * Films indexed for {@link wishMatchesFilm}: by TMDb id, by title + year, and by title + year of the
 * films without a TMDb id (a wish with an id matches those by title), so a plan is linear in the
 * rows and the films, not their product (a 10,000-line watchlist against a 10,000-film library).
 */
class FilmIndex {
  private readonly ids = new Set<number>();
  private readonly titles = new Set<string>();
  private readonly titlesWithoutId = new Set<string>();

  constructor(films: readonly FilmKey[]) {
    for (const film of films) this.add(film);
  }

  add(film: FilmKey): void {
    const key = titleYearKey(film);
    this.titles.add(key);
    if (film.tmdb_id === null) this.titlesWithoutId.add(key);
    else this.ids.add(film.tmdb_id);
  }

  /** Some film here that the wish names ({@link wishMatchesFilm}). */
  matches(wish: FilmKey): boolean {
    const key = titleYearKey(wish);
    if (wish.tmdb_id === null) return this.titles.has(key);
    return this.ids.has(wish.tmdb_id) || this.titlesWithoutId.has(key);
  }

  /** Some wish here that is this one ({@link sameWish}). */
  same(wish: FilmKey): boolean {
    return (wish.tmdb_id !== null && this.ids.has(wish.tmdb_id)) || this.titles.has(titleYearKey(wish));
  }
}

/**
 * Plans an import's wishes. `ownedAfter` are the films owned once the import's movies are written
 * (the library's owned films and the file's films that come with a copy or a file).
 */
export function planWishes(
  rows: readonly InWish[],
  stored: readonly WishRow[],
  ownedAfter: readonly FilmKey[],
  now: string,
): WishPlan {
  const plan: WishPlan = { create: [], unchanged: 0, owned: 0, fulfilled: [], warnings: [] };
  const owned = new FilmIndex(ownedAfter);
  const wished = new FilmIndex([]);
  for (const wish of stored) {
    if (owned.matches(wish)) plan.fulfilled.push(wish.id);
    else wished.add(wish);
  }
  const ownedLines: number[] = [];
  for (const row of rows) {
    const key = filmKey(row.title, row.year, row.tmdb_id);
    if (owned.matches(key)) {
      plan.owned++;
      ownedLines.push(row.row);
    } else if (wished.same(key)) {
      plan.unchanged++;
    } else {
      plan.create.push({ ...key, title: row.title, note: row.note, created_at: now });
      wished.add(key);
    }
  }
  if (ownedLines.length > 0) {
    const shown = ownedLines.slice(0, 10).join(', ');
    plan.warnings.push(
      `${ownedLines.length} wish row(s) name films the library owns; not wished: row${ownedLines.length > 1 ? 's' : ''} ${shown}${ownedLines.length > 10 ? ' and more' : ''}`,
    );
  }
  return plan;
}

/** The order wishes are listed and exported in: by title, then year, then TMDb id (never by id). */
export function compareWishes(a: WishRow | NewWish, b: WishRow | NewWish): number {
  return (
    cmp(a.normalized_title, b.normalized_title) ||
    (a.year ?? 0) - (b.year ?? 0) ||
    (a.tmdb_id ?? 0) - (b.tmdb_id ?? 0) ||
    cmp(a.title, b.title)
  );
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
