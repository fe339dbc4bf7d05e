/**
 * The trickplay layout of a film (players.md §3.1): how big a thumbnail is, how many there are, how
 * they are cut into JPEG sheets, and where the thumbnail for a playback position lies. Pure: the
 * service hands in the film's duration and display size, and stores the layout it gets back.
 *
 * Sheets are the ones ffmpeg's `tile` filter writes: every sheet, the last one too, is the full
 * grid (the last one padded black), so the padded count is never the real count: thumbnailCount is.
 */

export interface TrickplayOptions {
  /** Milliseconds between thumbnails (a whole number, ≥ 1). */
  intervalMs: number;
  /** Wanted thumbnail width (px): made even, and never wider than the source's display width. */
  width: number;
  /** Wanted thumbnails per sheet row (columns); shrunk so a sheet fits {@link MAX_SHEET_SIDE_PX}. */
  tileWidth: number;
  /** Wanted thumbnails per sheet column (rows); shrunk the same way. */
  tileHeight: number;
}

/** Jellyfin's defaults (TrickplayOptions.cs): a thumbnail every 10 s, 320 px wide, 10×10 per sheet. */
export const DEFAULT_TRICKPLAY_OPTIONS: Readonly<TrickplayOptions> = Object.freeze({
  intervalMs: 10_000,
  width: 320,
  tileWidth: 10,
  tileHeight: 10,
});

/** iOS/Safari decode no larger image: 4096 px a side… */
export const MAX_SHEET_SIDE_PX = 4096;
/** …and 16.7 MP (= 4096², so the side cap already keeps to it; checked anyway should either move). */
export const MAX_SHEET_PIXELS = 16_777_216;
/** Roku: "maximum tile [sheet] width or height … 1080 for high-end devices and 720 for low-end". */
export const ROKU_MAX_SHEET_SIDE_PX = 1080;
export const ROKU_LOW_END_MAX_SHEET_SIDE_PX = 720;

/** What is stored per made trickplay: everything else is derived from it. */
export interface TrickplayLayout {
  intervalMs: number;
  thumbnailWidth: number;
  thumbnailHeight: number;
  /** Thumbnails per sheet row (Jellyfin's TileWidth). */
  tileWidth: number;
  /** Thumbnails per sheet column (Jellyfin's TileHeight). */
  tileHeight: number;
  /** The real number of thumbnails, ceil(duration / interval): not the padded grid's. */
  thumbnailCount: number;
}

export type TrickplayRefusal = 'unknown_duration' | 'unknown_size' | 'thumbnail_too_large';

export type TrickplayPlan =
  { ok: true; layout: TrickplayLayout } | { ok: false; reason: TrickplayRefusal; message: string };

export interface TrickplaySource {
  /** Seconds; null, NaN, infinite or ≤ 0 when the analysis has none. */
  durationSeconds: number | null;
  /** Display size in square pixels (after SAR and rotation: {@link displaySize}). */
  displayWidth: number | null;
  displayHeight: number | null;
}

function positiveInteger(value: number): boolean {
  return Number.isInteger(value) && value >= 1;
}

/** Options come from configuration: a bad one is a bug upstream, not a property of a film. */
export function checkTrickplayOptions(options: TrickplayOptions): void {
  const { intervalMs, width, tileWidth, tileHeight } = options;
  if (!positiveInteger(intervalMs) || intervalMs > 0xffffffff) {
    throw new RangeError(`trickplay interval must be a whole number of ms ≥ 1: ${intervalMs}`);
  }
  if (!positiveInteger(width) || width < 2 || width > MAX_SHEET_SIDE_PX) {
    throw new RangeError(`trickplay width must be a whole number from 2 to ${MAX_SHEET_SIDE_PX}: ${width}`);
  }
  if (!positiveInteger(tileWidth) || !positiveInteger(tileHeight)) {
    throw new RangeError(`trickplay tiles must be whole numbers ≥ 1: ${tileWidth}x${tileHeight}`);
  }
}

/**
 * The size a player shows the picture at: the sample aspect ratio applied to the width (a DVD's
 * 720×480 at 32:27 is 853⅓×480) and the sides swapped for a 90°/270° rotation (ffmpeg rotates
 * before its filters). A missing or malformed SAR counts as square pixels. Null without a size.
 */
