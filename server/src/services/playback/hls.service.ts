import type { HlsContainer } from '../../domain/hls/hls-plan.ts';
import type { PublishedRun } from '../../domain/hls/run-ownership.ts';
import type { HlsSegment } from '../../domain/hls/segment-plan.ts';
import { chooseSegmentSource } from '../../domain/playback/segment-source.ts';
import { AppError } from '../../errors.ts';
import type { ConversionSlots } from './conversion-slots.ts';
import { HlsPlaylists, type HlsSubtitleSource } from './hls/hls-playlists.ts';
import { HlsPrewarm, type PreparedSegments } from './hls/hls-prewarm.ts';
import { ClusterRequests, conversionFailed } from './hls/cluster-requests.ts';
import { HlsClaims } from './hls/hls-claims.ts';
import { segmentsCacheKind } from './hls/segments-cache.ts';
import { type HlsClusterDeps, HlsOwnership } from './hls/hls-ownership.ts';
import { type HlsFfmpeg, HlsRuns } from './hls/hls-runs.ts';
import { firstMissing, type HlsFile, type Presentation } from './hls/presentation.ts';
import {
  type KeyframeSource,
  PresentationRegistry,
  type PresentationRegistryDeps,
} from './hls/presentation-registry.ts';
import { HlsSegmentStore, type SegmentArea } from './hls/segment-store.ts';
import type { PlaybackCache } from './playback-cache.ts';
import { peakBandwidth } from '../../domain/trickplay/geometry.ts';
import { imageStreamInfLine } from '../../domain/trickplay/image-playlist.ts';
import type { TrickplayMade, TrickplayVariant } from '../../domain/trickplay/made.ts';

/** The made seek thumbnails of a file, as the master announces them (services/trickplay's reader). */
export interface HlsImageStreamSource {
  made(fileId: number): Promise<TrickplayMade | null>;
}

export type { HlsFile } from './hls/presentation.ts';
export type { HlsClusterDeps, HlsNode, HlsPeer } from './hls/hls-ownership.ts';
export type { KeyframeSource } from './hls/presentation-registry.ts';
export { withTimestampMap } from './hls/hls-playlists.ts';
export { hlsKey } from './hls/presentation.ts';

export interface HlsDeps {
  ffmpeg: HlsFfmpeg;
  ffmpegAvailable: boolean;
  artifacts: PresentationRegistryDeps['artifacts'];
  editions: PresentationRegistryDeps['editions'];
  paths: PresentationRegistryDeps['paths'];
  keyframes: KeyframeSource;
  /** Segments live in its `segments` area. */
  store: SegmentArea;
  /** The machine's one conversion limit (REELSHELF_MAX_CONVERSIONS), shared with the artifact builds. */
  slots: ConversionSlots;
  /** The nodes sharing the database: who converts which presentation (docs/cluster.md "HLS across nodes"). */
  cluster: HlsClusterDeps;
  /** The one bound of artifacts + segments: segments register with it and ask it after every run. */
  cache: PlaybackCache;
  /** Encoder threads per run. */
  threads: number;
  /** A run nobody asked anything of for this long is stopped (REELSHELF_HLS_IDLE_SECONDS). */
  idleMs: number;
  subtitles?: HlsSubtitleSource;
  /** The made seek thumbnails: a master announces their image playlist (EXT-X-IMAGE-STREAM-INF). */
  trickplay?: HlsImageStreamSource;
  /** A run below real time for this long is said to players (default 30 s). */
  slowWarningMs?: number;
  now?: () => number;
  log?: { warn(obj: unknown, msg: string): void };
}

/** A presentation as a reader of all of it sees it (the DLNA progressive stream). */
export interface HlsLayout {
  container: HlsContainer;
  segments: readonly HlsSegment[];
  /** Rendition ids: the video (`v`, null without video) and the default audio (`a<k>`, null without audio). */
  video: string | null;
  audio: string | null;
  durationSeconds: number;
}

/**
 * Which image playlist a master announces for a file's made set: the sheets it lists (their layout
 * and sizes give RESOLUTION and BANDWIDTH) and its URI, relative to the master; null: none.
 */
export type ImageStreamChoice = (made: TrickplayMade) => { variant: TrickplayVariant; uri: string } | null;

/** What the image playlist's URL takes of the master's query (a burn-in choice is no concern of it). */
const IMAGE_STREAM_PARAMS = ['device', 'token'];

