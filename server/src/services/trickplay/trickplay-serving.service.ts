/**
 * Serving made seek thumbnails to reelshelf's own clients (docs/trickplay.md "Serving"): the
 * `GET /api/media-file/{id}/trickplay` answer with sheet URLs signed for the caller, the sheets
 * themselves, the HLS image playlist of the Roku sheets and the BIF. Reads through the
 * {@link TrickplayReader} only; who may see the file was checked before (the route-subjects guard,
 * the playback token's person).
 */
import type { TrickplayInfo } from '@reelshelf/contract';
import type { StoredFile } from '../../adapters/data-store.ts';
import type { TokenHolder } from '../../domain/playback-token.ts';
import { strongEtag } from '../../domain/http-range.ts';
import { trickplayResponse } from '../../domain/trickplay/geometry.ts';
import { renderImagePlaylist } from '../../domain/trickplay/image-playlist.ts';
import { AppError, notFound } from '../../errors.ts';
import type { TrickplayMade, TrickplayReader, TrickplayStatus, TrickplayVariant } from './trickplay-ports.ts';

/** A sheet or BIF with what an HTTP answer needs (stream-response.ts ServedFile). */
export interface ServedTrickplayFile {
  file: StoredFile;
  etag: string;
  lastModified: Date;
  contentType: string;
}

export const JPEG_CONTENT_TYPE = 'image/jpeg';
/** No registered type; Roku's samples and Plex serve BIFs as bytes. */
export const BIF_CONTENT_TYPE = 'application/octet-stream';
/** How long a client waits before asking again for a set being made (a film takes about a minute). */
const PENDING_RETRY_SECONDS = 30;

export interface TrickplayServingDeps {
  reader: TrickplayReader;
  /** The query every stream URL of a file carries (PlaybackTokenService.streamQuery). */
  tokens: { streamQuery(mediaFileId: number, device: string, holder: TokenHolder): string };
  files: { getById(id: number): Promise<unknown> };
  devices: { resolve(device: string | undefined): { id: string } };
}

/** The sheet URL of a set, relative to the server (one token for every sheet of an answer). */
export function sheetUrl(fileId: number, generation: number, index: number, query: string): string {
  return `/stream/media_file/${fileId}/trickplay/${generation}/${index}.jpg?${query}`;
}

/** The image playlist's URI of a Roku sheet, relative to `…/trickplay/tiles.m3u8`. */
function rokuSheetUri(generation: number, index: number, query: string): string {
  return `${generation}/roku/${index}.jpg?${query}`;
}

/** Why a file has no set to serve, as the ApiError a client reads. */
export function notReadyError(fileId: number, status: TrickplayStatus, enabled: boolean): AppError {
  switch (status.state) {
    case 'queued':
    case 'running':
      return new AppError('trickplay_pending', {
        message: `The seek thumbnails of file ${fileId} are ${status.state === 'queued' ? 'queued' : 'being made'} (job ${status.jobId}).`,
        hint: `Ask again in a little while; GET /api/jobs/${status.jobId} shows the job's progress.`,
        extra: { state: status.state, job_id: status.jobId },
        headers: { 'retry-after': String(PENDING_RETRY_SECONDS) },
      });
    case 'failed':
      return new AppError('trickplay_failed', {
        message: `The seek thumbnails of file ${fileId} could not be made: ${status.reason}.`,
        hint: `An admin can try again with POST /api/media-file/${fileId}/trickplay once the cause is fixed.`,
        extra: { reason: status.reason, job_id: status.jobId, failed_at: status.failedAt },
      });
    case 'none':
    case 'ready':
      return enabled
        ? new AppError('trickplay_not_made', {
            message: `No seek thumbnails have been made for file ${fileId} yet.`,
            hint: `They are made after a scan; an admin can ask now with POST /api/media-file/${fileId}/trickplay.`,
          })
        : new AppError('trickplay_off', {
            hint: 'Set REELSHELF_TRICKPLAY=on (and install ffmpeg) to have them made.',
          });
  }
}

function oldSet(fileId: number): AppError {
  return new AppError('not_found', {
    message: `This is not a sheet of file ${fileId}'s current seek thumbnails.`,
    hint: `They were remade or removed: GET /api/media-file/${fileId}/trickplay gives the current sheet URLs.`,
  });
}

export class TrickplayServingService {
  constructor(private readonly deps: TrickplayServingDeps) {}

  /**
   * `GET /api/media-file/{id}/trickplay`: the made set with its sheets' URLs signed for `holder` on
   * `device`, or the ApiError saying why there is none (none, queued or running, failed, off).
   */
  async info(fileId: number, device: string | undefined, holder: TokenHolder): Promise<TrickplayInfo> {
    const profile = this.deps.devices.resolve(device);
    if ((await this.deps.files.getById(fileId)) === undefined) throw notFound('media file', String(fileId));
    const status = await this.deps.reader.status(fileId);
    if (status.state !== 'ready') throw notReadyError(fileId, status, this.deps.reader.enabled);
    const { made } = status;
    const query = this.deps.tokens.streamQuery(fileId, profile.id, holder);
    return {
      status: 'ready',
      mode: made.mode,
      ...trickplayResponse(made.layout, (index) => sheetUrl(fileId, made.generation, index, query)),
    };
  }

  /** The current set, or the 404 a URL of a sheet, playlist or BIF of a file without one gets. */
  private async current(fileId: number): Promise<TrickplayMade> {
    const made = await this.deps.reader.made(fileId);
    if (made !== null) return made;
    throw new AppError('not_found', {
      message: `File ${fileId} has no seek thumbnails.`,
      hint: `GET /api/media-file/${fileId}/trickplay says why.`,
    });
  }

  /**
   * One sheet of generation `generation`. Its URL names the generation, so its bytes never change:
   * the ETag is the set's and the sheet's; an old generation is a 404 telling to re-read the info.
   */
  async sheet(
    fileId: number,
    generation: number,
    variant: TrickplayVariant,
    index: number,
  ): Promise<ServedTrickplayFile> {
    const made = await this.deps.reader.made(fileId);
    if (made === null || made.generation !== generation) throw oldSet(fileId);
    const file = await this.deps.reader.sheet(fileId, generation, variant, index);
    return {
      file,
      etag: strongEtag(['trickplay', fileId, generation, variant, index, file.sizeBytes]),
      lastModified: new Date(Math.floor(file.mtimeMs)),
      contentType: JPEG_CONTENT_TYPE,
    };
  }

  /**
   * The EXT-X-IMAGES-ONLY playlist of the Roku sheets (docs/trickplay.md "Formats"); every URI
   * carries the device and the token the playlist was asked with (asked with a bearer: a token
   * signed for its person).
   */
  async tilesPlaylist(
    fileId: number,
    device: string,
    holder: TokenHolder,
    token: string | undefined,
  ): Promise<string> {
    const made = await this.current(fileId);
    const query =
      token === undefined || token === ''
        ? this.deps.tokens.streamQuery(fileId, device, holder)
        : new URLSearchParams({ device, token }).toString();
    return renderImagePlaylist(made.roku.layout, (index) => rokuSheetUri(made.generation, index, query));
  }

  /** The current set's BIF: one URL for every set, so revalidated (the ETag names the generation). */
  async bif(fileId: number): Promise<ServedTrickplayFile> {
    const made = await this.current(fileId);
    const file = await this.deps.reader.bif(fileId);
    return {
      file,
      etag: strongEtag(['trickplay.bif', fileId, made.generation, file.sizeBytes]),
      lastModified: new Date(Math.floor(file.mtimeMs)),
      contentType: BIF_CONTENT_TYPE,
    };
  }
}
