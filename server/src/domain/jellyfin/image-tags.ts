import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Image tags (players.md §1.6): `ImageTags` hold short opaque tags, never URLs, and the apps build
 * `/Items/{id}/Images/{type}?tag=…` without a token. A tag is an HMAC of the item's id, the image
 * kind and the artwork's version, so it changes when the picture does (the apps cache by it) and
 * cannot be made up for an item: holding the right tag is what lets an image URL go without a
 * token. Whether the person may see that film is still checked by the route.
 */
export type JellyfinImageKind = 'Primary' | 'Backdrop';

/** 16 bytes as 32 hex digits: the length of Jellyfin's own tags. */
const TAG_BYTES = 16;

export class ImageTags {
  readonly #key: Buffer;

  constructor(secret: string | Buffer) {
    this.#key = createHmac('sha256', secret).update('reelshelf/jellyfin/image-tags').digest();
  }

  #digest(itemId: string, kind: JellyfinImageKind, version: string): Buffer {
    return createHmac('sha256', this.#key)
      .update(`${itemId.toLowerCase()}\n${kind}\n${version}`)
      .digest()
      .subarray(0, TAG_BYTES);
  }

  /** The tag of one image of one item at one version of the artwork. */
  tag(itemId: string, kind: JellyfinImageKind, version: string): string {
    return this.#digest(itemId, kind, version).toString('hex');
  }

  /** Whether `tag` is the tag of that image at that version (constant time; any case). */
  check(tag: string, itemId: string, kind: JellyfinImageKind, version: string): boolean {
    if (!/^[0-9a-fA-F]{32}$/.test(tag)) return false;
    return timingSafeEqual(Buffer.from(tag.toLowerCase(), 'hex'), this.#digest(itemId, kind, version));
  }
}
