import { promisify } from 'node:util';
import { brotliCompress, constants, gunzip, gzip } from 'node:zlib';
import { CONTRACT_HASH } from '@reelshelf/contract';
import type { ListingCoding } from '../../domain/library-listing/accept-encoding.ts';
import { cutsAfter } from '../../domain/library-listing/chunks.ts';
import { listingEtag, noneMatchHits } from '../../domain/library-listing/etag.ts';
import { LruMap } from '../../domain/library-listing/lru.ts';
import type { Viewer } from '../../domain/people/viewer.ts';
import type { VisibilityService } from '../people/visibility.service.ts';
import type { LibraryGeneration, ListingVersion } from './library-generation.ts';
import type { LibraryService, PresentedItem } from './library.service.ts';
import {
  HEAD,
  type ItemRecord,
  type Listing,
  compressPieces,
  gzipMember,
  listingOrder,
  mergeSorted,
  olderThan,
  sameVersion,
} from './listing-pieces.ts';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);
const brotliAsync = promisify(brotliCompress);

/** The answer to a GET /library (the route turns it into headers and a body). */
export interface ListingAnswer {
  etag: string;
  /** The client's If-None-Match named this representation: answer 304. */
  notModified: boolean;
  coding: ListingCoding;
  /** The bytes, already in `coding`; null with notModified. */
  body: Buffer | null;
  /** Items in the whole listing (X-Total-Count), when known. */
  total: number | null;
}

export interface ListingRequest {
  device: string;
  /** The coding the client prefers among br, gzip and identity (domain/library-listing/accept-encoding.ts). */
  coding: ListingCoding;
  ifNoneMatch?: string | readonly string[] | undefined;
  /** `?offset&limit`; null for the whole listing. */
  page?: { offset: number; limit: number | null } | null;
  /** Who reads it: the films their content limit hides are not in it, nor in its counts. */
  viewer: Viewer | null;
}

export interface ListingStats {
  /** Listings built (full or incremental). */
  builds: number;
  fullBuilds: number;
  /** Items presented (run through the playback rules) by all builds. */
  presented: number;
}

export interface ListingCacheOptions {
  /** Devices kept (least recently asked for first out). */
  maxListings?: number;
  /** Bytes kept across them, roughly; the most recent listing is kept whatever its size. */
  maxBytes?: number;
  /** gzip level of the pieces (each piece is compressed once, so a good level is affordable). */
  gzipLevel?: number;
  brotliQuality?: number;
}

/** Movies presented at a time by a full build. */
const FULL_BUILD_SLICE = 1_000;
/** Above this share of changed items a full build is cheaper than picking them out. */
const FULL_BUILD_SHARE = 0.25;

/**
 * GET /library, built once per change: per device, the serialised LibraryResponse kept gzipped (and
 * brotli-compressed once a client asks for br), keyed by the library generation. A change re-presents
 * only the movies it touched (the generation's log says which), re-serialises those, and recompresses
 * only the pieces they sit in; the gzip stream is reassembled from the kept pieces. Concurrent
 * requests for the same listing share one build; every response of a listing is the same buffer.
 */
export class LibraryListingService {
  private readonly listings: LruMap<string, Listing>;
  private readonly building = new Map<string, Promise<Listing>>();
  private readonly maxBytes: number;
  private readonly gzipLevel: number;
  private readonly brotliQuality: number;
  private readonly tags = new Map<string, string>();
  private tagsVersion = '';
  private readonly counters: ListingStats = { builds: 0, fullBuilds: 0, presented: 0 };

  constructor(
    private readonly library: LibraryService,
    private readonly generation: LibraryGeneration,
    private readonly visibility: Pick<VisibilityService, 'scopeKey' | 'visibleMovieIds' | 'seesUnmatched'>,
    options: ListingCacheOptions = {},
  ) {
    this.listings = new LruMap(options.maxListings ?? 6);
    this.maxBytes = options.maxBytes ?? 256 * 1024 * 1024;
    this.gzipLevel = options.gzipLevel ?? 6;
    this.brotliQuality = options.brotliQuality ?? 5;
  }

  /** Build counters (tests assert single flight and incremental rebuilds). */
  stats(): ListingStats {
    return { ...this.counters };
  }

  /** Drops every kept listing: the next request builds from scratch (tests compare with that). */
  clear(): void {
    this.listings.clear();
  }