/**
 * reelshelf's own: the Roku re-cut (sheets within Roku's 1080 px) at `…/{id}/trickplay/tiles.m3u8`,
 * beside `…/{id}/master.m3u8`, with the master's device and token carried on.
 */
export function rokuImageStream(query: string): ImageStreamChoice {
  const master = new URLSearchParams(query);
  const carried = new URLSearchParams();
  for (const name of IMAGE_STREAM_PARAMS) {
    const value = master.get(name);
    if (value !== null) carried.set(name, value);
  }
  return () => ({ variant: 'roku', uri: `trickplay/tiles.m3u8?${carried.toString()}` });
}

/** The master's last line for the image playlist of a made set; '' when there is none to announce. */
function imageStreamLine(made: TrickplayMade | null, choose: ImageStreamChoice): string {
  const chosen = made === null ? null : choose(made);
  if (made === null || chosen === null) return '';
  const sheets = chosen.variant === 'roku' ? made.roku : made;
  return `${imageStreamInfLine(sheets.layout, peakBandwidth(sheets.layout, sheets.sheetBytes), chosen.uri)}\n`;
}

/**
 * How long a request waits for its segment before 503 + Retry-After: covers a take-over (the dead
 * owner's 5-s lease, a claim within 0.5 s, ffmpeg's start and the first segment).
 */
const SEGMENT_WAIT_MS = 15_000;
/** A conversion slower than real time for this long is reported to players as a warning. */
const SLOW_WARNING_MS = 30_000;

/**
 * HLS for conversions (issue 13), what the routes and the prewarm see: the whole film's playlists
 * up front, segments produced on request by one ffmpeg run per presentation, restarted at the
 * segment a player seeks to, cached on disk and reused by later plays. The parts: the presentations
 * ({@link PresentationRegistry}), their runs ({@link HlsRuns}), the segments on disk
 * ({@link HlsSegmentStore}), the playlists ({@link HlsPlaylists}) and the prewarm ({@link HlsPrewarm}).
 */
export class HlsService {
  private readonly presentations: PresentationRegistry;
  private readonly runs: HlsRuns;
  private readonly segments: HlsSegmentStore;
  private readonly playlists: HlsPlaylists;
  private readonly prewarm: HlsPrewarm;
  private readonly ownership: HlsOwnership;
  private readonly claims: HlsClaims;
  private readonly cluster: ClusterRequests;
  private readonly slots: ConversionSlots;
  private readonly now: () => number;
  private readonly trickplay: HlsImageStreamSource | null;
  private readonly log: HlsDeps['log'] | null;

  constructor(deps: HlsDeps) {
    this.now = deps.now ?? Date.now;
    this.trickplay = deps.trickplay ?? null;
    this.log = deps.log ?? null;
    const subtitles = deps.subtitles;
    this.slots = deps.slots;
    this.segments = new HlsSegmentStore(deps.store);
    this.ownership = new HlsOwnership(deps.cluster, this.now, deps.log ?? null);
    this.presentations = new PresentationRegistry({
      ffmpegAvailable: deps.ffmpegAvailable,
      artifacts: deps.artifacts,
      editions: deps.editions,
      paths: deps.paths,
      keyframes: deps.keyframes,
      announced: (p) => this.ownership.refresh(p, true),
      ...(subtitles === undefined ? {} : { tracks: (id: number) => subtitles.tracks(id) }),
      now: this.now,
    });
    this.runs = new HlsRuns({
      ffmpeg: deps.ffmpeg,
      slots: deps.slots,
      presentations: this.presentations,
      segments: this.segments,
      ownership: this.ownership,
      threads: deps.threads,
      idleMs: deps.idleMs,
      slowWarningMs: deps.slowWarningMs ?? SLOW_WARNING_MS,
      onRunEnded: () => void deps.cache.clean(),
      now: this.now,
      ...(deps.log === undefined ? {} : { log: deps.log }),
    });
    this.playlists = new HlsPlaylists(deps.subtitles);
    this.prewarm = new HlsPrewarm({
      presentations: this.presentations,
      runs: this.runs,
      segments: this.segments,
      slots: deps.slots,
      ownership: this.ownership,
      now: this.now,
    });
    this.claims = new HlsClaims({
      ownership: this.ownership,
      runs: this.runs,
      presentations: this.presentations,
      slots: deps.slots,
      idleMs: deps.idleMs,
      now: this.now,
      ...(deps.log === undefined ? {} : { log: deps.log }),
    });
    this.claims.start();
    this.cluster = new ClusterRequests({
      ownership: this.ownership,
      runs: this.runs,
      presentations: this.presentations,
      slots: deps.slots,
      now: this.now,
    });
    deps.cache.register(
      'segments',
      segmentsCacheKind({
        presentations: this.presentations,
        segments: this.segments,
        ownership: this.ownership,
        idleMs: deps.idleMs,
        now: this.now,
      }),
    );
  }

