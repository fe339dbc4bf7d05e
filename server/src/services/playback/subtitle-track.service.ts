import { subtitleTracksOf } from '../../domain/subtitles/subtitle-list.ts';
import type { SubtitleTrack, SubtitleTrackSource } from '../../domain/subtitles/subtitle-track.ts';
import { notFound } from '../../errors.ts';
import type { MediaFileRepository } from '../../repositories/media-file.repository.ts';
import type { SubtitleSidecarRepository } from '../../repositories/subtitle-sidecar.repository.ts';
import { readCapabilities } from './edition-presenter.ts';

/**
 * A media file's subtitle tracks in one numbered list: its embedded subtitle streams as the analysis
 * recorded them (stream order), then the sidecar files the scan found beside it (by file name).
 */
export class SubtitleTrackService implements SubtitleTrackSource {
  constructor(
    private readonly files: Pick<MediaFileRepository, 'getById'>,
    private readonly sidecars: Pick<SubtitleSidecarRepository, 'ofFile'>,
  ) {}

  async tracks(fileId: number): Promise<SubtitleTrack[]> {
    const file = await this.files.getById(fileId);
    if (file === undefined) throw notFound('media file', fileId);
    const embedded = readCapabilities(file.capabilities_json)?.subtitles ?? [];
    return subtitleTracksOf(embedded, await this.sidecars.ofFile(fileId));
  }
}
