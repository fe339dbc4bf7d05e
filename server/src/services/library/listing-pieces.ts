/**
 * @module services/library/listing-pieces
 * How a kept listing is stored: its items' JSON records in listing order, cut into pieces at
 * item-identity hashes, each piece raw-deflated with the piece before it as its dictionary, and the
 * gzip member framed from the pieces (the CRC combined from theirs). A rebuild recompresses only the
 * pieces whose items, or whose predecessor's items, changed (docs/architecture.md, "The listing cache").
 */
import { promisify } from 'node:util';
import { brotliCompress, constants, crc32, deflateRaw, deflateRawSync, gunzip, gzip } from 'node:zlib';
import type { Badge } from '../../domain/badges.ts';
import {
  GZIP_HEADER,
  crc32CombineOp,
  crc32ShiftOp,
  gzipTrailer,
} from '../../domain/library-listing/gzip-frame.ts';
import { compareTitleThenId } from '../../domain/library-listing/sqlite-order.ts';
import type { ListingVersion } from './library-generation.ts';
import type { ListingViewer } from './library.service.ts';

const deflateRawAsync = promisify(deflateRaw);
const gunzipAsync = promisify(gunzip);
const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

/** What the cache keeps of one listed item: its JSON, and what decides when it must be presented again. */
export interface ItemRecord {
  key: string;
  /** Null for a file matched to no movie (those follow the movies, by id). */
  sortTitle: string | null;
  id: number;
  json: string;
  badge: Badge;
  files: readonly number[];
  /** Its editions carry signed stream URLs: presented again when the token hour moves. */
  tokens: boolean;
  /** A compressed piece ends after this item (chunks.ts). */
  cut: boolean;
}

/** What a piece is made of: an item's JSON, and whether a piece ends after it. */
export interface PieceItem {
  json: string;
  cut: boolean;
}

/** A run of items compressed on its own (raw deflate, sync-flushed). */
export interface Piece<R extends PieceItem = ItemRecord> {
  /** The items it holds, and those of the piece before it (its dictionary); empty for the frame's own pieces. */
  items: readonly R[];
  before: readonly R[] | null;
  deflated: Buffer;
  crc: number;
  length: number;
  shift: number;
}

/** One device's listing for one person and credential, at one version. */
export interface Listing {
  /** The cache key: device, person, credential. */
  key: string;
  device: string;
  viewer: ListingViewer;
  version: ListingVersion;
  records: Map<string, ItemRecord>;
  order: ItemRecord[];
  fileOwner: Map<number, string>;
  /** The pieces, in order; a piece is found again by its first item. */
  pieces: Map<ItemRecord, Piece>;
  /** `],"contract_version":…}`: what follows the items. */
  tail: string;
  /** Some item carries stream URLs (with tokens that move hourly). */
  tokens: boolean;
  gzip: Buffer;
  identity: Promise<Buffer> | null;
  br: Buffer | null;
  brBuilding: boolean;
  /**
   * The bodies a content-limited person was sent from this listing, by limit, coding and page: the
   * same version, limit and page give the same bytes, so they are filtered and gzipped once.
   */
  limited: Map<string, { body: Buffer; total: number }>;
  /** Bytes held, roughly (for the memory bound). */
  bytes: number;
}

/** What every listing's JSON starts with (a page's too). */
export const HEAD = '{"items":[';
const HEAD_PIECE = finalPiece(HEAD, false);
/** Pieces compressed at once (the thread pool has 4 threads; the machine perhaps 2 cores). */
const COMPRESSING_AT_ONCE = 4;
/** Deflate's window: how far back a piece may refer into the text before it. */
const WINDOW = 32 * 1024;

/**
 * Cuts the order into pieces and compresses those `kept` (the base listing's pieces) does not have: a
 * change recompresses its piece and the next, whose dictionary it is.
 */
