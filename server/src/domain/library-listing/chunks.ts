/**
 * Where the listing's bytes are cut into separately compressed pieces. The cut after an item
 * depends on the item's identity only (a hash of its key, about one cut in {@link MEAN_ITEMS}), not
 * on its position: adding, removing or moving one movie changes the piece it is in (and the one it
 * lands in), never the cuts of the rest, so every other piece's compressed bytes are reused.
 */
export const MEAN_ITEMS = 64;

/** A 32-bit mix of a string (FNV-1a, then an avalanche). */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h >>> 0;
}

/** True when a piece ends after the item with this key. */
export function cutsAfter(key: string): boolean {
  return hash(key) % MEAN_ITEMS === 0;
}
