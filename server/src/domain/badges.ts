import type { LibraryEdition } from '@reelshelf/contract';

export type Badge =
  | 'integrity_flagged'
  | 'missing'
  | 'analysis_failed'
  | 'not_supported'
  | 'not_analyzed'
  | 'playable'
  | 'on_disc';

/** What the service knows about an edition's file beyond the contract fields. */
export interface EditionFacts {
  fileStatus: 'present' | 'missing';
  analysis: 'analyzed' | 'not_analyzed' | 'failed';
}

/**
 * The badge of one edition: the first problem that stops play wins, then playability.
 * @example editionBadge({ integrity_flagged: false, is_playable: true, ... }, present/analyzed) === 'playable'
 */
export function editionBadge(
  edition: Pick<LibraryEdition, 'integrity_flagged' | 'is_playable'>,
  facts: EditionFacts,
): Badge {
  if (facts.fileStatus === 'missing') return 'missing';
  if (edition.integrity_flagged) return 'integrity_flagged';
  if (facts.analysis === 'failed') return 'analysis_failed';
  if (facts.analysis === 'not_analyzed') return 'not_analyzed';
  return edition.is_playable ? 'playable' : 'not_supported';
}

/**
 * A movie's badge (INTERFACE.md): the default edition's badge; `on_disc` for a movie with physical
 * copies and no media file; `missing` for a record with neither (nothing to play, nothing on the shelf).
 */
export function movieBadge(defaultEditionBadge: Badge | null, hasPhysicalCopies: boolean): Badge {
  if (defaultEditionBadge !== null) return defaultEditionBadge;
  return hasPhysicalCopies ? 'on_disc' : 'missing';
}

const NEEDS_REVIEW: ReadonlySet<Badge> = new Set(['integrity_flagged', 'analysis_failed', 'not_analyzed']);
const NOT_PLAYABLE: ReadonlySet<Badge> = new Set(['not_supported', 'missing']);

/** `"<p> playable · <r> need review · <n> not playable"`, counting movie items (INTERFACE.md). */
export function healthSummary(badges: readonly Badge[]): string {
  let playable = 0;
  let review = 0;
  let notPlayable = 0;
  for (const badge of badges) {
    if (badge === 'playable') playable++;
    else if (NEEDS_REVIEW.has(badge)) review++;
    else if (NOT_PLAYABLE.has(badge)) notPlayable++;
  }
  return `${playable} playable · ${review} need review · ${notPlayable} not playable`;
}