export function displaySize(video: {
  width: number | null;
  height: number | null;
  sar: string | null;
  rotation: number;
}): { width: number; height: number } | null {
  const { width, height } = video;
  if (width === null || height === null || !(width > 0) || !(height > 0)) return null;
  const match = /^(\d+):(\d+)$/.exec(video.sar ?? '');
  const num = Number(match?.[1] ?? 1);
  const den = Number(match?.[2] ?? 1);
  const displayWidth = num > 0 && den > 0 ? (width * num) / den : width;
  const quarterTurn = ((Math.round(video.rotation / 90) % 2) + 2) % 2 === 1;
  return quarterTurn ? { width: height, height: displayWidth } : { width: displayWidth, height };
}

/**
 * The grid that fits: as many of the wanted columns and rows as keep a sheet within `maxSide` a
 * side and `maxPixels`; null when not even one thumbnail fits.
 */
export function fitTiles(
  thumbnail: { width: number; height: number },
  wanted: { tileWidth: number; tileHeight: number },
  maxSide: number,
  maxPixels: number = MAX_SHEET_PIXELS,
): { tileWidth: number; tileHeight: number } | null {
  let tileWidth = Math.min(wanted.tileWidth, Math.floor(maxSide / thumbnail.width));
  let tileHeight = Math.min(wanted.tileHeight, Math.floor(maxSide / thumbnail.height));
  // Only a maxPixels below maxSide² gets here; drop a line of the longer side (fewest thumbs lost).
  while (
    tileWidth >= 1 &&
    tileHeight >= 1 &&
    tileWidth * tileHeight * thumbnail.width * thumbnail.height > maxPixels
  ) {
    if (tileWidth * thumbnail.width >= tileHeight * thumbnail.height) tileWidth -= 1;
    else tileHeight -= 1;
  }
  return tileWidth >= 1 && tileHeight >= 1 ? { tileWidth, tileHeight } : null;
}

/**
 * The layout of one film. The width is made even and at most the display width (Jellyfin does the
 * same: no upscaling); the height is the nearest even number to width ÷ display aspect, as
 * ffmpeg's `scale=W:-2` rounds. The ffmpeg pass must scale to exactly this size
 * (`scale=W:H,setsar=1`): `-2` would ignore an anamorphic source's SAR and give a squeezed picture.
 * The count is taken on whole milliseconds so that float noise (300.0000001 s) adds no thumbnail.
 */
export function planTrickplay(
  source: TrickplaySource,
  options: TrickplayOptions = DEFAULT_TRICKPLAY_OPTIONS,
): TrickplayPlan {
  checkTrickplayOptions(options);
  const { durationSeconds, displayWidth, displayHeight } = source;
  const durationMs = durationSeconds === null ? Number.NaN : Math.round(durationSeconds * 1000);
  if (!Number.isFinite(durationMs) || durationMs <= 0) {
    return {
      ok: false,
      reason: 'unknown_duration',
      message: `the film's duration is unknown or zero (${String(durationSeconds)} s)`,
    };
  }
  if (displayWidth === null || displayHeight === null || !(displayWidth >= 2) || !(displayHeight > 0)) {
    return {
      ok: false,
      reason: 'unknown_size',
      message: `the picture's size is unknown or too small (${String(displayWidth)}×${String(displayHeight)})`,
    };
  }
  const width = 2 * Math.floor(Math.min(options.width, displayWidth) / 2);
  const height = Math.max(2, 2 * Math.round((width * displayHeight) / displayWidth / 2));
  const tiles = fitTiles({ width, height }, options, MAX_SHEET_SIDE_PX);
  if (tiles === null) {
    return {
      ok: false,
      reason: 'thumbnail_too_large',
      message: `a ${width}×${height} thumbnail does not fit a ${MAX_SHEET_SIDE_PX} px sheet`,
    };
  }
  return {
    ok: true,
    layout: {
      intervalMs: options.intervalMs,
      thumbnailWidth: width,
      thumbnailHeight: height,
      tileWidth: tiles.tileWidth,
      tileHeight: tiles.tileHeight,
      thumbnailCount: Math.ceil(durationMs / options.intervalMs),
    },
  };
}

/**
 * The Roku variant: the same thumbnails re-cut into sheets of at most `maxSide` a side (3×6 of
 * 320×180 = 960×1080 for the default), made from the stored sheets without decoding the film again.
 * Null when one thumbnail is already larger than that (a width above 1080 in the options): the
 * image stream is then not offered to Roku at all.
 */
export function rokuLayout(
  layout: TrickplayLayout,
  maxSide: number = ROKU_MAX_SHEET_SIDE_PX,
): TrickplayLayout | null {
  const tiles = fitTiles(
    { width: layout.thumbnailWidth, height: layout.thumbnailHeight },
    { tileWidth: layout.tileWidth, tileHeight: layout.tileHeight },
    maxSide,
  );
  return tiles === null ? null : { ...layout, ...tiles };
}

