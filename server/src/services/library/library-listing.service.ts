import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { CONTRACT_HASH } from '@reelshelf/contract';
import type { ListingCoding } from '../../domain/library-listing/accept-encoding.ts';
import { cutsAfter } from '../../domain/library-listing/chunks.ts';
import { listingEtag, noneMatchHits } from '../../domain/library-listing/etag.ts';
import { LruMap } from '../../domain/library-listing/lru.ts';
import type { VisibilityService } from '../people/visibility.service.ts';
import type { LibraryGeneration, ListingVersion } from './library-generation.ts';
import type { LibraryService, ListingViewer, PresentedItem } from './library.service.ts';
import {
  HEAD,
  type ItemRecord,
  type Listing,
  compressPieces,
  gzipMember,
  listingIdentity,
  limitedBody,
  listingOrder,
  mergeSorted,
  olderThan,
  sameVersion,
  servedCoding,
} from './listing-pieces.ts';

const gzipAsync = promisify(gzip);

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
  /** Whose listing: their watch state, and the credential the stream URLs are signed for. */
  viewer: ListingViewer;
  /** The coding the client prefers among br, gzip and identity (domain/library-listing/accept-encoding.ts). */
  coding: ListingCoding;
  ifNoneMatch?: string | readonly string[] | undefined;
  /** `?offset&limit`; null for the whole listing. */
  page?: { offset: number; limit: number | null } | null;
}

export interface ListingStats {
  /** Listings built (full or incremental). */
  builds: number;
  fullBuilds: number;
  /** Items presented (run through the playback rules) by all builds. */
  presented: number;
}

export interface ListingCacheOptions {
  /** Listings kept, one per device, person and credential (least recently asked for first out). */
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

/** Whom a listing's bytes are for: the person (watch state) and the credential (stream tokens). */
function audienceOf(viewer: ListingViewer): string {
  return `${viewer.userId}.${viewer.credential.kind}.${viewer.credential.id ?? '-'}`;
}

/**
 * GET /library, built once per change: per device, person and credential (the watch state is the
 * person's, the stream URLs' tokens the credential's), the serialised LibraryResponse kept gzipped (and
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
  /** The newest version a request saw (the tag cache is kept until it moves). */
  private newestVersion = '';
  private readonly counters: ListingStats = { builds: 0, fullBuilds: 0, presented: 0 };

  constructor(
    private readonly library: LibraryService,
    private readonly generation: LibraryGeneration,
    private readonly visibility: Pick<VisibilityService, 'scopeKey' | 'visibleMovieIds' | 'seesUnmatched'>,
    options: ListingCacheOptions = {},
  ) {
    this.listings = new LruMap(options.maxListings ?? 12);
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
    const { device, viewer, page = null } = request;
    const audience = audienceOf(viewer);
    const key = `${device}\u0000${audience}`;
    const scope = this.visibility.scopeKey(viewer);
    if (scope !== 'all') return this.limitedAnswer(request, key, audience, scope);
    const version = this.versionFor(key, viewer.userId);
    // The tag is known without building: an unchanged listing costs no work at all.
    const coding = page === null ? request.coding : request.coding === 'identity' ? 'identity' : 'gzip';
    const kept = this.listings.peek(key);
    const current = kept !== undefined && sameVersion(kept.version, version) ? kept : null;
    // A br client is served gzip until the br bytes are made: the tag it holds may be either.
    const codings: ListingCoding[] = coding === 'br' && current?.br == null ? ['br', 'gzip'] : [coding];
    for (const candidate of codings) {
      const etag = this.etag(version, device, audience, page, candidate);
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
    const listing = await this.listing(key, device, viewer, version);
    if (page !== null) return this.pageAnswer(listing, page, coding);
    const served = servedCoding(listing, coding, this.brotliQuality);
    return {
      etag: this.etag(listing.version, device, audience, null, served),
      notModified: false,
      coding: served,
      body:
        served === 'gzip'
          ? listing.gzip
          : served === 'br'
            ? (listing.br as Buffer)
            : await listingIdentity(listing),
      total: listing.order.length,
    };
  }

  /**
   * The listing as a person with a content limit sees it: the kept listing's items their limit lets
   * through (the same visibility rule as every surface), with the health line and the total counted
   * over those, so every count agrees with what is shown. Made per request from the kept item JSON
   * (no presentation work); served like a page (gzip or identity).
   */
  private async limitedAnswer(
    request: ListingRequest,
    key: string,
    audience: string,
    scope: string,
  ): Promise<ListingAnswer> {
    const { device, viewer, page = null } = request;
    const version = this.versionFor(key, viewer.userId);
    const coding = request.coding === 'identity' ? 'identity' : 'gzip';
    const tagged = this.etag(version, device, audience, page, coding, scope);
    if (noneMatchHits(request.ifNoneMatch, tagged)) {
      return { etag: tagged, notModified: true, coding, body: null, total: null };
    }
    const listing = await this.listing(key, device, viewer, version);
    const { body, total } = await limitedBody(listing, `${scope}|${coding}`, page, coding, {
      // Read only when the body is made (a kept body needs no query).
      visible: () => this.visibility.visibleMovieIds(viewer),
      unmatched: this.visibility.seesUnmatched(viewer),
      frame: (badges) => this.library.frame(device, badges),
      gzipLevel: this.gzipLevel,
    });
    return {
      etag: this.etag(listing.version, device, audience, page, coding, scope),
      notModified: false,
      coding,
      body,
      total,
    };
  }

  /**
   * The version a request for this listing asks for. The kept listing keeps its version (its bytes
   * and ETag) while nothing this person sees changed — another person's watch state moves the
   * generation, not their listing — and, with a stream URL in it, while the token hour stays (a
   * listing of discs only does not depend on the hour).
   */
  private versionFor(key: string, user: number): ListingVersion {
    const version = this.generation.current();
    this.newestVersion = `${version.boot}.${version.generation}.${version.tokenExpiry}`;
    const kept = this.listings.peek(key);
    if (
      kept !== undefined &&
      kept.version.boot === version.boot &&
      (!kept.tokens || kept.version.tokenExpiry === version.tokenExpiry) &&
      !this.generation.changedFor(kept.version.generation, version.generation, user)
    ) {
      return kept.version;
    }
    return version;
  }

  private etag(
    version: ListingVersion,
    device: string,
    audience: string,
    page: { offset: number; limit: number | null } | null,
    coding: ListingCoding,
    visibility = 'all',
  ): string {
    // Asked a few times per request and the same for a whole generation: kept until the newest
    // version moves (listings of people who saw no change stay at older versions: keyed by version too).
    const versionKey = `${version.boot}.${version.generation}.${version.tokenExpiry}`;
    if (this.newestVersion !== this.tagsVersion || this.tags.size >= 1024) {
      this.tags.clear();
      this.tagsVersion = this.newestVersion;
    }
    const key = `${versionKey}|${coding}|${page === null ? '' : `${page.offset}.${page.limit}`}|${device}|${audience}|${visibility}`;
    let tag = this.tags.get(key);
    if (tag === undefined) {
      tag = listingEtag({
        ...version,
        device,
        audience,
        visibility,
        contractHash: CONTRACT_HASH,
        page,
        coding,
      });
      this.tags.set(key, tag);
    }
    return tag;
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
      etag: this.etag(listing.version, listing.device, audienceOf(listing.viewer), page, coding),
      notModified: false,
      coding,
      body,
      total: listing.order.length,
    };
  }

