/** What a request for an HLS segment knows about the presentation's run (null: none ever started). */
export interface RunView {
  ended: boolean;
  error: string | null;
  /** The segment it started at. */
  start: number;
  /** The next segment it will complete of the requested rendition. */
  next: number;
  /** Its measured speed (× real time), null before the first report. */
  speed: number | null;
  /** A prewarm's run: never stopped for a player. */
  pinned: boolean;
  /** Requests waiting for a segment it will make. */
  waiters: number;
}

/**
 * - `serve`: the segment is on disk
 * - `wait`: the running run gets there soon (or is a prewarm's run that will): wait for it
 * - `fail`: the run started at this very segment failed: 500, not another run that fails the same way
 * - `take_turn`: another player waits for the running run: let it be served, then ask again
 * - `restart`: stop the running run (if any) and start one at this segment
 */
export type SegmentSource = 'serve' | 'wait' | 'fail' | 'take_turn' | 'restart';

/** A segment the running run reaches within this many seconds of work is waited for, not restarted at. */
export const REACH_SOON_SECONDS = 5;

/**
 * Where segment `index` of a rendition comes from: the cache, the running run, or a new run started
 * there. Two players seeking to different places take turns instead of stopping each other's runs
 * before either is served; a prewarm's run is never stopped for a segment it will make.
 * @param startOf the start time (s) of a segment of the plan
 * @example chooseSegmentSource({ stored: false, index: 3, run: null, startOf: (i) => i * 4 }) // 'restart'
 */
export function chooseSegmentSource(input: {
  stored: boolean;
  index: number;
  run: RunView | null;
  startOf: (index: number) => number | undefined;
}): SegmentSource {
  const { stored, index, run } = input;
  if (stored) return 'serve';
  const running = run !== null && !run.ended;
  if (
    running &&
    run.error === null &&
    (reachesSoon(run, index, input.startOf) || (run.pinned && index >= run.start))
  ) {
    return 'wait';
  }
  if (run !== null && run.ended && run.error !== null && run.start === index) return 'fail';
  if (running && run.waiters > 0) return 'take_turn';
  return 'restart';
}

/** Whether the running run will produce this segment after little more work. */
function reachesSoon(run: RunView, index: number, startOf: (index: number) => number | undefined): boolean {
  if (index < run.start) return false;
  if (index < run.next) return true; // being written right now (or just done)
  const from = startOf(run.next) ?? 0;
  const to = startOf(index) ?? 0;
  return (to - from) / Math.max(0.5, run.speed ?? 1) <= REACH_SOON_SECONDS;
}
