import type { CertificationFilter } from '../../domain/people/visibility.ts';
import type { ContinueItem, WatchState, WatchStateInput } from '@reelshelf/contract';

import { type Clock, isoNow } from '../../adapters/clock.ts';
import { notFound } from '../../errors.ts';
import { durationOfCapabilities, resumeOutcome } from '../../domain/resume-rule.ts';
import type { MediaFileRepository } from '../../repositories/media-file.repository.ts';
import type { WatchStateRepository } from '../../repositories/watch-state.repository.ts';

/** Told of every saved position (the play history and "now playing" move on with it). */
export interface ProgressListener {
  progress(userId: number, mediaFileId: number, positionSeconds: number): Promise<void>;
}

/**
 * Each person's resume position and watched flag, keyed to (person, media file id): a scan that
 * sees a move or rename keeps the id, so the state follows the file.
 */
export class WatchStateService {
  constructor(
    private readonly files: Pick<MediaFileRepository, 'getById'>,
    private readonly states: Pick<WatchStateRepository, 'save' | 'resumable'>,
    private readonly clock: Clock,
    private readonly listener: ProgressListener | null = null,
  ) {}

  /**
   * The person's films stopped in the middle (position > 0, not watched), newest first; only those
   * their content limit (`visible`, VisibilityService.filter) lets through now.
   */
  async continueWatching(
    userId: number,
    limit = 20,
    visible: CertificationFilter | null = null,
  ): Promise<ContinueItem[]> {
    const rows = await this.states.resumable(userId, limit, visible);
    return rows.map((r) => ({
      media_file_id: r.media_file_id,
      movie_id: r.movie_id,
      title: r.title ?? (r.relative_path.split('/').pop() ?? r.relative_path).replace(/\.[^.]+$/, ''),
      position_seconds: r.position_seconds,
      updated_at: r.updated_at,
    }));
  }

  /**
   * Saves `userId`'s state of a file. The position goes through the one resume rule
   * (domain/resume-rule.ts, Jellyfin's): the first 5 % keeps nothing, past 90 % (or anywhere in a
   * film under 5 minutes) the film counts as watched.
   */
  async save(userId: number, mediaFileId: number, input: WatchStateInput): Promise<WatchState> {
    const file = await this.files.getById(mediaFileId);
    if (file === undefined) throw notFound('media file', mediaFileId);
    const outcome = resumeOutcome(
      Math.floor(input.position_seconds),
      durationOfCapabilities(file.capabilities_json),
    );
    const watched = input.watched ?? (outcome.played ? true : undefined);
    const saved = await this.states.save(
      {
        user_id: userId,
        media_file_id: mediaFileId,
        movie_id: file.movie_id,
        position_seconds: outcome.positionSeconds,
        watched: watched === true ? 1 : 0,
        updated_at: isoNow(this.clock),
      },
      // A position saved without the flag leaves it as it was (a new row starts unwatched).
      watched === undefined,
    );
    // The history records how far the person got, before the rule moved the resume point.
    await this.listener?.progress(userId, mediaFileId, Math.floor(input.position_seconds));
    return {
      media_file_id: saved.media_file_id,
      position_seconds: saved.position_seconds,
      watched: saved.watched === 1,
      updated_at: saved.updated_at,
    };
  }
}
