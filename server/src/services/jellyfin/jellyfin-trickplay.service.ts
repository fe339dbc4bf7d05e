/**
 * Seek thumbnails through the Jellyfin facade (players.md §3.1–3.2; Jellyfin's TrickplayController):
 * `/Videos/{itemId}/Trickplay/{width}/{index}.jpg` serves Jellyfin's own sheets (the layout the
 * item's `Trickplay` field describes) and `…/tiles.m3u8` lists them as an image playlist. The file is
 * the one the item and its media source name, as the person may see it (JellyfinPlaybackService.fileOf).
 */
import type { ListingViewer } from '../library/library.service.ts';
import { strongEtag } from '../../domain/http-range.ts';
import { renderImagePlaylist } from '../../domain/trickplay/image-playlist.ts';
import { AppError } from '../../errors.ts';
import type { TrickplayMade, TrickplayReader } from '../trickplay/trickplay-ports.ts';
import { JPEG_CONTENT_TYPE, type ServedTrickplayFile } from '../trickplay/trickplay-serving.service.ts';
import type { JellyfinPlaybackService } from './jellyfin-playback.service.ts';

export interface JellyfinTrickplayDeps {
  reader: Pick<TrickplayReader, 'made' | 'sheet'>;
  files: Pick<JellyfinPlaybackService, 'fileOf'>;
}

function noTiles(width: number): AppError {
  return new AppError('not_found', {
    message: `This item has no seek thumbnails ${width} px wide.`,
    hint: 'The item’s Trickplay field (Fields=Trickplay) names the widths there are.',
  });
}

export class JellyfinTrickplayService {
  constructor(private readonly deps: JellyfinTrickplayDeps) {}

  /** The file and its made set of this width; 404 as Jellyfin answers (no set, another width). */
  private async setOf(
    viewer: ListingViewer,
    itemId: string,
    mediaSourceId: string | null,
    width: number,
  ): Promise<{ fileId: number; made: TrickplayMade }> {
    const fileId = await this.deps.files.fileOf(viewer, itemId, mediaSourceId);
    const made = await this.deps.reader.made(fileId);
    if (made === null || made.layout.thumbnailWidth !== width) throw noTiles(width);
    return { fileId, made };
  }

  /**
   * Sheet `index` of Jellyfin's layout. The URL does not name the set, so it is revalidated: the
   * ETag names the generation.
   */
  async sheet(
    viewer: ListingViewer,
    itemId: string,
    mediaSourceId: string | null,
    width: number,
    index: number,
  ): Promise<ServedTrickplayFile> {
    const { fileId, made } = await this.setOf(viewer, itemId, mediaSourceId, width);
    const file = await this.deps.reader.sheet(fileId, made.generation, 'sheets', index);
    return {
      file,
      etag: strongEtag(['trickplay', fileId, made.generation, 'sheets', index, file.sizeBytes]),
      lastModified: new Date(Math.floor(file.mtimeMs)),
      contentType: JPEG_CONTENT_TYPE,
    };
  }

  /**
   * The image playlist of the sheets: URIs `<n>.jpg?<query>` beside it (Jellyfin's carry
   * `MediaSourceId` and the token, since players fetch them without headers).
   */
  async playlist(
    viewer: ListingViewer,
    itemId: string,
    mediaSourceId: string | null,
    width: number,
    query: string,
  ): Promise<string> {
    const { made } = await this.setOf(viewer, itemId, mediaSourceId, width);
    return renderImagePlaylist(made.layout, (index) => `${index}.jpg?${query}`);
  }
}
