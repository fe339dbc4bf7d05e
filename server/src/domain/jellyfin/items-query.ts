/**
 * The query of `/Items` as the apps send it (players.md §1.3, §1.6): keys in any case (`ParentId`,
 * `parentId`), arrays comma-separated (`Fields=A,B`) or as repeated keys (`fields=A&fields=B`), and
 * the sort, order, paging and search a library browser asks for. Pure: the route hands in the parsed
 * query string; the answer is a typed query or the field that is wrong.
 */
import type { MovieDto } from './dto.ts';

export type RawQuery = Readonly<Record<string, unknown>>;

export type ItemsSortKey =
  'SortName' | 'DateCreated' | 'PremiereDate' | 'CommunityRating' | 'ProductionYear' | 'Random';
const SORT_KEYS: ReadonlyMap<string, ItemsSortKey> = new Map(
  (['SortName', 'DateCreated', 'PremiereDate', 'CommunityRating', 'ProductionYear', 'Random'] as const).map(
    (k) => [k.toLowerCase(), k],
  ),
);

/** The person's-state filters of `Filters=` (IsFavoriteOrLikes counts as IsFavorite: there are no likes). */
export type ItemFilter = 'IsPlayed' | 'IsUnplayed' | 'IsResumable' | 'IsFavorite';
const FILTERS: ReadonlyMap<string, ItemFilter> = new Map([
  ['isplayed', 'IsPlayed'],
  ['isunplayed', 'IsUnplayed'],
  ['isresumable', 'IsResumable'],
  ['isfavorite', 'IsFavorite'],
  ['isfavoriteorlikes', 'IsFavorite'],
]);

export interface ItemsQuery {
  parentId: string | null;
  /** Item types asked for (`Movie`, `BoxSet`, …) as sent; empty: any. */
  includeItemTypes: readonly string[];
  recursive: boolean;
  /** The known sort keys asked for, in order (unknown ones are ignored, as Jellyfin does); empty: SortName. */
  sortBy: readonly ItemsSortKey[];
  descending: boolean;
  startIndex: number;
  /** null: no limit (the whole-library sync the apps do). */
  limit: number | null;
  searchTerm: string | null;
  fields: readonly string[];
  /** `Filters=` plus `IsPlayed=`/`IsFavorite=` (true adds the filter; false adds its opposite where there is one). */
  filters: readonly ItemFilter[];
  /** `IsFavorite=false`: only films that are not favourites. */
  notFavorite: boolean;
  /** Genre names (`Genres=A|B`, Jellyfin's pipe, or repeated): any of them. */
  genres: readonly string[];
  genreIds: readonly string[];
  years: readonly number[];
  personIds: readonly string[];
  /** Studio names (pipe-separated, as Jellyfin: names hold commas). */
  studios: readonly string[];
  studioIds: readonly string[];
}

export type ItemsQueryResult =
  { ok: true; query: ItemsQuery } | { ok: false; field: string; message: string };

/** Every value of `key` in `raw`, whatever the case of the key, split on `separator`, blanks dropped. */
function splitValues(raw: RawQuery, key: string, separator: string): string[] {
  const wanted = key.toLowerCase();
  const out: string[] = [];
  for (const [name, value] of Object.entries(raw)) {
    if (name.toLowerCase() !== wanted) continue;
    for (const v of [value].flat()) {
      if (typeof v !== 'string') continue;
      for (const part of v.split(separator)) {
        const trimmed = part.trim();
        if (trimmed !== '') out.push(trimmed);
      }
    }
  }
  return out;
}

/** Every value of `key` in `raw`, whatever the case of the key, comma-separated lists split, blanks dropped. */
export function queryValues(raw: RawQuery, key: string): string[] {
  return splitValues(raw, key, ',');
}

/** Every value of `key`, split on `|` only (Jellyfin's delimiter for names, which may hold commas). */
export function queryNames(raw: RawQuery, key: string): string[] {
  return splitValues(raw, key, '|');
}

