import { canonicalCertification } from './ratings.ts';

/** One entry of TMDb's `release_dates` (providers/tmdb parses them): a country's release of one type. */
export interface ReleaseCertification {
  /** ISO 3166-1 (`US`). */
  country: string;
  /** TMDb's release type: 1 premiere, 2 limited theatrical, 3 theatrical, 4 digital, 5 physical, 6 TV. */
  type: number;
  certification: string | null;
}

/**
 * Which release types speak for a film, best first: the theatrical releases (wide, limited, the
 * premiere), then home releases. A disc's or a TV cut's rating is used only when no cinema had one.
 */
const TYPE_ORDER = [3, 2, 1, 4, 5, 6];

function typeRank(type: number): number {
  const at = TYPE_ORDER.indexOf(type);
  return at === -1 ? TYPE_ORDER.length : at;
}

/**
 * The certification of `country` among a film's releases, as the country's system writes it, or
 * null. Empty strings (TMDb's "no certification for this release") and names the system does not
 * know (`NR`, a typo) are not a rating and are skipped; among the rest the best release type wins,
 * then the earliest entry of that type (TMDb's order).
 */
export function certificationFromReleases(
  country: string,
  releases: readonly ReleaseCertification[],
): string | null {
  let best: { name: string; rank: number } | null = null;
  for (const release of releases) {
    if (release.country.toUpperCase() !== country.toUpperCase() || release.certification === null) continue;
    const name = canonicalCertification(country, release.certification);
    if (name === null) continue;
    const rank = typeRank(release.type);
    if (best === null || rank < best.rank) best = { name, rank };
  }
  return best?.name ?? null;
}
