/**
 * The rip queue over time (issue 27 item 6), rebuilt from what the database keeps: a disc is on the
 * queue from the month its physical copy was added until the month the first file of its film that
 * is present today was added. This is an approximation (docs/collector.md "Stats"): a file that was
 * deleted or went missing since is not in that history, so the queue's past is drawn as if the
 * files present now were the only ones there ever were.
 */

/** Discs grouped by the month they were added and the month their film's first present file was. */
export interface RipQueueGroup {
  /** `YYYY-MM` of physical_copies.created_at. */
  added: string;
  /** `YYYY-MM` of the film's first present media file's created_at; null: no present file. */
  ripped: string | null;
  discs: number;
}

export interface MonthPoint {
  /** `YYYY-MM`. */
  month: string;
  /** Discs on the queue at the end of that month (the last point: now). */
  discs: number;
}

/** At most this many months are drawn (the last ones): ten years. */
export const MAX_MONTHS = 120;

const MONTH = /^(\d{4})-(\d{2})$/;

function monthIndex(month: string): number | null {
  const m = MONTH.exec(month);
  if (m === null) return null;
  const year = Number(m[1]);
  const mon = Number(m[2]);
  if (mon < 1 || mon > 12) return null;
  return year * 12 + (mon - 1);
}

function monthName(index: number): string {
  const year = Math.floor(index / 12);
  const mon = (index % 12) + 1;
  return `${String(year).padStart(4, '0')}-${String(mon).padStart(2, '0')}`;
}

/** `YYYY-MM` of an instant, in UTC (the timestamps are ISO-8601 UTC text). */
export function monthOf(date: Date): string {
  return monthName(date.getUTCFullYear() * 12 + date.getUTCMonth());
}

/**
 * One point per month from the first disc's month to `now`'s month (the last point is now), each
 * the discs added by the end of that month whose film had no present file by then. Groups with a
 * month that does not read are left out; a disc added "after now" (a clock set back) counts from now.
 */
export function ripQueueSeries(groups: readonly RipQueueGroup[], now: Date): MonthPoint[] {
  const last = monthIndex(monthOf(now)) as number;
  const read = groups.flatMap((g) => {
    const added = monthIndex(g.added);
    if (added === null || g.discs <= 0) return [];
    const ripped = g.ripped === null ? null : monthIndex(g.ripped);
    if (g.ripped !== null && ripped === null) return [];
    return [{ added: Math.min(added, last), ripped, discs: g.discs }];
  });
  if (read.length === 0) return [];
  const first = Math.max(Math.min(...read.map((g) => g.added)), last - MAX_MONTHS + 1);
  // A difference array: +discs the month a disc joins, −discs the month its file arrives.
  const delta = new Map<number, number>();
  const bump = (month: number, by: number) => delta.set(month, (delta.get(month) ?? 0) + by);
  for (const g of read) {
    if (g.ripped !== null && g.ripped <= g.added) continue; // ripped before (or as) it was shelved
    bump(Math.max(g.added, first), g.discs);
    if (g.ripped !== null && g.ripped <= last) bump(Math.max(g.ripped, first), -g.discs);
  }
  // A disc shelved before the first drawn month joins at that month (and leaves in it if ripped before).
  let count = 0;
  const points: MonthPoint[] = [];
  for (let m = first; m <= last; m++) {
    count += delta.get(m) ?? 0;
    points.push({ month: monthName(m), discs: count });
  }
  return points;
}

const SHORT = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `2026-03` → `Mar 2026` (a chart label); other text as it is. */
export function monthLabel(month: string): string {
  const index = monthIndex(month);
  if (index === null) return month;
  return `${SHORT[index % 12] ?? ''} ${Math.floor(index / 12)}`;
}