export async function compressPieces<R extends PieceItem>(
  order: readonly R[],
  kept: ReadonlyMap<R, Piece<R>> | undefined,
  gzipLevel: number,
): Promise<Map<R, Piece<R>>> {
  // Runs of items between cuts. A kept piece is reused when it holds the same item records (each
  // presentation is a new record) after the same piece (its dictionary: the text before it, which
  // the decoder holds in its window, so a piece compresses as well as one stream would).
  const runs: R[][] = [];
  let items: R[] = [];
  for (const r of order) {
    items.push(r);
    if (r.cut) {
      runs.push(items);
      items = [];
    }
  }
  if (items.length > 0) runs.push(items);
  const textOf = (i: number): string => (i === 0 ? '' : ',') + (runs[i] as R[]).map((r) => r.json).join(',');
  const parts: Piece<R>[] = new Array<Piece<R>>(runs.length);
  const missing: number[] = [];
  runs.forEach((run, i) => {
    const before = i === 0 ? null : (runs[i - 1] as R[]);
    const piece = kept?.get(run[0] as R);
    if (piece !== undefined && sameItems(piece.items, run) && sameItems(piece.before, before))
      parts[i] = piece;
    else missing.push(i);
  });
  // A few at a time on the thread pool (each deflate holds ~256 KB of state while it runs).
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < missing.length) {
      const i = missing[next++] as number;
      // (Cut as bytes: the dictionary must be exactly the last bytes the decoder wrote.)
      const dictionary = i === 0 ? null : Buffer.from(textOf(i - 1)).subarray(-WINDOW);
      const piece = await compressPiece(Buffer.from(textOf(i)), dictionary, gzipLevel);
      parts[i] = {
        ...piece,
        items: runs[i] as R[],
        before: i === 0 ? null : (runs[i - 1] as R[]),
      };
    }
  };
  await Promise.all(Array.from({ length: COMPRESSING_AT_ONCE }, worker));
  const pieces = new Map<R, Piece<R>>();
  for (const piece of parts) pieces.set(piece.items[0] as R, piece);
  return pieces;
}

/**
 * The gzip member of a listing: the head, the pieces in order, the tail, and the trailer (`head`: what
 * the JSON starts with, `{"items":[` for /library).
 */
export function gzipMember(pieces: readonly Piece<PieceItem>[], tail: string, head: string = HEAD): Buffer {
  const framed = [head === HEAD ? HEAD_PIECE : finalPiece(head, false), ...pieces, finalPiece(tail, true)];
  let crc = 0;
  let length = 0;
  for (const part of framed) {
    crc = crc32CombineOp(crc, part.crc, part.shift);
    length += part.length;
  }
  return Buffer.concat([GZIP_HEADER, ...framed.map((p) => p.deflated), gzipTrailer(crc, length)]);
}

async function compressPiece(
  bytes: Buffer,
  dictionary: Buffer | null,
  gzipLevel: number,
): Promise<Omit<Piece<PieceItem>, 'items' | 'before'>> {
  const deflated = await deflateRawAsync(bytes, {
    level: gzipLevel,
    finishFlush: constants.Z_SYNC_FLUSH,
    ...(dictionary === null ? {} : { dictionary }),
  });
  return { deflated, crc: crc32(bytes), length: bytes.length, shift: crc32ShiftOp(bytes.length) };
}

/** A raw-deflate piece of a constant text: sync-flushed (`last` false) or ending the stream. */
function finalPiece(text: string, last: boolean): Piece<PieceItem> {
  const bytes = Buffer.from(text);
  const deflated = deflateRawSync(bytes, { finishFlush: last ? constants.Z_FINISH : constants.Z_SYNC_FLUSH });
  return {
    items: [],
    before: null,
    deflated,
    crc: crc32(bytes),
    length: bytes.length,
    shift: crc32ShiftOp(bytes.length),
  };
}

