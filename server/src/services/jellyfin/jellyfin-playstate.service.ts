import type { JellyfinIds } from '../../domain/jellyfin/ids.ts';
import type { ListingViewer, LibraryService } from '../library/library.service.ts';
import type { WatchStateService } from '../library/watch-state.service.ts';
import type { VisibilityService } from '../people/visibility.service.ts';
import type { NowPlayingService, PlayMode } from '../playback/now-playing.service.ts';

/** What the apps post to /Sessions/Playing, /Progress and /Stopped (players.md §1.8), as read. */
export interface PlaybackReport {
  itemId: string | null;
  mediaSourceId: string | null;
  /** `PositionTicks` in seconds; null when not sent. */
  positionSeconds: number | null;
  playMethod: string | null;
  failed: boolean;
}

/** The app and device of the token, as its Authorization header named them. */
export interface ReportingClient {
  app: string | null;
  device: string | null;
}

export interface JellyfinPlaystateDeps {
  ids: JellyfinIds;
  /** A movie's editions as the person sees them (the one visibility rule). */
  library: Pick<LibraryService, 'getMovieItem'>;
  visibility: Pick<VisibilityService, 'canSee'>;
  /** The person's watch state, through the one resume rule. */
  watch: Pick<WatchStateService, 'save'>;
  plays: Pick<NowPlayingService, 'report' | 'finish' | 'ping'>;
  /** The reelshelf device a movie's editions are presented for (only their file ids are used). */
  device: string;
}

/**
 * Progress and played through the Jellyfin facade: an app's reports become the person's own watch
 * state (WatchStateService, so the same resume rule as reelshelf's pages), play history and "now
 * playing" (NowPlayingService). Ids: a movie's id with a `MediaSourceId` picks that edition (its
 * default one without); a media-source id is the file itself (an unmatched file's item id is one).
 */
export class JellyfinPlaystateService {
  constructor(private readonly deps: JellyfinPlaystateDeps) {}

  /**
   * The media files an item id (and optional media-source id) names for the person: one for a
   * report, all the movie's editions when `all` (marking played). Empty when hidden or unknown.
   */
  async filesOf(
    viewer: ListingViewer,
    itemId: string,
    mediaSourceId: string | null,
    all = false,
  ): Promise<number[]> {
    const { ids } = this.deps;
    const source =
      mediaSourceId === null || mediaSourceId === '' ? null : ids.decodeAs('media-source', mediaSourceId);
    const asFile = ids.decodeAs('media-source', itemId);
    if (asFile !== null) {
      return (await this.deps.visibility.canSee(viewer, { mediaFileId: asFile })) ? [asFile] : [];
    }
    const movieId = ids.decodeAs('movie', itemId);
    if (movieId === null) return [];
    if (!(await this.deps.visibility.canSee(viewer, { movieId }))) return [];
    const item = await this.deps.library.getMovieItem(viewer, movieId, this.deps.device);
    if (item === null) return [];
    const files = item.editions.map((e) => e.media_file_id);
    if (all) return files;
    if (source !== null) return files.includes(source) ? [source] : [];
    const chosen = item.editions[item.default_edition_index] ?? item.editions[0];
    return chosen === undefined ? [] : [chosen.media_file_id];
  }

  /** `POST /Sessions/Playing` and `/Playing/Progress`: the play goes on, the position is kept. */
  async progress(viewer: ListingViewer, client: ReportingClient, report: PlaybackReport): Promise<void> {
    const fileId = await this.fileOfReport(viewer, report);
    if (fileId === null) return;
    await this.deps.plays.report({
      holder: viewer,
      fileId,
      mode: modeOf(report.playMethod),
      client: clientLabel(client),
    });
    if (report.positionSeconds !== null) {
      await this.deps.watch.save(viewer.userId, fileId, { position_seconds: report.positionSeconds });
    }
  }

  /**
   * `POST /Sessions/Playing/Stopped`: the last position goes through the resume rule; a stop that
   * names none counts as played to the end (as Jellyfin assumes); a failed play changes nothing.
   * The play leaves "now playing".
   */
  async stopped(viewer: ListingViewer, report: PlaybackReport): Promise<void> {
    const fileId = await this.fileOfReport(viewer, report);
    if (fileId === null) return;
    if (!report.failed) {
      await this.deps.watch.save(
        viewer.userId,
        fileId,
        report.positionSeconds === null
          ? { position_seconds: 0, watched: true }
          : { position_seconds: report.positionSeconds },
      );
    }
    this.deps.plays.finish(viewer, fileId);
  }

  /** `POST /Sessions/Playing/Ping`: the token's plays are still going. */
  ping(viewer: ListingViewer): void {
    this.deps.plays.ping(viewer);
  }

  /**
   * `POST|DELETE /UserPlayedItems/{id}`: every edition of the movie (or the file) marked watched or
   * not, the resume point cleared (Jellyfin's MarkPlayed/MarkUnplayed). False: no such item for the
   * person.
   */
  async setPlayed(viewer: ListingViewer, itemId: string, played: boolean): Promise<boolean> {
    const files = await this.filesOf(viewer, itemId, null, true);
    if (files.length === 0) return false;
    for (const fileId of files) {
      await this.deps.watch.save(viewer.userId, fileId, { position_seconds: 0, watched: played });
    }
    return true;
  }

  private async fileOfReport(viewer: ListingViewer, report: PlaybackReport): Promise<number | null> {
    // Some apps send only the MediaSourceId (which, for a single file, is the item id as well).
    const itemId = report.itemId ?? report.mediaSourceId;
    if (itemId === null || itemId === '') return null;
    return (await this.filesOf(viewer, itemId, report.mediaSourceId))[0] ?? null;
  }
}

/** Jellyfin's PlayMethod: only DirectPlay sends the file's own bytes. */
function modeOf(playMethod: string | null): PlayMode {
  return playMethod === null || playMethod.toLowerCase() === 'directplay' ? 'direct' : 'converted';
}

/** "Findroid on Pixel 7", as the admin's now-playing page shows an app's play. */
export function clientLabel(client: ReportingClient): string {
  const app = client.app?.trim() || 'Jellyfin app';
  const device = client.device?.trim() ?? '';
  return device === '' ? app : `${app} on ${device}`;
}
