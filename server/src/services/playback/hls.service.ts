import { createHash } from 'node:crypto';
import type { DataStore, StoredFile } from '../../adapters/data-store.ts';
import type { FfmpegAdapter } from '../../adapters/ffmpeg.ts';
import {
  audioCodecString,
  encodedVideoCodecString,
  videoCodecString,
} from '../../domain/hls/codec-strings.ts';
import { Fmp4Splitter } from '../../domain/hls/fmp4-splitter.ts';
import { buildHlsRunArgs, HLS_TIMESTAMP_OFFSET_SECONDS } from '../../domain/hls/hls-command.ts';
import { type HlsPlan, planHls, renditionIds } from '../../domain/hls/hls-plan.ts';
import {
  renderMasterPlaylist,
  renderMediaPlaylist,
  renderSubtitlePlaylist,
  type SubtitleRendition,
} from '../../domain/hls/playlists.ts';
import { defaultSubtitleIndex, subtitleLabel } from '../../domain/subtitles/subtitle-list.ts';
import type { SubtitleTrack } from '../../domain/subtitles/subtitle-track.ts';
import { type HlsSegment, planSegments } from '../../domain/hls/segment-plan.ts';
import type { Capabilities } from '../../domain/media/capabilities.ts';
import type { PlaybackDecision } from '../../domain/playback/decision-types.ts';
import type { DeviceProfile } from '../../domain/playback/device-profiles.ts';
import type { LibraryFileRow } from '../../repositories/library.repository.ts';
import { AppError } from '../../errors.ts';
import { sourceKeyOf } from './artifact-index.ts';
import type { ArtifactService } from './artifact.service.ts';
import type { PlaybackEditionPresenter } from './edition-presenter.ts';
import type { MediaPathService } from '../library/media-path.service.ts';

/** Where the keyframes of a file's video come from (its container's index, kept with the analysis). */
export interface KeyframeSource {
  keyframesOf(fileId: number): Promise<{ times: number[] } | null>;
}

export interface HlsDeps {
  ffmpeg: FfmpegAdapter;
  ffmpegAvailable: boolean;
  artifacts: Pick<ArtifactService, 'needs' | 'incompatible'>;
  editions: PlaybackEditionPresenter;
  paths: MediaPathService;
  keyframes: KeyframeSource;
  /** Segments live in its `segments` area; they count towards the cache bound with the artifacts. */
  store: DataStore;
  /** REELSHELF_ARTIFACT_CACHE_MB in bytes: the bound of artifacts + segments on disk. */
  cacheBytes: number;
  /** At most this many conversion runs at once on this machine (REELSHELF_MAX_CONVERSIONS). */
  maxJobs: number;
  /** Encoder threads per run. */
  threads: number;
  /** A run nobody asked anything of for this long is stopped (REELSHELF_HLS_IDLE_SECONDS). */
  idleMs: number;
  /** A file's subtitle tracks and their WebVTT (text tracks become the SUBTITLES rendition group). */
  subtitles?: {
    tracks(fileId: number): Promise<SubtitleTrack[]>;
    vtt(fileId: number, index: number): Promise<{ file: StoredFile; etag: string }>;
  };
  /** A run below real time for this long is said to players (default 30 s). */
  slowWarningMs?: number;
  now?: () => number;
  log?: { warn(obj: unknown, msg: string): void };
}

/** A fragment that starts this little before a boundary belongs to the segment after it (AAC priming). */
const BOUNDARY_SLACK_SECONDS = 0.1;
/** A segment the running job reaches within this many seconds of work is waited for, not restarted at. */
const REACH_SOON_SECONDS = 5;
/** How long a request waits for its segment before 503 + Retry-After. */
const SEGMENT_WAIT_MS = 15_000;
/** A conversion slower than real time for this long is reported to players as a warning. */
const SLOW_WARNING_MS = 30_000;

interface Job {
  id: number;
  start: number;
  /** Per rendition: the index of the next segment this job will complete. */
  next: Map<string, number>;
  abort: AbortController;
  ended: boolean;
  error: string | null;
  /** Kept running to the end whoever watches (prewarm). */
  pinned: boolean;
  /** Requests waiting for a segment this run will make: while any waits, nobody restarts it. */
  waiters: number;
  speed: number | null;
  slowSince: number | null;
  finished: Promise<void>;
}

interface Session {
  key: string;
  fileId: number;
  device: string;
  source: string;
  caps: Capabilities;
  plan: HlsPlan;
  segments: HlsSegment[];
  renditions: string[];
  stored: Map<string, Set<number>>;
  inits: Set<string>;
  job: Job | null;
  lastRequest: number;
  /** Requests waiting for a segment or init right now: a run they wait for is not idle. */
  waiting: number;
  listeners: Set<() => void>;
}

