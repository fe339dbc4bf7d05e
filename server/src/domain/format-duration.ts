/**
 * The one way reelshelf writes a duration for people: pages, API labels (`runtime_text`) and the CLI
 * all call this, so the same film never reads "2h 16m" in one place and "2 h 16 min" in another.
 *
 * Style: whole minutes from a minute up ("1 h 52 min", "48 min", "2 h"), whole seconds below ("8 s"),
 * so an 8-second clip does not claim to last a minute.
 */

const MINUTE = 60;
const HOUR = 60 * MINUTE;

/**
 * @param seconds a duration in seconds (fractions allowed)
 * @returns the duration in words; null when unknown, not finite, zero or negative
 * @example formatDuration(8164.1) // '2 h 16 min'
 * @example formatDuration(8) // '8 s'
 */
export function formatDuration(seconds: number | null | undefined): string | null {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds) || seconds <= 0) return null;
  const wholeSeconds = Math.round(seconds);
  // A duration that rounds to under a minute reads in seconds (at least "1 s": it is not nothing).
  if (wholeSeconds < MINUTE) return `${Math.max(1, wholeSeconds)} s`;
  const minutes = Math.round(seconds / MINUTE);
  const hours = Math.floor(minutes / (HOUR / MINUTE));
  const rest = minutes % (HOUR / MINUTE);
  if (hours === 0) return `${rest} min`;
  return rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
}

/** A duration given in whole minutes (a movie's metadata runtime), in the same words. */
export function formatMinutes(minutes: number | null | undefined): string | null {
  if (minutes === null || minutes === undefined) return null;
  return formatDuration(minutes * MINUTE);
}
