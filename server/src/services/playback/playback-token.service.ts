import type { Clock } from '../../adapters/clock.ts';
import type { StateMessage, SubscribeState } from '../../domain/cluster/state-message.ts';
import {
  signPlaybackToken,
  type TokenCheck,
  type TokenHolder,
  verifyPlaybackToken,
} from '../../domain/playback-token.ts';

/** Tokens last 6 to 7 hours: a movie night, not a week. */
const LIFETIME_SECONDS = 6 * 3600;
/** Expiries are rounded up to the hour so /library hands out the same URL for an hour (caches like that). */
const ROUND_SECONDS = 3600;

/** A token check, or a token of a play an admin stopped. */
export type PlaybackTokenCheck = TokenCheck | { ok: false; reason: 'stopped' };

function stopKey(holder: TokenHolder, mediaFileId: number): string {
  return `${holder.userId}|${holder.credential.kind}|${holder.credential.id ?? ''}|${mediaFileId}`;
}

/** The person and file of a stop key (whose listing hands out new URLs after the stop). */
export function stopTarget(key: string): { userId: number; fileId: number } | null {
  const parts = key.split('|');
  if (parts.length !== 4) return null;
  const userId = Number(parts[0]);
  const fileId = Number(parts[3]);
  return Number.isSafeInteger(userId) && Number.isSafeInteger(fileId) ? { userId, fileId } : null;
}

/** Where the stop marks are shared between nodes (PlaybackStopRepository). */
export interface PlaybackStopStore {
  live(nowS: number): Promise<{ stop_key: string; until_s: number }[]>;
  put(stopKey: string, untilS: number): Promise<void>;
  expire(nowS: number): Promise<void>;
}

/** How the marks reach this node: the store, the change feed, and who to tell of a stop. */
export interface SharedStops {
  store: PlaybackStopStore;
  /** The change feed's node-state messages (PostgreSQL: every node's stops, at once). */
  subscribe?: SubscribeState;
  /** A stop made on any node: the person's listing re-signs that file's URLs. */
  onStop?: (userId: number, fileId: number) => void;
}

/**
 * Signs and verifies the playback tokens carried by stream URLs: each is for one file, one device,
 * one person and the credential they used (so it ends with that credential).
 *
 * An admin's stop (DELETE /api/sessions/active/{id}) ends the tokens of that person's credential for
 * that file: it marks (credential, file) as stopped for every expiry handed out so far, and tokens
 * signed afterwards carry a later expiry (the next hour's), which the mark does not cover, so the
 * person can start the film again from a fresh URL.
 *
 * The marks are rows of `playback_stops` (every node refuses a stopped token, docs/cluster.md); each
 * node keeps them in memory, since every stream request asks: loaded at start, and kept by the
 * change feed (PostgreSQL NOTIFYs every mark to every node before a later request reads it).
 */
export class PlaybackTokenService {
  /** Stop marks: every token of (credential, file) expiring at or before `until` is refused. */
  private readonly stops = new Map<string, number>();
  private shared: SharedStops | null = null;
  private unsubscribe: () => void = () => undefined;

  constructor(
    private readonly key: string,
    private readonly clock: Clock,
  ) {}

  /** Shares the stop marks with the other nodes: reads those in force and follows new ones. */
  async share(shared: SharedStops): Promise<void> {
    this.shared = shared;
    this.unsubscribe = shared.subscribe?.((message) => this.heard(message)) ?? (() => undefined);
    await this.reload();
  }

  /** Stops following the other nodes' marks (the server closes). */
  close(): void {
    this.unsubscribe();
  }

  private async reload(): Promise<void> {
    const store = this.shared?.store;
    if (store === undefined) return;
    for (const row of await store.live(this.nowSeconds())) this.mark(row.stop_key, Number(row.until_s));
  }

  private heard(message: StateMessage): void {
    if (message.topic === '*') {
      // Marks may have been missed while the feed was away.
      void this.reload().catch(() => undefined);
      return;
    }
    if (message.topic !== 'stop' || !('data' in message)) return;
    const { k, u } = message.data;
    if (typeof k !== 'string' || typeof u !== 'number') return;
    this.mark(k, u);
    const target = stopTarget(k);
    if (target !== null) this.shared?.onStop?.(target.userId, target.fileId);
  }

