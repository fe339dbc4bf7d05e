import { once } from 'node:events';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import type { FfmpegPipeline } from '../../adapters/ffmpeg.ts';
import {
  progressiveInputCount,
  progressiveRemuxArgs,
  segmentsForTimeRange,
} from '../../domain/dlna/progressive-command.ts';
import { resolveTimeSeek, type TimeSeekRange } from '../../domain/dlna/time-seek.ts';
import { AppError } from '../../errors.ts';
import type { HlsFile, HlsLayout, HlsService } from '../playback/hls.service.ts';

/** Starts ffmpeg with input pipes (the adapter's `startFfmpegPipeline`, path bound). */
export type ProgressiveFfmpeg = (args: string[], inputs: number) => FfmpegPipeline;

export interface ProgressiveDeps {
  hls: Pick<HlsService, 'layout' | 'segment' | 'init'>;
  ffmpeg: ProgressiveFfmpeg;
  log?: { warn(obj: unknown, msg: string): void };
}

/** What a conversion request will be answered with, known before anything is converted. */
export interface ProgressivePlan {
  fileId: number;
  device: string;
  layout: HlsLayout;
  first: number;
  last: number;
  /** The film times the stream covers (the TimeSeekRange answer). */
  start: number;
  end: number;
}

/** Waits between asking again for a segment the conversion has not reached (its 503). */
const RETRY_MS = 500;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The DLNA conversion stream: the HLS presentation of a file on the TV's profile (the same
 * segments, runs, restarts and cache as HLS players get) joined into one progressive MPEG-TS. Its
 * video and default audio segments, from the one containing the asked time on, are fed through two
 * pipes into `ffmpeg -c copy`, whose stdout is the body. ffmpeg and the feeding stop when the TV
 * goes away (the signal) or the server closes (`close`): nothing outlives the request.
 */
export class ProgressiveConversions {
  private readonly open = new Set<AbortController>();

  constructor(private readonly deps: ProgressiveDeps) {}

  /**
   * The segments a request is served from.
   * @throws AppError 416 range_not_satisfiable for a time at or past the end
   */
  async plan(fileId: number, device: string, seek: TimeSeekRange | null): Promise<ProgressivePlan> {
    const layout = await this.deps.hls.layout(fileId, device);
    const fitted = resolveTimeSeek(seek ?? { start: 0, end: null }, layout.durationSeconds);
    const range = fitted === 'malformed' || fitted === 'out-of-range' ? null : fitted;
    const chosen = range === null ? null : segmentsForTimeRange(layout.segments, range);
    if (chosen === null) {
      throw new AppError('range_not_satisfiable', {
        status: 416,
        message: `The film is ${layout.durationSeconds.toFixed(3)} s long: that time is outside it.`,
        hint: 'Ask TimeSeekRange.dlna.org: npt=<seconds>- with a time before the end.',
      });
    }
    return { fileId, device, layout, ...chosen };
  }

  /**
   * The stream of a plan. Its first segments are made before it returns (so a conversion that cannot
   * start is an error answer, not an empty body); aborting `signal` stops everything.
   */
  async start(plan: ProgressivePlan, signal: AbortSignal): Promise<Readable> {
    const { layout } = plan;
    const renditions = [layout.video, layout.audio].filter((r): r is string => r !== null);
    // The first segments, before the answer's headers: a busy server or a failing conversion is said.
    for (const rendition of renditions) {
      await this.deps.hls.segment(plan.fileId, plan.device, rendition, plan.first);
    }
    if (signal.aborted) throw new AppError('service_unavailable', { message: 'The client went away.' });
    const inputs = {
      container: layout.container,
      video: layout.video !== null,
      audio: layout.audio !== null,
    };
    const ffmpeg = this.deps.ffmpeg(progressiveRemuxArgs(inputs), progressiveInputCount(inputs));
    const stop = new AbortController();
    this.open.add(stop);
    const body = new PassThrough();
    const end = () => {
      stop.abort();
      ffmpeg.kill();
      this.open.delete(stop);
    };
    signal.addEventListener('abort', end, { once: true });
    stop.signal.addEventListener('abort', () => {
      ffmpeg.kill();
      body.destroy();
    });
    ffmpeg.output.pipe(body);
    const feeds = renditions.map((rendition, i) => {
      const pipe = ffmpeg.inputs[i];
      return pipe === undefined ? Promise.resolve() : this.feed(plan, rendition, pipe, stop.signal);
    });
    void Promise.all([...feeds, ffmpeg.done])
      .catch((err: unknown) => {
        if (!stop.signal.aborted) {
          this.deps.log?.warn({ err, fileId: plan.fileId }, 'dlna conversion stream ended early');
          // A body cut short must not look complete to the TV.
          body.destroy(err instanceof Error ? err : new Error(String(err)));
        }
        // Whatever failed, nothing of it goes on: the other feed waits no more, ffmpeg is gone.
        stop.abort();
      })
      .finally(() => {
        signal.removeEventListener('abort', end);
        this.open.delete(stop);
      });
    return body;
  }

  /** Writes one rendition's segments (after its init section, for fMP4) into its pipe, in order. */
  private async feed(
    plan: ProgressivePlan,
    rendition: string,
    pipe: Writable,
    signal: AbortSignal,
  ): Promise<void> {
    if (plan.layout.container === 'fmp4') {
      await this.write(await this.deps.hls.init(plan.fileId, plan.device, rendition), pipe, signal);
    }
    for (let index = plan.first; index <= plan.last; index++) {
      if (signal.aborted) return;
      await this.write(await this.segment(plan, rendition, index, signal), pipe, signal);
    }
    pipe.end();
  }

  /** A segment; a conversion that has not got there within the HLS wait is asked again. */
  private async segment(
    plan: ProgressivePlan,
    rendition: string,
    index: number,
    signal: AbortSignal,
  ): Promise<HlsFile> {
    for (;;) {
      try {
        return await this.deps.hls.segment(plan.fileId, plan.device, rendition, index);
      } catch (err) {
        const busy =
          err instanceof AppError && (err.code === 'artifact_building' || err.code === 'conversions_busy');
        if (!busy || signal.aborted) throw err;
        await sleep(RETRY_MS);
      }
    }
  }

  private async write(served: HlsFile, pipe: Writable, signal: AbortSignal): Promise<void> {
    const stream = served.file.read();
    try {
      for await (const chunk of stream) {
        if (signal.aborted || pipe.destroyed) return;
        if (!pipe.write(chunk as Buffer)) await once(pipe, 'drain', { signal });
      }
    } catch (err) {
      if (signal.aborted) return;
      throw err;
    } finally {
      stream.destroy();
    }
  }

  /** Streams going now (tests, health). */
  running(): number {
    return this.open.size;
  }

  /** Stops every stream (the server closes: their requests end instead of holding it open). */
  close(): void {
    for (const stop of [...this.open]) stop.abort();
    this.open.clear();
  }
}
