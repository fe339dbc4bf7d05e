import { planHls, renditionIds } from '../../../domain/hls/hls-plan.ts';
import { playlistTimelineStart } from '../../../domain/hls/playlists.ts';
import { planSegments } from '../../../domain/hls/segment-plan.ts';
import type { Capabilities } from '../../../domain/media/capabilities.ts';
import type { PlaybackDecision } from '../../../domain/playback/decision-types.ts';
import type { DeviceProfile } from '../../../domain/playback/device-profiles.ts';
import type { SubtitleTrack } from '../../../domain/subtitles/subtitle-track.ts';
import { AppError } from '../../../errors.ts';
import type { LibraryFileRow } from '../../../repositories/library.repository.ts';
import type { MediaPathService } from '../../library/media-path.service.ts';
import { sourceKeyOf } from '../artifact-index.ts';
import type { ArtifactService } from '../artifact.service.ts';
import type { PlaybackEditionPresenter } from '../edition-presenter.ts';
import { hlsKey, type Presentation } from './presentation.ts';

/** Where the keyframes of a file's video come from (its container's index, kept with the analysis). */
export interface KeyframeSource {
  keyframesOf(fileId: number): Promise<{ times: number[] } | null>;
}

export interface PresentationRegistryDeps {
  ffmpegAvailable: boolean;
  artifacts: Pick<ArtifactService, 'needs' | 'incompatible'>;
  editions: Pick<PlaybackEditionPresenter, 'capabilitiesOf' | 'encoders'>;
  paths: Pick<MediaPathService, 'resolveInsideRoot'>;
  keyframes: KeyframeSource;
  /** Reads what the cluster announced of a new presentation (`hls_segments`: never a folder listing). */
  announced: (p: Presentation) => Promise<void>;
  /** A file's subtitle tracks (`burn_subtitle` must name one that can be burned in). */
  tracks?: (fileId: number) => Promise<SubtitleTrack[]>;
  now: () => number;
}

/**
 * The HLS presentations of this process: which presentation a (file, device, burn-in) plays, made
 * once (planning, keyframes, what is announced) and shared by every player of the same content —
 * a copy of a film elsewhere (same fingerprint) included.
 */
export class PresentationRegistry {
  private readonly byKey = new Map<string, Presentation>();
  /** (file, device, source, burn) → presentation key, so a request does not re-plan every time. */
  private readonly byFile = new Map<string, string>();
  /** Presentations being set up, by file key: two players asking at once get one. */
  private readonly creating = new Map<string, Promise<Presentation>>();

  constructor(private readonly deps: PresentationRegistryDeps) {}

  /** Every presentation in memory. */
  all(): IterableIterator<Presentation> {
    return this.byKey.values();
  }

  get(key: string): Presentation | undefined {
    return this.byKey.get(key);
  }

  /**
   * The presentation of a file on a device; 400 with the incompatibility when nothing plays.
   * @param forPrewarm a prewarm prepares what the strict policy would play once ready
   */
  async of(fileId: number, device: string, forPrewarm = false, burn?: number): Promise<Presentation> {
    if (burn !== undefined) await this.requireBurnable(fileId, burn);
    const needs = await this.deps.artifacts.needs(fileId, device, burn);
    const { file, profile } = needs;
    // "Create compatible audio": a prewarm makes the fallback the strict policy plays once ready.
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
    const existing = known === undefined ? undefined : this.byKey.get(known);
    if (existing !== undefined) return existing;
    // Two players asking at once get one presentation: two would each run a conversion of the same
    // film, one of them unseen by the slot count.
    let creating = this.creating.get(fileKey);
    if (creating === undefined) {
      creating = this.create(fileId, fileKey, file, profile, decision, caps, forPrewarm, burn).finally(() =>
        this.creating.delete(fileKey),
      );
      this.creating.set(fileKey, creating);
    }
    return creating;
  }

  private async create(
    fileId: number,
    fileKey: string,
    file: LibraryFileRow,
    profile: DeviceProfile,
    decision: PlaybackDecision,
    caps: Capabilities,
    forPrewarm: boolean,
    burn: number | undefined,
  ): Promise<Presentation> {
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
    const same = this.byKey.get(key);
    if (same !== undefined) {
      this.byFile.set(fileKey, key);
      return same;
    }
    const source = await this.deps.paths.resolveInsideRoot(file.root_path, file.relative_path);
    const renditions = renditionIds(plan);
    const p: Presentation = {
      key,
      fileId,
      device: profile.id,
      source,
      caps,
      plan,
      segments,
      timelineStart: playlistTimelineStart({
        hasVideo: plan.video !== null,
        firstKeyframe: keyframes === null ? null : keyframes.reduce((a, b) => Math.min(a, b), Infinity),
        frameRate: caps.video?.frame_rate ?? null,
      }),
      renditions,
      identity: { key, fileId, device: profile.id, burn: burn ?? null, forPrewarm },
      stored: new Map(renditions.map((r) => [r, new Map<number, string>()])),
      inits: new Map(),
      claim: null,
      claiming: null,
      job: null,
      lastRequest: this.deps.now(),
      waiting: 0,
      leases: 0,
      listeners: new Set(),
    };
    await this.deps.announced(p);
    this.byKey.set(key, p);
    this.byFile.set(fileKey, key);
    return p;
  }

  /**
   * `burn_subtitle`: a track of the file that can be drawn into the picture. A sidecar image track
   * cannot (the conversion reads the film alone); a text track is shown as text instead.
   */
  private async requireBurnable(fileId: number, index: number): Promise<void> {
    const tracks = (await this.deps.tracks?.(fileId)) ?? [];
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

  /** A player asked something of it now (the idle clock and the cache's order start again). */
  touch(p: Presentation): void {
    p.lastRequest = this.deps.now();
  }

  /**
   * Resolves at the next change of the presentation (a segment stored, a run ended), or within a
   * second; counted as a waiting request meanwhile.
   * @throws AppError 503 artifact_building + Retry-After once `deadline` has passed
   */
  async changed(p: Presentation, deadline: number): Promise<void> {
    p.waiting++;
    try {
      await this.nextChange(p, deadline);
    } finally {
      p.waiting--;
      this.touch(p);
    }
  }

  private nextChange(p: Presentation, deadline: number): Promise<void> {
    const left = deadline - this.deps.now();
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
        p.listeners.delete(done);
        resolve();
      }
      p.listeners.add(done);
    });
  }
}
