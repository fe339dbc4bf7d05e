/**
 * What a made set of seek thumbnails is, as every surface reads it (services/trickplay/
 * trickplay-ports.ts serves these; the HLS master and the Jellyfin facade take them as data).
 */
import type { TrickplayLayout } from './geometry.ts';
import type { SheetMode } from './sheet-command.ts';

/** Which sheets: Jellyfin's layout (the API, the page, the Jellyfin facade) or Roku's re-cut. */
export type TrickplayVariant = 'sheets' | 'roku';

/** A made set of thumbnails, as recorded once its job finished. */
export interface TrickplayMade {
  fileId: number;
  /** The job that made it; part of every sheet URL (a remake changes it). */
  generation: number;
  mode: SheetMode;
  /** Jellyfin's layout, with the real thumbnail count. */
  layout: TrickplayLayout;
  /** Byte size of each sheet of `layout`, in order (Jellyfin's Bandwidth, the HLS BANDWIDTH). */
  sheetBytes: number[];
  /** The Roku re-cut of the same thumbnails and its sheets' sizes. */
  roku: { layout: TrickplayLayout; sheetBytes: number[] };
  /** Byte size of trickplay.bif. */
  bifBytes: number;
  /** ISO time it was made. */
  madeAt: string;
}

/** Where a file's trickplay stands. */
export type TrickplayStatus =
  | { state: 'none' }
  | { state: 'queued' | 'running'; jobId: number }
  | { state: 'ready'; made: TrickplayMade }
  | { state: 'failed'; reason: string; jobId: number | null; failedAt: string };
