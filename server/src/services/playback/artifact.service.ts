import { isoNow } from '../../adapters/clock.ts';
import {
  buildArtifactArgs,
  buildRemuxFromHlsArgs,
  ProgressParser,
} from '../../domain/ffmpeg/artifact-command.ts';
import type { PlaybackDecision, PlaybackPlan } from '../../domain/playback/decision-types.ts';
import type { DeviceProfile } from '../../domain/playback/device-profiles.ts';
import { AppError, notFound } from '../../errors.ts';
import { type JobContext, JobLeaseLostError } from '../../jobs/job-runner.ts';
import type { ArtifactRow } from '../../repositories/artifact.repository.ts';
import type { Fence, JobRow } from '../../repositories/job.repository.ts';
import type { LibraryFileRow } from '../../repositories/library.repository.ts';
import {
  artifactCacheKind,
  artifactKey,
  buildEpochOf,
  finalName,
  keyOfName,
  partName,
  remuxName,
  runEpochOf,
} from './artifact-files.ts';
import { sourceKeyOf } from './artifact-index.ts';
import { ArtifactReaders } from './artifact-readers.ts';
import type { ArtifactDeps, ArtifactFencedWrites, HlsPrewarmPort } from './artifact-ports.ts';

export type ArtifactState =
  | { status: 'ready'; artifact: ArtifactRow }
  | {
      status: 'building';
      percent: number;
      jobId: number;
      /** The epoch of the build's run (the next claim's while it is queued): its part is the one to follow. */
      epoch: number;
      artifact: ArtifactRow;
    }
  | { status: 'not_needed'; reason: string }
  | { status: 'not_ready'; reason: string }
  | { status: 'cancelled' };

interface ArtifactPayload {
  key: string;
  /** 'hls': a prewarm: the HLS segments first, then the progressive file remuxed from them. */
  via?: 'hls';
}

export type {
  ArtifactArea,
  ArtifactDeps,
  ArtifactFencedWrites,
  ArtifactJobs,
  ArtifactRecords,
  HlsPrewarmPort,
  MediaFileLookup,
} from './artifact-ports.ts';

/** What a file needs on a device, decided by the same rules as /library. */
export interface Needs {
  file: LibraryFileRow;
  profile: DeviceProfile;
  decision: PlaybackDecision;
  plan: PlaybackPlan | null;
}

/** How stale another node's build state may be when a following stream asks (its rows are read). */
const REMOTE_BUILD_CHECK_MS = 250;

/**
 * Playback artifacts: MP4s remuxed or converted for a device, built as jobs (one per key, whether a
 * prewarm or a stream asked first), cancellable, kept under an LRU size bound.
 */
export class ArtifactService {
  private hls: HlsPrewarmPort | undefined;
  /** Artifacts just made, kept through the clean their build asked for. */
  private readonly justMade = new Set<string>();
  /** This node's builds: job id → the epoch of its run. */
  private readonly builds = new Map<number, number>();
  /** Other nodes' builds as their rows last said (isBuilding): running or queued, under which epoch. */
  private readonly remoteBuilds = new Map<number, { atMs: number; building: boolean; epoch: number }>();
  /** The artifacts this node streams now: their rows say so to every node's cleaner while read. */
  readonly readers = new ArtifactReaders({ touch: (key) => this.touch(key) });

  /** The HLS engine is built after this service (it asks this one what a file needs). */
  useHls(hls: HlsPrewarmPort): void {
    this.hls = hls;
  }

  constructor(private readonly deps: ArtifactDeps) {
    this.hls = deps.hls;
    deps.jobs.register<ArtifactPayload>('artifact', {
      concurrency: 1,
      run: (ctx) => this.build(ctx),
      recover: (job) => this.recover(job),
    });
    deps.cache.register(
      'artifact',
      artifactCacheKind({
        records: deps.records,
        store: deps.store,
        index: deps.index,
        justMade: this.justMade,
        openHere: (key) => this.readers.isOpen(key),
        nowMs: () => deps.clock.now().getTime(),
        nameOf: (row) => this.nameOf(row),
        removeFile: (row) => this.removeFile(row),
      }),
    );
  }

