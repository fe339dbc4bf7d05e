/** Slots of a binder created on the fly (by a copy, a barcode scan or an import that names it). */
export const DEFAULT_BINDER_CAPACITY = 100;

/** Slots on one drawn page of a binder unless its owner says otherwise (a 4×2 sleeve page). */
export const DEFAULT_SLOTS_PER_PAGE = 8;
export const MAX_SLOTS_PER_PAGE = 100;

/**
 * The highest slot number laid out by number. A slot above it (or one not written as a plain number:
 * "A3", "01", "12b") is a named slot: listed after the numbered pages, so a typo such as "9999999"
 * cannot make a binder of a million empty pages.
 */
export const MAX_NUMBERED_SLOT = 10_000;

/** The slot's number when it is a plain positive number ("1".."10000", no leading zero), else null. */
export function slotNumber(slot: string): number | null {
  if (!/^[1-9][0-9]{0,4}$/.test(slot)) return null;
  const n = Number(slot);
  return n <= MAX_NUMBERED_SLOT ? n : null;
}

export interface LaidSlot<C> {
  slot: string;
  copy: C | null;
}

export interface BinderPage<C> {
  number: number;
  slots: LaidSlot<C>[];
}

const named = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

/**
 * A binder's slots as pages (docs/collector.md "Binder pages"). Numbered slots sit at their number
 * on pages of `slotsPerPage` (slot n on page ceil(n / slotsPerPage)), the pages running to the
 * highest taken number with every slot in between shown (empty: copy null). Named slots follow on
 * pages of their own, in natural order, only the taken ones. `held` may hold a slot whose copy is
 * null (a disc the viewer may not see): it counts as taken for the page count and shows empty.
 */
export function layOutBinder<C>(held: readonly LaidSlot<C>[], slotsPerPage: number): BinderPage<C>[] {
  const perPage = Math.max(1, Math.min(MAX_SLOTS_PER_PAGE, Math.floor(slotsPerPage)));
  const byNumber = new Map<number, C | null>();
  const others: LaidSlot<C>[] = [];
  let highest = 0;
  for (const h of held) {
    const n = slotNumber(h.slot);
    if (n === null) {
      others.push(h);
      continue;
    }
    byNumber.set(n, h.copy);
    if (n > highest) highest = n;
  }
  const pages: BinderPage<C>[] = [];
  const numberedPages = Math.ceil(highest / perPage);
  for (let p = 0; p < numberedPages; p++) {
    const slots: LaidSlot<C>[] = [];
    for (let i = 1; i <= perPage; i++) {
      const n = p * perPage + i;
      slots.push({ slot: String(n), copy: byNumber.get(n) ?? null });
    }
    pages.push({ number: p + 1, slots });
  }
  others.sort((a, b) => named.compare(a.slot, b.slot) || (a.slot < b.slot ? -1 : a.slot > b.slot ? 1 : 0));
  for (let i = 0; i < others.length; i += perPage) {
    pages.push({ number: pages.length + 1, slots: others.slice(i, i + perPage) });
  }
  return pages;
}
