// Whether an entry of the playback cache is in use, and when it was last used, as any node of the
// cluster sees it (docs/cluster.md "The playback cache across nodes"). Nodes share the data dir: a
// node's cleaner must count what the other nodes' players read, which only the shared rows say.
// Pure: times are epoch ms.

/**
 * How often a node writes `last_used_at` of an artifact while one of its streams of it is open.
 * Every few seconds costs one short UPDATE per open artifact and node, however many range reads.
 */
export const ARTIFACT_READ_REFRESH_MS = 2_000;

/**
 * An artifact whose `last_used_at` is this recent is in use, whichever node streamed it: three
 * refreshes, so one late or lost write (a busy pool) does not free a file a player still reads.
 * Short, so a file nobody reads any more is evictable seconds after its last read.
 */
export const ARTIFACT_IN_USE_MS = 3 * ARTIFACT_READ_REFRESH_MS;

/** What a node knows of one progressive artifact when its cleaner looks at it. */
export interface ArtifactUseInput {
  /** Its row's `last_used_at` (written by every node that streams it). */
  lastUsedMs: number;
  /** A stream of it is open on this node now. */
  openHere: boolean;
  /** Its build just finished on this node (kept through the clean that build asked for). */
  justMade: boolean;
  now: number;
}

/**
 * A progressive artifact is in use while this node streams it, just made it, or any node wrote its
 * `last_used_at` within {@link ARTIFACT_IN_USE_MS} (a stream's start, or its refresh while open).
 * @example artifactUse({ lastUsedMs: 0, openHere: false, justMade: false, now: 60_000 }) // { lastUsedMs: 0, inUse: false }
 */
export function artifactUse(input: ArtifactUseInput): { lastUsedMs: number; inUse: boolean } {
  const recent = input.now - input.lastUsedMs < ARTIFACT_IN_USE_MS;
  return { lastUsedMs: input.lastUsedMs, inUse: input.openHere || input.justMade || recent };
}

/** What a node knows of one HLS presentation (a folder of segments) when its cleaner looks at it. */
export interface PresentationUseInput {
  /** This node's memory of it, or null (another node's players, or an earlier process). */
  local: { lastRequestMs: number; inUse: boolean } | null;
  /** Its row in `hls_runs`, or null (none: an earlier process's folder). */
  row: { lastRequestAt: number; pinned: boolean; ownedElsewhere: boolean } | null;
  /** The newest write in its folder (the last use of a folder nothing else knows). */
  folderMtimeMs: number;
  now: number;
  /** REELSHELF_HLS_IDLE_SECONDS in ms: how long a player's last request keeps a run going. */
  idleMs: number;
}

/**
 * A presentation is in use while this node converts it, waits for it or leases it (its memory), while
 * another node converts it (a run owned under a live lease) or a prewarm pins it, and while a player
 * of any node asked anything of it within the idle time: the same window that keeps its run going,
 * so a player reading a finished presentation on another node keeps its files. Its last use is the
 * newest of this node's memory and the row (the folder's mtime when neither knows it).
 * @example presentationUse({ local: null, row: { lastRequestAt: 50_000, pinned: false, ownedElsewhere: false }, folderMtimeMs: 0, now: 60_000, idleMs: 60_000 }) // { lastUsedMs: 50_000, inUse: true }
 */
export function presentationUse(input: PresentationUseInput): { lastUsedMs: number; inUse: boolean } {
  const { local, row } = input;
  if (local === null && row === null) return { lastUsedMs: input.folderMtimeMs, inUse: false };
  const lastUsedMs = Math.max(local?.lastRequestMs ?? -Infinity, row?.lastRequestAt ?? -Infinity);
  const asked = input.now - lastUsedMs < input.idleMs;
  const inUse = (local?.inUse ?? false) || (row?.ownedElsewhere ?? false) || (row?.pinned ?? false) || asked;
  return { lastUsedMs, inUse };
}