  /**
   * Start-up: loads the ready set into memory and removes files of the area no artifact row names
   * (left by a crash or by rows deleted with their media file), so the size bound counts only what
   * can be evicted.
   */
  async load(): Promise<void> {
    const repo = this.deps.records;
    // The ready rows of every node, followed from now on (a build on another node lists ready here).
    await this.deps.index.share({
      ready: () => repo.readyByAge(),
      ...(this.deps.subscribeState === undefined ? {} : { subscribe: this.deps.subscribeState }),
    });
    await this.deps.store.ensure('artifacts');
    // A row's file and its builds' parts (`<key>.mp4`, `<key>.<epoch>.part.mp4`: another node may be building).
    const known = new Set(await repo.allKeys());
    for (const name of await this.deps.store.list('artifacts')) {
      // A leftover the store refuses to touch (a symlink someone put there) must not stop the start.
      if (!known.has(keyOfName(name))) await this.deps.store.remove('artifacts', name).catch(() => undefined);
    }
  }

  /**
   * Where the build of `epoch` writes (a growing file that streams may already read): each run of a
   * build job writes its own part, so a run presumed dead never writes into its successor's.
   */
  partPath(key: string, epoch: number): string {
    return this.deps.store.resolve('artifacts', partName(key, epoch));
  }

  finalPath(key: string): string {
    return this.deps.store.resolve('artifacts', finalName(key));
  }

  async needs(fileId: number, device: string, subtitleTrack?: number): Promise<Needs> {
    const profile = this.deps.devices.resolve(device);
    const file = await this.deps.files.file(fileId);
    if (file === undefined) throw notFound('media file', fileId);
    const { decision } = this.deps.editions.decide(file, profile, subtitleTrack);
    return { file, profile, decision, plan: decision.plan ?? decision.fallbackPlan };
  }

  /** The prewarm state of a file on a device (INTERFACE.md "Prewarm"). */
  async state(fileId: number, device: string): Promise<ArtifactState> {
    const needs = await this.needs(fileId, device);
    return this.stateOf(needs);
  }

  private async stateOf({ file, profile, decision, plan }: Needs): Promise<ArtifactState> {
    if (decision.wouldBe === 'direct' && decision.statusCode !== 'unknown') {
      return { status: 'not_needed', reason: `Plays directly on ${profile.name}: nothing to prepare.` };
    }
    if (plan === null) {
      const why = decision.incompatibility?.detail ?? 'No playable form exists for this device.';
      return { status: 'not_ready', reason: `Cannot be prepared for ${profile.name}: ${why}` };
    }
    const key = artifactKey(sourceKeyOf(file), profile.id, plan);
    const row = await this.deps.records.getByKey(key);
    if (row === undefined) {
      return { status: 'not_ready', reason: `Not prepared yet for ${profile.name}.` };
    }
    // A finished file wins over its build's job row: the row turns ready only once the file is renamed
    // into place (and a new build turns it back to 'building' first), while the job row says running
    // until the build's clean-up ends — on another node, for as long as it takes that node to write.
    // Served as growing meanwhile, the whole file would go out without ranges (players cannot seek).
    if (row.status === 'ready' && (await this.present(row))) return { status: 'ready', artifact: row };
    if (row.job_id !== null && (await this.buildingNow(row.job_id))) {
      const job = await this.deps.jobs.get(row.job_id);
      const percent =
        job === undefined || job.progress_total === 0 ? 0 : (job.progress_done / job.progress_total) * 100;
      const epoch = job === undefined ? 0 : runEpochOf(job);
      return {
        status: 'building',
        percent: Math.round(percent * 10) / 10,
        jobId: row.job_id,
        epoch,
        artifact: row,
      };
    }
    if (row.status === 'ready') {
      return { status: 'not_ready', reason: 'The prepared file was removed; prepare it again.' };
    }
    if (row.status === 'cancelled') return { status: 'cancelled' };
    return { status: 'not_ready', reason: `The last preparation failed: ${row.error ?? 'unknown error'}` };
  }

