import type { ActivePlay, HistoryItem } from '@reelshelf/contract';
import type { CertificationFilter } from '../../domain/people/visibility.ts';
import type { Clock } from '../../adapters/clock.ts';
import type { ListingChange } from '../../domain/library-listing/changes.ts';
import type { TokenHolder } from '../../domain/playback-token.ts';
import { AppError } from '../../errors.ts';
import type { PlayHistoryRepository, PlayHistoryRow } from '../../repositories/play-history.repository.ts';
import { readCapabilities } from './edition-presenter.ts';

/** How the bytes reach the player: the file itself, or a conversion (artifact or HLS). */
export type PlayMode = 'direct' | 'converted';

/** A stream, HLS or progress request of a person's play. */
export interface PlaySeen {
  holder: TokenHolder;
  fileId: number;
  device: string;
  /** Known to the stream route (file or artifact); else asked of `modeOf` when the play starts. */
  mode?: PlayMode;
}

/** What the registry needs of HLS: the speed of a file's conversion, and a way to end it. */
export interface PlayConversions {
  speed(fileId: number, device: string): number | null;
  stopRuns(fileId: number, device: string): Promise<void>;
}

export interface NowPlayingDeps {
  history: Pick<PlayHistoryRepository, 'fileFacts' | 'userName' | 'latestOpen' | 'insert' | 'touch' | 'list'>;
  /** Direct or converted, as the playback rules decide for the device (HLS requests do not say). */
  modeOf: (fileId: number, device: string) => Promise<PlayMode>;
  conversions: PlayConversions;
  /** Ends the playback tokens of a credential for a file (PlaybackTokenService.stop). */
  tokens: { stop(holder: TokenHolder, fileId: number): void };
  /** The listing re-signs the stopped file's URLs for that person (their old ones are dead). */
  listing: { changed(change: ListingChange): void };
  clock: Clock;
  /** A play not seen for this long is no longer listed as active (default 60 s). */
  activeMs?: number;
  /** A request after this long starts a new history row instead of continuing the last (default 4 h). */
  reopenMs?: number;
}

/** A play an app reports itself (the Jellyfin facade's /Sessions/Playing…). */
export interface PlayReport {
  holder: TokenHolder;
  fileId: number;
  mode: PlayMode;
  /** The app and device that play it ("Findroid on Pixel 7"), shown on the admin page. */
  client: string;
}

/** Told when an admin stops a play (the Jellyfin facade tells the app through its socket). */
export type PlayStopListener = (stopped: { holder: TokenHolder; fileId: number }) => void;

interface Play extends ActivePlay {
  key: string;
  /** The app and device, when the app reported the play itself. */
  client: string | null;
  holder: TokenHolder;
  historyId: number;
  lastSeenMs: number;
  /** When the history row's updated_at was last written (written at most once a minute). */
  writtenMs: number;
}

const MINUTE = 60_000;

function playKey(holder: TokenHolder, fileId: number, device: string): string {
  return `${holder.userId}|${holder.credential.kind}|${holder.credential.id ?? ''}|${fileId}|${device}`;
}

/**
 * Who plays what now, and each person's play history. Stream and HLS requests (after their token
 * check) and progress reports feed it; a play is one (person, credential, file, device) and is kept
 * in memory while it is seen, so a range or segment request of a running play costs no query. A play
 * starts a history row, or continues the person's last one of that file and device when it was
 * updated within `reopenMs`. An admin can stop a play: its tokens end and its HLS run stops.
 */
export class NowPlayingService {
  private readonly plays = new Map<string, Play>();
  private readonly starting = new Map<string, Promise<Play | null>>();
  private nextId = 1;
  private readonly stopListeners = new Set<PlayStopListener>();
  private readonly activeMs: number;
  private readonly reopenMs: number;

  constructor(private readonly deps: NowPlayingDeps) {
    this.activeMs = deps.activeMs ?? MINUTE;
    this.reopenMs = deps.reopenMs ?? 4 * 3600_000;
  }

  private nowMs(): number {
    return this.deps.clock.now().getTime();
  }

  /** A request of a play: starts it (and its history row) or keeps it going. */
  async seen(input: PlaySeen): Promise<void> {
    const key = playKey(input.holder, input.fileId, input.device);
    const now = this.nowMs();
    const play = this.plays.get(key);
    if (play !== undefined && now - play.lastSeenMs <= this.reopenMs) {
      this.keepGoing(play, now);
      if (input.mode !== undefined) play.mode = input.mode;
      return;
    }
    let start = this.starting.get(key);
    if (start === undefined) {
      // Parallel range requests of one new play make one row.
      start = this.start(key, input, now).finally(() => this.starting.delete(key));
      this.starting.set(key, start);
    }
    await start;
  }

