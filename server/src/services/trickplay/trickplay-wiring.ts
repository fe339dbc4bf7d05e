/**
 * The seek thumbnails' part of the composition root (services/index.ts): the trickplay job and the
 * reader every surface serves from (trickplay-ports.ts).
 */
import type { Clock } from '../../adapters/clock.ts';
import type { DataStore } from '../../adapters/data-store.ts';
import type { MediaToolsInfo } from '../../adapters/media-tools.ts';
import { TrickplayFfmpeg } from '../../adapters/trickplay-ffmpeg.ts';
import type { Config } from '../../config.ts';
import type { JobRunner } from '../../jobs/job-runner.ts';
import type { MediaFileRepository } from '../../repositories/media-file.repository.ts';
import type { TrickplayRepository } from '../../repositories/trickplay.repository.ts';
import type { UnitOfWork } from '../../repositories/unit-of-work.ts';
import type { MediaPathService } from '../library/media-path.service.ts';
import type { ConversionSlots } from '../playback/conversion-slots.ts';
import type { KeyframeSource } from '../playback/hls/presentation-registry.ts';
import type { TrickplayReader } from './trickplay-ports.ts';
import { type TrickplayFencedWrites, TrickplayService } from './trickplay.service.ts';
import { type TrickplayServingDeps, TrickplayServingService } from './trickplay-serving.service.ts';

export interface TrickplayWiring {
  deps: {
    config: Config;
    tools: MediaToolsInfo;
    clock: Clock;
    /** Test seam: ServerOverrides.trickplayReader. */
    trickplayReader?: TrickplayReader | undefined;
  };
  rows: TrickplayRepository;
  /** The job's writes, fenced by its epoch (the row and the rename in one checked transaction). */
  fenced: UnitOfWork<TrickplayFencedWrites>;
  files: MediaFileRepository;
  keyframes: KeyframeSource;
  paths: MediaPathService;
  store: DataStore;
  jobs: JobRunner;
  slots: ConversionSlots;
  /** What the serving service signs sheet URLs with and resolves the asking device by. */
  tokens: TrickplayServingDeps['tokens'];
  devices: TrickplayServingDeps['devices'];
}

export function buildTrickplay(wiring: TrickplayWiring): {
  reader: TrickplayReader;
  jobs: TrickplayService;
  serving: TrickplayServingService;
} {
  const { config, tools, clock } = wiring.deps;
  const jobs = new TrickplayService({
    configured: config.trickplay,
    ffmpegAvailable: tools.ffmpeg.available,
    mode: config.trickplayMode,
    rows: wiring.rows,
    fenced: wiring.fenced,
    files: wiring.files,
    keyframes: wiring.keyframes,
    paths: wiring.paths,
    store: wiring.store,
    jobs: wiring.jobs,
    ffmpeg: new TrickplayFfmpeg(tools.ffmpeg.path),
    slots: wiring.slots,
    clock,
    // Two threads measured as fast as more on keyframes (docs/trickplay.md); never more than a conversion gets.
    threads: Math.max(1, Math.min(2, config.conversionThreads)),
  });
  const reader = wiring.deps.trickplayReader ?? jobs;
  const serving = new TrickplayServingService({
    reader,
    tokens: wiring.tokens,
    files: wiring.files,
    devices: wiring.devices,
  });
  return { reader, jobs, serving };
}

/**
 * The root watch as the roots service tells it of added and removed roots, plus: a removed root
 * takes its files' rows with it (ON DELETE CASCADE), and their seek thumbnails go from the data dir.
 */
export function withTrickplaySweep<Root, Added>(
  rootWatch: { rootAdded(root: Root): Added; rootRemoved(id: number): void },
  trickplay: () => Pick<TrickplayService, 'sweep'>,
): { rootAdded(root: Root): Added; rootRemoved(id: number): void } {
  return {
    rootAdded: (root) => rootWatch.rootAdded(root),
    rootRemoved: (id) => {
      rootWatch.rootRemoved(id);
      void trickplay()
        .sweep()
        .catch(() => undefined);
    },
  };
}
