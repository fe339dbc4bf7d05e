import type { ActivePlay, HistoryItem } from '@reelshelf/contract';
import type { CertificationFilter } from '../../domain/people/visibility.ts';
import type { Clock } from '../../adapters/clock.ts';
import type { StateMessage, SubscribeState } from '../../domain/cluster/state-message.ts';
import type { ListingChange } from '../../domain/library-listing/changes.ts';
import type { TokenHolder } from '../../domain/playback-token.ts';
import { AppError } from '../../errors.ts';
import type { ActivePlayRepository } from '../../repositories/active-play.repository.ts';
import type { PlayHistoryRepository } from '../../repositories/play-history.repository.ts';
import { readCapabilities } from './edition-presenter.ts';
import { historyItem, parseView, type Play, playKey, publicView } from './play-views.ts';

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
  tokens: { stop(holder: TokenHolder, fileId: number): Promise<void> };
  /** The listing re-signs the stopped file's URLs for that person (their old ones are dead). */
  listing: { changed(change: ListingChange): void };
  clock: Clock;
  /** A play not seen for this long is no longer listed as active (default 60 s). */
  activeMs?: number;
  /** A request after this long starts a new history row instead of continuing the last (default 4 h). */
  reopenMs?: number;
  /** The plays of every node (docs/cluster.md); without it, this process's plays only (unit tests). */
  shared?: SharedPlays;
}

/** Where the nodes' plays meet: the table, this node, the live nodes, the change feed. */
export interface SharedPlays {
  rows: Pick<
    ActivePlayRepository,
    | 'insert'
    | 'refresh'
    | 'remove'
    | 'removeNode'
    | 'removeStale'
    | 'seenSince'
    | 'get'
    | 'requestStop'
    | 'stopRequested'
  >;
  /** This node's id (the job runner's; null before it started). */
  nodeId: () => string | null;
  /** The ids of the nodes alive now: a dead node's plays are not listed. */
  liveNodes: () => Promise<string[]>;
  /** The change feed's node-state messages (PostgreSQL: stop requests reach the streaming node). */
  subscribe?: SubscribeState;
}

/** How often a play's row is refreshed while it is seen (what other nodes list lags by this). */
const PUBLISH_MS = 5_000;

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

const MINUTE = 60_000;

/**
 * Who plays what now, and each person's play history. Stream and HLS requests (after their token
 * check) and progress reports feed it; a play is one (person, credential, file, device) and is kept
 * in memory while it is seen, so a range or segment request of a running play costs no query. A play
 * starts a history row, or continues the person's last one of that file and device when it was
 * updated within `reopenMs`. An admin can stop a play: its tokens end and its HLS run stops.
 *
 * Several nodes: each play is also a row of `active_plays` (its id is the play's id), refreshed by
 * the node that streams it every few seconds while it is seen; the admin's list is the rows of the
 * live nodes (this node's own plays from memory). A stop of another node's play ends its tokens
 * everywhere (playback_stops) and asks that node, through the row and the change feed, to stop its
 * conversion and tell the app.
 */
export class NowPlayingService {
  private readonly plays = new Map<string, Play>();
  private readonly starting = new Map<string, Promise<Play | null>>();
  private nextId = 1;
  private readonly stopListeners = new Set<PlayStopListener>();
  private readonly activeMs: number;
  private readonly reopenMs: number;
  private unsubscribe: () => void = () => undefined;

  constructor(private readonly deps: NowPlayingDeps) {
    this.activeMs = deps.activeMs ?? MINUTE;
    this.reopenMs = deps.reopenMs ?? 4 * 3600_000;
    const shared = deps.shared;
    if (shared?.subscribe !== undefined) {
      this.unsubscribe = shared.subscribe((message) => this.heard(message));
    }
  }

  /** This node's plays leave the shared list (a clean shutdown). */
  async close(): Promise<void> {
    this.unsubscribe();
    const shared = this.deps.shared;
    const node = shared?.nodeId();
    this.plays.clear();
    if (shared !== undefined && node != null) await shared.rows.removeNode(node).catch(() => undefined);
  }

  private heard(message: StateMessage): void {
    const shared = this.deps.shared;
    const node = shared?.nodeId();
    if (shared === undefined || node == null) return;
    if (message.topic === '*') {
      // A stop request may have been missed while the feed was away.
      void shared.rows
        .stopRequested(node)
        .then((ids) => Promise.all(ids.map((id) => this.stoppedElsewhere(id))))
        .catch(() => undefined);
      return;
    }
    if (message.topic !== 'play-stop' || !('data' in message)) return;
    const { id, n } = message.data;
    if (n === node && typeof id === 'number') void this.stoppedElsewhere(id).catch(() => undefined);
  }

  /** Another node's admin stopped a play of this node: its tokens are stopped already. */
  private async stoppedElsewhere(playId: number): Promise<void> {
    const play = [...this.plays.values()].find((p) => p.id === playId);
    if (play === undefined) return;
    await this.endLocally(play);
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
    if (position !== undefined || now - play.publishedMs >= PUBLISH_MS) this.publish(play, now);
  }