export type HlsFile = { file: StoredFile; etag: string };

/** Stable id of an HLS presentation: the source content, the device and what the conversion does. */
export function hlsKey(sourceKey: string, device: string, plan: HlsPlan, segments: HlsSegment[]): string {
  return createHash('sha256')
    .update(JSON.stringify([sourceKey, device, plan, segments.length, segments.at(-1)?.start ?? 0]))
    .digest('hex')
    .slice(0, 32);
}

/**
 * HLS for conversions (issue 13): the whole film's playlists up front, segments produced on
 * request by one ffmpeg run per presentation, restarted at the segment a player seeks to, cached
 * on disk and reused by later plays.
 */
export class HlsService {
  private readonly sessions = new Map<string, Session>();
  /** (file, device) → session key, so a request does not re-plan every time. */
  private readonly byFile = new Map<string, string>();
  /** Prewarms waiting for a conversion slot; woken whenever a run ends. */
  private readonly slotWaiters = new Set<() => void>();
  /** Sessions being set up (planning, keyframes, what is on disk), by file key. */
  private readonly creating = new Map<string, Promise<Session>>();
  private nextJobId = 1;
  /** How many conversion runs this process started (tests: a prewarmed film starts none). */
  readonly counts = { runsStarted: 0 };
  private readonly timer: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly deps: HlsDeps) {
    this.timer = setInterval(() => this.stopIdle(), Math.max(250, Math.min(5_000, deps.idleMs / 4)));
    this.timer.unref();
  }

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  /** The presentation of a file on a device; 400 with the incompatibility when nothing plays. */
  private async session(fileId: number, device: string, forPrewarm = false, burn?: number): Promise<Session> {
    if (burn !== undefined) await this.requireBurnable(fileId, burn);
    const needs = await this.deps.artifacts.needs(fileId, device, burn);
    const { file, profile } = needs;
    // A prewarm prepares what the strict policy would play once ready ("create compatible audio").
    const decision =
      forPrewarm && !needs.decision.isPlayable && needs.decision.fallbackPlan !== null
        ? { ...needs.decision, plan: needs.decision.fallbackPlan, isPlayable: true }
        : needs.decision;
    if (file.status === 'missing') {
      throw new AppError('file_missing', {
        status: 404,
        message: 'The media file is missing from its library root.',
        hint: 'Rescan the library root.',
      });
    }
    if (!decision.isPlayable) throw this.deps.artifacts.incompatible(needs);
    const caps = this.deps.editions.capabilitiesOf(file);
    if (caps === null || caps.duration_seconds === null) throw this.deps.artifacts.incompatible(needs);
    const fileKey = `${fileId}:${profile.id}:${sourceKeyOf(file)}:${burn ?? 'auto'}`;
    const known = this.byFile.get(fileKey);
    const existing = known === undefined ? undefined : this.sessions.get(known);
    if (existing !== undefined) return existing;
    // Two players asking at once get one session: two would each run a conversion of the same
    // film, one of them unseen by the slot count.
    let creating = this.creating.get(fileKey);
    if (creating === undefined) {
      creating = this.createSession(fileId, fileKey, needs.file, profile, decision, caps).finally(() =>
        this.creating.delete(fileKey),
      );
      this.creating.set(fileKey, creating);
    }
    return creating;
  }

  private async createSession(
    fileId: number,
    fileKey: string,
    file: LibraryFileRow,
    profile: DeviceProfile,
    decision: PlaybackDecision,
    caps: Capabilities,
  ): Promise<Session> {
    const duration = caps.duration_seconds ?? 0;
    if (!this.deps.ffmpegAvailable) {
      throw new AppError('service_unavailable', {
        message: 'ffmpeg is not installed: nothing can be converted.',
        hint: 'Install ffmpeg (apt-get install ffmpeg) and restart.',
      });
    }
    const plan = planHls({ capabilities: caps, decision, profile, encoders: this.deps.editions.encoders });
    let keyframes: number[] | null = null;
    if (plan.video === 'copy') {
      const index = await this.deps.keyframes.keyframesOf(fileId);
      if (index === null || index.times.length === 0) {
        throw new AppError('service_unavailable', {
          message: 'The keyframes of this file could not be read, so it cannot be cut into segments.',
          hint: 'Rescan the library root; if it persists the file may be damaged.',
        });
      }
      keyframes = index.times;
    }
    const segments = planSegments({
      durationSeconds: duration,
      keyframes,
      targetSeconds: plan.segmentSeconds,
    });
    // Content identity: the fingerprint; without one, a size says too little to share a presentation.
    const content = file.fingerprint ?? `file-${file.id}-${sourceKeyOf(file)}`;
    const key = hlsKey(content, profile.id, plan, segments);
    // A copy of the same content elsewhere (same fingerprint) is the same presentation: share it.
    const same = this.sessions.get(key);
    if (same !== undefined) {
      this.byFile.set(fileKey, key);
      return same;
    }
    const source = await this.deps.paths.resolveInsideRoot(file.root_path, file.relative_path);
    const renditions = renditionIds(plan);
    const session: Session = {
      key,
      fileId,
      device: profile.id,
      source,
      caps,
      plan,
      segments,
      renditions,
      stored: new Map(renditions.map((r) => [r, new Set<number>()])),
      inits: new Set(),
      job: null,
      lastRequest: this.now(),
      waiting: 0,
      listeners: new Set(),
    };
    await this.loadStored(session);
    this.sessions.set(key, session);
    this.byFile.set(fileKey, key);
    return session;
  }

  /** What an earlier play (or a previous server) left on disk is reused. */
  private async loadStored(session: Session): Promise<void> {
    for (const r of session.renditions) {
      for (const name of await this.deps.store.list('segments', `${session.key}/${r}`)) {
        if (name === 'init.mp4') session.inits.add(r);
        const match = /^(\d+)\.m4s$/.exec(name);
        if (match !== null) session.stored.get(r)?.add(Number(match[1]));
      }
    }
  }

  // ------------------------------------------------------------------ playlists

  async masterPlaylist(fileId: number, device: string, query: string, burn?: number): Promise<string> {
    const s = await this.session(fileId, device, false, burn);
    this.touch(s);
    const video = s.caps.video;
    const plan = s.plan;
    const videoBitrate =
      plan.video === 'copy'
        ? (video?.bitrate_bps ?? Math.max(0, (s.caps.bitrate_bps ?? 8_000_000) - 640_000))
        : (plan.video?.maxBitrateBps ?? estimateEncodedBitrate(video?.width ?? 1280, video?.height ?? 720));
    const size = outputSize(s);
    const videoCodecs =
      video === null
        ? null
        : plan.video === 'copy'
          ? videoCodecString(video, plan.videoTag === null ? {} : { sampleEntry: plan.videoTag })
          : plan.video === null
            ? null
            : encodedVideoCodecString({
                codec: plan.video.codec as 'h264' | 'hevc' | 'av1',
                width: size.width ?? 1280,
                height: size.height ?? 720,
                frameRate: video.frame_rate,
                bitDepth: plan.video.bitDepth,
              });
    const audio = plan.audio.map((a) => ({
      uri: `hls/a${a.track}/index.m3u8?${query}`,
      groupId: 'audio',
      name: a.name,
      language: a.language,
      isDefault: a.isDefault,
      channels: a.channels,
      codecs: audioCodecString({ codec: a.codec, profile: a.profile }),
      bandwidth: a.bitrate,
    }));
    return renderMasterPlaylist({
      video: {
        uri: `hls/v/index.m3u8?${query}`,
        codecs: videoCodecs,
        width: size.width,
        height: size.height,
        frameRate: video?.frame_rate ?? null,
        // Peak: copied video is as the source's average plus headroom; encoded has its cap.
        bandwidth: Math.round(videoBitrate * 1.5),
        averageBandwidth: Math.round(videoBitrate),
      },
      audio,
      subtitles: await this.subtitleRenditions(s, query),
    });
  }

  /** Text subtitle tracks as WebVTT renditions (image tracks cannot be: they are burned in on request). */
  private async subtitleRenditions(s: Session, query: string): Promise<SubtitleRendition[]> {
    if (this.deps.subtitles === undefined) return [];
    const tracks = await this.deps.subtitles.tracks(s.fileId);
    const audio = s.plan.audio.find((a) => a.isDefault) ?? s.plan.audio[0];
    const shown = defaultSubtitleIndex(tracks, audio?.language ?? null);
    // A track burned into this presentation's picture is not offered again as text.
    const burned = s.plan.video !== null && s.plan.video !== 'copy' ? s.plan.video.burnSubtitle : null;
    return tracks
      .filter((t) => t.kind === 'text' && t.index !== burned)
      .map((t) => ({
        uri: `hls/s${t.index}/index.m3u8?${query}`,
        name: subtitleLabel(t),
        language: t.language,
        isDefault: t.index === shown,
        forced: t.forced,
      }));
  }

  /** The media playlist of a subtitle rendition: the whole film's cues in one WebVTT segment. */
  async subtitlePlaylist(
    fileId: number,
    device: string,
    index: number,
    query: string,
    burn?: number,
  ): Promise<string> {
    const s = await this.session(fileId, device, false, burn);
    await this.requireTextTrack(s, index);
    this.touch(s);
    return renderSubtitlePlaylist({ durationSeconds: s.caps.duration_seconds ?? 0, uri: `0.vtt?${query}` });
  }

  /**
   * The WebVTT segment of a subtitle rendition: the track's WebVTT with an `X-TIMESTAMP-MAP` saying
   * that cue time 0 is media time {@link HLS_TIMESTAMP_OFFSET_SECONDS} (the segments' timestamps
   * are shifted by it), so players line the cues up with the picture (RFC 8216 §3.5).
   */
  async subtitleSegment(
    fileId: number,
    device: string,
    index: number,
    burn?: number,
  ): Promise<{ body: Buffer; etag: string }> {
    const s = await this.session(fileId, device, false, burn);
    await this.requireTextTrack(s, index);
    this.touch(s);
    const source = this.deps.subtitles;
    if (source === undefined) throw new AppError('not_found', { message: 'No subtitles here.' });
    const vtt = await source.vtt(fileId, index);
    const chunks: Buffer[] = [];
    for await (const chunk of vtt.file.read())
      chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
    return {
      body: Buffer.from(withTimestampMap(Buffer.concat(chunks).toString('utf8'))),
      etag: `${vtt.etag.slice(0, -1)}-hls"`,
    };
  }

  /**
   * `burn_subtitle`: a track of the file that can be drawn into the picture. A sidecar image track
   * cannot (the conversion reads the film alone); a text track is shown as text instead.
   */
  private async requireBurnable(fileId: number, index: number): Promise<void> {
    const tracks = (await this.deps.subtitles?.tracks(fileId)) ?? [];
    const track = tracks.find((t) => t.index === index);
    if (track === undefined) {
      throw new AppError('not_found', {
        message: `Media file ${fileId} has no subtitle track ${index} to burn in.`,
        hint: `GET /api/media-file/${fileId}/playback lists the subtitle tracks.`,
      });
    }
    if (track.kind === 'image' && track.source.kind === 'sidecar') {
      throw new AppError('subtitle_burn_unsupported', {
        status: 422,
        message: `Subtitle track ${index} is an image file beside the film (${track.format}); only image tracks inside the film can be burned in.`,
        hint: 'Mux the subtitle file into the film (mkvmerge) and rescan, or choose a text track.',
      });
    }
  }

  private async requireTextTrack(s: Session, index: number): Promise<void> {
    const tracks = (await this.deps.subtitles?.tracks(s.fileId)) ?? [];
    if (!tracks.some((t) => t.index === index && t.kind === 'text')) {
      throw new AppError('not_found', {
        message: `This presentation has no text subtitle track ${index}.`,
        hint: `GET /api/media-file/${s.fileId}/playback lists the subtitle tracks.`,
      });
    }
  }

  async mediaPlaylist(
    fileId: number,
    device: string,
    rendition: string,
    query: string,
    burn?: number,
  ): Promise<string> {
    const s = await this.session(fileId, device, false, burn);
    this.requireRendition(s, rendition);
    this.touch(s);
    return renderMediaPlaylist({
      segments: s.segments,
      initUri: `init.mp4?${query}`,
      segmentUri: (index) => `${index}.m4s?${query}`,
    });
  }

  // ------------------------------------------------------------------ segments

  /** The initialization section of a rendition, produced by a run when none is stored yet. */
  async init(fileId: number, device: string, rendition: string, burn?: number): Promise<HlsFile> {
    const s = await this.session(fileId, device, false, burn);
    this.requireRendition(s, rendition);
    this.touch(s);
    const deadline = this.now() + SEGMENT_WAIT_MS;
    while (!s.inits.has(rendition)) {
      if (s.job === null || s.job.ended) this.startJob(s, this.firstMissing(s), false);
      await this.changed(s, deadline);
    }
    return this.file(s, rendition, 'init.mp4');
  }

  /**
   * Segment `index` of a rendition: from the cache, or from the running job when it gets there
   * soon, or from a new run started at this segment (the old one stopped).
   */
  async segment(
    fileId: number,
    device: string,
    rendition: string,
    index: number,
    burn?: number,
  ): Promise<HlsFile> {
    const s = await this.session(fileId, device, false, burn);
    this.requireRendition(s, rendition);
    if (!Number.isInteger(index) || index < 0 || index >= s.segments.length) {
      throw new AppError('not_found', {
        status: 404,
        message: `This presentation has segments 0 to ${s.segments.length - 1}.`,
      });
    }
    this.touch(s);
    const deadline = this.now() + SEGMENT_WAIT_MS;
    for (;;) {
      if (s.stored.get(rendition)?.has(index) === true) return this.file(s, rendition, `${index}.m4s`);
      const job = s.job;
      const running = job !== null && !job.ended;
      if (
        running &&
        job.error === null &&
        (this.reachesSoon(s, job, rendition, index) || (job.pinned && index >= job.start))
      ) {
        // The running run gets there (a prewarm run is never stopped for a player): wait for it,
        // counted, so no other request stops it under us.
        job.waiters++;
        try {
          await this.changed(s, deadline);
        } finally {
          job.waiters--;
        }
        continue;
      }
      if (job !== null && job.ended && job.error !== null && job.start === index) {
        throw new AppError('internal_error', {
          status: 500,
          message: `The conversion failed: ${job.error}`,
          hint: 'GET /api/health says which ffmpeg is in use; the server log has the details.',
        });
      }
      if (running && job.waiters > 0) {
        // Another player waits for this run: its segment first, then ours (two players seeking to
        // different places take turns instead of stopping each other's runs before either is served).
        await this.changed(s, deadline);
        continue;
      }
      await this.restart(s, index);
    }
  }

  /** Whether the running job will produce this segment after little more work. */
  private reachesSoon(s: Session, job: Job, rendition: string, index: number): boolean {
    if (index < job.start) return false;
    const next = job.next.get(rendition) ?? job.start;
    if (index < next) return true; // being written right now (or just done)
    const from = s.segments[next]?.start ?? 0;
    const to = s.segments[index]?.start ?? 0;
    return (to - from) / Math.max(0.5, job.speed ?? 1) <= REACH_SOON_SECONDS;
  }

  private async restart(s: Session, index: number): Promise<void> {
    const old = s.job;
    if (old !== null && !old.ended) {
      old.abort.abort(new Error('restarted at another segment'));
      await old.finished;
    }
    if (s.job !== old && s.job !== null && !s.job.ended) return; // another request restarted it meanwhile
    this.startJob(s, index, false);
  }

  private activeJobs(): number {
    let n = 0;
    for (const s of this.sessions.values()) if (s.job !== null && !s.job.ended) n++;
    return n;
  }

  private startJob(s: Session, startIndex: number, pinned: boolean): Job {
    if (this.closed) throw new AppError('service_unavailable', { message: 'The server is shutting down.' });
    if (this.activeJobs() >= this.deps.maxJobs) {
      throw new AppError('conversions_busy', {
        status: 503,
        message: `This server already runs ${this.deps.maxJobs} conversion(s), its limit.`,
        hint: 'Retry shortly, or prepare the film ahead (prewarm) so it plays without converting.',
        headers: { 'retry-after': '10' },
      });
    }
    const first = s.segments[startIndex];
    if (first === undefined) throw new Error(`segment ${startIndex} is outside the plan`);
    const encodes = s.plan.video !== null && s.plan.video !== 'copy';
    const run = buildHlsRunArgs({
      source: s.source,
      capabilities: s.caps,
      plan: s.plan,
      startSeconds: first.start,
      keyframeTimes: encodes ? s.segments.slice(startIndex).map((seg) => seg.start) : [],
      threads: this.deps.threads,
    });
    const abort = new AbortController();
    this.counts.runsStarted++;
    const job: Job = {
      id: this.nextJobId++,
      start: startIndex,
      next: new Map(run.outputs.map((r) => [r, startIndex])),
      abort,
      ended: false,
      error: null,
      pinned,
      waiters: 0,
      speed: null,
      slowSince: null,
      finished: Promise.resolve(),
    };
    s.job = job;
    const collectors = run.outputs.map((rendition) => new SegmentCollector(this, s, job, rendition));
    job.finished = this.deps.ffmpeg
      .run(run.args, {
        signal: abort.signal,
        outputs: run.outputs.length,
        onOutput: (i, chunk) => collectors[i]?.push(chunk),
        onStdout: (text) => this.readProgress(job, text),
      })
      .then(async () => {
        for (const c of collectors) c.end();
        await Promise.all(collectors.map((c) => c.flushed()));
      })
      .catch(async (err: unknown) => {
        await Promise.all(collectors.map((c) => c.flushed().catch(() => undefined)));
        if (!abort.signal.aborted) {
          job.error = err instanceof Error ? err.message : String(err);
          this.deps.log?.warn({ err, key: s.key, start: startIndex }, 'HLS conversion failed');
        }
      })
      .finally(() => {
        job.ended = true;
        this.notify(s);
        const waiting = [...this.slotWaiters];
        this.slotWaiters.clear();
        for (const wake of waiting) wake();
        void this.evict().catch((err: unknown) => this.deps.log?.warn({ err }, 'segment eviction failed'));
      });
    return job;
  }

  private readProgress(job: Job, text: string): void {
    for (const match of text.matchAll(/^speed=\s*([\d.]+)x/gm)) {
      const speed = Number(match[1]);
      if (!Number.isFinite(speed)) continue;
      job.speed = speed;
      if (speed < 1) job.slowSince ??= this.now();
      else job.slowSince = null;
    }
  }

  /** @internal called by a collector: one finished segment (or init section) of a run. */
  async storePiece(s: Session, job: Job, rendition: string, name: string, bytes: Buffer): Promise<void> {
    const isInit = name === 'init.mp4';
    const index = isInit ? -1 : Number(name.slice(0, -'.m4s'.length));
    const already = isInit ? s.inits.has(rendition) : s.stored.get(rendition)?.has(index) === true;
    if (!already) {
      await this.deps.store.writeAtomic('segments', `${s.key}/${rendition}/${name}`, bytes);
      if (isInit) s.inits.add(rendition);
      else s.stored.get(rendition)?.add(index);
    }
    if (!isInit) job.next.set(rendition, Math.max(job.next.get(rendition) ?? 0, index + 1));
    this.notify(s);
  }

  private firstMissing(s: Session): number {
    for (let i = 0; i < s.segments.length; i++) {
      if (s.renditions.some((r) => s.stored.get(r)?.has(i) !== true)) return i;
    }
    return 0;
  }

  private requireRendition(s: Session, rendition: string): void {
    if (!s.renditions.includes(rendition)) {
      throw new AppError('not_found', {
        status: 404,
        message: `This presentation has the renditions ${s.renditions.join(', ')}.`,
      });
    }
  }

  private async file(s: Session, rendition: string, name: string): Promise<HlsFile> {
    const file = await this.deps.store.stat('segments', `${s.key}/${rendition}/${name}`);
    if (file === null) {
      // Evicted between the check and the read: forget it, the next request makes it again.
      if (name === 'init.mp4') s.inits.delete(rendition);
      else s.stored.get(rendition)?.delete(Number(name.slice(0, -'.m4s'.length)));
      throw new AppError('artifact_building', {
        status: 503,
        message: 'That segment was just removed from the cache; it is being made again.',
        hint: 'Retry shortly.',
        headers: { 'retry-after': '1' },
      });
    }
    return { file, etag: `"${s.key}-${rendition}-${name}-${file.sizeBytes}"` };
  }

  private touch(s: Session): void {
    s.lastRequest = this.now();
  }

  private notify(s: Session): void {
    const listeners = [...s.listeners];
    s.listeners.clear();
    for (const l of listeners) l();
  }

  /** Resolves at the next change of the session (a segment stored, a run ended) or throws at the deadline. */
  private async changed(s: Session, deadline: number): Promise<void> {
    s.waiting++;
    try {
      await this.nextChange(s, deadline);
    } finally {
      s.waiting--;
      this.touch(s);
    }
  }

  private nextChange(s: Session, deadline: number): Promise<void> {
    const left = deadline - this.now();
    if (left <= 0) {
      return Promise.reject(
        new AppError('artifact_building', {
          status: 503,
          message: 'The segment is still being converted.',
          hint: 'Retry shortly.',
          headers: { 'retry-after': '2' },
        }),
      );
    }
    return new Promise((resolve) => {
      const timer = setTimeout(done, Math.min(left, 1_000));
      function done() {
        clearTimeout(timer);
        s.listeners.delete(done);
        resolve();
      }
      s.listeners.add(done);
    });
  }

  /** Runs nobody has asked anything of for the grace period stop (a player that went away). */
  private stopIdle(): void {
    const now = this.now();
    for (const s of this.sessions.values()) {
      const job = s.job;
      if (job === null || job.ended || job.pinned || s.waiting > 0) continue;
      if (now - s.lastRequest > this.deps.idleMs)
        job.abort.abort(new Error('idle: no player asked for segments'));
    }
  }

  // ------------------------------------------------------------------ prewarm, warnings, cache

  /**
   * Prewarm: makes every segment of every rendition of the presentation (a run kept going whoever
   * watches, restarted at the first missing segment until none is missing), then writes local
   * playlists beside them so the progressive artifact can be remuxed from the same segments (one
   * encode, one source of truth). Players of the same presentation share the run meanwhile.
   * @returns absolute paths of the local media playlists: the video (null without video) and the default audio
   */
  async prepareAll(
    fileId: number,
    device: string,
    signal: AbortSignal,
    onProgress: (done: number, total: number) => void,
  ): Promise<{ video: string | null; audio: string | null }> {
    const s = await this.session(fileId, device, true);
    const total = s.segments.length;
    const done = () => {
      let n = 0;
      for (let i = 0; i < total; i++) if (s.renditions.every((r) => s.stored.get(r)?.has(i) === true)) n++;
      return n;
    };
    const stop = () => {
      const job = s.job;
      if (job !== null && !job.ended && job.pinned) job.abort.abort(new Error('prewarm cancelled'));
    };
    signal.addEventListener('abort', stop, { once: true });
    let lastStart: { index: number; done: number } | null = null;
    try {
      for (;;) {
        signal.throwIfAborted();
        this.touch(s);
        const count = done();
        onProgress(count, total);
        if (count === total && s.renditions.every((r) => s.inits.has(r))) break;
        const job = s.job;
        if (job !== null && job.ended && job.pinned && job.error !== null) {
          throw new Error(`the conversion failed: ${job.error}`);
        }
        if (job === null || job.ended) {
          const index = this.firstMissing(s);
          // A run that ended cleanly without making what it was started for would loop forever.
          if (lastStart !== null && lastStart.index === index && lastStart.done === count) {
            throw new Error(`the conversion ended without producing segment ${index}`);
          }
          if (this.activeJobs() >= this.deps.maxJobs) {
            // Every slot is taken (players converting): a prewarm waits its turn, it does not fail.
            await this.slotFreed(signal);
            continue;
          }
          lastStart = { index, done: count };
          this.startJob(s, index, true);
        } else if (!job.pinned) job.pinned = true; // a player's run: keep it going to the end
        await this.changed(s, this.now() + 3_600_000);
      }
    } finally {
      signal.removeEventListener('abort', stop);
    }
    const local = async (rendition: string): Promise<string> => {
      const name = `${s.key}/${rendition}/local.m3u8`;
      const text = renderMediaPlaylist({
        segments: s.segments,
        initUri: 'init.mp4',
        segmentUri: (index) => `${index}.m4s`,
      });
      await this.deps.store.writeAtomic('segments', name, Buffer.from(text));
      return this.deps.store.resolve('segments', name);
    };
    const audio = s.plan.audio.find((a) => a.isDefault) ?? s.plan.audio[0];
    return {
      video: s.plan.video === null ? null : await local('v'),
      audio: audio === undefined ? null : await local(`a${audio.track}`),
    };
  }

  /** Warnings for a player of this file and device (a conversion that cannot keep up). */
  warnings(fileId: number, device: string): string[] {
    const out: string[] = [];
    for (const s of this.sessions.values()) {
      if (s.fileId !== fileId || s.device !== device) continue;
      const job = s.job;
      if (job === null || job.ended || job.slowSince === null) continue;
      if (this.now() - job.slowSince >= (this.deps.slowWarningMs ?? SLOW_WARNING_MS)) {
        out.push(
          `The conversion runs at ${job.speed?.toFixed(2) ?? '?'}x real time on this server: playback will pause to wait for it. Prepare the film ahead (prewarm) or choose a device that plays the file directly.`,
        );
      }
    }
    return out;
  }

  /** Resolves when a run ends (a slot may be free), or after 5 s; rejects when `signal` aborts. */
  private slotFreed(signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', aborted);
        this.slotWaiters.delete(done);
        resolve();
      };
      const aborted = () => {
        clearTimeout(timer);
        this.slotWaiters.delete(done);
        reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      };
      const timer = setTimeout(done, 5_000);
      signal.addEventListener('abort', aborted, { once: true });
      this.slotWaiters.add(done);
    });
  }

  /** Number of running conversion runs (for health and tests). */
  running(): number {
    return this.activeJobs();
  }

  /**
   * Keeps artifacts + segments under the bound: removes the least recently used presentations
   * (never one being converted or played right now).
   */
  async evict(): Promise<void> {
    const usage = async () =>
      (await this.deps.store.usage('segments')).bytes + (await this.deps.store.usage('artifacts')).bytes;
    let total = await usage();
    if (total <= this.deps.cacheBytes) return;
    const keys = await this.deps.store.listFolders('segments');
    const lastUsed = (key: string) => this.sessions.get(key)?.lastRequest ?? 0;
    for (const key of keys.sort((a, b) => lastUsed(a) - lastUsed(b))) {
      if (total <= this.deps.cacheBytes) break;
      const s = this.sessions.get(key);
      if (s !== undefined && s.job !== null && !s.job.ended) continue;
      await this.deps.store.removeFolder('segments', key);
      if (s !== undefined) {
        for (const set of s.stored.values()) set.clear();
        s.inits.clear();
      }
      total = await usage();
    }
  }

  /** Stops every run (shutdown). */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    const runs: Promise<void>[] = [];
    for (const s of this.sessions.values()) {
      if (s.job !== null && !s.job.ended) {
        s.job.abort.abort(new Error('shutdown'));
        runs.push(s.job.finished);
      }
    }
    await Promise.all(runs);
  }
}

