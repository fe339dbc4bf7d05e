import type { Clock } from '../../adapters/clock.ts';
import { signPlaybackToken, type TokenCheck, verifyPlaybackToken } from '../../domain/playback-token.ts';

/** Tokens last 6 to 7 hours: a movie night, not a week. */
const LIFETIME_SECONDS = 6 * 3600;
/** Expiries are rounded up to the hour so /library hands out the same URL for an hour (caches like that). */
const ROUND_SECONDS = 3600;

/** Signs and verifies the playback tokens carried by stream URLs. */
export class PlaybackTokenService {
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

  sign(mediaFileId: number, device: string): string {
    return signPlaybackToken(this.key, { mediaFileId, device, expiresAt: this.currentExpiry() });
  }

  verify(token: string, mediaFileId: number, device: string): TokenCheck {
    return verifyPlaybackToken(this.key, token, mediaFileId, device, this.nowSeconds());
  }

  /** The relative stream URL of a file for a device, token included. */
  streamUrl(mediaFileId: number, device: string): string {
    return this.playbackUrls(mediaFileId, device).streamUrl;
  }

  /** The relative URL of a file's HLS master playlist for a device, with the stream URL's token. */
  hlsUrl(mediaFileId: number, device: string): string {
    return this.playbackUrls(mediaFileId, device).hlsUrl;
  }

  /**
   * Both URLs from one signature, so they carry the same token even when the hour (and with it the
   * rounded expiry) turns between two calls.
   */
  playbackUrls(
    mediaFileId: number,
    device: string,
  ): { streamUrl: string; hlsUrl: string; subtitleUrl: (index: number) => string } {
    const query = `?device=${encodeURIComponent(device)}&token=${encodeURIComponent(this.sign(mediaFileId, device))}`;
    return {
      streamUrl: `/stream/media_file/${mediaFileId}${query}`,
      hlsUrl: `/stream/media_file/${mediaFileId}/master.m3u8${query}`,
      subtitleUrl: (index) => `/stream/media_file/${mediaFileId}/subtitles/${index}.vtt${query}`,
    };
  }
}
