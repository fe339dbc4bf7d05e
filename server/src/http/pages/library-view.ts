import type { LibraryMovieItem, LibraryResponse } from '@reelshelf/contract';

/** Movies per page: a screenful or two on a TV, small enough that 10,000 movies never freeze a browser. */
export const PAGE_SIZE = 60;

export const SORTS = ['title', 'year', 'recent'] as const;
export type LibrarySort = (typeof SORTS)[number];

/** Every badge of spec §2.2, in the order the filter lists them. */
export const BADGES = [
  'playable',
  'on_disc',
  'not_analyzed',
  'analysis_failed',
  'integrity_flagged',
  'not_supported',
  'missing',
] as const;

/** The library page's query (`/library?q=&badge=&format=&binder=&sort=&page=&device=`). */
export interface LibraryQuery {
  q: string;
  badge: string;
  format: string;
  binder: string;
  sort: LibrarySort;
  page: number;
}

export interface LibraryView {
  query: LibraryQuery;
  items: LibraryMovieItem[];
  /** Movies matching the filters (all pages). */
  matched: number;
  total: number;
  page: number;
  pages: number;
  /** The facets the filters offer, from the whole library. */
  formats: string[];
  binders: string[];
}

function first(value: unknown): string {
  const v = Array.isArray(value) ? (value as unknown[])[0] : value;
  return typeof v === 'string' ? v.slice(0, 200) : '';
}

/** Reads the page's query leniently: a value it does not know falls back to its default. */
export function parseLibraryQuery(query: unknown): LibraryQuery {
  const q = (typeof query === 'object' && query !== null ? query : {}) as Record<string, unknown>;
  const sort = first(q.sort);
  const page = Number.parseInt(first(q.page), 10);
  const badge = first(q.badge);
  return {
    q: first(q.q).trim(),
    badge: (BADGES as readonly string[]).includes(badge) ? badge : '',
    format: first(q.format),
    binder: first(q.binder),
    sort: (SORTS as readonly string[]).includes(sort) ? (sort as LibrarySort) : 'title',
    page: Number.isFinite(page) && page >= 1 ? Math.min(page, 1_000_000) : 1,
  };
}

/** Lower case without accents, so "amelie" finds "Amélie". */
export function fold(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();
}

function matchesSearch(item: LibraryMovieItem, needle: string): boolean {
  if (fold(item.title).includes(needle)) return true;
  if (item.cast_names?.some((n) => fold(n).includes(needle)) === true) return true;
  return item.director_names?.some((n) => fold(n).includes(needle)) === true;
}

/** Larger first; a missing value sorts last. */
function descending(a: number | null | undefined, b: number | null | undefined): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return 1;
  if (b === null || b === undefined) return -1;
  return b - a;
}

const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

/**
 * Filters, sorts and pages the LibraryResponse on the server. "title" keeps the library's own
 * order (sort titles, so "The Matrix" sits under M); "year" is newest first; "recent" is the
 * highest movie id first (the listing carries no created_at; ids only grow).
 */
export function buildLibraryView(library: LibraryResponse, query: LibraryQuery): LibraryView {
  const formats = new Set<string>();
  const binders = new Set<string>();
  for (const item of library.items) {
    for (const copy of item.physical_copies ?? []) {
      if (copy.format !== null && copy.format !== undefined && copy.format !== '') formats.add(copy.format);
      if (copy.binder !== '') binders.add(copy.binder);
    }
  }
  const needle = fold(query.q);
  const filtered = library.items.filter(
    (item) =>
      (query.badge === '' || item.badge === query.badge) &&
      (query.format === '' || item.physical_copies?.some((c) => c.format === query.format) === true) &&
      (query.binder === '' || item.physical_copies?.some((c) => c.binder === query.binder) === true) &&
      (needle === '' || matchesSearch(item, needle)),
  );
  // Array.prototype.sort is stable, so equal years keep the title order.
  if (query.sort === 'year') filtered.sort((a, b) => descending(a.year, b.year));
  else if (query.sort === 'recent') filtered.sort((a, b) => descending(a.movie_id, b.movie_id));
  const pages = Math.max(1, Math.ceil(filtered.length / PAGE_SIZE));
  const page = Math.min(query.page, pages);
  return {
    query,
    items: filtered.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE),
    matched: filtered.length,
    total: library.items.length,
    page,
    pages,
    formats: [...formats].sort(collator.compare),
    binders: [...binders].sort(collator.compare),
  };
}