/** MPEG-TS clock ticks per second, the unit of X-TIMESTAMP-MAP's MPEGTS. */
const MPEGTS_HZ = 90_000;

/** The WebVTT with the header line that maps cue time 0 to the segments' first timestamp. */
export function withTimestampMap(vtt: string): string {
  const text = vtt.replace(/^\uFEFF/, '');
  const map = `X-TIMESTAMP-MAP=MPEGTS:${HLS_TIMESTAMP_OFFSET_SECONDS * MPEGTS_HZ},LOCAL:00:00:00.000`;
  const end = text.indexOf('\n');
  const header = end === -1 ? text : text.slice(0, end).replace(/\r$/, '');
  const rest = end === -1 ? '' : text.slice(end + 1);
  return `${header}\n${map}\n${rest.replace(/^X-TIMESTAMP-MAP=[^\n]*\n/, '')}`;
}

/** The picture size the segments have (the encode's cap applied to the source). */
function outputSize(s: Session): { width: number | null; height: number | null } {
  const video = s.caps.video;
  if (video === null) return { width: null, height: null };
  const plan = s.plan.video;
  if (plan === null || plan === 'copy' || video.width === null || video.height === null) {
    return { width: video.width, height: video.height };
  }
  const factor = Math.min(
    1,
    plan.maxWidth === undefined ? 1 : plan.maxWidth / video.width,
    plan.maxHeight === undefined ? 1 : plan.maxHeight / video.height,
  );
  const even = (n: number) => Math.max(2, Math.trunc((n * factor) / 2) * 2);
  return { width: even(video.width), height: even(video.height) };
}

