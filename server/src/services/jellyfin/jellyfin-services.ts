/**
 * The Jellyfin facade's services (docs/jellyfin.md), built together over the library, its people
 * and the one decision engine: browsing (kept per person and library generation), playback,
 * progress and images. Moved out of services/index.ts, which stays under 500 lines.
 */
import type { Clock } from '../../adapters/clock.ts';
import { JellyfinIds } from '../../domain/jellyfin/ids.ts';
import { ImageTags } from '../../domain/jellyfin/image-tags.ts';
import type { ArtworkRepository } from '../../repositories/artwork.repository.ts';
import type { FavouriteRepository } from '../../repositories/favourite.repository.ts';
import type { JellyfinFactsRepository } from '../../repositories/jellyfin-facts.repository.ts';
import type { UserRepository } from '../../repositories/user.repository.ts';
import { FavouriteService } from '../library/favourite.service.ts';
import type { LibraryGeneration } from '../library/library-generation.ts';
import type { LibraryService } from '../library/library.service.ts';
import type { MovieService } from '../library/movie.service.ts';
import type { WatchStateService } from '../library/watch-state.service.ts';
import type { VisibilityService } from '../people/visibility.service.ts';
import type { ArtifactService } from '../playback/artifact.service.ts';
import type { DeviceProfileService } from '../playback/device-profile.service.ts';
import type { PlaybackEditionPresenter } from '../playback/edition-presenter.ts';
import type { NowPlayingService } from '../playback/now-playing.service.ts';
import type { SubtitleVttService } from '../playback/subtitle-vtt.service.ts';
import { JellyfinCatalogue } from './jellyfin-catalogue.ts';
import { JellyfinImagesService } from './jellyfin-images.service.ts';
import { JellyfinLibraryService, MOVIES_VIEW_ROW } from './jellyfin-library.service.ts';
import { JellyfinPlaybackService } from './jellyfin-playback.service.ts';
import { JellyfinPlaystateService } from './jellyfin-playstate.service.ts';
import { JellyfinTrickplayService } from './jellyfin-trickplay.service.ts';
import type { TrickplayReader } from '../trickplay/trickplay-ports.ts';

export interface JellyfinDeps {
  /** The repositories the facade reads (built by the composition root). */
  repositories: {
    facts: JellyfinFactsRepository;
    favourites: FavouriteRepository;
    artworkRows: ArtworkRepository;
  };
  clock: Clock;
  /** The data dir's secret behind the facade's ids and image tags. */
  key: string;
  devices: DeviceProfileService;
  library: LibraryService;
  generation: LibraryGeneration;
  visibility: VisibilityService;
  movies: MovieService;
  watch: WatchStateService;
  artifacts: ArtifactService;
  editions: PlaybackEditionPresenter;
  subtitles: SubtitleVttService;
  artwork: ConstructorParameters<typeof JellyfinImagesService>[0]['artwork'];
  users: UserRepository;
  plays: NowPlayingService;
  /** The made seek thumbnails (the items' Trickplay field, /Videos/{id}/Trickplay/…). */
  trickplay: TrickplayReader;
}

export function buildJellyfin(deps: JellyfinDeps): {
  jellyfin: JellyfinLibraryService;
  jellyfinPlayback: JellyfinPlaybackService;
  jellyfinPlaystate: JellyfinPlaystateService;
  jellyfinImages: JellyfinImagesService;
  jellyfinTrickplay: JellyfinTrickplayService;
} {
  const { library, generation, visibility, movies, watch, artifacts, editions, subtitles, artwork, users } =
    deps;
  const devices = deps.devices;
  const jellyfinIds = new JellyfinIds(deps.key);
  const favourites = new FavouriteService(deps.repositories.favourites, visibility, deps.clock);
  const jellyfinDevice = devices.resolve(undefined).id;
  const jellyfinTags = new ImageTags(deps.key);
  const jellyfin = new JellyfinLibraryService({
    library,
    // Kept per person and library generation: the apps' whole-library sync costs no presentation.
    catalogue: new JellyfinCatalogue({
      library,
      generation,
      visibility,
      facts: deps.repositories.facts,
      favourites,
      ids: jellyfinIds,
      tags: jellyfinTags,
      device: jellyfinDevice,
      parentId: jellyfinIds.encode('folder', MOVIES_VIEW_ROW),
    }),
    movies,
    visibility,
    watch,
    favourites,
    ids: jellyfinIds,
    device: jellyfinDevice,
    trickplay: deps.trickplay,
  });
  const jellyfinPlayback = new JellyfinPlaybackService({
    library: jellyfin,
    ids: jellyfinIds,
    devices,
    decisions: artifacts,
    editions,
    visibility,
    subtitles,
  });
  const jellyfinImages = new JellyfinImagesService({
    ids: jellyfinIds,
    tags: jellyfinTags,
    artwork,
    artworkRows: deps.repositories.artworkRows,
    people: users,
    visibility,
  });
  const jellyfinPlaystate = new JellyfinPlaystateService({
    ids: jellyfinIds,
    library,
    visibility,
    watch,
    plays: deps.plays,
    device: devices.resolve(undefined).id,
  });
  const jellyfinTrickplay = new JellyfinTrickplayService({ reader: deps.trickplay, files: jellyfinPlayback });
  return { jellyfin, jellyfinPlayback, jellyfinPlaystate, jellyfinImages, jellyfinTrickplay };
}
