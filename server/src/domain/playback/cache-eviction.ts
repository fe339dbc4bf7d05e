/**
 * One entry of the playback cache: a progressive artifact (one MP4) or an HLS presentation (a folder
 * of segments). Both kinds share one bound and one order.
 */
export interface CacheEntry {
  kind: 'artifact' | 'segments';
  /** The artifact key, or the presentation key (its folder name). */
  key: string;
  /** Bytes it holds on disk. */
  bytes: number;
  /** When a player last used it (ms since the epoch). */
  lastUsedMs: number;
  /** Being converted, served or read right now, or just made: never evicted. */
  inUse: boolean;
}

/**
 * Which entries to remove so the cache fits its bound: the least recently used first, whatever
 * their kind, skipping those in use, until what is left is within the bound (or nothing more can go).
 * Ties go to artifacts first, then by key, so the choice never depends on listing order.
 * @param totalBytes what the cache holds on disk now (files no entry names, such as a build's
 *   growing file, count too: they take space even though they cannot be evicted)
 * @example chooseEvictions([{kind:'artifact',key:'a',bytes:5,lastUsedMs:1,inUse:false}], 8, 4) // [that entry]
 */
export function chooseEvictions(
  entries: readonly CacheEntry[],
  totalBytes: number,
  boundBytes: number,
): CacheEntry[] {
  const order = [...entries].sort(
    (a, b) =>
      a.lastUsedMs - b.lastUsedMs ||
      (a.kind === b.kind ? 0 : a.kind === 'artifact' ? -1 : 1) ||
      (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
  );
  const out: CacheEntry[] = [];
  let total = totalBytes;
  for (const entry of order) {
    if (total <= boundBytes) break;
    if (entry.inUse) continue;
    out.push(entry);
    total -= entry.bytes;
  }
  return out;
}
