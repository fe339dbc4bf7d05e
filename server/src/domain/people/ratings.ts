/**
 * Certification systems per country, scored as Jellyfin's `Ratings/<cc>.json` do
 * (shared/reference/households.md §2): a higher score is for older viewers. A person's limit is a
 * certification of the configured country (REELSHELF_CERTIFICATION_COUNTRY); a film shows when its
 * certification is known in that system and scores no higher. Names are matched case-insensitively.
 */
export type RatingTable = ReadonlyMap<string, number>;

/** Upper-case name → the name as written in the tables below (`TV-Y7-FV`, `Approved`). */
const CANONICAL = new Map<string, string>();

function table(entries: Record<string, number>): RatingTable {
  for (const name of Object.keys(entries)) CANONICAL.set(name.toUpperCase(), name);
  return new Map(Object.entries(entries).map(([name, score]) => [name.toUpperCase(), score]));
}

/** Scores follow Jellyfin's tables; NC-17's sub-score 1 is written as 17.1. */
const TABLES: Record<string, RatingTable> = {
  US: table({
    Approved: 0,
    G: 0,
    'TV-G': 0,
    'TV-Y': 0,
    'TV-Y7': 7,
    'TV-Y7-FV': 7.1,
    PG: 10,
    'TV-PG': 13,
    'PG-13': 13,
    'TV-14': 14,
    R: 17,
    'NC-17': 17.1,
    'TV-MA': 17.1,
  }),
  GB: table({ U: 0, UC: 0, PG: 10, '12A': 12, '12': 12, '15': 15, '18': 18, R18: 18.1 }),
  DE: table({
    '0': 0,
    'FSK-0': 0,
    '6': 6,
    'FSK-6': 6,
    '12': 12,
    'FSK-12': 12,
    '16': 16,
    'FSK-16': 16,
    '18': 18,
    'FSK-18': 18,
  }),
  FR: table({ U: 0, TP: 0, '10': 10, '12': 12, '16': 16, '18': 18 }),
  NL: table({ AL: 0, '6': 6, '9': 9, '12': 12, '14': 14, '16': 16, '18': 18 }),
  CA: table({ G: 0, PG: 10, '14A': 14, '18A': 18, R: 18.1, A: 18.1 }),
  AU: table({ E: 0, G: 0, PG: 10, M: 15, 'MA15+': 15.1, 'R18+': 18, 'X18+': 18.1 }),
};

export const CERTIFICATION_COUNTRIES = Object.keys(TABLES);

/** The certifications of a country's system as they are written (`PG-13`), lowest score first. */
const NAMES: Record<string, readonly string[]> = Object.fromEntries(
  Object.entries(TABLES).map(([country, ratings]) => [
    country,
    [...ratings.entries()].sort((a, b) => a[1] - b[1]).map(([name]) => CANONICAL.get(name) ?? name),
  ]),
);

export function certificationNames(country: string): readonly string[] {
  return NAMES[country.toUpperCase()] ?? [];
}

/** A certification as the country's system writes it (`pg-13 ` → `PG-13`), or null when it knows none such. */
export function canonicalCertification(country: string, certification: string): string | null {
  const key = certification.trim().toUpperCase();
  return ratingTable(country)?.has(key) === true ? (CANONICAL.get(key) ?? key) : null;
}

export function ratingTable(country: string): RatingTable | undefined {
  return TABLES[country.toUpperCase()];
}

/** The score of a certification in a country's system, or null when the system does not know it. */
export function certificationScore(country: string, certification: string | null): number | null {
  if (certification === null) return null;
  return ratingTable(country)?.get(certification.trim().toUpperCase()) ?? null;
}