/** Ids as the apps send them (any case, dashed or not), normalised to 32 lower-case hex. */
function idValues(raw: RawQuery, key: string): string[] {
  return queryValues(raw, key).map((v) => v.toLowerCase().replaceAll('-', ''));
}

/** The single value of `key` (the first when repeated; commas kept), or null. */
export function queryValue(raw: RawQuery, key: string): string | null {
  const wanted = key.toLowerCase();
  for (const [name, value] of Object.entries(raw)) {
    if (name.toLowerCase() !== wanted) continue;
    const first: unknown = [value].flat()[0];
    if (typeof first === 'string' && first.trim() !== '') return first.trim();
  }
  return null;
}

function nonNegativeInt(text: string | null): number | null | 'bad' {
  if (text === null) return null;
  if (!/^\d{1,9}$/.test(text)) return 'bad';
  return Number(text);
}

function bool(text: string | null): boolean | 'bad' {
  return tristate(text) ?? false;
}

function tristate(text: string | null): boolean | null | 'bad' {
  if (text === null) return null;
  const lower = text.toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  return 'bad';
}

export function parseItemsQuery(raw: RawQuery): ItemsQueryResult {
  const startIndex = nonNegativeInt(queryValue(raw, 'StartIndex'));
  if (startIndex === 'bad') return { ok: false, field: 'StartIndex', message: 'must be a whole number ≥ 0' };
  const limit = nonNegativeInt(queryValue(raw, 'Limit'));
  if (limit === 'bad') return { ok: false, field: 'Limit', message: 'must be a whole number ≥ 0' };
  const recursive = bool(queryValue(raw, 'Recursive'));
  if (recursive === 'bad') return { ok: false, field: 'Recursive', message: 'must be true or false' };
  const order = queryValues(raw, 'SortOrder')[0]?.toLowerCase() ?? 'ascending';
  if (order !== 'ascending' && order !== 'descending') {
    return { ok: false, field: 'SortOrder', message: 'must be Ascending or Descending' };
  }
  const years: number[] = [];
  for (const text of queryValues(raw, 'Years')) {
    if (!/^\d{1,4}$/.test(text))
      return { ok: false, field: 'Years', message: 'must be years like 1999,2004' };
    years.push(Number(text));
  }
  const filters = new Set<ItemFilter>();
  for (const name of queryValues(raw, 'Filters')) {
    const known = FILTERS.get(name.toLowerCase());
    // Unknown filters (Likes, IsFolder, …) are ignored, as unknown sort keys are.
    if (known !== undefined) filters.add(known);
  }
  const isPlayed = tristate(queryValue(raw, 'IsPlayed'));
  if (isPlayed === 'bad') return { ok: false, field: 'IsPlayed', message: 'must be true or false' };
  if (isPlayed !== null) filters.add(isPlayed ? 'IsPlayed' : 'IsUnplayed');
  const isFavorite = tristate(queryValue(raw, 'IsFavorite'));
  if (isFavorite === 'bad') return { ok: false, field: 'IsFavorite', message: 'must be true or false' };
  if (isFavorite === true) filters.add('IsFavorite');
  const sortBy = queryValues(raw, 'SortBy')
    .map((k) => SORT_KEYS.get(k.toLowerCase()))
    .filter((k): k is ItemsSortKey => k !== undefined);
  return {
    ok: true,
    query: {
      parentId: queryValue(raw, 'ParentId')?.toLowerCase().replaceAll('-', '') ?? null,
      includeItemTypes: queryValues(raw, 'IncludeItemTypes'),
      recursive,
      sortBy,
      descending: order === 'descending',
      startIndex: startIndex ?? 0,
      limit,
      searchTerm: queryValue(raw, 'SearchTerm'),
      fields: queryValues(raw, 'Fields'),
      filters: [...filters],
      notFavorite: isFavorite === false,
      genres: queryNames(raw, 'Genres'),
      genreIds: idValues(raw, 'GenreIds'),
      years,
      personIds: idValues(raw, 'PersonIds'),
      studios: queryNames(raw, 'Studios'),
      studioIds: idValues(raw, 'StudioIds'),
    },
  };
}