  private keepGoing(play: Play, now: number, position?: number): void {
    play.lastSeenMs = now;
    play.last_seen_at = new Date(now).toISOString();
    if (position !== undefined) play.position_seconds = position;
    if (position !== undefined || now - play.writtenMs >= MINUTE) {
      play.writtenMs = now;
      void this.deps.history.touch(play.historyId, play.last_seen_at, position).catch(() => undefined);
    }
  }

  private async start(key: string, input: PlaySeen, now: number): Promise<Play | null> {
    const { history } = this.deps;
    const facts = await history.fileFacts(input.fileId);
    if (facts === undefined) return null; // the route answers 404 anyway
    const mode = input.mode ?? (await this.deps.modeOf(input.fileId, input.device));
    const iso = new Date(now).toISOString();
    const duration = readCapabilities(facts.capabilities_json)?.duration_seconds ?? null;
    const durationSeconds = duration !== null && Number.isFinite(duration) ? Math.round(duration) : null;
    const open = await history.latestOpen(
      input.holder.userId,
      input.fileId,
      input.device,
      new Date(now - this.reopenMs).toISOString(),
    );
    let historyId: number;
    if (open !== undefined) {
      historyId = open.id;
      await history.touch(open.id, iso);
    } else {
      historyId = await history.insert({
        user_id: input.holder.userId,
        media_file_id: input.fileId,
        movie_id: facts.movie_id,
        title: facts.title,
        device: input.device,
        mode,
        started_at: iso,
        updated_at: iso,
        position_seconds: 0,
        duration_seconds: durationSeconds,
      });
    }
    const play: Play = {
      key,
      holder: input.holder,
      historyId,
      lastSeenMs: now,
      writtenMs: now,
      id: this.nextId++,
      client: null,
      user_id: input.holder.userId,
      user_name: (await history.userName(input.holder.userId)) ?? `user ${input.holder.userId}`,
      credential: { kind: input.holder.credential.kind, id: input.holder.credential.id },
      media_file_id: input.fileId,
      movie_id: facts.movie_id,
      title: facts.title,
      device: input.device,
      mode,
      conversion_speed: null,
      position_seconds: open?.position_seconds ?? 0,
      duration_seconds: durationSeconds,
      started_at: open?.started_at ?? iso,
      last_seen_at: iso,
    };
    this.plays.set(key, play);
    this.forgetOld(now);
    return play;
  }

  /**
   * An app says it plays a file (start, progress or ping of Jellyfin's /Sessions/Playing…): the
   * credential's play of that file — whichever device its stream or HLS requests named — goes on and
   * is labelled with the app and device; with none yet, a play starts under the app's name.
   */
  async report(input: PlayReport): Promise<void> {
    const now = this.nowMs();
    const found = this.playsOf(input.holder, input.fileId, now)[0];
    if (found !== undefined) {
      found.client = input.client;
      this.keepGoing(found, now);
      return;
    }
    await this.seen({ holder: input.holder, fileId: input.fileId, device: input.client, mode: input.mode });
    const started = this.playsOf(input.holder, input.fileId, now)[0];
    if (started !== undefined) started.client = input.client;
  }

  /** An app stopped playing a file: the credential's plays of it leave the list (the history stays). */
  finish(holder: TokenHolder, fileId: number): void {
    for (const play of this.playsOf(holder, fileId, this.nowMs())) this.plays.delete(play.key);
  }

  /** An app's keep-alive (Jellyfin's /Sessions/Playing/Ping): every play of the credential goes on. */
  ping(holder: TokenHolder): void {
    const now = this.nowMs();
    for (const play of this.playsOf(holder, null, now)) this.keepGoing(play, now);
  }

  /** Calls `listener` after each admin stop; returns the way to stop listening. */
  whenStopped(listener: PlayStopListener): () => void {
    this.stopListeners.add(listener);
    return () => this.stopListeners.delete(listener);
  }

