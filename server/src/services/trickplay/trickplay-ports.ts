/**
 * The seam between the trickplay job (making and keeping the sheets: trickplay.service.ts) and the
 * surfaces that serve them (reelshelf's API and page, the Jellyfin facade, HLS masters, Roku BIF).
 * Surfaces read through {@link TrickplayReader} only; none of them makes, moves or removes a sheet.
 *
 * Storage (data dir area `trickplay`, through DataStore), one folder per made set, named by the
 * generation (the id of the job that made it) so a remake gets new URLs and every sheet can be cached
 * as immutable:
 *
 *   trickplay/<fileId>/<generation>/sheets/<index>.jpg   Jellyfin's layout (default 320 px, 10×10)
 *   trickplay/<fileId>/<generation>/roku/<index>.jpg     the same thumbnails re-cut to Roku's limits
 *   trickplay/<fileId>/<generation>/trickplay.bif        Roku BIF, one JPEG per thumbnail
 *
 * URLs (all GET/HEAD; `/stream/…` take the playback token like every stream URL):
 *
 *   GET  /api/media-file/{id}/trickplay                          → TrickplayResponse (+ status, mode)
 *   POST /api/media-file/{id}/trickplay   (admin)                → 202 {job_id}: make or remake
 *   /stream/media_file/{id}/trickplay/{generation}/{index}.jpg   a sheet (ETag, immutable)
 *   /stream/media_file/{id}/trickplay/{generation}/roku/{index}.jpg
 *   /stream/media_file/{id}/trickplay/tiles.m3u8                 EXT-X-IMAGES-ONLY playlist (Roku sheets)
 *   /stream/media_file/{id}/trickplay.bif                        Roku BIF
 *   /Videos/{id}/Trickplay/{width}/{index}.jpg and …/tiles.m3u8   the Jellyfin facade (its own auth)
 */
import type { StoredFile } from '../../adapters/data-store.ts';
import { AppError } from '../../errors.ts';
import type { TrickplayMade, TrickplayStatus, TrickplayVariant } from '../../domain/trickplay/made.ts';

export type { TrickplayMade, TrickplayStatus, TrickplayVariant } from '../../domain/trickplay/made.ts';

/**
 * What the serving surfaces read. Callers have already checked that the person asking may see the
 * file (the route-subjects guard, the Jellyfin facade's visibility); this port does not check again.
 */
export interface TrickplayReader {
  /** Whether trickplay is made in this server at all (REELSHELF_TRICKPLAY and an ffmpeg). */
  readonly enabled: boolean;
  status(fileId: number): Promise<TrickplayStatus>;
  /** The made set, or null (none yet, queued, running or failed). */
  made(fileId: number): Promise<TrickplayMade | null>;
  /** The made sets of many files at once (item lists of the Jellyfin facade): absent = none. */
  madeMany(fileIds: readonly number[]): Promise<Map<number, TrickplayMade>>;
  /**
   * One sheet of the current set.
   * @throws AppError 404 `not_found` when the generation is not the current one or the index is past the last sheet
   */
  sheet(fileId: number, generation: number, variant: TrickplayVariant, index: number): Promise<StoredFile>;
  /** The current set's BIF. @throws AppError 404 when none is made */
  bif(fileId: number): Promise<StoredFile>;
}

/** A reader for a server built without trickplay (and the seam's default until the job is wired). */
export const noTrickplay: TrickplayReader = {
  enabled: false,
  status: () => Promise.resolve({ state: 'none' }),
  made: () => Promise.resolve(null),
  madeMany: () => Promise.resolve(new Map()),
  sheet: () => Promise.reject(notMade()),
  bif: () => Promise.reject(notMade()),
};

function notMade(): AppError {
  return new AppError('not_found', {
    status: 404,
    message: 'This server makes no seek thumbnails.',
    hint: 'Set REELSHELF_TRICKPLAY=on (and install ffmpeg) to have them made.',
  });
}
