import type { WatchState, WatchStateInput } from '@reelshelf/contract';
import { type Clock, isoNow } from '../../adapters/clock.ts';
import { notFound } from '../../errors.ts';
import type { MediaFileRepository } from '../../repositories/media-file.repository.ts';
import type { WatchStateRepository } from '../../repositories/watch-state.repository.ts';

/**
 * Resume position and watched flag, keyed to the media file id: a scan that sees a move or rename
 * keeps the id, so the state follows the file.
 */
export class WatchStateService {
  constructor(
    private readonly files: Pick<MediaFileRepository, 'getById'>,
    private readonly states: Pick<WatchStateRepository, 'save'>,
    private readonly clock: Clock,
  ) {}

  /** Saves `userId`'s state of a file. */
  async save(userId: number, mediaFileId: number, input: WatchStateInput): Promise<WatchState> {
    const file = await this.files.getById(mediaFileId);
    if (file === undefined) throw notFound('media file', mediaFileId);
    const saved = await this.states.save(
      {
        user_id: userId,
        media_file_id: mediaFileId,
        movie_id: file.movie_id,
        position_seconds: Math.floor(input.position_seconds),
        watched: input.watched === true ? 1 : 0,
        updated_at: isoNow(this.clock),
      },
      // A position saved without the flag leaves it as it was (a new row starts unwatched).
      input.watched === undefined,
    );
    return {
      media_file_id: saved.media_file_id,
      position_seconds: saved.position_seconds,
      watched: saved.watched === 1,
      updated_at: saved.updated_at,
    };
  }
}
