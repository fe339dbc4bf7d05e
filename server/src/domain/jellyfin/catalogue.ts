/**
 * The Jellyfin facade's catalogue: one person's movies as kept, pre-serialised entries, and the pure
 * selection `/Items`, `/Items/Latest`, `/Items/Filters`, `/Genres`, `/Items/{id}/Similar` make from
 * them. Each entry holds the DTO's JSON cut into a head and the optional parts `Fields=` asks for, so
 * an answer is string concatenation (the 10,000-film sync the apps do costs no serialisation), plus
 * the facts filters and sorts read.
 */
import { createHash } from 'node:crypto';
import type { MovieDto } from './dto.ts';
import type { ItemFilter, ItemsQuery, QueryResult } from './items-query.ts';
import { sortItems } from './items-query.ts';
import { toWireJson } from './wire.ts';

/** The parts of a Movie left out of lists unless `Fields=` names them (as Jellyfin does). */
export const GATED_FIELDS = ['Overview', 'Genres', 'People', 'Studios', 'MediaSources'] as const;
export type GatedField = (typeof GATED_FIELDS)[number];
const GATED_BY_LOWER: ReadonlyMap<string, GatedField> = new Map(
  GATED_FIELDS.map((f) => [f.toLowerCase(), f]),
);

export interface CatalogueEntry {
  /** `m<movie id>`, or `f<file id>` for a file matched to no movie. */
  key: string;
  movieId: number | null;
  Id: string;
  SortName: string;
  DateCreated: string | null;
  PremiereDate: string | null;
  CommunityRating: number | null;
  ProductionYear: number | null;
  OfficialRating: string | null;
  /** Lower-cased genre names. */
  genres: readonly string[];
  /** The genre names as written (for /Genres and /Items/Filters). */
  genreNames: readonly string[];
  personIds: ReadonlySet<number>;
  studioIds: ReadonlySet<number>;
  /** Lower-cased studio names. */
  studios: readonly string[];
  played: boolean;
  resumable: boolean;
  favorite: boolean;
  /** Its media sources' files (reelshelf ids), in MediaSources order: what its Trickplay field is of. */
  fileIds: readonly number[];
  /** The DTO's JSON without the gated parts and without its closing brace. */
  head: string;
  /** `,"Overview":…` for each gated part the DTO has. */
  gated: Partial<Record<GatedField, string>>;
}

/** The numbers behind an entry's filters (the DTO carries them only as encoded ids). */
export interface EntryKeys {
  key: string;
  movieId: number | null;
  personIds: readonly number[];
  studioIds: readonly number[];
  fileIds?: readonly number[];
}

/** A DTO cut into its kept entry. */
export function entryOf(dto: MovieDto, keys: EntryKeys): CatalogueEntry {
  const base: Record<string, unknown> = { ...dto };
  const gated: Partial<Record<GatedField, string>> = {};
  for (const field of GATED_FIELDS) {
    const value = dto[field];
    delete base[field];
    if (value === null || value === undefined) continue;
    gated[field] = `,${JSON.stringify(field)}:${toWireJson(value)}`;
  }
  const head = toWireJson(base);
  return {
    key: keys.key,
    movieId: keys.movieId,
    Id: dto.Id,
    SortName: dto.SortName,
    DateCreated: dto.DateCreated,
    PremiereDate: dto.PremiereDate,
    CommunityRating: dto.CommunityRating,
    ProductionYear: dto.ProductionYear,
    OfficialRating: dto.OfficialRating,
    genres: dto.Genres.map((g) => g.toLowerCase()),
    genreNames: dto.Genres,
    personIds: new Set(keys.personIds),
    studioIds: new Set(keys.studioIds),
    studios: dto.Studios.map((s) => s.Name.toLowerCase()),
    played: dto.UserData.Played,
    resumable: !dto.UserData.Played && dto.UserData.PlaybackPositionTicks > 0,
    favorite: dto.UserData.IsFavorite,
    fileIds: keys.fileIds ?? [],
    head: head.slice(0, -1),
    gated,
  };
}

/** The gated parts a `Fields=` list asks for (names in any case; unknown names ignored). */
export function gatedFieldsOf(fields: readonly string[]): GatedField[] {
  const out = new Set<GatedField>();
  for (const f of fields) {
    const known = GATED_BY_LOWER.get(f.toLowerCase());
    if (known !== undefined) out.add(known);
  }
  return [...out];
}

