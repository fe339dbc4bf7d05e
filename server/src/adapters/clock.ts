/** Time source, injected so that tests can pin it and expiries can be tested without waiting. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** ISO-8601 UTC timestamp as stored in the database. */
export function isoNow(clock: Clock): string {
  return clock.now().toISOString();
}
