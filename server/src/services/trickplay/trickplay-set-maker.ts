/**
 * One trickplay set made into its part folder (`trickplay/<file>/<job>.part/`): ONE ffmpeg pass (from
 * keyframes or every frame) writes the sheets, the Roku sheets and a JPEG per thumbnail; they are
 * reconciled with the plan, and the BIF is those JPEGs laid end to end (no second decode, no image
 * library: re-cutting the sheets with sharp afterwards took half as long again as the decode). The job (trickplay.service.ts) renames the folder into place and
 * records it; anything that goes wrong here is a TrickplayFailure with the reason for the row.
 */
import type { DataStore, StoredFile } from '../../adapters/data-store.ts';
import type { PauseSource, SheetRunOptions, SheetRunResult } from '../../adapters/trickplay-ffmpeg.ts';
import { writeBif } from '../../domain/trickplay/bif.ts';
import {
  displaySize,
  planTrickplay,
  rokuLayout,
  sheetCount,
  type TrickplayLayout,
  thumbnailsPerSheet,
} from '../../domain/trickplay/geometry.ts';
import { longestKeyframeGap, reconcileSheets } from '../../domain/trickplay/making.ts';
import { buildSheetArgs, type SheetMode } from '../../domain/trickplay/sheet-command.ts';
import { AppError } from '../../errors.ts';
import { JobCancelledError, type JobContext } from '../../jobs/job-runner.ts';
import type { MediaFileRow } from '../../repositories/media-file.repository.ts';
import type { MediaPathService } from '../library/media-path.service.ts';
import { readCapabilities } from '../playback/edition-presenter.ts';
import type { KeyframeSource } from '../playback/hls/presentation-registry.ts';

export interface TrickplayPayload {
  fileId: number;
  mode: SheetMode;
}

/** The media file with its root's path, as the job reads it. */
export type TrickplayFile = MediaFileRow & { root_path: string };

/** A failure of the film (recorded on its row, never retried by itself), with a reason people read. */
export class TrickplayFailure extends Error {
  override name = 'TrickplayFailure';
}

/** What a set made into its part folder is. */
export interface MadeSet {
  layout: TrickplayLayout;
  sheetBytes: number[];
  roku: { tileWidth: number; tileHeight: number };
  rokuSheetBytes: number[];
  bifBytes: number;
}

export interface SetMakerDeps {
  keyframes: KeyframeSource;
  paths: Pick<MediaPathService, 'resolveInsideRoot'>;
  store: Pick<DataStore, 'makeFolder' | 'removeFolder' | 'stat' | 'writeAtomic'>;
  ffmpeg: { run(options: SheetRunOptions): Promise<SheetRunResult> };
  /** Paused while a viewer's conversion holds or waits for a slot. */
  pause: PauseSource;
  /** ffmpeg decoder/encoder threads. */
  threads: number;
  /** The watchdog's limit (default: the adapter's, 120 s). */
  stallMs?: number | undefined;
}

const AREA = 'trickplay';
/** Share of the progress bar the ffmpeg pass takes; the BIF takes the rest. */
const FFMPEG_SHARE = 95;

export class TrickplaySetMaker {
  constructor(private readonly deps: SetMakerDeps) {}

