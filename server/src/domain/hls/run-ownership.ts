// The rules of HLS conversions shared by several nodes (docs/cluster.md "HLS across nodes"): where a
// segment comes from on a node that does not convert the presentation itself, which nodes may convert
// now, when a run row may be claimed, and from which segment a claimed run starts. Pure: times are
// epoch ms; liveness of a local pid is asked by the caller.
import { type NodeRole, takeOverReason } from '../jobs/cluster-jobs.ts';
import { REACH_SOON_SECONDS } from '../playback/segment-source.ts';

/** The init section's `idx` among a presentation's announced segments (`hls_segments`). */
export const INIT_INDEX = -1;

/** Whether a node of this role runs ffmpeg for players (`api` nodes never do). */
export function convertsHls(role: NodeRole): boolean {
  return role !== 'api';
}

/** A presentation's run row as the rules see it (repositories/hls-run.repository.ts). */
export interface RunRowView {
  ownerNode: string | null;
  leaseUntil: number | null;
  startIndex: number;
  /** The next segment its run will complete (the highest announced + 1). */
  nextIndex: number;
  wantedIndex: number;
  pinned: boolean;
  /** Why the last run, started at `startIndex`, failed. */
  error: string | null;
}

/** The other nodes that convert, as their heartbeats say: none alive, all slots held, or one free. */
export type OtherConverters = 'none' | 'busy' | 'free';

/**
 * - `claim`: nobody converts it; this node converts and has a free slot: claim the run, start here
 * - `ask`: nobody converts it and this node cannot (an `api` node, or no slot here): ask the nodes
 *   that convert (the row's `asked`) and wait for the announcement
 * - `wait`: its owner gets there soon: wait for the announcement
 * - `seek`: its owner converts elsewhere in the film: ask it to restart here (`wanted_index`), wait
 * - `fail`: the run that started at this very segment failed: 500, not another run that fails so
 * - `busy`: every node that converts has every slot held: 503 conversions_busy
 * - `no_converter`: no node that converts is alive: 503, start a worker
 */
export type RemoteSegmentAction = 'claim' | 'ask' | 'wait' | 'seek' | 'fail' | 'busy' | 'no_converter';

/** Whether the row's owner holds it now (another node, under a lease not run out, its process alive). */
export function ownedElsewhere(
  row: RunRowView | null,
  now: number,
  self: { nodeId: string; ownerProcessGone: boolean },
): boolean {
  if (row === null || row.ownerNode === null || row.ownerNode === self.nodeId) return false;
  if (row.leaseUntil === null || row.leaseUntil < now) return false;
  return !self.ownerProcessGone;
}

/**
 * Where segment `index` comes from on a node that runs no ffmpeg for the presentation (it is not
 * stored, as far as the announcements say).
 * @param startOf the start time (s) of a segment of the plan
 * @example remoteSegmentAction({ index: 3, row: null, now: 0, self: { nodeId: 'a', ownerProcessGone: false, converts: false, freeSlot: false }, others: 'free', startOf: (i) => i * 4 }) // 'ask'
 */
export function remoteSegmentAction(input: {
  index: number;
  row: RunRowView | null;
  now: number;
  self: { nodeId: string; ownerProcessGone: boolean; converts: boolean; freeSlot: boolean };
  others: OtherConverters;
  startOf: (index: number) => number | undefined;
}): RemoteSegmentAction {
  const { index, row, self } = input;
  if (row !== null && ownedElsewhere(row, input.now, self)) {
    if (index >= row.startIndex && (row.pinned || reachesSoon(row, index, input.startOf))) return 'wait';
    return row.wantedIndex === index && index >= row.startIndex ? 'wait' : 'seek';
  }
  if (row !== null && row.ownerNode === null && row.error !== null && row.startIndex === index) return 'fail';
  if (self.converts && self.freeSlot) return 'claim';
  if (input.others === 'free') return 'ask';
  if (self.converts || input.others === 'busy') return 'busy';
  return 'no_converter';
}

/** Whether the owner's run, at its announced progress and real time, makes `index` soon. */
function reachesSoon(
  row: RunRowView,
  index: number,
  startOf: (index: number) => number | undefined,
): boolean {
  if (index < row.nextIndex) return true;
  const from = startOf(row.nextIndex) ?? 0;
  const to = startOf(index) ?? 0;
  return to - from <= REACH_SOON_SECONDS;
}

/** A node's row as its heartbeat left it (the `nodes` table). */
export interface ConverterNode {
  id: string;
  role: string;
  /** JSON with `conversions: { in_use, limit }` (JobRunner.reportLoad). */
  loadJson: string;
}