/**
 * A part made per answer rather than kept with the entry (`,"Trickplay":{…}`: the seek thumbnails
 * are made without the library changing): '' for none.
 */
export type EntryExtra = (entry: CatalogueEntry) => string;

/** One entry's JSON with the asked parts (every part: the detail of one item), then `extra`'s. */
export function entryJson(
  entry: CatalogueEntry,
  fields: readonly GatedField[] = GATED_FIELDS,
  extra?: EntryExtra,
): string {
  let out = entry.head;
  for (const f of fields) out += entry.gated[f] ?? '';
  if (extra !== undefined) out += extra(entry);
  return `${out}}`;
}

/** A JSON array of entries with the asked parts. */
export function entriesJson(
  entries: readonly CatalogueEntry[],
  fields: readonly GatedField[],
  extra?: EntryExtra,
): string {
  const parts = new Array<string>(entries.length);
  for (let i = 0; i < entries.length; i++) parts[i] = entryJson(entries[i] as CatalogueEntry, fields, extra);
  return `[${parts.join(',')}]`;
}

/** A `QueryResult` of entries as JSON (the page's items with the asked parts). */
export function queryResultJson(
  page: QueryResult<CatalogueEntry>,
  fields: readonly GatedField[],
  extra?: EntryExtra,
): string {
  return `{"Items":${entriesJson(page.Items, fields, extra)},"TotalRecordCount":${page.TotalRecordCount},"StartIndex":${page.StartIndex}}`;
}

const genreNumbers = new Map<string, number>();

/** A stable number for a genre name (ids of kind `genre`): the name folded, hashed to 48 bits. */
export function genreNumber(name: string): number {
  const folded = name.trim().toLowerCase();
  let n = genreNumbers.get(folded);
  if (n === undefined) {
    n = createHash('sha256').update(folded).digest().readUIntBE(0, 6);
    // A deterministic memo (genres are few); bounded all the same.
    if (genreNumbers.size < 10_000) genreNumbers.set(folded, n);
  }
  return n;
}

/** The filters of a query with the ids it named already decoded (unknown or forged ids: dropped). */
export interface EntrySelection {
  filters: readonly ItemFilter[];
  notFavorite: boolean;
  /** Lower-cased names; with genreNumbers: any of them. Null: no genre filter. */
  genres: ReadonlySet<string> | null;
  genreNumbers: ReadonlySet<number>;
  years: ReadonlySet<number> | null;
  personIds: ReadonlySet<number> | null;
  studios: ReadonlySet<string> | null;
  studioIds: ReadonlySet<number>;
}

/** The selection of a parsed query; `decode` turns an id of a kind into its number, or null. */
export function selectionOf(
  query: Pick<
    ItemsQuery,
    'filters' | 'notFavorite' | 'genres' | 'genreIds' | 'years' | 'personIds' | 'studios' | 'studioIds'
  >,
  decode: (kind: 'genre' | 'person' | 'studio', id: string) => number | null,
): EntrySelection {
  const numbers = (kind: 'genre' | 'person' | 'studio', ids: readonly string[]): Set<number> =>
    new Set(ids.map((id) => decode(kind, id)).filter((n): n is number => n !== null));
  const anyGenre = query.genres.length > 0 || query.genreIds.length > 0;
  const anyStudio = query.studios.length > 0 || query.studioIds.length > 0;
  return {
    filters: query.filters,
    notFavorite: query.notFavorite,
    genres: anyGenre ? new Set(query.genres.map((g) => g.toLowerCase())) : null,
    genreNumbers: numbers('genre', query.genreIds),
    years: query.years.length > 0 ? new Set(query.years) : null,
    personIds: query.personIds.length > 0 ? numbers('person', query.personIds) : null,
    studios: anyStudio ? new Set(query.studios.map((s) => s.toLowerCase())) : null,
    studioIds: numbers('studio', query.studioIds),
  };
}

const FILTER_TESTS: Record<ItemFilter, (e: CatalogueEntry) => boolean> = {
  IsPlayed: (e) => e.played,
  IsUnplayed: (e) => !e.played,
  IsResumable: (e) => e.resumable,
  IsFavorite: (e) => e.favorite,
};