  /** The listing at `version` or newer: the kept one, the build under way, or a new build. */
  private async listing(
    key: string,
    device: string,
    viewer: ListingViewer,
    version: ListingVersion,
  ): Promise<Listing> {
    for (;;) {
      const kept = this.listings.get(key);
      if (kept !== undefined && !olderThan(kept.version, version)) return kept;
      const running = this.building.get(key);
      if (running === undefined) break;
      // One build per listing at a time: wait for it, then use it if it is recent enough.
      const built = await running.catch(() => null);
      if (built !== null && !olderThan(built.version, version)) return built;
    }
    const build = this.build(key, device, viewer).finally(() => this.building.delete(key));
    this.building.set(key, build);
    return build;
  }

  private async build(key: string, device: string, viewer: ListingViewer): Promise<Listing> {
    // The version is read before the rows: a write after this point is in the next version's changes.
    const version = this.generation.current();
    const base = this.listings.peek(key);
    this.counters.builds++;
    try {
      const incremental = base === undefined ? null : await this.rebuildChanged(base, version);
      const { records, order, fileOwner } = incremental ?? (await this.buildAll(device, viewer));
      const listing = await this.assemble(key, device, viewer, version, records, order, fileOwner, base);
      this.keep(listing);
      return listing;
    } catch (err) {
      // The base's maps may be half updated: the next request builds from scratch.
      if (this.listings.peek(key) === base) this.listings.delete(key);
      throw err;
    }
  }

  private async buildAll(
    device: string,
    viewer: ListingViewer,
  ): Promise<{ records: Map<string, ItemRecord>; order: ItemRecord[]; fileOwner: Map<number, string> }> {
    this.counters.fullBuilds++;
    // In slices of the order: only one slice's rows and items are alive at a time (50,000 movies
    // would otherwise hold every row and item object at once), and other requests (health) are
    // answered between slices.
    const ids = await this.library.movieOrder();
    const order: ItemRecord[] = [];
    for (let at = 0; at < ids.length; at += FULL_BUILD_SLICE) {
      const { movies } = await this.library.presentMovies(
        viewer,
        device,
        ids.slice(at, at + FULL_BUILD_SLICE),
      );
      for (const p of movies) order.push(this.record(p));
    }
    const unmatched = this.library.presentUnmatched(
      viewer,
      await this.library.unmatchedFiles(viewer),
      device,
    );
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
    const changes = this.generation.since(base.version.generation, version.generation, base.viewer.userId);
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
    const fileRows = await this.library.filesById(base.viewer, [...files]);
    for (const row of fileRows) if (row.movie_id !== null) movies.add(row.movie_id);
    if (movies.size + files.size > limit) return null;

    const { movies: presentedMovies } = await this.library.presentMovies(base.viewer, base.device, [
      ...movies,
    ]);
    const presentedFiles = this.library.presentUnmatched(
      base.viewer,
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
    key: string,
    device: string,
    viewer: ListingViewer,
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
      key,
      device,
      viewer,
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
      limited: new Map(),
      bytes,
    };
  }

  /** Keeps the listing (replacing its older one), then trims to the memory bound. */
  private keep(listing: Listing): void {
    const kept = this.listings.peek(listing.key);
    if (kept !== undefined && olderThan(listing.version, kept.version)) return;
    this.listings.set(listing.key, listing);
    let total = 0;
    for (const l of this.listings.values()) total += l.bytes;
    for (const l of [...this.listings.values()]) {
      if (total <= this.maxBytes || l === listing) break;
      this.listings.delete(l.key);
      total -= l.bytes;
    }
  }
}
