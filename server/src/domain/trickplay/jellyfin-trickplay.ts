/**
 * Jellyfin's `Trickplay` field of a BaseItemDto (players.md §3.1; BaseItemDto.cs, TrickplayInfoDto.cs):
 * `{ "<mediaSourceId>": { "<width>": TrickplayInfoDto } }`, sent when `Fields` asks for it. Findroid,
 * Swiftfin and jellyfin-androidtv read the grid from it and fetch `/Videos/{id}/Trickplay/{width}/{n}.jpg`.
 * Pure: the caller hands in each source's layout and its sheets' sizes in bytes.
 */
import { peakBandwidth, type TrickplayLayout } from './geometry.ts';

export interface TrickplayInfoDto {
  /** One thumbnail's width: also the key under the media source. */
  Width: number;
  /** One thumbnail's height (not the sheet's). */
  Height: number;
  TileWidth: number;
  TileHeight: number;
  /** The real count, not the padded grid's. */
  ThumbnailCount: number;
  /** Milliseconds between thumbnails. */
  Interval: number;
  /** Peak bits per second ({@link peakBandwidth}). */
  Bandwidth: number;
}

export type TrickplayField = Record<string, Record<string, TrickplayInfoDto>>;

export function trickplayInfoDto(layout: TrickplayLayout, sheetBytes: readonly number[]): TrickplayInfoDto {
  return {
    Width: layout.thumbnailWidth,
    Height: layout.thumbnailHeight,
    TileWidth: layout.tileWidth,
    TileHeight: layout.tileHeight,
    ThumbnailCount: layout.thumbnailCount,
    Interval: layout.intervalMs,
    Bandwidth: peakBandwidth(layout, sheetBytes),
  };
}

export interface TrickplayOfSource {
  /** The media source's Jellyfin id (32 hex, .NET "N" format). */
  mediaSourceId: string;
  layout: TrickplayLayout;
  /** Each sheet's size in bytes, in sheet order. */
  sheetBytes: readonly number[];
}

/**
 * The field for an item: its sources with trickplay, each under its id and its width. An item with
 * none is `{}`, as Jellyfin answers. Two layouts of one source and width would overwrite each other
 * in Jellyfin's dictionary: that is a caller bug and throws.
 */
export function trickplayField(sources: readonly TrickplayOfSource[]): TrickplayField {
  const field: TrickplayField = {};
  for (const { mediaSourceId, layout, sheetBytes } of sources) {
    const widths = (field[mediaSourceId] ??= {});
    const key = String(layout.thumbnailWidth);
    if (widths[key] !== undefined) {
      throw new Error(`two trickplay layouts of width ${key} for media source ${mediaSourceId}`);
    }
    widths[key] = trickplayInfoDto(layout, sheetBytes);
  }
  return field;
}
