import type { Clock } from '../../adapters/clock.ts';
import { DlnaMediaService, type DlnaMediaDeps, type DlnaViewerSource } from './dlna-media.service.ts';
import { DlnaTokens } from './dlna-tokens.ts';
import { type ProgressiveDeps, ProgressiveConversions } from './progressive-conversion.ts';

/** What the DLNA media service takes from the services already built (services/index.ts). */
export type DlnaMediaParts = Omit<DlnaMediaDeps, 'viewer' | 'tokens' | 'conversions'> & {
  hls: ProgressiveDeps['hls'];
};

/** No DLNA person: what DLNA serves while REELSHELF_DLNA is off (every media URL is 404). */
export const NO_DLNA_PERSON: DlnaViewerSource = { viewer: async () => null };

/**
 * Builds the DLNA media service from the services it reads, the playback key (its tokens' key is
 * derived from it) and the DLNA person's source.
 */
export function buildDlnaMedia(
  parts: DlnaMediaParts,
  options: {
    playbackKey: string;
    clock: Clock;
    ffmpeg: ProgressiveDeps['ffmpeg'];
    viewer: DlnaViewerSource;
    log?: ProgressiveDeps['log'];
  },
): DlnaMediaService {
  const { hls, ...rest } = parts;
  return new DlnaMediaService({
    ...rest,
    viewer: options.viewer,
    tokens: new DlnaTokens(options.playbackKey, options.clock),
    conversions: new ProgressiveConversions({
      hls,
      ffmpeg: options.ffmpeg,
      ...(options.log === undefined ? {} : { log: options.log }),
    }),
  });
}
