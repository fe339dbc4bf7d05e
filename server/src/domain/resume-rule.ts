/**
 * What a reported position means for a person's watch state: Jellyfin's rule (its
 * UserDataManager.UpdatePlayState with the server defaults MinResumePct 5, MaxResumePct 90,
 * MinResumeDurationSeconds 300), applied to every saved position — reelshelf's own
 * `PUT /api/media-file/{id}/progress` and the Jellyfin facade's progress reports alike — so the apps
 * and reelshelf's pages show the same "continue watching".
 *
 * - under 5 % in: the start, not a place to resume (position 0);
 * - over 90 % in, or within a second of the end: played (position 0);
 * - a film shorter than 5 minutes, stopped anywhere past the start: played (position 0);
 * - otherwise: resume there.
 *
 * One deviation: when the duration is unknown (the file is not analysed yet) Jellyfin assumes the
 * film was played to the end; reelshelf cannot judge, so it keeps the position as reported.
 */
export const MIN_RESUME_PERCENT = 5;
export const MAX_RESUME_PERCENT = 90;
export const MIN_RESUME_DURATION_SECONDS = 300;

export interface ResumeOutcome {
  /** The position to keep (0: nothing to resume). */
  positionSeconds: number;
  /** True: the film now counts as watched; false: the watched flag stays as it was. */
  played: boolean;
}

export function resumeOutcome(positionSeconds: number, durationSeconds: number | null): ResumeOutcome {
  const position = Math.max(0, positionSeconds);
  if (position === 0) return { positionSeconds: 0, played: false };
  if (durationSeconds === null || !Number.isFinite(durationSeconds) || durationSeconds <= 0) {
    return { positionSeconds: position, played: false };
  }
  const percent = (position / durationSeconds) * 100;
  if (percent < MIN_RESUME_PERCENT) return { positionSeconds: 0, played: false };
  if (percent > MAX_RESUME_PERCENT || position >= durationSeconds - 1)
    return { positionSeconds: 0, played: true };
  if (durationSeconds < MIN_RESUME_DURATION_SECONDS) return { positionSeconds: 0, played: true };
  return { positionSeconds: position, played: false };
}

/** The duration ffprobe found, from a media file's stored capability JSON (null when unknown). */
export function durationOfCapabilities(json: string | null): number | null {
  if (json === null) return null;
  try {
    const parsed: unknown = JSON.parse(json);
    if (typeof parsed !== 'object' || parsed === null) return null;
    const value = (parsed as { duration_seconds?: unknown }).duration_seconds;
    return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : null;
  } catch {
    return null;
  }
}
