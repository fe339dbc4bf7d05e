// Types of seek-thumbnail-cell.js (a browser module served as it is; the unit test imports it too).

/** GET /api/media-file/{id}/trickplay, as the page reads it. */
export interface PageTrickplayInfo {
  interval_ms: number;
  width: number;
  height: number;
  tile_width: number;
  tile_height: number;
  thumbnail_count: number;
  sheets: string[];
}

export interface PageThumbnailCell {
  thumbnail: number;
  sheet: number;
  index: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

export function readTrickplayInfo(body: unknown): PageTrickplayInfo | null;
export function thumbnailCell(info: PageTrickplayInfo, ms: number): PageThumbnailCell;
export function timeAtPointer(clientX: number, left: number, width: number, durationSeconds: number): number;
export function clockText(seconds: number): string;