  /** Writes the play's row as the other nodes list it (with its conversion's speed now). */
  private publish(play: Play, now: number): void {
    const rows = this.deps.shared?.rows;
    if (rows === undefined) return;
    play.publishedMs = now;
    void rows.refresh(play.id, JSON.stringify(this.view(play)), now).catch(() => undefined);
  }

  private view(play: Play): ActivePlay {
    const speed =
      play.mode === 'converted' ? this.deps.conversions.speed(play.media_file_id, play.device) : null;
    return publicView({ ...play, conversion_speed: speed });
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
      publishedMs: now,
      id: 0,
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
    const shared = this.deps.shared;
    if (shared === undefined) {
      play.id = this.nextId++;
    } else {
      // Rows no node refreshed for as long as a play is remembered: their node died.
      await shared.rows.removeStale(now - this.reopenMs);
      // The row's id is the play's id on every node.
      play.id = await shared.rows.insert({
        play_key: key,
        node_id: shared.nodeId() ?? 'local',
        user_id: play.user_id,
        media_file_id: play.media_file_id,
        view_json: JSON.stringify(publicView(play)),
        last_seen_ms: now,
      });
    }
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
      const relabelled = found.client !== input.client;
      found.client = input.client;
      this.keepGoing(found, now);
      if (relabelled) this.publish(found, now);
      return;
    }
    await this.seen({ holder: input.holder, fileId: input.fileId, device: input.client, mode: input.mode });
    const started = this.playsOf(input.holder, input.fileId, now)[0];
    if (started !== undefined) {
      started.client = input.client;
      this.publish(started, now);
    }
  }

  /** An app stopped playing a file: the credential's plays of it leave the list (the history stays). */
  finish(holder: TokenHolder, fileId: number): void {
    const ended = this.playsOf(holder, fileId, this.nowMs());
    for (const play of ended) this.plays.delete(play.key);
    this.unpublish(ended.map((p) => p.id));
  }

  private unpublish(ids: number[]): void {
    if (ids.length === 0) return;
    void this.deps.shared?.rows.remove(ids).catch(() => undefined);
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

  /**
   * The plays seen within the last minute, newest first, with their conversions' speed: this
   * node's from memory, the other live nodes' as they last wrote them.
   */
  async active(): Promise<ActivePlay[]> {
    const now = this.nowMs();
    this.forgetOld(now);
    const out: ActivePlay[] = [];
    for (const play of this.plays.values()) {
      if (now - play.lastSeenMs > this.activeMs) continue;
      out.push(this.view(play));
    }
    for (const other of await this.othersActive(now)) out.push(other);
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
    if (play === undefined) return this.stopElsewhere(playId);
    await this.deps.tokens.stop(play.holder, play.media_file_id);
    await this.endLocally(play);
    return publicView(play);
  }

  /** A stopped play of this node leaves: its row, its listing's URLs, its conversion, the app. */
  private async endLocally(play: Play): Promise<void> {
    this.plays.delete(play.key);
    this.unpublish([play.id]);
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
  }

  /**
   * Stops a play another node streams: its tokens end on every node (the stop mark is shared), and
   * that node is asked to stop its conversion and tell the app.
   */
  private async stopElsewhere(playId: number): Promise<ActivePlay> {
    const shared = this.deps.shared;
    const now = this.nowMs();
    const row = shared === undefined ? undefined : await shared.rows.get(playId);
    const alive = shared === undefined || row === undefined ? [] : await shared.liveNodes();
    const view = row === undefined ? null : parseView(row.view_json, row.id);
    if (
      shared === undefined ||
      row === undefined ||
      view === null ||
      row.node_id === shared.nodeId() ||
      !alive.includes(row.node_id) ||
      now - Number(row.last_seen_ms) > this.activeMs
    ) {
      throw new AppError('not_found', {
        status: 404,
        message: `No play ${playId} is going on.`,
        hint: 'GET /api/sessions/active lists the plays going on now.',
      });
    }
    const holder: TokenHolder = { userId: view.user_id, credential: view.credential };
    // Refused on every node before the answer; the streaming node stops its conversion when it hears.
    if (await shared.rows.requestStop(playId)) await this.deps.tokens.stop(holder, view.media_file_id);
    this.deps.listing.changed({ files: [view.media_file_id], user: view.user_id });
    return view;
  }

  /** The other live nodes' plays seen within `activeMs`, as they last wrote them. */
  private async othersActive(now: number): Promise<ActivePlay[]> {
    const shared = this.deps.shared;
    if (shared === undefined) return [];
    const me = shared.nodeId();
    const rows = (await shared.rows.seenSince(now - this.activeMs)).filter(
      (r) => r.node_id !== me && r.stop_requested === 0,
    );
    if (rows.length === 0) return [];
    const alive = new Set(await shared.liveNodes());
    const out: ActivePlay[] = [];
    for (const row of rows) {
      if (!alive.has(row.node_id)) continue;
      const view = parseView(row.view_json, row.id);
      if (view !== null) out.push(view);
    }
    return out;
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
    const gone: number[] = [];
    for (const [key, play] of this.plays) {
      if (now - play.lastSeenMs <= this.reopenMs) continue;
      this.plays.delete(key);
      gone.push(play.id);
    }
    this.unpublish(gone);
  }
}