/** What the live nodes other than `selfId` offer for conversions. */
export function otherConverters(nodes: readonly ConverterNode[], selfId: string): OtherConverters {
  let any = false;
  for (const n of nodes) {
    if (n.id === selfId || n.role === 'api') continue;
    any = true;
    const slots = conversionSlotsOf(n.loadJson);
    // A node that says nothing of its slots (an older version) is taken to have room.
    if (slots === null || slots.inUse < slots.limit) return 'free';
  }
  return any ? 'busy' : 'none';
}

function conversionSlotsOf(loadJson: string): { inUse: number; limit: number } | null {
  try {
    const load = JSON.parse(loadJson) as { conversions?: { in_use?: unknown; limit?: unknown } };
    const inUse = load.conversions?.in_use;
    const limit = load.conversions?.limit;
    return typeof inUse === 'number' && typeof limit === 'number' ? { inUse, limit } : null;
  } catch {
    return null;
  }
}

/**
 * A conversion a node runs for players, as its heartbeat publishes it in its load
 * (`hls_runs`: JobRunner.reportLoad): what another node needs to tell its own players how it goes.
 */
export interface PublishedRun {
  file_id: number;
  device: string;
  /** ffmpeg's last speed (1 = real time). */
  speed: number;
  /** How long it has run below real time when published; null when it keeps up. */
  slow_ms: number | null;
}

/**
 * The conversion of `fileId` for `device` that a live node other than `selfId` publishes, or null
 * (none, or a load from a version that publishes none).
 */
export function publishedRunOf(
  nodes: readonly ConverterNode[],
  selfId: string,
  fileId: number,
  device: string,
): PublishedRun | null {
  for (const n of nodes) {
    if (n.id === selfId) continue;
    for (const run of publishedRuns(n.loadJson)) {
      if (run.file_id === fileId && run.device === device) return run;
    }
  }
  return null;
}

function publishedRuns(loadJson: string): PublishedRun[] {
  let load: { hls_runs?: unknown };
  try {
    load = JSON.parse(loadJson) as { hls_runs?: unknown };
  } catch {
    return [];
  }
  if (!Array.isArray(load.hls_runs)) return [];
  return load.hls_runs.flatMap((raw: unknown) => {
    if (typeof raw !== 'object' || raw === null) return [];
    const r = raw as Record<string, unknown>;
    const slow = r.slow_ms;
    return typeof r.file_id === 'number' &&
      typeof r.device === 'string' &&
      typeof r.speed === 'number' &&
      Number.isFinite(r.speed) &&
      (slow === null || (typeof slow === 'number' && Number.isFinite(slow)))
      ? [{ file_id: r.file_id, device: r.device, speed: r.speed, slow_ms: slow }]
      : [];
  });
}

/**
 * Why a node that converts may claim a run row now, or null: nobody holds it and a node asked for it
 * (`no_owner`), or its owner is gone (`lease_expired`, `process_gone`: jobs' take-over rule) while a
 * player still asks within the idle time or a prewarm pins it.
 */
export function claimReason(
  row: RunRowView & { asked: boolean; lastRequestAt: number },
  now: number,
  self: { nodeId: string; host: string; runsIt: boolean; idleMs: number },
  owner: { host: string; pid: number } | undefined,
  pidAlive: (pid: number) => boolean,
): 'no_owner' | 'lease_expired' | 'process_gone' | null {
  if (self.runsIt) return null;
  if (row.ownerNode === null) return row.asked ? 'no_owner' : null;
  const reason = takeOverReason(
    { owner_node: row.ownerNode, lease_until: row.leaseUntil },
    now,
    { nodeId: self.nodeId, host: self.host, runsIt: false },
    owner,
    pidAlive,
  );
  if (reason === null) return null;
  return row.pinned || now - row.lastRequestAt <= self.idleMs ? reason : null;
}

/**
 * Where a claimed run starts: the first segment some rendition lacks at or after `from` (the
 * segment players want; after a take-over, "goes on from the first missing segment"), else the first
 * missing anywhere, else null (every segment is there: nothing to run).
 */
export function firstMissingFrom(
  total: number,
  from: number,
  has: (index: number) => boolean,
): number | null {
  const start = Math.max(0, Math.min(from, total));
  for (let i = start; i < total; i++) if (!has(i)) return i;
  for (let i = 0; i < start; i++) if (!has(i)) return i;
  return null;
}

/** Whether a write of a run's owner may land: only the holder of the current epoch writes (the fence). */
export function announceAllowed(
  row: { epoch: number; ownerNode: string | null } | null,
  writerEpoch: number,
): boolean {
  return row !== null && row.ownerNode !== null && row.epoch === writerEpoch;
}

/** Whether this node's run lost its claim: the row renewed under another epoch, or not at all. */
export function claimLost(renewed: { epoch: number } | undefined, heldEpoch: number): boolean {
  return renewed === undefined || renewed.epoch !== heldEpoch;
}
