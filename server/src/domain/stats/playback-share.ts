import type { PlaybackPrediction, PlaybackStatusCode } from '../playback/decision-types.ts';

/**
 * How a file plays on a device, as the /stats chart groups it (issue 27 item 6): from the one
 * playback decision the library shows (its prediction and status code), not a rule of its own.
 */
export type ShareClass = 'direct' | 'converted' | 'not_playable' | 'unknown';

export const SHARE_CLASSES: readonly ShareClass[] = ['direct', 'converted', 'not_playable', 'unknown'];

/**
 * direct → direct; remux, adaptive and transcode → converted; a file not analysed yet (status
 * `unknown`: nothing is predicted that was not checked) → unknown; anything else → not playable.
 */
export function shareClass(decision: {
  prediction: PlaybackPrediction;
  statusCode: PlaybackStatusCode;
}): ShareClass {
  if (decision.statusCode === 'unknown') return 'unknown';
  switch (decision.prediction) {
    case 'direct':
      return 'direct';
    case 'remux':
    case 'adaptive':
    case 'transcode':
      return 'converted';
    default:
      return 'not_playable';
  }
}

/** Counts per class, in SHARE_CLASSES order. */
export type ShareCounts = Record<ShareClass, number>;

export function emptyCounts(): ShareCounts {
  return { direct: 0, converted: 0, not_playable: 0, unknown: 0 };
}
