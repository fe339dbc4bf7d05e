/**
 * Making and keeping seek thumbnails (docs/trickplay.md "Making and keeping"): the `trickplay` job
 * kind (one film at a time, at the lowest priority, paused while a viewer's conversion runs), the
 * row per media file, the sets on disk, and the reader every surface serves from (trickplay-ports.ts).
 *
 * A set is built in `trickplay/<file>/<job>.<epoch>.part/` (ffmpeg's sheets, then the Roku re-cut
 * and the BIF made from them) and renamed to `trickplay/<file>/<job>/` in one step; the row is then
 * recorded, and only after that the previous set removed: a reader never sees half a set.
 *
 * Fenced (docs/cluster.md "Fencing"): the part folder carries the run's epoch, so a run presumed dead
 * (a frozen node, thawed) and the run that took its job over never write the same files; the rename
 * and every write of the row happen inside a transaction that first checks the job is still held
 * under that epoch (`assertHeld`: on PostgreSQL it locks the job row until the commit, so no take-over
 * falls in between). A run that lost its job removes its part folder and writes nothing else.
 */
import { type Clock, isoNow } from '../../adapters/clock.ts';
import type { DataStore, StoredFile } from '../../adapters/data-store.ts';
import type { PauseSource } from '../../adapters/trickplay-ffmpeg.ts';
import { sheetCount } from '../../domain/trickplay/geometry.ts';
import { conversionsBusy, queueDecision } from '../../domain/trickplay/making.ts';
import type { SheetMode } from '../../domain/trickplay/sheet-command.ts';
import { AppError, notFound } from '../../errors.ts';
import {
  JobCancelledError,
  type JobContext,
  JobLeaseLostError,
  type JobRunner,
} from '../../jobs/job-runner.ts';
import type { Fence, JobRepository, JobRow } from '../../repositories/job.repository.ts';
import type { MediaFileRepository } from '../../repositories/media-file.repository.ts';
import type { TrickplayRepository } from '../../repositories/trickplay.repository.ts';
import type { UnitOfWork } from '../../repositories/unit-of-work.ts';
import type { ConversionSlots } from '../playback/conversion-slots.ts';
import { readCapabilities } from '../playback/edition-presenter.ts';
import { madeOf, parsePayload, partEpoch, partOf, sourceFacts, statusOf } from './trickplay-rows.ts';
import type { TrickplayMade, TrickplayReader, TrickplayStatus, TrickplayVariant } from './trickplay-ports.ts';
import {
  failureReason,
  type SetMakerDeps,
  TrickplayFailure,
  type TrickplayPayload,
  TrickplaySetMaker,
} from './trickplay-set-maker.ts';

export type { TrickplayPayload } from './trickplay-set-maker.ts';

export interface TrickplayDeps extends Omit<SetMakerDeps, 'pause' | 'store'> {
  /** REELSHELF_TRICKPLAY. */
  configured: boolean;
  ffmpegAvailable: boolean;
  /** REELSHELF_TRICKPLAY_MODE: the mode of queued jobs (a POST may ask for another). */
  mode: SheetMode;
  rows: Pick<TrickplayRepository, 'get' | 'getMany' | 'folders' | 'queue' | 'candidates'>;
  /** The writes of a running job, each in a transaction fenced by the job's epoch (its row, the rename). */
  fenced: UnitOfWork<TrickplayFencedWrites>;
  files: Pick<MediaFileRepository, 'getWithRoot'>;
  store: SetMakerDeps['store'] & Pick<DataStore, 'commitFolder' | 'listFolders' | 'usage'>;
  jobs: Pick<JobRunner, 'register' | 'enqueue'>;
  /** The viewers' conversions: trickplay pauses while one holds or waits for a slot. */
  slots: Pick<ConversionSlots, 'inUse' | 'queued' | 'onChange'>;
  clock: Clock;
}

/** What a running trickplay job writes, together with the check that it still holds its job. */
export interface TrickplayFencedWrites {
  rows: Pick<TrickplayRepository, 'begin' | 'markReady' | 'markFailed' | 'abandon'>;
  jobs: Pick<JobRepository, 'assertHeld'>;
}

const AREA = 'trickplay';

export class TrickplayService implements TrickplayReader {
  readonly enabled: boolean;
  /** Set by {@link start} (a serving process): scans then queue trickplay. The CLI never does. */
  private serving = false;
  private readonly maker: TrickplaySetMaker;

