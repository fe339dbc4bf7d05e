// A piece of the composition root: /stats on its repositories and the library's playback decision.
import type { Db } from '../db/database.ts';
import { LibraryRepository } from '../repositories/library.repository.ts';
import { StatsRepository } from '../repositories/stats.repository.ts';
import { PlaybackShareIndex } from '../services/collector/playback-share.ts';
import { StatsService } from '../services/collector/stats.service.ts';
import type { Clock } from '../adapters/clock.ts';
import type { DeviceProfileService } from '../services/playback/device-profile.service.ts';
import type { PlaybackEditionPresenter } from '../services/playback/edition-presenter.ts';
import type { LibraryGeneration } from '../services/library/library-generation.ts';
import type { VisibilityService } from '../services/people/visibility.service.ts';

export type { StatsService };

export interface StatsWiringDeps {
  clock: Clock;
  editions: Pick<PlaybackEditionPresenter, 'decide'>;
  devices: Pick<DeviceProfileService, 'list'>;
  generation: Pick<LibraryGeneration, 'current' | 'since'>;
  visibility: Pick<VisibilityService, 'filter' | 'visibleMovieIds' | 'seesUnmatched'>;
}

/**
 * The playback share decides with the presenter the library uses (PlaybackEditionPresenter.decide:
 * policy, encoders, ready artifacts), over the rows the library reads, for every listed device.
 */
export function buildStats(db: Db, deps: StatsWiringDeps): StatsService {
  const profiles = deps.devices.list();
  const share = new PlaybackShareIndex({
    files: new LibraryRepository(db),
    decide: (file, profile) => deps.editions.decide(file, profile),
    devices: () => profiles,
    generation: deps.generation,
  });
  return new StatsService({
    reads: new StatsRepository(db),
    share,
    visibility: deps.visibility,
    clock: deps.clock,
  });
}