  /**
   * Starts the build of a file's artifact for a device (or joins the running one).
   * @returns the state after starting: building, or ready / not_needed when there is nothing to do
   */
  async start(fileId: number, device: string, options: { via?: 'hls' } = {}): Promise<ArtifactState> {
    const needs = await this.needs(fileId, device);
    const state = await this.stateOf(needs);
    if (state.status === 'ready' || state.status === 'not_needed' || state.status === 'building')
      return state;
    const { file, profile, plan } = needs;
    if (plan === null) throw this.incompatible(needs);
    if (plan.video !== 'copy' && !this.deps.transcodeAvailable) throw this.incompatible(needs);
    if (!this.deps.ffmpegAvailable) {
      throw new AppError('service_unavailable', {
        message: 'ffmpeg is not installed: nothing can be prepared.',
        hint: 'Install ffmpeg (apt-get install ffmpeg) and restart.',
      });
    }
    const key = artifactKey(sourceKeyOf(file), profile.id, plan);
    const repo = this.deps.records;
    const now = isoNow(this.deps.clock);
    await repo.upsertBuilding({
      artifact_key: key,
      media_file_id: file.id,
      device: profile.id,
      source_fingerprint: sourceKeyOf(file),
      plan_json: JSON.stringify(plan),
      path: this.finalPath(key),
      job_id: 0,
      now,
    });
    const payload: ArtifactPayload =
      options.via === 'hls' && this.hls !== undefined ? { key, via: 'hls' } : { key };
    const { id } = await this.deps.jobs.enqueue<ArtifactPayload>('artifact', payload, `artifact:${key}`);
    await repo.setJob(key, id);
    return this.stateOf(needs);
  }

  /** Cancels a running build; true when one was running. */
  async cancel(fileId: number, device: string): Promise<boolean> {
    const state = await this.state(fileId, device);
    if (state.status !== 'building') return false;
    await this.deps.jobs.cancel(state.jobId);
    await this.deps.jobs.wait(state.jobId);
    return true;
  }

  /** Marks an artifact as just streamed (LRU). */
  async touch(key: string): Promise<void> {
    await this.deps.records.touch(key, isoNow(this.deps.clock));
  }

  /**
   * Whether the build job still runs under `epoch` (the run whose part a stream follows), on this node
   * or any other: a build taken over by another node runs under a newer epoch, in another part.
   */
  async isBuilding(jobId: number, epoch: number): Promise<boolean> {
    // This node's own build is known without a query (a following stream asks every 50 ms); another
    // node's is read from its row, at most every REMOTE_BUILD_CHECK_MS per job.
    const mine = this.builds.get(jobId);
    if (mine !== undefined) return mine === epoch;
    const now = this.deps.clock.now().getTime();
    let known = this.remoteBuilds.get(jobId);
    if (known === undefined || now - known.atMs >= REMOTE_BUILD_CHECK_MS) {
      const job = await this.deps.jobs.get(jobId);
      const building = job !== undefined && (job.status === 'queued' || job.status === 'running');
      known = { atMs: now, building, epoch: job === undefined ? 0 : runEpochOf(job) };
      if (this.remoteBuilds.size >= 256) this.remoteBuilds.clear();
      this.remoteBuilds.set(jobId, known);
    }
    return known.building && known.epoch === epoch;
  }

  /** Whether the build job is queued or running now, here or on another node (its row). */
  private async buildingNow(jobId: number): Promise<boolean> {
    if (this.deps.jobs.isActive(jobId)) return true;
    const job = await this.deps.jobs.get(jobId);
    return job !== undefined && (job.status === 'queued' || job.status === 'running');
  }

