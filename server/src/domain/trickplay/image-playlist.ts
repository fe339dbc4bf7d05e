/**
 * The HLS image playlist of a film's thumbnails (players.md §3.2: the Disney/Roku "image playlist"
 * tags, as Jellyfin's TrickplayManager.GetHlsPlaylist writes them) and the master playlist line that
 * announces it. One segment per sheet; EXT-X-TILES says how a sheet is cut. Pure: URIs are made by
 * the caller (they carry the token).
 *
 * EXT-X-TARGETDURATION: Jellyfin writes the tile count (100), which is not a duration; RFC 8216
 * §4.3.3.1 requires every EXTINF rounded to the nearest integer to be ≤ it, and a full sheet lasts
 * 1,000 s. We write the largest EXTINF rounded up, which keeps to the RFC whatever the interval.
 */
import { sheetsOf, type TrickplayLayout } from './geometry.ts';

/** The version Jellyfin and the Roku samples write; nothing here needs more. */
const PLAYLIST_VERSION = 7;

/** A URI is one playlist line or quoted-string: a CR, LF or `"` in it is a caller bug. */
function checkedUri(uri: string): string {
  if (uri === '' || /[\r\n"]/.test(uri)) {
    throw new Error(`HLS URI must be non-empty without CR, LF or '"': ${JSON.stringify(uri)}`);
  }
  return uri;
}

/** Whole milliseconds as decimal seconds, no float noise (7500 → "7.5", 10000 → "10"). */
function seconds(ms: number): string {
  const whole = Math.floor(ms / 1000);
  const fraction = ms % 1000;
  return fraction === 0 ? String(whole) : `${whole}.${String(fraction).padStart(3, '0').replace(/0+$/, '')}`;
}

/** The media playlist: every sheet, its real duration (interval × real thumbnails), VOD. */
export function renderImagePlaylist(layout: TrickplayLayout, sheetUri: (index: number) => string): string {
  const sheets = sheetsOf(layout);
  if (sheets.length === 0) throw new Error('an image playlist needs at least one thumbnail');
  const longestMs = Math.max(...sheets.map((sheet) => sheet.durationMs));
  const tiles =
    `#EXT-X-TILES:RESOLUTION=${layout.thumbnailWidth}x${layout.thumbnailHeight},` +
    `LAYOUT=${layout.tileWidth}x${layout.tileHeight},DURATION=${seconds(layout.intervalMs)}`;
  const lines = [
    '#EXTM3U',
    `#EXT-X-VERSION:${PLAYLIST_VERSION}`,
    `#EXT-X-TARGETDURATION:${Math.ceil(longestMs / 1000)}`,
    // The sheet number of the first segment (Jellyfin writes 1; for VOD players ignore it).
    '#EXT-X-MEDIA-SEQUENCE:0',
    '#EXT-X-PLAYLIST-TYPE:VOD',
    '#EXT-X-IMAGES-ONLY',
  ];
  for (const sheet of sheets) {
    lines.push(`#EXTINF:${seconds(sheet.durationMs)},`, tiles, checkedUri(sheetUri(sheet.index)));
  }
  lines.push('#EXT-X-ENDLIST', '');
  return lines.join('\n');
}

/**
 * The master playlist's line for it (Jellyfin's DynamicHlsHelper): BANDWIDTH the peak of
 * geometry.ts's peakBandwidth, RESOLUTION one thumbnail's size, CODECS="jpeg".
 */
export function imageStreamInfLine(layout: TrickplayLayout, bandwidth: number, uri: string): string {
  if (!Number.isInteger(bandwidth) || bandwidth < 1) {
    throw new RangeError(`BANDWIDTH must be a positive whole number: ${bandwidth}`);
  }
  return (
    `#EXT-X-IMAGE-STREAM-INF:BANDWIDTH=${bandwidth},` +
    `RESOLUTION=${layout.thumbnailWidth}x${layout.thumbnailHeight},CODECS="jpeg",URI="${checkedUri(uri)}"`
  );
}
