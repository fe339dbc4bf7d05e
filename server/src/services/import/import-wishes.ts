/**
 * @module services/import-wishes
 * An import's wishes (issue 27 item 5, docs/collector.md "Wish list"): a CLZ row whose collection
 * status is `Wish List`, every row of `?into=wishes` (a Letterboxd watchlist.csv), a JSON document's
 * `wishes`. They are planned with the import (domain/wishes.ts planWishes: a dry run counts what the
 * write does) and written in its transaction; a film the import brings as owned leaves the list.
 */
import type { ImportResult } from '@reelshelf/contract';
import type { InMovie } from '../../domain/import-export/import-items.ts';
import type { LibraryExport } from '../../domain/import-export/index.ts';
import type { ImportRow } from '../../domain/import-export/types.ts';
import {
  compareWishes,
  type FilmKey,
  filmKey,
  type InWish,
  type NewWish,
  planWishes,
  type WishPlan,
  type WishRow,
} from '../../domain/wishes.ts';

/** What an import reads and writes of the wish list (repositories/wish.repository.ts). */
export interface WishImportPort {
  list(): Promise<WishRow[]>;
  ownedFilms(): Promise<FilmKey[]>;
  insertMany(rows: readonly NewWish[]): Promise<void>;
  deleteIds(ids: readonly number[]): Promise<void>;
}

/** A CSV's wish rows (the line is the row a warning names). */
export function wishesFromCsv(rows: readonly ImportRow[]): InWish[] {
  return rows.map((r) => ({ row: r.line, title: r.title, year: r.year, tmdb_id: r.tmdbId, note: null }));
}

/** A JSON document's wishes (1-based items of `wishes`). */
export function wishesFromDocument(doc: LibraryExport): InWish[] {
  return (doc.wishes ?? []).map((w, i) => ({ row: i + 1, ...w }));
}

/** The file's films that come with a copy or a file: owned once the import is written. */
function ownedItems(items: readonly InMovie[]): FilmKey[] {
  return items
    .filter(
      (m) => m.copies.length > 0 || m.media_files.length > 0 || m.editions.some((e) => e.copies.length > 0),
    )
    .map((m) => filmKey(m.title, m.year, m.tmdb_id));
}

/**
 * The import's wish plan, or null when it has nothing to do with wishes (no wish rows and no stored
 * wishes: the common import reads one empty list and nothing more). A JSON document (`restore`) is
 * restored as it is: its wishes are wishes even of films it owns (a wish whose film a scan found
 * since stays on the list, and export → import → export keeps its bytes), and it fulfils none.
 */
export async function planImportWishes(
  port: Pick<WishImportPort, 'list' | 'ownedFilms'> | undefined,
  items: readonly InMovie[],
  rows: readonly InWish[],
  now: string,
  restore: boolean,
): Promise<WishPlan | null> {
  if (port === undefined) return null;
  const stored = await port.list();
  if (rows.length === 0 && stored.length === 0) return null;
  const owned = restore ? [] : [...(await port.ownedFilms()), ...ownedItems(items)];
  return planWishes(rows, stored, owned, now);
}

/** Writes the plan: fulfilled wishes go, new ones come (in list order: their ids follow it). */
export async function writeImportWishes(
  port: WishImportPort | undefined,
  plan: WishPlan | null,
): Promise<void> {
  if (port === undefined || plan === null) return;
  if (plan.fulfilled.length > 0) await port.deleteIds(plan.fulfilled);
  if (plan.create.length > 0) await port.insertMany([...plan.create].sort(compareWishes));
}

/** The report's `wishes`, when the import touched the wish list. */
export function wishReport(plan: WishPlan | null, rows: readonly InWish[]): Pick<ImportResult, 'wishes'> {
  if (plan === null || (rows.length === 0 && plan.fulfilled.length === 0)) return {};
  return {
    wishes: {
      created: plan.create.length,
      unchanged: plan.unchanged,
      owned: plan.owned,
      fulfilled: plan.fulfilled.length,
    },
  };
}
