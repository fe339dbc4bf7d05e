import { createHmac } from 'node:crypto';
import type { Clock } from '../../adapters/clock.ts';
import {
  signPlaybackToken,
  type TokenCheck,
  type TokenHolder,
  verifyPlaybackToken,
} from '../../domain/playback-token.ts';
import type { TvFamily } from '../../domain/dlna/tv-family.ts';

/**
 * 48 hours: a TV keeps the DIDL of a browse (and with it the URLs) while it stays on or in standby,
 * and plays from it without browsing again — Friday evening's list must still play on Saturday. A
 * longer life gains little (the next browse hands out fresh URLs) and keeps a copied URL alive longer.
 */
export const DLNA_TOKEN_LIFETIME_SECONDS = 48 * 3600;
/** Rounded up to the hour, so browses within an hour hand out the same URLs (TVs cache by URL). */
const ROUND_SECONDS = 3600;

/** What a token opens: a file's bytes, conversion and subtitles, or a film's cover. */
export type DlnaTokenPurpose = 'media' | 'art';

/**
 * The signed tokens of DLNA media URLs (domain/playback-token.ts's format and HMAC), bound to the
 * DLNA person, the file (or, for art, the film) and the TV family — so a URL made for a Samsung's
 * profile opens nothing for a generic renderer, and one made before the DLNA person changed opens
 * nothing after. The key is derived from the playback key for this use alone: a DLNA token is never
 * a /stream token, nor the other way round.
 */
export class DlnaTokens {
  private readonly key: string;

  constructor(
    playbackKey: string,
    private readonly clock: Clock,
  ) {
    this.key = createHmac('sha256', playbackKey).update('reelshelf dlna media tokens v1').digest('base64url');
  }

  private nowSeconds(): number {
    return Math.floor(this.clock.now().getTime() / 1000);
  }

  sign(purpose: DlnaTokenPurpose, id: number, family: TvFamily, holder: TokenHolder): string {
    const expiresAt =
      Math.ceil((this.nowSeconds() + DLNA_TOKEN_LIFETIME_SECONDS) / ROUND_SECONDS) * ROUND_SECONDS;
    return signPlaybackToken(this.key, {
      mediaFileId: id,
      device: `dlna-${purpose}-${family}`,
      expiresAt,
      holder,
    });
  }

  verify(token: string, purpose: DlnaTokenPurpose, id: number, family: TvFamily): TokenCheck {
    return verifyPlaybackToken(this.key, token, id, `dlna-${purpose}-${family}`, this.nowSeconds());
  }
}