/** A CRF encode's typical peak for its picture size (BANDWIDTH when no cap is set). */
function estimateEncodedBitrate(width: number, height: number): number {
  return Math.round(width * height * 25 * 0.15);
}

/**
 * Turns one pipe of a run into segments: fragments are grouped by the segment their decode time
 * falls in; a segment is stored when the first fragment of the next one arrives (or the run ends
 * cleanly), so a run that is stopped or dies never leaves half a segment behind.
 */
class SegmentCollector {
  private readonly splitter = new Fmp4Splitter();
  private current: { index: number; parts: Buffer[] } | null = null;
  private chain: Promise<void> = Promise.resolve();
  private failed: unknown = null;

  constructor(
    private readonly service: HlsService,
    private readonly s: Session,
    private readonly job: Job,
    private readonly rendition: string,
  ) {}

  push(chunk: Buffer): void {
    if (this.failed !== null) return;
    try {
      for (const piece of this.splitter.push(chunk)) {
        if (piece.kind === 'init') {
          this.write('init.mp4', piece.bytes);
          continue;
        }
        const index = this.segmentOf(piece.decodeTime - HLS_TIMESTAMP_OFFSET_SECONDS);
        if (index < this.job.start) continue; // before the seek point (a copy seek lands on an earlier keyframe)
        if (this.current === null) this.current = { index, parts: [piece.bytes] };
        else if (index <= this.current.index) this.current.parts.push(piece.bytes);
        else {
          this.complete();
          this.current = { index, parts: [piece.bytes] };
        }
        // A fragment that reaches the next boundary closes its segment now: waiting for the next
        // fragment would hold an encoded segment back by a whole segment's worth of encoding.
        const end = piece.decodeTime + piece.duration - HLS_TIMESTAMP_OFFSET_SECONDS;
        const next = this.s.segments[this.current.index + 1];
        if (next !== undefined && end >= next.start - BOUNDARY_SLACK_SECONDS) this.complete();
      }
    } catch (err) {
      this.failed = err;
      // Recorded before the abort: an aborted run's error is otherwise taken for a stop we asked for.
      this.job.error ??= `the conversion wrote a stream that cannot be cut: ${err instanceof Error ? err.message : String(err)}`;
      this.job.abort.abort(err);
    }
  }

  /** The run ended cleanly: the segment being collected is whole. */
  end(): void {
    if (this.failed !== null) return;
    this.splitter.end();
    this.complete();
  }

  flushed(): Promise<void> {
    return this.chain;
  }

  private complete(): void {
    const current = this.current;
    this.current = null;
    if (current === null) return;
    this.write(`${current.index}.m4s`, Buffer.concat(current.parts));
  }

  private write(name: string, bytes: Buffer): void {
    this.chain = this.chain.then(() =>
      this.service.storePiece(this.s, this.job, this.rendition, name, bytes),
    );
  }

  private segmentOf(time: number): number {
    const segments = this.s.segments;
    let lo = 0;
    let hi = segments.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      const seg = segments[mid];
      if (seg !== undefined && seg.start - BOUNDARY_SLACK_SECONDS <= time) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}