  /** The credential's live plays (of `fileId`, or of any file), the one seen last first. */
  private playsOf(holder: TokenHolder, fileId: number | null, now: number): Play[] {
    const same = (p: Play) =>
      p.holder.userId === holder.userId &&
      p.holder.credential.kind === holder.credential.kind &&
      p.holder.credential.id === holder.credential.id &&
      (fileId === null || p.media_file_id === fileId) &&
      now - p.lastSeenMs <= this.reopenMs;
    return [...this.plays.values()].filter(same).sort((a, b) => b.lastSeenMs - a.lastSeenMs);
  }

  /**
   * A progress report (PUT …/progress) of `userId`: moves the person's play of the file on (the one
   * seen last, on any device), else their latest history row of it within `reopenMs`, else starts a
   * row on device `unknown`.
   */
  async progress(userId: number, fileId: number, positionSeconds: number): Promise<void> {
    const now = this.nowMs();
    let latest: Play | null = null;
    for (const play of this.plays.values()) {
      if (play.user_id !== userId || play.media_file_id !== fileId) continue;
      if (latest === null || play.lastSeenMs > latest.lastSeenMs) latest = play;
    }
    if (latest !== null && now - latest.lastSeenMs <= this.reopenMs) {
      this.keepGoing(latest, now, positionSeconds);
      return;
    }
    const { history } = this.deps;
    const iso = new Date(now).toISOString();
    const open = await history.latestOpen(userId, fileId, null, new Date(now - this.reopenMs).toISOString());
    if (open !== undefined) {
      await history.touch(open.id, iso, positionSeconds);
      return;
    }
    const facts = await history.fileFacts(fileId);
    if (facts === undefined) return;
    const duration = readCapabilities(facts.capabilities_json)?.duration_seconds ?? null;
    await history.insert({
      user_id: userId,
      media_file_id: fileId,
      movie_id: facts.movie_id,
      title: facts.title,
      device: 'unknown',
      mode: 'unknown',
      started_at: iso,
      updated_at: iso,
      position_seconds: positionSeconds,
      duration_seconds: duration !== null && Number.isFinite(duration) ? Math.round(duration) : null,
    });
  }

  /** The plays seen within the last minute, newest first, with their conversions' speed. */
  active(): ActivePlay[] {
    const now = this.nowMs();
    this.forgetOld(now);
    const out: ActivePlay[] = [];
    for (const play of this.plays.values()) {
      if (now - play.lastSeenMs > this.activeMs) continue;
      const speed =
        play.mode === 'converted' ? this.deps.conversions.speed(play.media_file_id, play.device) : null;
      out.push(publicView({ ...play, conversion_speed: speed }));
    }
    return out.sort((a, b) =>
      a.last_seen_at < b.last_seen_at ? 1 : a.last_seen_at > b.last_seen_at ? -1 : b.id - a.id,
    );
  }

  /**
   * Stops a play: its credential's tokens for the file end (the next request is 401), its HLS
   * conversion stops, and it leaves the list.
   * @throws AppError 404 when no such play is going on
   */
  async stop(playId: number): Promise<ActivePlay> {
    const play = [...this.plays.values()].find((p) => p.id === playId);
    if (play === undefined) {
      throw new AppError('not_found', {
        status: 404,
        message: `No play ${playId} is going on.`,
        hint: 'GET /api/sessions/active lists the plays going on now.',
      });
    }
    this.deps.tokens.stop(play.holder, play.media_file_id);
    this.plays.delete(play.key);
    // The person's listings hand out URLs past the stop (their cached ones are dead now).
    this.deps.listing.changed({ files: [play.media_file_id], user: play.user_id });
    await this.deps.conversions.stopRuns(play.media_file_id, play.device);
    for (const listener of this.stopListeners) {
      try {
        listener({ holder: play.holder, fileId: play.media_file_id });
      } catch {
        // A listener (an app's socket) that fails does not undo the stop.
      }
    }
    return publicView(play);
  }

  /** One person's history, newest first: what their content limit (`visible`) lets through now. */
  async history(
    userId: number,
    limit: number,
    offset: number,
    visible: CertificationFilter | null = null,
  ): Promise<{ items: HistoryItem[]; total: number }> {
    const { rows, total } = await this.deps.history.list(userId, limit, offset, visible);
    return { items: rows.map(historyItem), total };
  }

  /** Plays not seen for `reopenMs` are forgotten (a later request starts a new one). */
  private forgetOld(now: number): void {
    for (const [key, play] of this.plays) if (now - play.lastSeenMs > this.reopenMs) this.plays.delete(key);
  }
}

function publicView(play: Play): ActivePlay {
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

function historyItem(row: PlayHistoryRow): HistoryItem {
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
