/**
 * Which family of TV asked (players.md §2.3), from the headers a DLNA renderer sends with its
 * browse and its GETs: the family decides the device profile (tv-profiles.ts) that the one decision
 * engine judges each file against. Pure.
 *
 * - Samsung: `SEC_HHP_[TV] …` (every Samsung TV since ~2010), `SamsungWiselinkPro/1.0`, and Tizen's
 *   `… Samsung … DLNADOC/1.50` strings.
 * - LG: webOS and NetCast send `LG…` (`LGE_DLNA_SDK`, `LG-TV`, `Linux/… UPnP/1.0 LGE_DLNA_SDK/1.6.0`)
 *   or name `webOS`.
 * - Sony: Bravia sends `X-AV-Client-Info: av=5.0; cn="Sony Corporation"; mn="BRAVIA …"`; some
 *   models only `BRAVIA` in the User-Agent.
 * - Everything else (VLC, Kodi, Xbox, Windows Media Player, phones) is generic: the conservative
 *   profile every renderer plays.
 */
export const TV_FAMILIES = ['samsung', 'lg', 'sony', 'generic'] as const;
export type TvFamily = (typeof TV_FAMILIES)[number];

export function isTvFamily(value: string): value is TvFamily {
  return (TV_FAMILIES as readonly string[]).includes(value);
}

const SAMSUNG = [/\bSEC_HHP_/i, /SamsungWiselink/i, /Samsung.*DLNADOC/i, /DLNADOC.*Samsung/i];
// `LG` must stand alone or start a token (`LGE_DLNA_SDK`, `LG-TV`, `LG/webOS`), not sit inside a word.
const LG = [/(?:^|[\s;(/])LG(?:E|[\s_\-/;)]|$)/, /\bwebOS\b/i, /\bNetCast\b/i];
const SONY_CLIENT = /\bcn\s*=\s*"?Sony Corporation"?/i;
const SONY = [/\bBRAVIA\b/i, /\bSony\b.*\bTV\b/i];

/** The family of the TV that sent these headers (`X-AV-Client-Info` null when absent). */
export function tvFamilyOf(userAgent: string, avClientInfo: string | null): TvFamily {
  // Sony's own header is the surest sign; a Sony TV's User-Agent may look like anything.
  if (avClientInfo !== null && (SONY_CLIENT.test(avClientInfo) || /BRAVIA/i.test(avClientInfo))) {
    return 'sony';
  }
  if (SAMSUNG.some((pattern) => pattern.test(userAgent))) return 'samsung';
  if (LG.some((pattern) => pattern.test(userAgent))) return 'lg';
  if (SONY.some((pattern) => pattern.test(userAgent))) return 'sony';
  return 'generic';
}