  constructor(private readonly deps: TrickplayDeps) {
    this.enabled = deps.configured && deps.ffmpegAvailable;
    const { slots } = deps;
    const pause: PauseSource = {
      get paused() {
        return conversionsBusy(slots);
      },
      onChange: (listener) => slots.onChange(listener),
    };
    this.maker = new TrickplaySetMaker({ ...deps, pause });
    deps.jobs.register<TrickplayPayload>('trickplay', {
      concurrency: 1,
      run: (ctx) => this.run(ctx),
      recover: (job) => this.recover(job),
    });
  }

  // ── The reader ────────────────────────────────────────────────────────────────────────────────

  async status(fileId: number): Promise<TrickplayStatus> {
    const row = await this.deps.rows.get(fileId);
    return row === undefined ? { state: 'none' } : statusOf(row);
  }

  async made(fileId: number): Promise<TrickplayMade | null> {
    const row = await this.deps.rows.get(fileId);
    return row === undefined ? null : madeOf(row);
  }

  async madeMany(fileIds: readonly number[]): Promise<Map<number, TrickplayMade>> {
    const out = new Map<number, TrickplayMade>();
    for (const row of await this.deps.rows.getMany(fileIds)) {
      const made = madeOf(row);
      if (made !== null) out.set(row.media_file_id, made);
    }
    return out;
  }

  async sheet(
    fileId: number,
    generation: number,
    variant: TrickplayVariant,
    index: number,
  ): Promise<StoredFile> {
    const made = await this.made(fileId);
    const layout = made === null ? null : variant === 'sheets' ? made.layout : made.roku.layout;
    if (made === null || layout === null || made.generation !== generation) {
      throw noSuch(fileId, 'This set of seek thumbnails is not the current one (or none is made).');
    }
    if (!Number.isInteger(index) || index < 0 || index >= sheetCount(layout)) {
      throw noSuch(fileId, `This set has ${sheetCount(layout)} sheet(s), numbered from 0.`);
    }
    const file = await this.deps.store.stat(AREA, `${fileId}/${generation}/${variant}/${index}.jpg`);
    if (file === null) throw noSuch(fileId, 'The sheet is gone from the data dir.');
    return file;
  }

  async bif(fileId: number): Promise<StoredFile> {
    const made = await this.made(fileId);
    const file =
      made === null ? null : await this.deps.store.stat(AREA, `${fileId}/${made.generation}/trickplay.bif`);
    if (file === null) throw noSuch(fileId, 'No seek thumbnails are made for this file yet.');
    return file;
  }

  // ── Queueing ──────────────────────────────────────────────────────────────────────────────────

  /**
   * POST /api/media-file/{id}/trickplay: makes (or remakes) the file's set as a job; joins the one
   * queued or running for it.
   * @throws AppError 404 for an unknown or missing file, 409 `trickplay_unavailable` when off or without ffmpeg
   */
  async request(
    fileId: number,
    mode: SheetMode = this.deps.mode,
  ): Promise<{ jobId: number; created: boolean }> {
    if (!this.deps.configured) {
      throw new AppError('trickplay_unavailable', {
        message: 'Seek thumbnails are switched off on this server.',
        hint: 'Set REELSHELF_TRICKPLAY=on and restart the server.',
      });
    }
    if (!this.deps.ffmpegAvailable) {
      throw new AppError('trickplay_unavailable', {
        message: 'Seek thumbnails need ffmpeg, which this server did not find.',
        hint: 'Install ffmpeg (or set REELSHELF_FFMPEG); GET /api/health says which tools were found.',
      });
    }
    const file = await this.deps.files.getWithRoot(fileId);
    if (file === undefined) throw notFound('media file', fileId);
    // Not the film's failure: nothing is queued (and nothing recorded) until it is back.
    if (file.status !== 'present') {
      throw new AppError('file_missing', {
        message: `Media file ${fileId} is missing from its library root.`,
        hint: 'Reconnect its disk and rescan the library root.',
      });
    }
    const { id, created } = await this.deps.jobs.enqueue<TrickplayPayload>(
      'trickplay',
      { fileId, mode },
      `trickplay:${fileId}`,
    );
    if (created) await this.deps.rows.queue(fileId, id, mode, sourceFacts(file), isoNow(this.deps.clock));
    return { jobId: id, created };
  }