  async answer(request: ListingRequest): Promise<ListingAnswer> {
    const audience = this.visibility.scopeKey(request.viewer);
    if (audience !== 'all') return this.limitedAnswer(request, audience);
    const { device, page = null } = request;
    const version = this.versionFor(device);
    // The tag is known without building: an unchanged listing costs no work at all.
    const coding = page === null ? request.coding : request.coding === 'identity' ? 'identity' : 'gzip';
    const kept = this.listings.peek(device);
    const current = kept !== undefined && sameVersion(kept.version, version) ? kept : null;
    // A br client is served gzip until the br bytes are made: the tag it holds may be either.
    const codings: ListingCoding[] = coding === 'br' && current?.br == null ? ['br', 'gzip'] : [coding];
    for (const candidate of codings) {
      const etag = this.etag(version, device, page, candidate);
      if (noneMatchHits(request.ifNoneMatch, etag)) {
        return {
          etag,
          notModified: true,
          coding: candidate,
          body: null,
          total: current?.order.length ?? null,
        };
      }
    }
    const listing = await this.listing(device, version);
    if (page !== null) return this.pageAnswer(listing, page, coding);
    const served = this.servedCoding(listing, coding);
    return {
      etag: this.etag(listing.version, device, null, served),
      notModified: false,
      coding: served,
      body:
        served === 'gzip'
          ? listing.gzip
          : served === 'br'
            ? (listing.br as Buffer)
            : await this.identity(listing),
      total: listing.order.length,
    };
  }

  /**
   * The listing as a person with a content limit sees it: the kept listing's items their limit lets
   * through (the same visibility rule as every surface), with the health line and the total counted
   * over those, so every count agrees with what is shown. Made per request from the kept item JSON
   * (no presentation work); served like a page (gzip or identity).
   */
  private async limitedAnswer(request: ListingRequest, audience: string): Promise<ListingAnswer> {
    const { device, page = null } = request;
    const version = this.versionFor(device);
    const coding = request.coding === 'identity' ? 'identity' : 'gzip';
    const tagged = this.etag(version, device, page, coding, audience);
    if (noneMatchHits(request.ifNoneMatch, tagged)) {
      return { etag: tagged, notModified: true, coding, body: null, total: null };
    }
    const listing = await this.listing(device, version);
    const [visible, unmatched] = [
      await this.visibility.visibleMovieIds(request.viewer),
      this.visibility.seesUnmatched(request.viewer),
    ];
    const shown = listing.order.filter((r) =>
      r.sortTitle === null ? unmatched : visible === null || visible.has(r.id),
    );
    const end = page === null || page.limit === null ? undefined : page.offset + page.limit;
    const slice = page === null ? shown : shown.slice(page.offset, end);
    const frame = this.library.frame(
      device,
      shown.map((r) => r.badge),
    );
    const text = HEAD + slice.map((r) => r.json).join(',') + `],${JSON.stringify(frame).slice(1)}`;
    const body = coding === 'gzip' ? await gzipAsync(text, { level: this.gzipLevel }) : Buffer.from(text);
    return {
      etag: this.etag(listing.version, device, page, coding, audience),
      notModified: false,
      coding,
      body,
      total: shown.length,
    };
  }

  /**
   * The version a request for this device asks for. A listing without a single stream URL (discs
   * only) does not depend on the token hour: it keeps its version when the hour moves.
   */
  private versionFor(device: string): ListingVersion {
    const version = this.generation.current();
    const kept = this.listings.peek(device);
    if (
      kept !== undefined &&
      !kept.tokens &&
      kept.version.boot === version.boot &&
      kept.version.generation === version.generation
    ) {
      return kept.version;
    }
    return version;
  }

  private etag(
    version: ListingVersion,
    device: string,
    page: { offset: number; limit: number | null } | null,
    coding: ListingCoding,
    audience = 'all',
  ): string {
    // Asked a few times per request and the same for a whole generation: kept until the version moves.
    const versionKey = `${version.boot}.${version.generation}.${version.tokenExpiry}`;
    if (versionKey !== this.tagsVersion) {
      this.tags.clear();
      this.tagsVersion = versionKey;
    }
    const key = `${coding}|${page === null ? '' : `${page.offset}.${page.limit}`}|${audience}|${device}`;
    let tag = this.tags.get(key);
    if (tag === undefined) {
      tag = listingEtag({ ...version, device, contractHash: CONTRACT_HASH, page, coding, audience });
      if (this.tags.size < 1024) this.tags.set(key, tag);
    }
    return tag;
  }

