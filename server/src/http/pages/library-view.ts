import type { LibraryMovieItem, LibraryResponse } from '@reelshelf/contract';

/** Movies per page: a screenful or two on a TV, small enough that 10,000 movies never freeze a browser. */
export const PAGE_SIZE = 60;

/** `relevance` (best match first) is for a search; without one it reads as `title`. */
export const SORTS = ['relevance', 'title', 'year', 'recent'] as const;
export type LibrarySort = (typeof SORTS)[number];

/** The order when none is asked for: best match first for a search, else by title. */
export function defaultSort(q: string): LibrarySort {
  return q === '' ? 'title' : 'relevance';
}

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

/** The library page's query (`/library?q=&badge=&format=&binder=&on_loan=&sort=&page=&device=`). */
export interface LibraryQuery {
  q: string;
  badge: string;
  format: string;
  binder: string;
  /** Only movies with a disc lent out (`on_loan=1`). */
  on_loan: boolean;
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
  const text = first(q.q).trim();
  return {
    q: text,
    badge: (BADGES as readonly string[]).includes(badge) ? badge : '',
    format: first(q.format),
    binder: first(q.binder),
    on_loan: first(q.on_loan) === '1',
    sort:
      (SORTS as readonly string[]).includes(sort) && (sort !== 'relevance' || text !== '')
        ? (sort as LibrarySort)
        : defaultSort(text),
    page: Number.isFinite(page) && page >= 1 ? Math.min(page, 1_000_000) : 1,
  };
}

/** Larger first; a missing value sorts last. */
function descending(a: number | null | undefined, b: number | null | undefined): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return 1;
  if (b === null || b === undefined) return -1;
  return b - a;
}

const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

function pageCount(matched: number): number {
  return Math.max(1, Math.ceil(matched / PAGE_SIZE));
}

/**
 * Filters, sorts and pages the LibraryResponse on the server (the page without a search). "title"
 * keeps the library's own order (sort titles, so "The Matrix" sits under M); "year" is newest
 * first; "recent" is the highest movie id first (the listing carries no created_at; ids only grow).
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
  const filtered = library.items.filter(
    (item) =>
      (query.badge === '' || item.badge === query.badge) &&
      (query.format === '' || item.physical_copies?.some((c) => c.format === query.format) === true) &&
      (query.binder === '' || item.physical_copies?.some((c) => c.binder === query.binder) === true) &&
      (!query.on_loan || item.physical_copies?.some((c) => c.loan !== undefined) === true),
  );
  // Array.prototype.sort is stable, so equal years keep the title order.
  if (query.sort === 'year') filtered.sort((a, b) => descending(a.year, b.year));
  else if (query.sort === 'recent') filtered.sort((a, b) => descending(a.movie_id, b.movie_id));
  const pages = pageCount(filtered.length);
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

/** What the filters offer and how many items the library lists, read from the database. */
export interface LibraryFacets {
  formats: string[];
  binders: string[];
  items: number;
}

/**
 * The view of a search read from the index: `result.items` are one page of its matches (already
 * narrowed by format and binder and ordered), `result.matched` how many match in all.
 */
export function searchResultView(
  query: LibraryQuery,
  result: { items: LibraryMovieItem[]; matched: number; page: number },
  facets: LibraryFacets,
): LibraryView {
  return {
    query,
    items: result.items,
    matched: result.matched,
    total: facets.items,
    page: result.page,
    pages: pageCount(result.matched),
    formats: [...facets.formats].sort(collator.compare),
    binders: [...facets.binders].sort(collator.compare),
  };
}

/**
 * The view of a search narrowed by a status (badge), which depends on each movie's playback: `found`
 * are every match presented, in the index's order; the status filter and the paging happen here.
 */
export function searchStatusView(
  query: LibraryQuery,
  found: readonly LibraryMovieItem[],
  facets: LibraryFacets,
): LibraryView {
  const filtered = found.filter((item) => item.badge === query.badge);
  const page = Math.min(query.page, pageCount(filtered.length));
  return searchResultView(
    query,
    { items: filtered.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE), matched: filtered.length, page },
    facets,
  );
}