  /**
   * Queues every present, analysed video file with no set, or whose content changed since its set
   * (or its failure) was recorded; a failure of the same content is left alone. Nothing when off.
   * @returns how many jobs were queued
   */
  async requestMissing(): Promise<number> {
    if (!this.enabled) return 0;
    let queued = 0;
    for (const candidate of await this.deps.rows.candidates()) {
      const decision = queueDecision({
        hasVideo: readCapabilities(candidate.capabilities_json)?.video != null,
        sizeBytes: candidate.size_bytes,
        mtimeMs: candidate.mtime_ms,
        fingerprint: candidate.fingerprint,
        state: candidate.state,
        source:
          candidate.source_size_bytes === null || candidate.source_mtime_ms === null
            ? null
            : {
                sizeBytes: candidate.source_size_bytes,
                mtimeMs: candidate.source_mtime_ms,
                fingerprint: candidate.source_fingerprint,
              },
      });
      if (decision !== 'make') continue;
      try {
        if ((await this.request(candidate.id)).created) queued++;
      } catch {
        // The file went meanwhile, or the server is closing: the next scan or start tries again.
      }
    }
    return queued;
  }

  /** The scan's hook: what it analysed gets thumbnails (in a serving process only). */
  afterScan(): void {
    if (this.serving) void this.requestMissing().catch(() => undefined);
  }

  /** A serving process (server listen): scans queue trickplay from now on, and what is missing is queued. */
  start(): void {
    this.serving = true;
    void this.requestMissing().catch(() => undefined);
  }

  // ── Keeping ───────────────────────────────────────────────────────────────────────────────────

  /**
   * Removes every folder of the area no row names: files whose row went (a removed library root
   * takes its files' rows with it), old generations, part folders of jobs not running. At start
   * (nothing runs yet) and after a root is removed.
   */
  async sweep(): Promise<void> {
    const { store } = this.deps;
    const rows = new Map((await this.deps.rows.folders()).map((r) => [String(r.media_file_id), r]));
    const running = new Set(await this.runningParts());
    for (const fileFolder of await store.listFolders(AREA)) {
      const row = rows.get(fileFolder);
      for (const set of row === undefined ? [] : await store.listFolders(AREA, fileFolder)) {
        const keep = set === String(row?.generation) || running.has(`${fileFolder}/${set}`);
        if (!keep) await store.removeFolder(AREA, `${fileFolder}/${set}`).catch(() => undefined);
      }
      if (row === undefined) await store.removeFolder(AREA, fileFolder).catch(() => undefined);
    }
  }

  /** Files and bytes the sets take in the data dir. */
  usage(): Promise<{ files: number; bytes: number }> {
    return this.deps.store.usage(AREA);
  }

  private readonly active = new Map<number, string>();

  private runningParts(): string[] {
    return [...this.active.values()];
  }

  /**
   * A job whose node died (or was presumed dead) and that this node now holds: the part folders of
   * its earlier runs go (whatever a thawed run still writes there it removes itself), and its row is
   * as before the attempt. Fenced like the job's own writes: a node giving back a job it no longer
   * holds (a zombie shutting down) touches neither the successor's part nor its row.
   */
  private async recover(job: JobRow): Promise<void> {
    const payload = parsePayload(job.payload_json);
    if (payload === null) return;
    const { store } = this.deps;
    const folder = String(payload.fileId);
    await this.fencedWrite({ id: job.id, epoch: job.epoch }, async (rows) => {
      for (const name of await store.listFolders(AREA, folder).catch(() => [])) {
        const epoch = partEpoch(name, job.id);
        if (epoch !== null && epoch <= job.epoch)
          await store.removeFolder(AREA, `${folder}/${name}`).catch(() => undefined);
      }
      await rows.abandon(payload.fileId, job.id, isoNow(this.deps.clock));
    }).catch((err: unknown) => {
      if (!(err instanceof JobLeaseLostError)) throw err;
    });
  }

  /**
   * Runs `write` in a transaction that first checks this run still holds its job.
   * @throws JobLeaseLostError when another node took the job over (nothing is written)
   */
  private fencedWrite<T>(fence: Fence, write: (w: TrickplayFencedWrites['rows']) => Promise<T>): Promise<T> {
    return this.deps.fenced.transaction(async ({ jobs, rows }) => {
      await jobs.assertHeld(fence);
      return write(rows);
    });
  }

  // ── Making ────────────────────────────────────────────────────────────────────────────────────

