import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Image tags (players.md §1.6): `ImageTags` hold short opaque tags, never URLs, and the apps build
 * `/Items/{id}/Images/{type}?tag=…` without a token. A tag is an HMAC of the item's id, the image
 * kind, the artwork's version and the PERSON it was listed to: it changes when the picture does
 * (the apps cache by it), it cannot be made up, and it names whom it was given to. A request that
 * carries a tag but no token is served only while that person may still see the film (checked at
 * each request), so a tag only ever reached someone who could see the film, a child never holds a
 * tag of a film hidden from them, and a tag stops working when the film becomes hidden from its
 * person (a certification or limit change) or the person is removed. See docs/jellyfin.md.
 */
export type JellyfinImageKind = 'Primary' | 'Backdrop';

/** 16 bytes as 32 hex digits: the length of Jellyfin's own tags. */
const TAG_BYTES = 16;

/** The tags of one person's listing (what the DTO mapping needs). */
export interface ImageTagger {
  tag(itemId: string, kind: JellyfinImageKind, version: string): string;
}

export class ImageTags {
  readonly #key: Buffer;

  constructor(secret: string | Buffer) {
    this.#key = createHmac('sha256', secret).update('reelshelf/jellyfin/image-tags').digest();
  }

  #digest(itemId: string, kind: JellyfinImageKind, version: string, personId: number): Buffer {
    return createHmac('sha256', this.#key)
      .update(`${itemId.toLowerCase()}\n${kind}\n${version}\n${personId}`)
      .digest()
      .subarray(0, TAG_BYTES);
  }

  /** The tag of one image of one item at one version of the artwork, as listed to one person. */
  tag(itemId: string, kind: JellyfinImageKind, version: string, personId: number): string {
    return this.#digest(itemId, kind, version, personId).toString('hex');
  }

  /** The tags one person's listing carries. */
  forPerson(personId: number): ImageTagger {
    return { tag: (itemId, kind, version) => this.tag(itemId, kind, version, personId) };
  }

  /** Whether `tag` is the tag of that image at that version listed to that person (constant time; any case). */
  check(tag: string, itemId: string, kind: JellyfinImageKind, version: string, personId: number): boolean {
    if (!/^[0-9a-fA-F]{32}$/.test(tag)) return false;
    return timingSafeEqual(
      Buffer.from(tag.toLowerCase(), 'hex'),
      this.#digest(itemId, kind, version, personId),
    );
  }
}