export function thumbnailsPerSheet(layout: TrickplayLayout): number {
  return layout.tileWidth * layout.tileHeight;
}

export function sheetCount(layout: TrickplayLayout): number {
  return Math.ceil(layout.thumbnailCount / thumbnailsPerSheet(layout));
}

/** Every sheet's pixel size (the last one is padded to the full grid, as ffmpeg's tile writes it). */
export function sheetSize(layout: TrickplayLayout): { width: number; height: number } {
  return {
    width: layout.tileWidth * layout.thumbnailWidth,
    height: layout.tileHeight * layout.thumbnailHeight,
  };
}

export interface TrickplaySheet {
  index: number;
  /** The first thumbnail's number in the film. */
  firstThumbnail: number;
  /** Real thumbnails on it: the full grid, except on a last partial sheet. */
  thumbnailCount: number;
  /** Film time the sheet covers: interval × its real thumbnails. */
  startMs: number;
  durationMs: number;
}

export function sheetsOf(layout: TrickplayLayout): TrickplaySheet[] {
  const perSheet = thumbnailsPerSheet(layout);
  return Array.from({ length: sheetCount(layout) }, (_, index) => {
    const firstThumbnail = index * perSheet;
    const thumbnailCount = Math.min(perSheet, layout.thumbnailCount - firstThumbnail);
    return {
      index,
      firstThumbnail,
      thumbnailCount,
      startMs: firstThumbnail * layout.intervalMs,
      durationMs: thumbnailCount * layout.intervalMs,
    };
  });
}

export interface ThumbnailLocation {
  /** The thumbnail's number in the film. */
  thumbnail: number;
  sheet: number;
  /** Its place on the sheet, row-major. */
  index: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * Where the thumbnail for a playback position is (Swiftfin's maths: n = floor(ms / interval),
 * sheet = floor(n / (tileWidth·tileHeight)), row-major inside). A position before the start (or not
 * a number) is the first thumbnail, one past the last thumbnail's time the last.
 */
export function locate(layout: TrickplayLayout, ms: number): ThumbnailLocation {
  const perSheet = thumbnailsPerSheet(layout);
  const wanted = Number.isFinite(ms) && ms > 0 ? Math.floor(ms / layout.intervalMs) : 0;
  const thumbnail = Math.max(0, Math.min(wanted, layout.thumbnailCount - 1));
  const index = thumbnail % perSheet;
  return {
    thumbnail,
    sheet: Math.floor(thumbnail / perSheet),
    index,
    x: (index % layout.tileWidth) * layout.thumbnailWidth,
    y: Math.floor(index / layout.tileWidth) * layout.thumbnailHeight,
    width: layout.thumbnailWidth,
    height: layout.thumbnailHeight,
  };
}

/**
 * Peak bits per second of fetching the sheets at playback speed (Jellyfin's `Bandwidth`,
 * TrickplayManager.cs): max over sheets of ceil(bytes·8 / (tileWidth·tileHeight) / (interval s)).
 * The last sheet is divided by the full grid too, as Jellyfin does.
 */
export function peakBandwidth(layout: TrickplayLayout, sheetBytes: readonly number[]): number {
  if (sheetBytes.length !== sheetCount(layout)) {
    throw new RangeError(`${sheetBytes.length} sheet sizes for a layout of ${sheetCount(layout)} sheets`);
  }
  let peak = 0;
  for (const bytes of sheetBytes) {
    if (!Number.isInteger(bytes) || bytes < 1) throw new RangeError(`a sheet of ${bytes} bytes`);
    const perThumbnailBits = (bytes * 8) / thumbnailsPerSheet(layout);
    peak = Math.max(peak, Math.ceil(perThumbnailBits / (layout.intervalMs / 1000)));
  }
  return peak;
}

/** `GET /api/media-file/{id}/trickplay` (INTERFACE.md "Seek thumbnails"). */
export interface TrickplayResponse {
  interval_ms: number;
  width: number;
  height: number;
  tile_width: number;
  tile_height: number;
  thumbnail_count: number;
  sheets: string[];
}

/** The response for a layout; `sheetUrl` makes each sheet's URL (it carries the caller's token). */
export function trickplayResponse(
  layout: TrickplayLayout,
  sheetUrl: (index: number) => string,
): TrickplayResponse {
  return {
    interval_ms: layout.intervalMs,
    width: layout.thumbnailWidth,
    height: layout.thumbnailHeight,
    tile_width: layout.tileWidth,
    tile_height: layout.tileHeight,
    thumbnail_count: layout.thumbnailCount,
    sheets: Array.from({ length: sheetCount(layout) }, (_, index) => sheetUrl(index)),
  };
}