  async make(ctx: JobContext<TrickplayPayload>, file: TrickplayFile, part: string): Promise<MadeSet> {
    const { mode, fileId } = ctx.payload;
    const { store } = this.deps;
    if (file.status !== 'present')
      throw new TrickplayFailure('file_missing: the file is missing from its library root');
    const capabilities = readCapabilities(file.capabilities_json);
    if (file.analysis_status !== 'analyzed' || capabilities === null) {
      throw new TrickplayFailure('not_analysed: the file has not been analysed (rescan its library root)');
    }
    const video = capabilities.video;
    if (video === null) throw new TrickplayFailure('no_video: the file has no video stream');
    const size = displaySize(video);
    const plan = planTrickplay({
      durationSeconds: capabilities.duration_seconds,
      displayWidth: size?.width ?? null,
      displayHeight: size?.height ?? null,
    });
    if (!plan.ok) throw new TrickplayFailure(`${plan.reason}: ${plan.message}`);
    // A job not started yet waits for the viewers' conversions to end (the keyframe read may scan
    // the whole file; once ffmpeg runs, it is stopped and continued instead).
    await this.waitWhilePaused(ctx.signal);
    let maxGap = 0;
    if (mode === 'keyframes') {
      const index = await this.deps.keyframes.keyframesOf(fileId);
      const gap = index === null ? null : longestKeyframeGap(index.times);
      if (gap === null) {
        throw new TrickplayFailure(
          'no_keyframe_index: no keyframe of the video could be read; remake it in accurate mode (POST {"mode":"accurate"})',
        );
      }
      maxGap = gap;
    }
    const sourcePath = await this.deps.paths.resolveInsideRoot(file.root_path, file.relative_path);
    await store.removeFolder(AREA, part);
    const sheetsDir = await store.makeFolder(AREA, `${part}/sheets`);
    const rokuDir = await store.makeFolder(AREA, `${part}/roku`);
    const thumbnailDir = await store.makeFolder(AREA, `${part}/thumbnails`);
    const planned = plan.layout;
    const plannedRoku = rokuLayout(planned);
    if (plannedRoku === null)
      throw new TrickplayFailure('thumbnail_too_large: a thumbnail is larger than a Roku sheet');
    const result = await this.deps.ffmpeg.run({
      args: buildSheetArgs({
        source: sourcePath,
        outputDir: sheetsDir,
        layout: {
          interval_ms: planned.intervalMs,
          width: planned.thumbnailWidth,
          height: planned.thumbnailHeight,
          tile_width: planned.tileWidth,
          tile_height: planned.tileHeight,
        },
        mode,
        thumbnailCount: planned.thumbnailCount,
        maxKeyframeGapSeconds: maxGap,
        capabilities,
        threads: this.deps.threads,
        extras: {
          rokuDir,
          roku: { tile_width: plannedRoku.tileWidth, tile_height: plannedRoku.tileHeight },
          thumbnailDir,
        },
      }),
      outputDir: sheetsDir,
      durationSeconds: capabilities.duration_seconds,
      signal: ctx.signal,
      pause: this.deps.pause,
      onProgress: (percent) => ctx.progress(Math.floor((percent * FFMPEG_SHARE) / 100), 100),
      ...(this.deps.stallMs === undefined ? {} : { stallMs: this.deps.stallMs }),
    });
    const reconciled = reconcileSheets(
      { thumbnailCount: planned.thumbnailCount, perSheet: thumbnailsPerSheet(planned) },
      result,
    );
    if (!reconciled.ok) throw new TrickplayFailure(`${reconciled.reason}: ${reconciled.message}`);
    const layout: TrickplayLayout = { ...planned, thumbnailCount: reconciled.thumbnailCount };
    const roku: TrickplayLayout = { ...plannedRoku, thumbnailCount: reconciled.thumbnailCount };
    const sheetBytes = await this.sizesOf(part, 'sheets', sheetCount(layout));
    const rokuSheetBytes = await this.sizesOf(part, 'roku', sheetCount(roku));
    if (ctx.signal.aborted) throw new JobCancelledError('trickplay cancelled');
    const thumbnails: Buffer[] = [];
    for (let index = 0; index < layout.thumbnailCount; index++) {
      const thumbnail = await store.stat(AREA, `${part}/thumbnails/${index}.jpg`);
      if (thumbnail === null) throw new TrickplayFailure(`sheets_mismatch: thumbnail ${index} is missing`);
      thumbnails.push(await readAll(thumbnail));
    }
    const bif = writeBif(thumbnails, layout.intervalMs);
    await store.writeAtomic(AREA, `${part}/trickplay.bif`, bif);
    // The BIF holds them now; the set keeps sheets, Roku sheets and the BIF only.
    await store.removeFolder(AREA, `${part}/thumbnails`);
    if (ctx.signal.aborted) throw new JobCancelledError('trickplay cancelled');
    return {
      layout,
      sheetBytes,
      roku: { tileWidth: roku.tileWidth, tileHeight: roku.tileHeight },
      rokuSheetBytes,
      bifBytes: bif.length,
    };
  }

  /** The byte size of each of the `count` files `<part>/<folder>/<i>.jpg` ffmpeg wrote. */
  private async sizesOf(part: string, folder: string, count: number): Promise<number[]> {
    const sizes: number[] = [];
    for (let index = 0; index < count; index++) {
      const sheet = await this.deps.store.stat(AREA, `${part}/${folder}/${index}.jpg`);
      if (sheet === null) throw new TrickplayFailure(`sheets_mismatch: ${folder} ${index} is missing`);
      sizes.push(sheet.sizeBytes);
    }
    return sizes;
  }

  /** Resolves once no viewer's conversion holds or waits for a slot; rejects when `signal` aborts. */
  waitWhilePaused(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(reasonOf(signal));
    if (!this.deps.pause.paused) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const done = () => {
        unsubscribe();
        signal.removeEventListener('abort', aborted);
      };
      const aborted = () => {
        done();
        reject(reasonOf(signal));
      };
      const unsubscribe = this.deps.pause.onChange(() => {
        if (this.deps.pause.paused) return;
        done();
        resolve();
      });
      signal.addEventListener('abort', aborted, { once: true });
    });
  }
}

function reasonOf(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new JobCancelledError('trickplay cancelled');
}

/** The row's reason: `<code>: <what happened>` (the stall, the broken stream, the refusal…). */
export function failureReason(err: unknown): string {
  if (err instanceof TrickplayFailure) return err.message;
  if (err instanceof Error && (err as { code?: unknown }).code === 'trickplay_stalled') {
    return `stalled: ${err.message}`;
  }
  if (err instanceof AppError) return `${err.code}: ${err.message}`;
  if (err instanceof Error && err.name === 'FfmpegError') return `broken_stream: ${err.message}`;
  return `failed: ${err instanceof Error ? err.message : String(err)}`;
}

async function readAll(file: StoredFile): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of file.read()) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
}
