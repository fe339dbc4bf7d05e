// The /movie page's seek-thumbnail maths, pure and without the DOM, so that a unit test runs the very
// code the browser runs (server/test/unit/trickplay/page-cell.test.ts checks it against
// domain/trickplay/geometry.ts locate()). Types: seek-thumbnail-cell.d.ts beside this file.

/** Whether `n` is a whole number ≥ `min`. */
function whole(n, min) {
  return typeof n === 'number' && Number.isInteger(n) && n >= min;
}

/**
 * The body of GET /api/media-file/{id}/trickplay as the page uses it, or null when it is anything
 * else (an ApiError, a set still being made, a malformed answer): then the page shows no thumbnail.
 * The sheet list must match the layout (one URL per sheet of `tile_width × tile_height`).
 */
export function readTrickplayInfo(body) {
  if (typeof body !== 'object' || body === null) return null;
  if ('status' in body && body.status !== 'ready') return null;
  const { interval_ms, width, height, tile_width, tile_height, thumbnail_count, sheets } = body;
  if (![interval_ms, width, height, tile_width, tile_height, thumbnail_count].every((n) => whole(n, 1))) {
    return null;
  }
  if (!Array.isArray(sheets) || !sheets.every((url) => typeof url === 'string' && url !== '')) return null;
  if (sheets.length !== Math.ceil(thumbnail_count / (tile_width * tile_height))) return null;
  return { interval_ms, width, height, tile_width, tile_height, thumbnail_count, sheets: [...sheets] };
}

/**
 * Where the thumbnail for `ms` into the film is: its number min(count − 1, floor(ms / interval)),
 * its sheet floor(n / (tile_width · tile_height)) and its cell, row-major (Swiftfin's maths, as
 * locate() on the server). Before the start, or not a number: the first thumbnail.
 */
export function thumbnailCell(info, ms) {
  const perSheet = info.tile_width * info.tile_height;
  const wanted = Number.isFinite(ms) && ms > 0 ? Math.floor(ms / info.interval_ms) : 0;
  const thumbnail = Math.max(0, Math.min(wanted, info.thumbnail_count - 1));
  const index = thumbnail % perSheet;
  return {
    thumbnail,
    sheet: Math.floor(thumbnail / perSheet),
    index,
    x: (index % info.tile_width) * info.width,
    y: Math.floor(index / info.tile_width) * info.height,
    width: info.width,
    height: info.height,
  };
}

/** The film time (s) under a pointer at `clientX` over a bar `left … left + width` px; clamped. */
export function timeAtPointer(clientX, left, width, durationSeconds) {
  if (!(width > 0) || !(durationSeconds > 0) || !Number.isFinite(durationSeconds)) return 0;
  const fraction = Math.min(1, Math.max(0, (clientX - left) / width));
  return fraction * durationSeconds;
}

/** "0:05", "12:34", "1:02:03" for a time in seconds (whole seconds, rounded down). */
export function clockText(seconds) {
  const total = Number.isFinite(seconds) && seconds > 0 ? Math.floor(seconds) : 0;
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}
