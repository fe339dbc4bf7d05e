/**
 * The seek thumbnails' part of the composition root (services/index.ts): the trickplay job and the
 * reader every surface serves from (trickplay-ports.ts).
 */
import type { Config } from '../../config.ts';
import { noTrickplay, type TrickplayReader } from './trickplay-ports.ts';

export interface TrickplayWiring {
  config: Config;
  /** Test seam: ServerOverrides.trickplayReader. */
  reader?: TrickplayReader | undefined;
}

export function buildTrickplay(wiring: TrickplayWiring): { reader: TrickplayReader } {
  return { reader: wiring.reader ?? noTrickplay };
}
