import type { Clock } from '../../adapters/clock.ts';
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

/**
 * Signs and verifies the playback tokens carried by stream URLs: each is for one file, one device,
 * one person and the credential they used (so it ends with that credential).
 *
 * An admin's stop (DELETE /api/sessions/active/{id}) ends the tokens of that person's credential for
 * that file: it marks (credential, file) as stopped for every expiry handed out so far, and tokens
 * signed afterwards carry a later expiry (the next hour's), which the mark does not cover, so the
 * person can start the film again from a fresh URL.
 */
export class PlaybackTokenService {
  /** Stop marks: every token of (credential, file) expiring at or before `until` is refused. */
  private readonly stops = new Map<string, number>();

  constructor(
    private readonly key: string,
    private readonly clock: Clock,
  ) {}

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
   */
  stop(holder: TokenHolder, mediaFileId: number): void {
    const now = this.nowSeconds();
    for (const [key, until] of this.stops) if (until <= now) this.stops.delete(key);
    const key = stopKey(holder, mediaFileId);
    const before = this.stops.get(key);
    // Tokens signed since an earlier stop carry that mark's next hour: cover those too.
    this.stops.set(key, Math.max(this.currentExpiry(), before === undefined ? 0 : before + ROUND_SECONDS));
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