  /** br when it is ready (it is made in the background once asked for; gzip until then). */
  private servedCoding(listing: Listing, coding: ListingCoding): ListingCoding {
    if (coding !== 'br') return coding;
    if (listing.br !== null) return 'br';
    if (!listing.brBuilding) {
      listing.brBuilding = true;
      void this.identity(listing)
        .then((source) =>
          brotliAsync(source, {
            params: {
              [constants.BROTLI_PARAM_QUALITY]: this.brotliQuality,
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

  /** The uncompressed bytes, made once on demand: the gzip member inflated (on the thread pool). */
  private identity(listing: Listing): Promise<Buffer> {
    listing.identity ??= gunzipAsync(listing.gzip).then((bytes) => {
      listing.bytes += bytes.length;
      return bytes;
    });
    return listing.identity;
  }

  private async pageAnswer(
    listing: Listing,
    page: { offset: number; limit: number | null },
    coding: ListingCoding,
  ): Promise<ListingAnswer> {
    const end = page.limit === null ? undefined : page.offset + page.limit;
    const slice = listing.order.slice(page.offset, end);
    const text = HEAD + slice.map((r) => r.json).join(',') + listing.tail;
    const body = coding === 'gzip' ? await gzipAsync(text, { level: this.gzipLevel }) : Buffer.from(text);
    return {
      etag: this.etag(listing.version, listing.device, page, coding),
      notModified: false,
      coding,
      body,
      total: listing.order.length,
    };
  }

  /** The device's listing at `version` or newer: the kept one, the build under way, or a new build. */
  private async listing(device: string, version: ListingVersion): Promise<Listing> {
    for (;;) {
      const kept = this.listings.get(device);
      if (kept !== undefined && !olderThan(kept.version, version)) return kept;
      const running = this.building.get(device);
      if (running === undefined) break;
      // One build per device at a time: wait for it, then use it if it is recent enough.
      const built = await running.catch(() => null);
      if (built !== null && !olderThan(built.version, version)) return built;
    }
    const build = this.build(device).finally(() => this.building.delete(device));
    this.building.set(device, build);
    return build;
  }

  private async build(device: string): Promise<Listing> {
    // The version is read before the rows: a write after this point is in the next version's changes.
    const version = this.generation.current();
    const base = this.listings.peek(device);
    this.counters.builds++;
    try {
      const incremental = base === undefined ? null : await this.rebuildChanged(base, version);
      const { records, order, fileOwner } = incremental ?? (await this.buildAll(device));
      const listing = await this.assemble(device, version, records, order, fileOwner, base);
      this.keep(listing);
      return listing;
    } catch (err) {
      // The base's maps may be half updated: the next request builds from scratch.
      if (this.listings.peek(device) === base) this.listings.delete(device);
      throw err;
    }
  }

  private async buildAll(
    device: string,
  ): Promise<{ records: Map<string, ItemRecord>; order: ItemRecord[]; fileOwner: Map<number, string> }> {
    this.counters.fullBuilds++;
    // In slices of the order: only one slice's rows and items are alive at a time (50,000 movies
    // would otherwise hold every row and item object at once), and other requests (health) are
    // answered between slices.
    const ids = await this.library.movieOrder();
    const order: ItemRecord[] = [];
    for (let at = 0; at < ids.length; at += FULL_BUILD_SLICE) {
      const { movies } = await this.library.presentMovies(device, ids.slice(at, at + FULL_BUILD_SLICE));
      for (const p of movies) order.push(this.record(p));
    }
    const unmatched = this.library.presentUnmatched(await this.library.unmatchedFiles(), device);
    for (const p of unmatched) order.push(this.record(p));
    this.counters.presented += order.length;
    const records = new Map(order.map((r) => [r.key, r]));
    const fileOwner = new Map<number, string>();
    for (const r of order) for (const f of r.files) fileOwner.set(f, r.key);
    return { records, order, fileOwner };
  }

  /**
   * The listing after the changes since `base`: the items they touched presented again, the others
   * kept. Null when a full build is the better (or the only) way.
   */
  private async rebuildChanged(
    base: Listing,
    version: ListingVersion,
  ): Promise<{
    records: Map<string, ItemRecord>;
    order: ItemRecord[];
    fileOwner: Map<number, string>;
  } | null> {
    if (base.version.boot !== version.boot) return null;
    const changes = this.generation.since(base.version.generation, version.generation);
    if (changes.all) return null;
    const movies = new Set(changes.movies);
    const files = new Set(changes.files);
    if (base.version.tokenExpiry !== version.tokenExpiry) {
      // The stream URLs' tokens moved to the next hour: every item with editions is presented again.
      for (const r of base.order) {
        if (!r.tokens) continue;
        if (r.sortTitle === null) files.add(r.id);
        else movies.add(r.id);
      }
    }
    const limit = Math.max(64, base.order.length * FULL_BUILD_SHARE);
    if (movies.size + files.size > limit) return null;
    // A changed movie's files may have become unmatched (a deleted movie); a changed file's old and
    // new movies both change.
    for (const m of movies) for (const f of base.records.get(`m${m}`)?.files ?? []) files.add(f);
    for (const f of files) {
      const owner = base.fileOwner.get(f);
      if (owner?.startsWith('m') === true) movies.add(Number(owner.slice(1)));
    }
    const fileRows = await this.library.filesById([...files]);
    for (const row of fileRows) if (row.movie_id !== null) movies.add(row.movie_id);
    if (movies.size + files.size > limit) return null;

    const { movies: presentedMovies } = await this.library.presentMovies(base.device, [...movies]);
    const presentedFiles = this.library.presentUnmatched(
      fileRows.filter((row) => row.movie_id === null),
      base.device,
    );
    this.counters.presented += presentedMovies.length + presentedFiles.length;

    const removed = new Set<string>();
    for (const m of movies) removed.add(`m${m}`);
    for (const f of files) removed.add(`f${f}`);
    // The base's maps are updated in place (only builds read them, one at a time per device; a build
    // that fails drops the listing): copying 50,000 entries per change would be most of the garbage.
    const { records, fileOwner } = base;
    for (const key of removed) {
      const old = records.get(key);
      if (old === undefined) continue;
      records.delete(key);
      for (const f of old.files) if (fileOwner.get(f) === key) fileOwner.delete(f);
    }
    const fresh = [...presentedMovies, ...presentedFiles].map((p) => this.record(p));
    for (const r of fresh) {
      records.set(r.key, r);
      for (const f of r.files) fileOwner.set(f, r.key);
    }
    fresh.sort(listingOrder);
    const kept = base.order.filter((r) => !removed.has(r.key));
    return { records, order: mergeSorted(kept, fresh), fileOwner };
  }

  private record(p: PresentedItem): ItemRecord {
    return {
      key: p.key,
      sortTitle: p.sortTitle,
      id: p.id,
      json: JSON.stringify(p.item),
      badge: p.item.badge,
      files: p.files,
      tokens: p.item.editions.length > 0,
      cut: cutsAfter(p.key),
    };
  }

  /**
   * Cuts the order into pieces, compresses the pieces the base listing does not have (a change
   * recompresses its piece and the next, whose dictionary it is), and frames the gzip member.
   */
  private async assemble(
    device: string,
    version: ListingVersion,
    records: Map<string, ItemRecord>,
    order: ItemRecord[],
    fileOwner: Map<number, string>,
    base: Listing | undefined,
  ): Promise<Listing> {
    const pieces = await compressPieces(order, base?.pieces, this.gzipLevel);
    const frame = this.library.frame(
      device,
      order.map((r) => r.badge),
    );
    const tail = `],${JSON.stringify(frame).slice(1)}`;
    const gzipped = gzipMember([...pieces.values()], tail);
    let bytes = gzipped.length * 2;
    for (const r of order) bytes += r.json.length + 160;
    return {
      device,
      version,
      records,
      order,
      fileOwner,
      pieces,
      tail,
      tokens: order.some((r) => r.tokens),
      gzip: gzipped,
      identity: null,
      br: null,
      brBuilding: false,
      bytes,
    };
  }

  /** Keeps the listing (replacing the device's older one), then trims to the memory bound. */
  private keep(listing: Listing): void {
    const kept = this.listings.peek(listing.device);
    if (kept !== undefined && olderThan(listing.version, kept.version)) return;
    this.listings.set(listing.device, listing);
    let total = 0;
    for (const l of this.listings.values()) total += l.bytes;
    for (const l of [...this.listings.values()]) {
      if (total <= this.maxBytes || l === listing) break;
      this.listings.delete(l.device);
      total -= l.bytes;
    }
  }
}
