/**
 * The trickplay job's decisions (services/trickplay/trickplay.service.ts), pure and table-tested:
 * which files to queue, the keyframe window, when the running ffmpeg must stop for a viewer, and
 * how ffmpeg's real output is reconciled with the plan.
 */

/** The file's content as the scan last saw it, and as the trickplay row says it was made from. */
export interface TrickplayQueueFacts {
  /** The analysis found a video stream. */
  hasVideo: boolean;
  sizeBytes: number;
  mtimeMs: number;
  fingerprint: string | null;
  /** The row's state (null: no row). */
  state: string | null;
  source: { sizeBytes: number; mtimeMs: number; fingerprint: string | null } | null;
}

export type QueueDecision = 'make' | 'skip';

/**
 * Whether a scan's file gets a trickplay job: a video with no row, or whose content changed since
 * its row (made, or failed: a new file deserves a new try). A failure of the same content is never
 * retried by itself (POST remakes it); a queued or running one is already on its way.
 */
export function queueDecision(facts: TrickplayQueueFacts): QueueDecision {
  if (!facts.hasVideo) return 'skip';
  if (facts.state === null || facts.source === null) return 'make';
  if (facts.state === 'queued' || facts.state === 'running') return 'skip';
  return sourceChanged(facts, facts.source) ? 'make' : 'skip';
}

/** Another size or mtime, or (both known) another fingerprint. */
export function sourceChanged(
  now: { sizeBytes: number; mtimeMs: number; fingerprint: string | null },
  then: { sizeBytes: number; mtimeMs: number; fingerprint: string | null },
): boolean {
  if (now.fingerprint !== null && then.fingerprint !== null && now.fingerprint !== then.fingerprint)
    return true;
  return Number(now.sizeBytes) !== Number(then.sizeBytes) || Number(now.mtimeMs) !== Number(then.mtimeMs);
}

/**
 * The longest stretch (s) with no keyframe that a thumbnail mark can fall in: between two keyframes,
 * and from 0 to the first one. (After the last keyframe only the last, nearest one exists.) Null
 * when there is no keyframe at all.
 */
export function longestKeyframeGap(times: readonly number[]): number | null {
  if (times.length === 0) return null;
  let previous = 0;
  let longest = 0;
  for (const t of times) {
    if (!Number.isFinite(t)) continue;
    longest = Math.max(longest, t - previous);
    previous = Math.max(previous, t);
  }
  return longest;
}

/**
 * Never in a viewer's way: while any conversion holds a slot or waits for one, trickplay pauses
 * (a running ffmpeg is stopped, a job not started yet waits).
 */
export function conversionsBusy(conversions: { inUse: number; queued: number }): boolean {
  return conversions.inUse > 0 || conversions.queued > 0;
}

/** What the running trickplay ffmpeg must be sent now. */
export type PauseAction = 'stop' | 'continue' | 'none';

/** SIGSTOP when it must pause and runs, SIGCONT when it may run and is stopped, else nothing. */
export function pauseAction(paused: boolean, stopped: boolean): PauseAction {
  if (paused && !stopped) return 'stop';
  if (!paused && stopped) return 'continue';
  return 'none';
}

export type SheetReconcile =
  | { ok: true; thumbnailCount: number }
  | { ok: false; reason: 'no_thumbnails' | 'sheets_mismatch'; message: string };

/**
 * ffmpeg's real output against the plan. The plan counts ceil(duration / interval) thumbnails; a
 * container's duration can run past its last picture (audio longer than video, a cut-short file),
 * so ffmpeg may pick fewer: the real count is the thumbnails it reported (one `framecrc` line each),
 * never more than planned, and the sheets must be exactly the ones those fill (the last padded).
 */
export function reconcileSheets(
  planned: { thumbnailCount: number; perSheet: number },
  written: { sheets: number; thumbnails: number },
): SheetReconcile {
  const thumbnailCount = Math.min(planned.thumbnailCount, written.thumbnails);
  if (thumbnailCount <= 0) {
    return {
      ok: false,
      reason: 'no_thumbnails',
      message: 'ffmpeg picked no thumbnail (no picture of the video could be decoded)',
    };
  }
  const expectedSheets = Math.ceil(thumbnailCount / planned.perSheet);
  if (written.sheets !== expectedSheets) {
    return {
      ok: false,
      reason: 'sheets_mismatch',
      message: `ffmpeg wrote ${written.sheets} sheet(s) for ${thumbnailCount} thumbnails (${expectedSheets} expected)`,
    };
  }
  return { ok: true, thumbnailCount };
}
