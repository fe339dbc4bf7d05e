import { certificationScore, ratingTable } from './ratings.ts';

/**
 * The one visibility rule (issue 22 §3). A person with no limit sees every film. A person with a
 * limit sees a film whose certification scores no higher than the limit's, and an unrated film (no
 * certification, or one the country's system does not know) only with `allowUnrated`. Every surface
 * applies this rule through `VisibilityService`; nothing else decides what a person may see.
 */
export interface ContentLimit {
  /** A certification of `country`'s system (`PG`). */
  maxCertification: string;
  allowUnrated: boolean;
}

export function isCertificationVisible(
  country: string,
  limit: ContentLimit | null,
  certification: string | null,
): boolean {
  if (limit === null) return true;
  const max = certificationScore(country, limit.maxCertification);
  const score = certificationScore(country, certification);
  if (score === null) return limit.allowUnrated;
  return max !== null && score <= max;
}

/**
 * The rule as SQL can apply it: the certifications (upper case) that show, and whether a film whose
 * certification is none of `known` shows. `null` when there is no limit.
 */
export interface CertificationFilter {
  allowed: string[];
  known: string[];
  allowUnrated: boolean;
}

export function certificationFilter(country: string, limit: ContentLimit | null): CertificationFilter | null {
  if (limit === null) return null;
  const ratings = ratingTable(country);
  const known = ratings === undefined ? [] : [...ratings.keys()];
  const allowed = known.filter((name) => isCertificationVisible(country, limit, name));
  return { allowed, known, allowUnrated: limit.allowUnrated };
}
