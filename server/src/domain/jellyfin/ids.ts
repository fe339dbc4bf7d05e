import { createCipheriv, createDecipheriv, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Jellyfin ids for reelshelf's rows: 32 lower-case hex digits (a GUID in .NET's "N" format, which
 * the Kotlin SDK parses as a UUID), the same for the same row on every start and rescan, and
 * neither guessable nor enumerable.
 *
 * One 16-byte block = kind (1 byte) · numeric id (6 bytes, big-endian) · the first 9 bytes of an
 * HMAC of those 7, encrypted with AES-128 (one block: a keyed permutation). The HMAC makes a forged
 * or mistyped id fail the check (2^-72); the encryption hides the row number, so neighbouring rows
 * do not have neighbouring ids. Both keys are derived from one server secret kept in the data dir.
 */
export type JellyfinIdKind =
  | 'movie'
  | 'media-source'
  | 'folder'
  | 'person'
  | 'user'
  | 'server'
  | 'session'
  /** A genre name (no table): its number is genreNumber(name), domain/jellyfin/catalogue.ts. */
  | 'genre'
  | 'studio';

export interface JellyfinRef {
  kind: JellyfinIdKind;
  id: number;
}

const KIND_CODES: Record<JellyfinIdKind, number> = {
  movie: 1,
  'media-source': 2,
  folder: 3,
  person: 4,
  user: 5,
  server: 6,
  session: 7,
  // Codes well apart from the first ones: other parts of the facade add kinds too.
  genre: 16,
  studio: 17,
};
const CODE_KINDS = new Map<number, JellyfinIdKind>(
  Object.entries(KIND_CODES).map(([kind, code]) => [code, kind as JellyfinIdKind]),
);
/** 6 bytes of row id. */
const MAX_ID = 2 ** 48 - 1;
const MAC_BYTES = 9;

export class JellyfinIds {
  readonly #blockKey: Buffer;
  readonly #macKey: Buffer;

  constructor(secret: string | Buffer) {
    this.#blockKey = createHmac('sha256', secret)
      .update('reelshelf/jellyfin/ids/block')
      .digest()
      .subarray(0, 16);
    this.#macKey = createHmac('sha256', secret).update('reelshelf/jellyfin/ids/mac').digest();
  }

  #mac(head: Buffer): Buffer {
    return createHmac('sha256', this.#macKey).update(head).digest().subarray(0, MAC_BYTES);
  }

  /** The id of a row; throws for an id outside 0 … 2^48−1 (a programming error, not input). */
  encode(kind: JellyfinIdKind, id: number): string {
    if (!Number.isSafeInteger(id) || id < 0 || id > MAX_ID)
      throw new RangeError(`no Jellyfin id for ${kind} ${id}`);
    const block = Buffer.alloc(16);
    block.writeUInt8(KIND_CODES[kind], 0);
    block.writeUIntBE(id, 1, 6);
    this.#mac(block.subarray(0, 7)).copy(block, 7);
    const cipher = createCipheriv('aes-128-ecb', this.#blockKey, null).setAutoPadding(false);
    return Buffer.concat([cipher.update(block), cipher.final()]).toString('hex');
  }

  /**
   * The row an id names, or null when it is not one of ours (malformed, forged, or made with
   * another secret). Accepts upper case and the dashed 8-4-4-4-12 form, as clients send both.
   */
  decode(text: string): JellyfinRef | null {
    const hex = text.replace(/-/g, '').toLowerCase();
    if (!/^[0-9a-f]{32}$/.test(hex)) return null;
    const decipher = createDecipheriv('aes-128-ecb', this.#blockKey, null).setAutoPadding(false);
    const block = Buffer.concat([decipher.update(Buffer.from(hex, 'hex')), decipher.final()]);
    if (!timingSafeEqual(block.subarray(7), this.#mac(block.subarray(0, 7)))) return null;
    const kind = CODE_KINDS.get(block.readUInt8(0));
    if (kind === undefined) return null;
    return { kind, id: block.readUIntBE(1, 6) };
  }

  /** The row id when `text` names a row of `kind`, else null. */
  decodeAs(kind: JellyfinIdKind, text: string): number | null {
    const ref = this.decode(text);
    return ref !== null && ref.kind === kind ? ref.id : null;
  }

  /** The one server id: `Id` of /System/Info/Public, `ServerId` everywhere, the UDP answer's `Id`. */
  get serverId(): string {
    return this.encode('server', 0);
  }
}

/** The dashed 8-4-4-4-12 form of a 32-hex id (some clients and headers use it). */
export function dashedId(hex: string): string {
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