/** Whether the item types asked for include movies (none asked: any type). */
export function wantsMovies(query: Pick<ItemsQuery, 'includeItemTypes'>): boolean {
  return (
    query.includeItemTypes.length === 0 || query.includeItemTypes.some((t) => t.toLowerCase() === 'movie')
  );
}

type Sortable = Pick<MovieDto, 'SortName' | 'DateCreated' | 'PremiereDate' | 'Id'> &
  Partial<Pick<MovieDto, 'CommunityRating' | 'ProductionYear'>>;

function compareBy(key: Exclude<ItemsSortKey, 'Random'>, a: Sortable, b: Sortable): number {
  if (key === 'SortName') return a.SortName < b.SortName ? -1 : a.SortName > b.SortName ? 1 : 0;
  const x = a[key] ?? null;
  const y = b[key] ?? null;
  // Items without the date sort first ascending, as Jellyfin's null-first ordering does.
  if (x === y) return 0;
  if (x === null) return -1;
  if (y === null) return 1;
  return x < y ? -1 : 1;
}

/**
 * Sorted by the keys in turn (SortName when none), then by SortName and Id so that pages never
 * overlap or skip; SortOrder reverses the asked keys, not the tie-breakers' stability. `Random`
 * anywhere shuffles (with `random`, a source in [0, 1)), as Jellyfin's random order ignores the rest.
 */
export function sortItems<T extends Sortable>(
  items: readonly T[],
  query: Pick<ItemsQuery, 'sortBy' | 'descending'>,
  random: () => number = Math.random,
): T[] {
  if (query.sortBy.includes('Random')) return shuffled(items, random);
  return [...items].sort(itemOrder(query));
}

/** The order {@link sortItems} sorts by (not Random), as a comparator. */
export function itemOrder<T extends Sortable>(
  query: Pick<ItemsQuery, 'sortBy' | 'descending'>,
): (a: T, b: T) => number {
  const keys = (query.sortBy.length === 0 ? ['SortName'] : query.sortBy).filter(
    (k): k is Exclude<ItemsSortKey, 'Random'> => k !== 'Random',
  );
  const sign = query.descending ? -1 : 1;
  return (a, b) => {
    for (const key of keys) {
      const c = compareBy(key, a, b);
      if (c !== 0) return sign * c;
    }
    const byName = compareBy('SortName', a, b);
    if (byName !== 0) return byName;
    return a.Id < b.Id ? -1 : a.Id > b.Id ? 1 : 0;
  };
}

/**
 * Two lists sorted by `order` as one sorted list: each fresh item is placed by binary search (a few
 * fresh items among 10,000 kept ones cost a few dozen comparisons, not 10,000); a fresh item equal
 * to a kept one goes after it.
 */
export function mergeOrdered<T>(kept: readonly T[], fresh: readonly T[], order: (a: T, b: T) => number): T[] {
  const out: T[] = [];
  let from = 0;
  for (const item of fresh) {
    let lo = from;
    let hi = kept.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (order(item, kept[mid] as T) < 0) hi = mid;
      else lo = mid + 1;
    }
    for (let i = from; i < lo; i++) out.push(kept[i] as T);
    out.push(item);
    from = lo;
  }
  for (let i = from; i < kept.length; i++) out.push(kept[i] as T);
  return out;
}

/** Fisher–Yates with the given source of randomness. */
export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    const at = out[i] as T;
    out[i] = out[j] as T;
    out[j] = at;
  }
  return out;
}

/** Jellyfin's `QueryResult`: one page and how many there are in all. */
export interface QueryResult<T> {
  Items: T[];
  TotalRecordCount: number;
  StartIndex: number;
}

export function pageOf<T>(
  items: readonly T[],
  query: Pick<ItemsQuery, 'startIndex' | 'limit'>,
): QueryResult<T> {
  const end = query.limit === null ? undefined : query.startIndex + query.limit;
  return {
    Items: items.slice(query.startIndex, end),
    TotalRecordCount: items.length,
    StartIndex: query.startIndex,
  };
}