  /** How many conversion runs this process started (tests: a prewarmed film starts none). */
  get counts(): { readonly runsStarted: number } {
    return this.runs.counts;
  }

  // ------------------------------------------------------------------ playlists

  /**
   * The master playlist; with a made set of seek thumbnails, its image playlist too (players that
   * know no image stream, hls.js and FFmpeg among them, skip the tag).
   * @param imageStream which image playlist to announce (default: reelshelf's Roku sheets)
   */
  async masterPlaylist(
    fileId: number,
    device: string,
    query: string,
    burn?: number,
    imageStream: ImageStreamChoice = rokuImageStream(query),
  ): Promise<string> {
    const [master, made] = await Promise.all([
      this.touched(fileId, device, burn).then((s) => this.playlists.master(s, query)),
      // The thumbnails are an extra: a failure to read them plays the film without them.
      (this.trickplay?.made(fileId) ?? Promise.resolve(null)).catch((err: unknown) => {
        this.log?.warn({ err, fileId }, 'seek thumbnails not read for the HLS master');
        return null;
      }),
    ]);
    return master + imageStreamLine(made, imageStream);
  }

  async mediaPlaylist(
    fileId: number,
    device: string,
    rendition: string,
    query: string,
    burn?: number,
  ): Promise<string> {
    const s = await this.presentations.of(fileId, device, false, burn);
    requireRendition(s, rendition);
    this.touch(s);
    return this.playlists.media(s, query);
  }

  /** The media playlist of a subtitle rendition: WebVTT segments on the media segments' boundaries. */
  async subtitlePlaylist(
    fileId: number,
    device: string,
    index: number,
    query: string,
    burn?: number,
  ): Promise<string> {
    return this.playlists.subtitle(await this.touched(fileId, device, burn), index, query);
  }

  /** A WebVTT segment of a subtitle rendition (the cues of media segment `segment`), lined up with the segments' timestamps. */
  async subtitleSegment(
    fileId: number,
    device: string,
    index: number,
    segment: number,
    burn?: number,
  ): Promise<{ body: Buffer; etag: string }> {
    return this.playlists.subtitleSegment(await this.touched(fileId, device, burn), index, segment);
  }

  private async touched(fileId: number, device: string, burn: number | undefined): Promise<Presentation> {
    const s = await this.presentations.of(fileId, device, false, burn);
    this.touch(s);
    return s;
  }

  /** A player asked something of it: the idle clock starts again here and, for another owner, on its row. */
  private touch(s: Presentation): void {
    this.presentations.touch(s);
    this.ownership.touch(s);
  }

  /**
   * The presentation's segments, container and default renditions, planned as for the master
   * playlist (nothing is converted): for a reader that joins the segments into one stream.
   */
  async layout(fileId: number, device: string): Promise<HlsLayout> {
    const s = await this.touched(fileId, device, undefined);
    const audio = s.plan.audio.find((a) => a.isDefault) ?? s.plan.audio[0];
    return {
      container: s.plan.container,
      segments: s.segments,
      video: s.renditions.includes('v') ? 'v' : null,
      audio: audio === undefined ? null : `a${audio.track}`,
      durationSeconds: s.caps.duration_seconds ?? 0,
    };
  }

  // ------------------------------------------------------------------ segments

  /** The initialization section of a rendition, produced by a run when none is announced yet. */
  async init(fileId: number, device: string, rendition: string, burn?: number): Promise<HlsFile> {
    const s = await this.presentations.of(fileId, device, false, burn);
    requireRendition(s, rendition);
    this.touch(s);
    const deadline = this.now() + SEGMENT_WAIT_MS;
    while (!s.inits.has(rendition)) {
      const job = s.job;
      if (job?.replaced) await job.replaced;
      else if (s.claiming !== null) await startedByAnother(s.claiming);
      // Any run writes every init section first: the one going here is waited for.
      else if (job !== null && !job.ended) await this.presentations.changed(s, deadline);
      else await this.cluster.step(s, firstMissing(s), deadline, true);
    }
    return this.segments.file(s, rendition, 'init');
  }

