// What ArtifactService needs of the rest of the server (the composition root wires them; unit tests
// hand in fakes): the artifacts table, its fenced end of a build, the jobs, ffmpeg, the data store.
import type { Clock } from '../../adapters/clock.ts';
import type { DataStore } from '../../adapters/data-store.ts';
import type { FfmpegRunOptions } from '../../adapters/ffmpeg.ts';
import type { SubscribeState } from '../../domain/cluster/state-message.ts';
import type { JobRunner } from '../../jobs/job-runner.ts';
import type { ArtifactRepository } from '../../repositories/artifact.repository.ts';
import type { JobRepository } from '../../repositories/job.repository.ts';
import type { LibraryRepository } from '../../repositories/library.repository.ts';
import type { UnitOfWork } from '../../repositories/unit-of-work.ts';
import type { MediaPathService } from '../library/media-path.service.ts';
import type { ReadyArtifactIndex } from './artifact-index.ts';
import type { ConversionSlots } from './conversion-slots.ts';
import type { DeviceProfileService } from './device-profile.service.ts';
import type { PlaybackEditionPresenter } from './edition-presenter.ts';
import type { PlaybackCache } from './playback-cache.ts';

/** The HLS engine, as a prewarm uses it (one encode feeds both HLS and the progressive artifact). */
export interface HlsPrewarmPort {
  /** Every segment made; local playlists of them, which stay on disk until `release`. */
  prepareAll(
    fileId: number,
    device: string,
    signal: AbortSignal,
    onProgress: (done: number, total: number) => void,
  ): Promise<{ video: string | null; audio: string | null; audioCodec: string | null; release(): void }>;
}

/** The artifacts table, as this service uses it (`ArtifactRepository`; tests pass an in-memory one). */
export type ArtifactRecords = Pick<
  ArtifactRepository,
  | 'getByKey'
  | 'getByJob'
  | 'upsertBuilding'
  | 'setJob'
  | 'finish'
  | 'touch'
  | 'readyByAge'
  | 'allKeys'
  | 'delete'
>;

/**
 * What a build writes when it ends, together with the check that it still holds its job (its
 * epoch's fence: docs/cluster.md "Fencing").
 */
export interface ArtifactFencedWrites {
  records: Pick<ArtifactRepository, 'finish'>;
  jobs: Pick<JobRepository, 'assertHeld'>;
}

/** A media file with its root and analysis (`LibraryRepository.file`). */
export type MediaFileLookup = Pick<LibraryRepository, 'file'>;

/** The job runner, as this service uses it: builds are jobs of kind `artifact`. */
export type ArtifactJobs = Pick<JobRunner, 'register' | 'enqueue' | 'isActive' | 'get' | 'cancel' | 'wait'>;

/** The part of DataStore the artifacts use (its `artifacts` area). */
export type ArtifactArea = Pick<
  DataStore,
  'ensure' | 'resolve' | 'locate' | 'list' | 'stat' | 'commit' | 'remove'
>;

export interface ArtifactDeps {
  /** Set once the HLS engine exists (it needs this service first): prewarms go through it. */
  hls?: HlsPrewarmPort;
  records: ArtifactRecords;
  /** A build's end (the rename into place, its row), in a transaction fenced by the build's epoch. */
  fenced: UnitOfWork<ArtifactFencedWrites>;
  files: MediaFileLookup;
  jobs: ArtifactJobs;
  ffmpeg: { run(args: string[], options?: FfmpegRunOptions): Promise<void> };
  ffmpegAvailable: boolean;
  transcodeAvailable: boolean;
  editions: Pick<PlaybackEditionPresenter, 'decide' | 'capabilitiesOf' | 'policy'>;
  devices: Pick<DeviceProfileService, 'resolve'>;
  paths: Pick<MediaPathService, 'resolveInsideRoot'>;
  index: ReadyArtifactIndex;
  /** The change feed's node-state messages: other nodes' builds and evictions. */
  subscribeState?: SubscribeState;
  clock: Clock;
  /** Artifacts live in its `artifacts` area. */
  store: ArtifactArea;
  /** The machine's one conversion limit: a build waits for a slot. */
  slots: ConversionSlots;
  /** The one bound of artifacts + segments: artifacts register with it and ask it after every build. */
  cache: PlaybackCache;
}
