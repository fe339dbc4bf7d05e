import {
  type CatalogueEntry,
  type EntryExtra,
  type GatedField,
  entryJson,
} from '../../domain/jellyfin/catalogue.ts';
import type { QueryResult } from '../../domain/jellyfin/items-query.ts';
import { cutsAfter } from '../../domain/library-listing/chunks.ts';
import { type Piece, type PieceItem, compressPieces, gzipMember } from '../library/listing-pieces.ts';

/** One person's movies as the facade lists them, kept while nothing they see changes. */
export interface Catalogue {
  /** In the default order (SortName, then Id). */
  entries: readonly CatalogueEntry[];
  byId: ReadonlyMap<string, CatalogueEntry>;
  byMovie: ReadonlyMap<number, CatalogueEntry>;
  /** The orders asked for so far (every entry), by sort spec. */
  orders: Map<string, CatalogueEntry[]>;
  /** Large answers made from it (the apps' whole-library sync), by query; see keptAnswer. */
  answers: Map<string, KeptAnswer>;
  /**
   * The large answers of the catalogues it was updated from, by query: their items' JSON and
   * compressed pieces are reused for the entries the update left alone.
   */
  previous: ReadonlyMap<string, KeptAnswer>;
}

/**
 * A large answer: its items' JSON (by entry: an entry an update left alone keeps its record, so the
 * piece it sits in keeps its compressed bytes), its bytes once asked, and its gzip member made of
 * pieces as /library's is (listing-pieces.ts) once a client accepting gzip asked.
 */
export interface KeptAnswer {
  records: ReadonlyMap<CatalogueEntry, PieceItem>;
  order: readonly PieceItem[];
  tail: string;
  identity: Buffer | null;
  gzip: Promise<Buffer> | null;
  pieces: ReadonlyMap<PieceItem, Piece<PieceItem>> | null;
  /** The pieces of the answer this one was made from (null: compressed in full). */
  basePieces: ReadonlyMap<PieceItem, Piece<PieceItem>> | null;
}

/** What a `QueryResult`'s JSON starts with (catalogue.ts queryResultJson). */
const ANSWER_HEAD = '{"Items":[';
/** Answers at least this long are kept (a page of 100 is made faster than it is looked up). */
const KEEP_ANSWER_CHARS = 256 * 1024;
/** Large answers kept per catalogue (the apps ask the same few). */
export const KEPT_ANSWERS = 4;
/** gzip level of the kept answers' pieces (each is compressed once per change of its items). */
const ANSWER_GZIP_LEVEL = 6;

/**
 * The answer to a query of the catalogue, the same JSON as queryResultJson: kept when large (made
 * once per catalogue, so per library generation — the same rule as /library's kept bytes), its gzip
 * made of pieces on the first request that accepts gzip. After an update of the catalogue, the same
 * query reuses the previous answer's item JSON and pieces for the entries left alone: one changed
 * film recompresses its piece and the next, not 10,000 films. `key` null: never kept (a Random order).
 */
export async function keptAnswer(
  catalogue: Catalogue,
  key: string | null,
  select: () => Promise<QueryResult<CatalogueEntry>>,
  fields: readonly GatedField[],
  gzip: boolean,
  /** A part made per answer; `key` must then name everything it depends on. */
  extra?: EntryExtra,
): Promise<{ body: Buffer | string; gzip: boolean }> {
  let kept = key === null ? undefined : catalogue.answers.get(key);
  if (kept === undefined) {
    const page = await select();
    const before = key === null ? undefined : catalogue.previous.get(key);
    const records = new Map<CatalogueEntry, PieceItem>();
    let chars = 0;
    const order = page.Items.map((entry) => {
      const record = before?.records.get(entry) ?? {
        json: entryJson(entry, fields, extra),
        cut: cutsAfter(entry.key),
      };
      records.set(entry, record);
      chars += record.json.length + 1;
      return record;
    });
    const tail = `],"TotalRecordCount":${page.TotalRecordCount},"StartIndex":${page.StartIndex}}`;
    if (key === null || chars < KEEP_ANSWER_CHARS) return { body: textOf(order, tail), gzip: false };
    kept = {
      records,
      order,
      tail,
      identity: null,
      gzip: null,
      pieces: null,
      basePieces: before?.pieces ?? null,
    };
    if (catalogue.answers.size >= KEPT_ANSWERS) {
      const oldest = catalogue.answers.keys().next().value;
      if (oldest !== undefined) catalogue.answers.delete(oldest);
    }
    catalogue.answers.set(key, kept);
  }
  if (!gzip) {
    kept.identity ??= Buffer.from(textOf(kept.order, kept.tail));
    return { body: kept.identity, gzip: false };
  }
  const answer = kept;
  answer.gzip ??= compressPieces(answer.order, answer.basePieces ?? undefined, ANSWER_GZIP_LEVEL).then(
    (pieces) => {
      answer.pieces = pieces;
      answer.basePieces = null;
      return gzipMember([...pieces.values()], answer.tail, ANSWER_HEAD);
    },
    (err: unknown) => {
      // Not kept failed: the next request tries again.
      answer.gzip = null;
      throw err;
    },
  );
  return { body: await answer.gzip, gzip: true };
}

function textOf(order: readonly PieceItem[], tail: string): string {
  return ANSWER_HEAD + order.map((r) => r.json).join(',') + tail;
}