  /**
   * Segment `index` of a rendition: announced (by this node or another), or from the run this node
   * has going when it gets there soon, or from a new run started at this segment (the old one
   * stopped): `chooseSegmentSource`; with no run here, from the cluster: `remoteSegmentAction`.
   */
  async segment(
    fileId: number,
    device: string,
    rendition: string,
    index: number,
    burn?: number,
  ): Promise<HlsFile> {
    const s = await this.presentations.of(fileId, device, false, burn);
    requireRendition(s, rendition);
    if (!Number.isInteger(index) || index < 0 || index >= s.segments.length) {
      throw new AppError('not_found', {
        status: 404,
        message: `This presentation has segments 0 to ${s.segments.length - 1}.`,
      });
    }
    this.touch(s);
    const deadline = this.now() + SEGMENT_WAIT_MS;
    for (;;) {
      if (s.stored.get(rendition)?.has(index) === true) return this.segments.file(s, rendition, index);
      const job = s.job;
      if (s.claiming !== null) {
        await startedByAnother(s.claiming);
        continue;
      }
      if (job === null || (job.ended && job.replaced === null)) {
        // This node runs nothing for it: the cluster says who does (or this node claims it).
        if (job !== null && job.error !== null && job.start === index) throw conversionFailed(job.error);
        await this.cluster.step(s, index, deadline, false);
        continue;
      }
      const choice = chooseSegmentSource({
        stored: false,
        index,
        run: { ...job, next: job.next.get(rendition) ?? job.start },
        startOf: (i) => s.segments[i]?.start,
      });
      switch (choice) {
        case 'serve':
          break;
        case 'wait':
          // Counted, so no other request stops the run under us.
          job.waiters++;
          try {
            await this.presentations.changed(s, deadline);
          } finally {
            job.waiters--;
          }
          break;
        case 'fail':
          throw conversionFailed(job.error ?? 'unknown error');
        case 'take_turn':
          // Another player waits for this run: its segment first, then ours.
          await this.presentations.changed(s, deadline);
          break;
        case 'restart':
          await this.runs.restart(s, index);
          break;
      }
    }
  }

  // ------------------------------------------------------------------ prewarm, warnings, cache

  /**
   * Prewarm: every segment of the presentation, then local playlists for the remux of the
   * progressive artifact (see {@link HlsPrewarm}); the segments stay until `release`.
   */
  prepareAll(
    fileId: number,
    device: string,
    signal: AbortSignal,
    onProgress: (done: number, total: number) => void,
  ): Promise<PreparedSegments> {
    return this.prewarm.prepareAll(fileId, device, signal, onProgress);
  }

  /** Warnings for a player of this file and device (a conversion that cannot keep up). */
  warnings(fileId: number, device: string): string[] {
    return this.runs.warnings(fileId, device);
  }

  /** The speed (1 = real time) of the conversion for this file and device, on this node or the one converting it. */
  speed(fileId: number, device: string): number | null {
    return this.runs.speed(fileId, device);
  }

  /** This node's conversions for players with their speed: published with its heartbeat for the other nodes. */
  publishedRuns(): PublishedRun[] {
    return this.runs.published();
  }

  /** Stops the conversion runs players of this file and device watch (an admin stopped the play). */
  stopRuns(fileId: number, device: string): Promise<void> {
    return this.runs.stopPlayers(fileId, device);
  }

  /** Number of running conversion runs (for health and tests). */
  running(): number {
    return this.runs.running();
  }

  /** Requests waiting for a segment or init section right now (tests). */
  waiting(): number {
    let n = 0;
    for (const p of this.presentations.all()) n += p.waiting;
    return n;
  }

  /** Stops every run and gives its claim back (shutdown). */
  async close(): Promise<void> {
    await this.claims.close();
    await this.runs.close();
  }
}

/**
 * Waits for a run another request of this node is claiming and starting, then lets that request
 * register as the run's waiter first (its continuation is all microtasks): otherwise this request,
 * resumed first, would take the run for idle and restart it elsewhere under the request it started for.
 */
async function startedByAnother(claiming: Promise<void>): Promise<void> {
  await claiming;
  await new Promise((resolve) => setImmediate(resolve));
}

function requireRendition(s: Presentation, rendition: string): void {
  if (!s.renditions.includes(rendition)) {
    throw new AppError('not_found', {
      status: 404,
      message: `This presentation has the renditions ${s.renditions.join(', ')}.`,
    });
  }
}
