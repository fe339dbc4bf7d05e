/**
 * ContentDirectory:1 `SortCriteria` (CDS:1 §2.5.7): `+dc:title,-dc:date`. Keys reelshelf sorts by are
 * `dc:title`, `dc:date` and `upnp:genre` (GetSortCapabilities); any other key — TVs send
 * `+upnp:originalTrackNumber`, `+upnp:album` for video too — is ignored rather than refused (709),
 * so a TV's standard criteria never cost it the listing. A key without a sign is ascending.
 */

export const SORT_PROPERTIES = ['dc:title', 'dc:date', 'upnp:genre'] as const;
export type SortProperty = (typeof SORT_PROPERTIES)[number];

export interface SortKey {
  property: SortProperty;
  descending: boolean;
}

/** More keys than this are not read (each adds a comparison to every sort). */
const MAX_KEYS = 8;

/** The keys reelshelf sorts by, in order; empty when none is (the container's own order). */
export function parseSortCriteria(text: string): SortKey[] {
  const keys: SortKey[] = [];
  for (const raw of text.split(',')) {
    const part = raw.trim();
    if (part === '') continue;
    const sign = part.charAt(0);
    const descending = sign === '-';
    const name = sign === '+' || sign === '-' ? part.slice(1).trim() : part;
    const property = SORT_PROPERTIES.find((p) => p === name);
    if (property === undefined || keys.some((k) => k.property === property)) continue;
    keys.push({ property, descending });
    if (keys.length === MAX_KEYS) break;
  }
  return keys;
}

/** The canonical text of some keys (`+dc:title,-dc:date`): kept orders are cached under it. */
export function sortSpec(keys: readonly SortKey[]): string {
  return keys.map((k) => `${k.descending ? '-' : '+'}${k.property}`).join(',');
}