  /** The 400 body for a file nothing can make playable on the device. */
  incompatible({ profile, decision }: Needs): AppError {
    const inc = decision.incompatibility;
    const required = decision.wouldBe === 'strict_incompatible' ? 'none' : decision.wouldBe;
    return new AppError('not_playable', {
      status: 400,
      message: inc?.detail ?? `This file cannot play on ${profile.name}.`,
      ...(inc?.hint === undefined ? {} : { hint: inc.hint }),
      extra: {
        incompatibility: inc ?? {
          type: 'unknown',
          code: 'no_compatible_target',
          detail: 'No playable form was found.',
        },
        policy: this.deps.editions.policy,
        required,
        adaptiveAvailable: decision.hasAdaptiveFallback,
        videoTranscodeAvailable: this.deps.transcodeAvailable,
      },
    });
  }

  private async build(ctx: JobContext<ArtifactPayload>): Promise<{ key: string; size_bytes: number }> {
    const repo = this.deps.records;
    const { key } = ctx.payload;
    const row = await repo.getByKey(key);
    if (row === undefined) throw new Error(`artifact ${key} vanished`);
    const file = await this.deps.files.file(row.media_file_id);
    if (file === undefined) throw new Error('the media file was removed');
    const source = await this.deps.paths.resolveInsideRoot(file.root_path, file.relative_path);
    const plan = JSON.parse(row.plan_json) as PlaybackPlan;
    const capabilities = this.deps.editions.capabilitiesOf(file);
    if (capabilities === null) throw new Error('the file has not been analysed');
    await this.deps.store.ensure('artifacts');
    const part = this.partPath(key, ctx.epoch);
    const fence: Fence = { id: ctx.jobId, epoch: ctx.epoch };
    const duration = capabilities.duration_seconds;
    ctx.progress(0, 1000);
    this.builds.set(ctx.jobId, ctx.epoch);
    try {
      if (ctx.payload.via === 'hls' && this.hls !== undefined) {
        // Segments are the work (0–95 %); the remux from them takes seconds.
        // The HLS runs hold their own slots; the segments stay on disk until the remux is done.
        const prepared = await this.hls.prepareAll(row.media_file_id, row.device, ctx.signal, (done, total) =>
          ctx.progress(total === 0 ? 0 : Math.floor((done / total) * 950), 1000),
        );
        try {
          const { video, audio, audioCodec } = prepared;
          // Written beside the part (a plain MP4 cannot be read while it grows), then moved in.
          const remux = this.deps.store.resolve('artifacts', remuxName(key, ctx.epoch));
          await this.convert(
            buildRemuxFromHlsArgs({ video, audio, audioCodec, output: remux }),
            duration,
            ctx.signal,
            (p) => ctx.progress(950 + Math.min(49, Math.round(p / 2)), 1000),
          );
          await this.deps.store.commit('artifacts', remuxName(key, ctx.epoch), partName(key, ctx.epoch));
        } finally {
          prepared.release();
        }
      } else {
        await this.convert(
          buildArtifactArgs({ source, output: part, plan, capabilities }),
          duration,
          ctx.signal,
          (p) => ctx.progress(Math.min(999, Math.round(p * 10)), 1000),
        );
      }
      // Renamed into place and recorded only while this run holds the job (a run presumed dead never).
      const size = await this.fencedWrite(fence, async (records) => {
        const made = await this.deps.store.commit('artifacts', partName(key, ctx.epoch), finalName(key));
        await records.finish(key, 'ready', { size_bytes: made.sizeBytes, now: isoNow(this.deps.clock) });
        return made.sizeBytes;
      });
      this.deps.index.add(row.media_file_id, row.device, row.source_fingerprint);
      ctx.progress(1000, 1000);
      // The one cleaner of artifacts and segments, never removing what was just made.
      this.justMade.add(key);
      try {
        await this.deps.cache.clean();
      } finally {
        this.justMade.delete(key);
      }
      return { key, size_bytes: size };
    } catch (err) {
      // The clean-up must not hide why the build failed, nor leave the row 'building'. This run's own
      // files only (its epoch's); another node holding the job now writes the row, not this run.
      await this.deps.store.remove('artifacts', partName(key, ctx.epoch)).catch(() => undefined);
      await this.deps.store.remove('artifacts', remuxName(key, ctx.epoch)).catch(() => undefined);
      if (err instanceof JobLeaseLostError || ctx.signal.reason instanceof JobLeaseLostError) throw err;
      const now = isoNow(this.deps.clock);
      if (ctx.signal.aborted) {
        const shutdown = !(
          ctx.signal.reason instanceof Error && ctx.signal.reason.name === 'JobCancelledError'
        );
        await this.fencedWrite(fence, (records) =>
          records.finish(key, shutdown ? 'failed' : 'cancelled', {
            now,
            error: shutdown ? 'interrupted: the server stopped during the build' : null,
          }),
        );
      } else {
        const error = err instanceof Error ? err.message : String(err);
        await this.fencedWrite(fence, (records) => records.finish(key, 'failed', { now, error }));
      }
      throw err;
    } finally {
      if (this.builds.get(ctx.jobId) === ctx.epoch) this.builds.delete(ctx.jobId);
    }
  }

