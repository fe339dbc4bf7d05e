/**
 * The query of `/Items` as the apps send it (players.md §1.3, §1.6): keys in any case (`ParentId`,
 * `parentId`), arrays comma-separated (`Fields=A,B`) or as repeated keys (`fields=A&fields=B`), and
 * the sort, order, paging and search a library browser asks for. Pure: the route hands in the parsed
 * query string; the answer is a typed query or the field that is wrong.
 */
import type { MovieDto } from './dto.ts';

export type RawQuery = Readonly<Record<string, unknown>>;

export type ItemsSortKey = 'SortName' | 'DateCreated' | 'PremiereDate';
const SORT_KEYS: ReadonlyMap<string, ItemsSortKey> = new Map(
  (['SortName', 'DateCreated', 'PremiereDate'] as const).map((k) => [k.toLowerCase(), k]),
);

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
}

export type ItemsQueryResult =
  { ok: true; query: ItemsQuery } | { ok: false; field: string; message: string };

/** Every value of `key` in `raw`, whatever the case of the key, comma-separated lists split, blanks dropped. */
export function queryValues(raw: RawQuery, key: string): string[] {
  const wanted = key.toLowerCase();
  const out: string[] = [];
  for (const [name, value] of Object.entries(raw)) {
    if (name.toLowerCase() !== wanted) continue;
    for (const v of [value].flat()) {
      if (typeof v !== 'string') continue;
      for (const part of v.split(',')) {
        const trimmed = part.trim();
        if (trimmed !== '') out.push(trimmed);
      }
    }
  }
  return out;
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
  if (text === null) return false;
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
    },
  };
}

/** Whether the item types asked for include movies (none asked: any type). */
export function wantsMovies(query: Pick<ItemsQuery, 'includeItemTypes'>): boolean {
  return (
    query.includeItemTypes.length === 0 || query.includeItemTypes.some((t) => t.toLowerCase() === 'movie')
  );
}

type Sortable = Pick<MovieDto, 'SortName' | 'DateCreated' | 'PremiereDate' | 'Id'>;

function compareBy(key: ItemsSortKey, a: Sortable, b: Sortable): number {
  if (key === 'SortName') return a.SortName < b.SortName ? -1 : a.SortName > b.SortName ? 1 : 0;
  const x = a[key];
  const y = b[key];
  // Items without the date sort first ascending, as Jellyfin's null-first ordering does.
  if (x === y) return 0;
  if (x === null) return -1;
  if (y === null) return 1;
  return x < y ? -1 : 1;
}

/**
 * Sorted by the keys in turn (SortName when none), then by SortName and Id so that pages never
 * overlap or skip; SortOrder reverses the asked keys, not the tie-breakers' stability.
 */
export function sortItems<T extends Sortable>(
  items: readonly T[],
  query: Pick<ItemsQuery, 'sortBy' | 'descending'>,
): T[] {
  const keys: ItemsSortKey[] = query.sortBy.length === 0 ? ['SortName'] : [...query.sortBy];
  const sign = query.descending ? -1 : 1;
  return [...items].sort((a, b) => {
    for (const key of keys) {
      const c = compareBy(key, a, b);
      if (c !== 0) return sign * c;
    }
    const byName = compareBy('SortName', a, b);
    if (byName !== 0) return byName;
    return a.Id < b.Id ? -1 : a.Id > b.Id ? 1 : 0;
  });
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
