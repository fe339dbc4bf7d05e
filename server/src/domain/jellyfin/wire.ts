/**
 * Jellyfin's wire conventions (players.md §1.3): ticks of 100 ns, dates with seven fraction
 * digits and a Z, PascalCase members (our DTOs are written PascalCase) with nulls omitted.
 */

export const TICKS_PER_SECOND = 10_000_000;

/** Seconds → ticks (whole ticks). */
export function secondsToTicks(seconds: number): number {
  return Math.round(seconds * TICKS_PER_SECOND);
}

/**
 * Ticks → seconds; null for what is not a finite, non-negative number of ticks. Apps send ticks
 * as JSON numbers, query strings as text; both are accepted.
 */
export function ticksToSeconds(ticks: unknown): number | null {
  const value = typeof ticks === 'string' && /^\d+$/.test(ticks.trim()) ? Number(ticks) : ticks;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return null;
  return value / TICKS_PER_SECOND;
}

/**
 * A date as .NET writes it: `yyyy-MM-ddTHH:mm:ss.fffffffZ` (UTC, seven fraction digits). Accepts a
 * Date or what SQLite and ISO give (`2024-05-01 10:00:00`, `2024-05-01T10:00:00.123Z`; a time
 * without a zone is UTC, as reelshelf stores it). Null for what is not a date.
 */
export function jellyfinDate(value: Date | string): string | null {
  let date: Date;
  if (typeof value === 'string') {
    const text = value.trim().replace(' ', 'T');
    const zoned = /(?:Z|[+-]\d\d:?\d\d)$/i.test(text) || !/T\d/.test(text) ? text : `${text}Z`;
    date = new Date(zoned);
  } else date = value;
  const ms = date.getTime();
  if (!Number.isFinite(ms)) return null;
  const iso = date.toISOString(); // yyyy-MM-ddTHH:mm:ss.sssZ
  return `${iso.slice(0, 23)}0000Z`;
}

/** JSON as Jellyfin writes it: members whose value is null or undefined are left out, at every depth. */
export function toWireJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    const kept: Record<string, unknown> = {};
    for (const [k, inner] of Object.entries(v as Record<string, unknown>)) {
      if (inner !== null && inner !== undefined) kept[k] = inner;
    }
    return kept;
  });
}
