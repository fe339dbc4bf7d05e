import type { ActivePlay, HistoryItem } from '@reelshelf/contract';
import type { TokenHolder } from '../../domain/playback-token.ts';
import type { PlayHistoryRow } from '../../repositories/play-history.repository.ts';

// The shapes of a play in NowPlayingService: in memory, as listed, as another node wrote it.

/** A play as this node holds it in memory (NowPlayingService). */
export interface Play extends ActivePlay {
  key: string;
  /** The app and device, when the app reported the play itself. */
  client: string | null;
  holder: TokenHolder;
  historyId: number;
  lastSeenMs: number;
  /** When the history row's updated_at was last written (written at most once a minute). */
  writtenMs: number;
  /** When its active_plays row was last written. */
  publishedMs: number;
}

/** One play: a person's credential, a file, a device. */
export function playKey(holder: TokenHolder, fileId: number, device: string): string {
  return `${holder.userId}|${holder.credential.kind}|${holder.credential.id ?? ''}|${fileId}|${device}`;
}

/** A play as the admin page and the API list it. */
export function publicView(play: Play): ActivePlay {
  return {
    id: play.id,
    user_id: play.user_id,
    user_name: play.user_name,
    credential: play.credential,
    media_file_id: play.media_file_id,
    movie_id: play.movie_id,
    title: play.title,
    // An app's play names the app and device (and the reelshelf device its streams asked for).
    device:
      play.client === null || play.client === play.device ? play.device : `${play.client} (${play.device})`,
    mode: play.mode,
    conversion_speed: play.conversion_speed,
    position_seconds: play.position_seconds,
    duration_seconds: play.duration_seconds,
    started_at: play.started_at,
    last_seen_at: play.last_seen_at,
  };
}

/** A play as its node wrote it (view_json), with the row's id; null when unreadable. */
export function parseView(json: string, id: number): ActivePlay | null {
  try {
    const view = JSON.parse(json) as ActivePlay;
    return typeof view.user_id === 'number' && typeof view.media_file_id === 'number'
      ? { ...view, id }
      : null;
  } catch {
    return null;
  }
}

/** A history row as the API returns it. */
export function historyItem(row: PlayHistoryRow): HistoryItem {
  return {
    id: row.id,
    media_file_id: row.media_file_id,
    movie_id: row.movie_id,
    title: row.title,
    device: row.device,
    mode: row.mode,
    started_at: row.started_at,
    updated_at: row.updated_at,
    position_seconds: row.position_seconds,
    duration_seconds: row.duration_seconds,
  };
}
