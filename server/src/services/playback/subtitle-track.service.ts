import type { Db } from '../../db/database.ts';
import { subtitleTracksOf } from '../../domain/subtitles/subtitle-list.ts';
import type { SubtitleTrack, SubtitleTrackSource } from '../../domain/subtitles/subtitle-track.ts';
import { notFound } from '../../errors.ts';
import { MediaFileRepository } from '../../repositories/media-file.repository.ts';
import { SubtitleSidecarRepository } from '../../repositories/subtitle-sidecar.repository.ts';
import { readCapabilities } from './edition-presenter.ts';

/**
 * A media file's subtitle tracks in one numbered list: its embedded subtitle streams as the analysis
 * recorded them (stream order), then the sidecar files the scan found beside it (by file name).
 */
export class SubtitleTrackService implements SubtitleTrackSource {
  constructor(private readonly db: Db) {}

  async tracks(fileId: number): Promise<SubtitleTrack[]> {
    const file = await new MediaFileRepository(this.db).getById(fileId);
    if (file === undefined) throw notFound('media file', fileId);
    const embedded = readCapabilities(file.capabilities_json)?.subtitles ?? [];
    return subtitleTracksOf(embedded, await new SubtitleSidecarRepository(this.db).ofFile(fileId));
  }
}