/** The same item records (by reference: a record is never changed, a new presentation is a new one). */
function sameItems<R>(a: readonly R[] | null, b: readonly R[] | null): boolean {
  if (a === null || b === null) return a === b;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function sameVersion(a: ListingVersion, b: ListingVersion): boolean {
  return a.boot === b.boot && a.generation === b.generation && a.tokenExpiry === b.tokenExpiry;
}

/** True when `a` is a listing older than `b` asks for (another process's, or an earlier generation or token hour). */
export function olderThan(a: ListingVersion, b: ListingVersion): boolean {
  return a.boot !== b.boot || a.generation < b.generation || a.tokenExpiry < b.tokenExpiry;
}

/** Movies by (sort title, id), then unmatched files by id. */
export function listingOrder(a: ItemRecord, b: ItemRecord): number {
  if (a.sortTitle === null || b.sortTitle === null) {
    if (a.sortTitle !== null) return -1;
    if (b.sortTitle !== null) return 1;
    return a.id - b.id;
  }
  return compareTitleThenId(a as { sortTitle: string; id: number }, b as { sortTitle: string; id: number });
}

export function mergeSorted(a: ItemRecord[], b: ItemRecord[]): ItemRecord[] {
  if (b.length === 0) return a;
  const out: ItemRecord[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as ItemRecord;
    const y = b[j] as ItemRecord;
    if (listingOrder(x, y) <= 0) {
      out.push(x);
      i++;
    } else {
      out.push(y);
      j++;
    }
  }
  while (i < a.length) out.push(a[i++] as ItemRecord);
  while (j < b.length) out.push(b[j++] as ItemRecord);
  return out;
}

/** The uncompressed bytes of a kept listing, made once on demand: the gzip member inflated (on the thread pool). */
export function listingIdentity(listing: Listing): Promise<Buffer> {
  listing.identity ??= gunzipAsync(listing.gzip).then((bytes) => {
    listing.bytes += bytes.length;
    return bytes;
  });
  return listing.identity;
}

/** br when it is ready (it is made in the background once asked for; gzip until then). */
export function servedCoding(
  listing: Listing,
  coding: 'gzip' | 'br' | 'identity',
  brotliQuality: number,
): 'gzip' | 'br' | 'identity' {
  if (coding !== 'br') return coding;
  if (listing.br !== null) return 'br';
  if (!listing.brBuilding) {
    listing.brBuilding = true;
    void listingIdentity(listing)
      .then((source) =>
        brotliAsync(source, {
          params: {
            [constants.BROTLI_PARAM_QUALITY]: brotliQuality,
            [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
            [constants.BROTLI_PARAM_SIZE_HINT]: source.length,
          },
        }),
      )
      .then((br) => {
        listing.br = br;
        listing.bytes += br.length;
      })
      .catch(() => {
        listing.brBuilding = false;
      });
  }
  return 'gzip';
}

/**
 * A content-limited person's body of a kept listing: its items the limit lets through (`visible`:
 * reads the movie ids, null for all; `unmatched`: files matched to no movie), with the health line and the
 * total counted over those, so every count agrees with what is shown. Kept on the listing by limit,
 * coding and page (a few at most), since the same version gives the same bytes.
 */
export async function limitedBody(
  listing: Listing,
  scope: string,
  page: { offset: number; limit: number | null } | null,
  coding: 'gzip' | 'identity',
  rule: {
    visible: () => Promise<ReadonlySet<number> | null>;
    unmatched: boolean;
    frame: (badges: Badge[]) => object;
    gzipLevel: number;
  },
): Promise<{ body: Buffer; total: number }> {
  const made = `${scope}|${page === null ? '' : `${page.offset}.${page.limit}`}`;
  const kept = listing.limited.get(made);
  if (kept !== undefined) return kept;
  const visible = await rule.visible();
  const shown = listing.order.filter((r) =>
    r.sortTitle === null ? rule.unmatched : visible === null || visible.has(r.id),
  );
  const end = page === null || page.limit === null ? undefined : page.offset + page.limit;
  const slice = page === null ? shown : shown.slice(page.offset, end);
  const frame = rule.frame(shown.map((r) => r.badge));
  const text = HEAD + slice.map((r) => r.json).join(',') + `],${JSON.stringify(frame).slice(1)}`;
  const body = coding === 'gzip' ? await gzipAsync(text, { level: rule.gzipLevel }) : Buffer.from(text);
  if (listing.limited.size >= 8) listing.limited.delete(listing.limited.keys().next().value ?? '');
  const answer = { body, total: shown.length };
  listing.limited.set(made, answer);
  listing.bytes += body.length;
  return answer;
}
