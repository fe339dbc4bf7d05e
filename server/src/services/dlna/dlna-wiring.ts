/**
 * The DLNA MediaServer put together (docs/dlna.md): its person, the media service (how each file
 * plays on each TV family, the /dlna/media answers) and the content directory over that person's
 * view, handed to DlnaServices for the control route. Called once by the composition root.
 */
import type { Clock } from '../../adapters/clock.ts';
import { startFfmpegPipeline } from '../../adapters/ffmpeg.ts';
import type { Config } from '../../config.ts';
import type { ContentDirectoryDeps } from './content-directory.service.ts';
import { ContentDirectoryService } from './content-directory.service.ts';
import { DlnaMediaService, type DlnaMediaDeps, type DlnaViewerSource } from './dlna-media.service.ts';
import { type DlnaDeps, DlnaServices } from './dlna-services.ts';
import { DlnaTokens } from './dlna-tokens.ts';
import { type ProgressiveDeps, ProgressiveConversions } from './progressive-conversion.ts';

/** What the media service takes from the services already built (services/index.ts). */
export type DlnaMediaParts = Omit<DlnaMediaDeps, 'viewer' | 'tokens' | 'conversions'> & {
  hls: ProgressiveDeps['hls'];
};

/** The services and settings the DLNA parts are built from (services/index.ts passes its own). */
export interface DlnaWiring {
  config: Pick<Config, 'dlnaPerson' | 'dlnaName'>;
  udn: string;
  /** reelshelf's version, the description's modelNumber. */
  version: string;
  people: DlnaDeps['people'];
  clock: Clock;
  playbackKey: string;
  ffmpegPath: string;
  repositories: { artwork: DlnaMediaDeps['artworkState']; facts: ContentDirectoryDeps['facts'] };
  services: Omit<DlnaMediaParts, 'artworkState' | 'decisions'> &
    Pick<ContentDirectoryDeps, 'library' | 'watch' | 'generation'> & {
      artifacts: DlnaMediaDeps['decisions'];
      visibility: DlnaMediaDeps['visibility'] & ContentDirectoryDeps['visibility'];
    };
  /** Test seam: the DLNA person without REELSHELF_DLNA (the media tests' own viewer). */
  viewer?: DlnaViewerSource | undefined;
}

export type { DlnaServices, DlnaViewerSource };

export function buildDlna(wiring: DlnaWiring): DlnaServices {
  const { services, clock } = wiring;
  // The one DLNA person, resolved per request (created, renamed or removed: seen at once).
  const person: DlnaViewerSource = wiring.viewer ?? {
    viewer: async () => (await dlna.identity.viewer()).viewer,
  };
  const media = new DlnaMediaService({
    devices: services.devices,
    decisions: services.artifacts,
    editions: services.editions,
    visibility: services.visibility,
    paths: services.paths,
    subtitles: services.subtitles,
    artwork: services.artwork,
    artworkState: wiring.repositories.artwork,
    viewer: person,
    generation: services.generation,
    plays: services.plays,
    tokens: new DlnaTokens(wiring.playbackKey, clock),
    conversions: new ProgressiveConversions({
      hls: services.hls,
      ffmpeg: (args, inputs) => startFfmpegPipeline(wiring.ffmpegPath, args, inputs),
    }),
  });
  const dlna: DlnaServices = new DlnaServices({
    person: wiring.config.dlnaPerson,
    friendlyName: wiring.config.dlnaName,
    udn: wiring.udn,
    people: wiring.people,
    clock,
    modelNumber: wiring.version,
    media,
    contentDirectory: (identity) =>
      new ContentDirectoryService({
        person,
        media,
        library: services.library,
        facts: wiring.repositories.facts,
        watch: services.watch,
        visibility: services.visibility,
        generation: services.generation,
        // Edition labels and order only: the TV's own profile decides what plays.
        device: services.devices.resolve(undefined).id,
        clock,
        rootTitle: identity.friendlyName,
      }),
  });
  return dlna;
}