  /** Keeps the later of two marks of a key. */
  private mark(key: string, until: number): void {
    const before = this.stops.get(key);
    if (before === undefined || before < until) this.stops.set(key, until);
  }

  private nowSeconds(): number {
    return Math.floor(this.clock.now().getTime() / 1000);
  }

  /** The expiry (Unix seconds) a token signed now carries: the same for a whole hour. */
  currentExpiry(): number {
    return Math.ceil((this.nowSeconds() + LIFETIME_SECONDS) / ROUND_SECONDS) * ROUND_SECONDS;
  }

  /** The expiry of a token for this holder and file signed now: past a stop mark, if there is one. */
  private expiryFor(holder: TokenHolder, mediaFileId: number): number {
    const expiry = this.currentExpiry();
    if (this.stops.size === 0) return expiry;
    const until = this.stops.get(stopKey(holder, mediaFileId));
    return until !== undefined && expiry <= until ? until + ROUND_SECONDS : expiry;
  }

  sign(mediaFileId: number, device: string, holder: TokenHolder): string {
    return signPlaybackToken(this.key, {
      mediaFileId,
      device,
      expiresAt: this.expiryFor(holder, mediaFileId),
      holder,
    });
  }

  verify(token: string, mediaFileId: number, device: string): PlaybackTokenCheck {
    const check = verifyPlaybackToken(this.key, token, mediaFileId, device, this.nowSeconds());
    if (!check.ok || this.stops.size === 0) return check;
    const until = this.stops.get(stopKey(check.grant.holder, mediaFileId));
    return until !== undefined && check.grant.expiresAt <= until ? { ok: false, reason: 'stopped' } : check;
  }

  /**
   * Ends every token of this credential for this file handed out so far (an admin stopped the play).
   * Marks outlive the tokens they block by nothing: one whose expiries have all passed is dropped.
   * This node refuses the tokens at once; the others once the mark is written (before this resolves).
   */
  async stop(holder: TokenHolder, mediaFileId: number): Promise<void> {
    const now = this.nowSeconds();
    for (const [key, until] of this.stops) if (until <= now) this.stops.delete(key);
    const key = stopKey(holder, mediaFileId);
    const before = this.stops.get(key);
    // Tokens signed since an earlier stop carry that mark's next hour: cover those too.
    const until = Math.max(this.currentExpiry(), before === undefined ? 0 : before + ROUND_SECONDS);
    this.stops.set(key, until);
    const store = this.shared?.store;
    if (store === undefined) return;
    await store.expire(now);
    await store.put(key, until);
  }

  /**
   * The query every `/stream/media_file/{id}/…` URL of this file carries (`device=…&token=…`, no
   * `?`): one signature, so URLs made together carry the same token (the seek thumbnails' sheets).
   */
  streamQuery(mediaFileId: number, device: string, holder: TokenHolder): string {
    return `device=${encodeURIComponent(device)}&token=${encodeURIComponent(this.sign(mediaFileId, device, holder))}`;
  }

  /** The relative stream URL of a file for a device, token included. */
  streamUrl(mediaFileId: number, device: string, holder: TokenHolder): string {
    return this.playbackUrls(mediaFileId, device, holder).streamUrl;
  }

  /** The relative URL of a file's HLS master playlist for a device, with the stream URL's token. */
  hlsUrl(mediaFileId: number, device: string, holder: TokenHolder): string {
    return this.playbackUrls(mediaFileId, device, holder).hlsUrl;
  }

  /**
   * Both URLs from one signature, so they carry the same token even when the hour (and with it the
   * rounded expiry) turns between two calls.
   */
  playbackUrls(
    mediaFileId: number,
    device: string,
    holder: TokenHolder,
  ): { streamUrl: string; hlsUrl: string; subtitleUrl: (index: number) => string } {
    const query = `?${this.streamQuery(mediaFileId, device, holder)}`;
    return {
      streamUrl: `/stream/media_file/${mediaFileId}${query}`,
      hlsUrl: `/stream/media_file/${mediaFileId}/master.m3u8${query}`,
      subtitleUrl: (index) => `/stream/media_file/${mediaFileId}/subtitles/${index}.vtt${query}`,
    };
  }
}
