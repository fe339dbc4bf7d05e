import type { RipQueueItem, RipQueueResponse } from '@reelshelf/contract';
import { slotNumber } from '../binders.ts';

/**
 * A disc of a film that has no present media file (what the repository reads): the rip queue's item
 * shape; `format` is one of the normalised disc formats (DISC_FORMATS), or null when the copy does not say.
 */
export type RipCandidate = RipQueueItem;

export type { RipQueueItem };

/** The queue (or a page of it) with the whole queue's totals: GET /api/rip-queue's answer. */
export type RipQueue = RipQueueResponse;

/**
 * Which disc of a film to rip when it has several: the best picture first (a 4K disc makes the
 * better file; 3D discs carry the 2D film too). Formats not listed rank last.
 */
const FORMAT_RANK: readonly string[] = ['4K UHD', 'Blu-ray', '3D Blu-ray', 'HD DVD', 'DVD'];

function rankOf(format: string | null): number {
  const i = format === null ? -1 : FORMAT_RANK.indexOf(format);
  return i === -1 ? FORMAT_RANK.length : i;
}

const natural = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

function byText(a: string, b: string): number {
  return natural.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0);
}

/**
 * Binder/slot order (docs/collector.md "Rip queue"): by binder name; inside a binder numbered slots
 * by number, then named slots in natural order, then copies with no slot; copies in no binder last
 * (by title). Copy id breaks every tie, so the order is total and the same on both engines.
 */
export function compareShelfPlace(a: RipCandidate, b: RipCandidate): number {
  if (a.binder === null || b.binder === null) {
    if (a.binder !== b.binder) return a.binder === null ? 1 : -1;
  } else {
    const byBinder = byText(a.binder, b.binder);
    if (byBinder !== 0) return byBinder;
  }
  const slotKey = (c: RipCandidate): [number, number] => {
    if (c.slot === null) return [2, 0];
    const n = slotNumber(c.slot);
    return n === null ? [1, 0] : [0, n];
  };
  const [ka, na] = slotKey(a);
  const [kb, nb] = slotKey(b);
  if (ka !== kb) return ka - kb;
  if (na !== nb) return na - nb;
  if (ka === 1 && a.slot !== null && b.slot !== null) {
    const bySlot = byText(a.slot, b.slot);
    if (bySlot !== 0) return bySlot;
  }
  if (a.binder === null) {
    const byTitle = byText(a.title, b.title);
    if (byTitle !== 0) return byTitle;
  }
  return a.copy_id - b.copy_id;
}

/**
 * The rip queue from every disc of the films with no present file: one item per film, the disc to
 * rip being its best format (then the first in binder order); then `formats` (when given) keeps
 * the films whose disc to rip is of one of them — a film on 4K and DVD is a 4K rip, not a DVD one.
 */
export function buildRipQueue(
  candidates: readonly RipCandidate[],
  formats: readonly string[] | null,
): RipQueue {
  const best = new Map<number, RipCandidate>();
  for (const c of candidates) {
    const held = best.get(c.movie_id);
    if (
      held === undefined ||
      rankOf(c.format) < rankOf(held.format) ||
      (rankOf(c.format) === rankOf(held.format) && compareShelfPlace(c, held) < 0)
    ) {
      best.set(c.movie_id, c);
    }
  }
  const wanted = formats === null || formats.length === 0 ? null : new Set(formats);
  const items = [...best.values()]
    .filter((c) => wanted === null || (c.format !== null && wanted.has(c.format)))
    .sort(compareShelfPlace);
  const total = items.reduce((sum, c) => sum + (c.runtime_minutes ?? 0), 0);
  return { items, total: items.length, total_runtime_minutes: total };
}