/** Whether an entry passes every filter (each list filter: any of its values). */
export function matches(entry: CatalogueEntry, s: EntrySelection): boolean {
  for (const f of s.filters) if (!FILTER_TESTS[f](entry)) return false;
  if (s.notFavorite && entry.favorite) return false;
  if (s.years !== null && (entry.ProductionYear === null || !s.years.has(entry.ProductionYear))) return false;
  if (s.genres !== null) {
    const hit = entry.genres.some((g) => s.genres?.has(g) === true || s.genreNumbers.has(genreNumber(g)));
    if (!hit) return false;
  }
  if (s.personIds !== null && ![...s.personIds].some((p) => entry.personIds.has(p))) return false;
  if (s.studios !== null) {
    const hit =
      entry.studios.some((n) => s.studios?.has(n) === true) ||
      [...s.studioIds].some((id) => entry.studioIds.has(id));
    if (!hit) return false;
  }
  return true;
}

/** Whether the selection filters anything at all (none: the kept order is used as is). */
export function selectsAll(s: EntrySelection): boolean {
  return (
    s.filters.length === 0 &&
    !s.notFavorite &&
    s.genres === null &&
    s.years === null &&
    s.personIds === null &&
    s.studios === null
  );
}

/** The entries that pass the selection, in the order given (the same array when it filters nothing). */
export function filterEntries(
  entries: readonly CatalogueEntry[],
  selection: EntrySelection,
): readonly CatalogueEntry[] {
  return selectsAll(selection) ? entries : entries.filter((e) => matches(e, selection));
}

/** `/Items/Latest`: the newest first (DateCreated, then Id), at most `limit`. */
export function latestEntries(entries: readonly CatalogueEntry[], limit: number): CatalogueEntry[] {
  return sortItems(entries, { sortBy: ['DateCreated'], descending: true }).slice(0, limit);
}

/**
 * `/Items/{id}/Similar`: other films sharing a genre with it, the most shared genres first, then the
 * higher community rating, then by name; a film without genres has none.
 */
export function similarEntries(
  entries: readonly CatalogueEntry[],
  of: CatalogueEntry,
  limit: number,
): CatalogueEntry[] {
  if (of.genres.length === 0) return [];
  const wanted = new Set(of.genres);
  const scored: { entry: CatalogueEntry; shared: number }[] = [];
  for (const e of entries) {
    if (e.key === of.key) continue;
    const shared = e.genres.filter((g) => wanted.has(g)).length;
    if (shared > 0) scored.push({ entry: e, shared });
  }
  scored.sort(
    (a, b) =>
      b.shared - a.shared ||
      (b.entry.CommunityRating ?? -1) - (a.entry.CommunityRating ?? -1) ||
      (a.entry.SortName < b.entry.SortName ? -1 : a.entry.SortName > b.entry.SortName ? 1 : 0) ||
      (a.entry.Id < b.entry.Id ? -1 : 1),
  );
  return scored.slice(0, limit).map((s) => s.entry);
}

/** `/Items/Filters` (QueryFiltersLegacy): the genres, ratings and years of the entries, sorted. */
export interface LegacyFilters {
  Genres: string[];
  Tags: string[];
  OfficialRatings: string[];
  Years: number[];
}

/** The genres of the entries (as first written; folded duplicates once), by name. */
export function genresOf(entries: readonly CatalogueEntry[]): string[] {
  const out = new Map<string, string>();
  for (const e of entries)
    for (const g of e.genreNames) if (!out.has(g.toLowerCase())) out.set(g.toLowerCase(), g);
  return [...out.values()].sort((a, b) => a.localeCompare(b));
}

export function legacyFilters(entries: readonly CatalogueEntry[]): LegacyFilters {
  const official = new Set<string>();
  const years = new Set<number>();
  for (const e of entries) {
    if (e.OfficialRating !== null) official.add(e.OfficialRating);
    if (e.ProductionYear !== null) years.add(e.ProductionYear);
  }
  return {
    Genres: genresOf(entries),
    Tags: [],
    OfficialRatings: [...official].sort((a, b) => a.localeCompare(b)),
    Years: [...years].sort((a, b) => a - b),
  };
}