  private async run(ctx: JobContext<TrickplayPayload>): Promise<unknown> {
    const { fileId, mode } = ctx.payload;
    const { clock, store } = this.deps;
    const fence: Fence = { id: ctx.jobId, epoch: ctx.epoch };
    const file = await this.deps.files.getWithRoot(fileId);
    // Gone with its root since it was queued: nothing to make, nothing to record.
    if (file === undefined) return { file_id: fileId, skipped: 'the file is gone' };
    const before = await this.deps.rows.get(fileId);
    const previous = before === undefined ? null : madeOf(before);
    if (previous?.generation === ctx.jobId) {
      // A run of this job made and recorded the set, then lost the job before its end (taken over).
      return this.result(previous);
    }
    const source = sourceFacts(file);
    await this.fencedWrite(fence, (rows) => rows.begin(fileId, ctx.jobId, mode, source, isoNow(clock)));
    const part = partOf(fileId, ctx.jobId, ctx.epoch);
    this.active.set(ctx.jobId, part);
    try {
      const made = await this.maker.make(ctx, file, part);
      const setFolder = `${fileId}/${ctx.jobId}`;
      const columns = {
        generation: ctx.jobId,
        interval_ms: made.layout.intervalMs,
        thumbnail_width: made.layout.thumbnailWidth,
        thumbnail_height: made.layout.thumbnailHeight,
        tile_width: made.layout.tileWidth,
        tile_height: made.layout.tileHeight,
        thumbnail_count: made.layout.thumbnailCount,
        sheet_bytes_json: JSON.stringify(made.sheetBytes),
        roku_tile_width: made.roku.tileWidth,
        roku_tile_height: made.roku.tileHeight,
        roku_sheet_bytes_json: JSON.stringify(made.rokuSheetBytes),
        bif_bytes: made.bifBytes,
        made_at: isoNow(clock),
      };
      // The rename and the row, only while this run holds the job: a run presumed dead renames nothing.
      const recorded = await this.fencedWrite(fence, async (rows) => {
        // A set folder of this job that no row records: an earlier run's, renamed by a commit that failed.
        await store.removeFolder(AREA, setFolder);
        await store.commitFolder(AREA, part, setFolder);
        return rows.markReady(fileId, ctx.jobId, mode, columns, source, isoNow(clock));
      });
      // The previous set goes once the new one is recorded (a reader may still fetch it until then).
      const old = before?.generation ?? null;
      if (!recorded) await store.removeFolder(AREA, setFolder).catch(() => undefined);
      else if (old !== null && old !== ctx.jobId) {
        await store.removeFolder(AREA, `${fileId}/${old}`).catch(() => undefined);
      }
      ctx.progress(100, 100);
      return {
        file_id: fileId,
        generation: ctx.jobId,
        thumbnails: made.layout.thumbnailCount,
        sheets: made.sheetBytes.length,
      };
    } catch (err) {
      // This run's own part (its epoch's): never another run's, never renamed once the job is lost.
      await store.removeFolder(AREA, part).catch(() => undefined);
      // Another node holds the job: the row is its run's now; nothing of this one lands.
      if (err instanceof JobLeaseLostError || ctx.signal.reason instanceof JobLeaseLostError) throw err;
      if (ctx.signal.aborted || err instanceof JobCancelledError) {
        await this.fencedWrite(fence, (rows) => rows.abandon(fileId, ctx.jobId, isoNow(clock)));
        throw err;
      }
      const reason = failureReason(err);
      await this.fencedWrite(fence, (rows) =>
        rows.markFailed(fileId, ctx.jobId, reason, source, isoNow(clock)),
      );
      const old = before?.generation ?? null;
      if (old !== null) await store.removeFolder(AREA, `${fileId}/${old}`).catch(() => undefined);
      throw new TrickplayFailure(reason);
    } finally {
      this.active.delete(ctx.jobId);
    }
  }

  private result(made: TrickplayMade): unknown {
    return {
      file_id: made.fileId,
      generation: made.generation,
      thumbnails: made.layout.thumbnailCount,
      sheets: made.sheetBytes.length,
    };
  }
}

function noSuch(fileId: number, message: string): AppError {
  return new AppError('not_found', {
    message: `No such seek thumbnails for media file ${fileId}. ${message}`,
    hint: 'GET /api/media-file/{id}/trickplay gives the current URLs.',
  });
}
