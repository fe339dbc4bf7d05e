import { parseEntityTagList, strongMatch } from '../http-conditional.ts';

/** What a listing's bytes depend on beyond the database: see ListingVersion in services/library/library-generation.ts. */
export interface ListingTagParts {
  /** Changes with each process start (in-memory state such as finished artifacts is reloaded then). */
  boot: string;
  /** The library generation: the number of the last change seen. */
  generation: number;
  /** The expiry (Unix seconds) the stream URLs' tokens carry: it moves once an hour. */
  tokenExpiry: number;
  device: string;
  /** Whom the bytes are for (person and credential: their watch state, their tokens); none: anyone. */
  audience?: string;
  contractHash: string;
  /** `?offset&limit` of a page, when the response is one. */
  page?: { offset: number; limit: number | null } | null;
  /** The content coding of the bytes (each coding is its own representation). */
  coding: 'gzip' | 'br' | 'identity';
  /**
   * Which films the listing shows (VisibilityService.scopeKey: `all`, or a content limit): a child's
   * listing is another representation than an adult's, and a changed limit changes the tag.
   */
  visibility?: string;
}

/**
 * The strong entity-tag of a listing (quoted): library generation, device and contract hash, plus
 * what else the bytes depend on (the process, the token hour), the page and the content coding.
 * Every part is made of etagc characters (the device name is percent-encoded), so the tag is valid
 * whatever a device profile is called.
 */
export function listingEtag(parts: ListingTagParts): string {
  const page = parts.page == null ? '' : `/p${parts.page.offset}.${parts.page.limit ?? 'all'}`;
  const coding = parts.coding === 'identity' ? '' : `/${parts.coding === 'gzip' ? 'gz' : 'br'}`;
  const audience = parts.audience === undefined ? '' : `/${encodeURIComponent(parts.audience)}`;
  const visibility =
    parts.visibility === undefined || parts.visibility === 'all'
      ? ''
      : `/a${encodeURIComponent(parts.visibility)}`;
  return `"${parts.boot}.${parts.generation}.${parts.tokenExpiry.toString(36)}/${encodeURIComponent(parts.device)}${audience}/${parts.contractHash.slice(0, 16)}${page}${coding}${visibility}"`;
}

/**
 * Whether an If-None-Match value names this tag: `*`, or a listed entity-tag equal to it by strong
 * comparison (a weakened copy, `W/"…"`, is not taken for these bytes).
 */
export function noneMatchHits(ifNoneMatch: string | readonly string[] | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  const listed = parseEntityTagList(ifNoneMatch);
  if (listed === '*') return true;
  const ours = { weak: false, opaque: etag.slice(1, -1) };
  return listed.some((tag) => strongMatch(tag, ours));
}