  /**
   * A build whose node died (or was presumed dead) and that this node now holds: the parts of its
   * earlier runs go, and its row says it was interrupted. Fenced like the build's own end: a node
   * giving back a build it no longer holds (a zombie shutting down) touches neither the successor's
   * part nor the row.
   */
  private async recover(job: JobRow): Promise<void> {
    const row = await this.deps.records.getByJob(job.id);
    if (row === undefined) return;
    const key = row.artifact_key;
    await this.fencedWrite({ id: job.id, epoch: job.epoch }, async (records) => {
      for (const name of await this.deps.store.list('artifacts')) {
        const epoch = buildEpochOf(name, key);
        if (epoch !== null && epoch <= job.epoch)
          await this.deps.store.remove('artifacts', name).catch(() => undefined);
      }
      await records.finish(key, 'failed', {
        now: isoNow(this.deps.clock),
        error: 'interrupted: the server stopped during the build',
      });
    }).catch((err: unknown) => {
      if (!(err instanceof JobLeaseLostError)) throw err;
    });
  }

  /**
   * Runs `write` in a transaction that first checks the build still holds its job.
   * @throws JobLeaseLostError when another node took the job over (nothing is written)
   */
  private fencedWrite<T>(
    fence: Fence,
    write: (records: ArtifactFencedWrites['records']) => Promise<T>,
  ): Promise<T> {
    return this.deps.fenced.transaction(async ({ jobs, records }) => {
      await jobs.assertHeld(fence);
      return write(records);
    });
  }

  /**
   * One ffmpeg run of a build, holding a conversion slot (waiting for one, in order, when every slot
   * is held by players or other builds).
   * @param onPercent the share of the film written so far, 0–100
   */
  private async convert(
    args: string[],
    durationSeconds: number | null,
    signal: AbortSignal,
    onPercent: (percent: number) => void,
  ): Promise<void> {
    const slot = await this.deps.slots.take(signal);
    try {
      const progress = new ProgressParser(durationSeconds);
      await this.deps.ffmpeg.run(args, {
        signal,
        onStdout: (chunk) => onPercent(progress.push(chunk).percent),
      });
    } finally {
      slot.release();
    }
  }

  /** The area-relative name of a row's file; null for a path outside the area (never touched). */
  private nameOf(row: ArtifactRow): string | null {
    return this.deps.store.locate('artifacts', row.path);
  }

  private async present(row: ArtifactRow): Promise<boolean> {
    const name = this.nameOf(row);
    if (name === null) return false;
    return (await this.deps.store.stat('artifacts', name).catch(() => null)) !== null;
  }

  private async removeFile(row: ArtifactRow): Promise<void> {
    const name = this.nameOf(row);
    if (name !== null) await this.deps.store.remove('artifacts', name);
  }
}
