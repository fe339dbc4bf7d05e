import type { Clock } from '../adapters/clock.ts';
import type { MediaToolsInfo } from '../adapters/media-tools.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import { DeviceService } from './device.service.ts';
import { UnanalyzedEditionPresenter } from './edition-presenter.ts';
import { LibraryService } from './library.service.ts';
import { MovieService } from './movie.service.ts';
import { SystemStatusService } from './system-status.service.ts';

/** Every service, built once per process (the composition root's output). */
export interface Services {
  status: SystemStatusService;
  movies: MovieService;
  library: LibraryService;
  devices: DeviceService;
}

export interface ServiceDeps {
  config: Config;
  db: Db;
  clock: Clock;
  tools: MediaToolsInfo;
}

export function buildServices(deps: ServiceDeps): Services {
  const status = new SystemStatusService(deps.config, deps.tools);
  return {
    status,
    movies: new MovieService(deps.db, deps.clock),
    library: new LibraryService(deps.db, new UnanalyzedEditionPresenter(), status),
    devices: new DeviceService(),
  };
}
