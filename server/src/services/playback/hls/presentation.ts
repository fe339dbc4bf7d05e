import { createHash } from 'node:crypto';
import type { StoredFile } from '../../../adapters/data-store.ts';
import type { HlsPlan } from '../../../domain/hls/hls-plan.ts';
import type { HlsSegment } from '../../../domain/hls/segment-plan.ts';
import type { Capabilities } from '../../../domain/media/capabilities.ts';
import type { HlsRunIdentity } from '../../../repositories/hls-run.repository.ts';
import type { ConversionSlot } from '../conversion-slots.ts';

/** One ffmpeg run of a presentation, from segment `start` on. */
export interface Run {
  id: number;
  start: number;
  /** Per rendition: the index of the next segment this run will complete. */
  next: Map<string, number>;
  abort: AbortController;
  ended: boolean;
  error: string | null;
  /** Kept running to the end whoever watches (prewarm). */
  pinned: boolean;
  /** The claim's epoch it runs under: its file names carry it, its announcements are fenced by it. */
  epoch: number;
  /** Its claim was taken over (this node was presumed dead): it stops and gives nothing back. */
  claimLost: boolean;
  /** Requests waiting for a segment this run will make: while any waits, nobody restarts it. */
  waiters: number;
  speed: number | null;
  slowSince: number | null;
  /** The conversion slot it holds; null once given back (or handed to the run that replaces it). */
  slot: ConversionSlot | null;
  /**
   * Set by the restart that stops it, settled once that restart has started the next run: its slot
   * goes to that run instead of back to the pool, and other requests wait for it instead of
   * starting runs of their own.
   */
  replaced: Promise<void> | null;
  finished: Promise<void>;
}

/**
 * An HLS presentation: one film's content on one device with one conversion plan, its segments on
 * disk, and at most one run making more of them.
 */
export interface Presentation {
  key: string;
  fileId: number;
  device: string;
  source: string;
  caps: Capabilities;
  plan: HlsPlan;
  segments: HlsSegment[];
  /** Where its playlists' timeline starts (film seconds): `playlistTimelineStart`. */
  timelineStart: number;
  renditions: string[];
  /** What its row in `hls_runs` is made from (docs/cluster.md "HLS across nodes"). */
  identity: HlsRunIdentity;
  /**
   * Per rendition: the announced segments (index → file name in the rendition's folder), as this
   * node last read or made them (`hls_segments` is the truth, never a folder listing).
   */
  stored: Map<string, Map<number, string>>;
  /** Per rendition whose init section is announced: its file name. */
  inits: Map<string, string>;
  /**
   * This node's claim on the presentation's run (its epoch fences every write; `handledSeq`: the
   * last seek of another node this owner has acted on); null while another node or none converts it.
   */
  claim: { epoch: number; handledSeq: number } | null;
  /** A claim (and the run after it) being made by this node: others wait for it. */
  claiming: Promise<void> | null;
  job: Run | null;
  lastRequest: number;
  /** Requests waiting for a segment or init right now: a run they wait for is not idle. */
  waiting: number;
  /** Holders that read its files outside any request (a prewarm's remux): it is not evicted meanwhile. */
  leases: number;
  listeners: Set<() => void>;
}

export type HlsFile = { file: StoredFile; etag: string };

/** Stable id of an HLS presentation: the source content, the device and what the conversion does. */
export function hlsKey(sourceKey: string, device: string, plan: HlsPlan, segments: HlsSegment[]): string {
  return createHash('sha256')
    .update(JSON.stringify([sourceKey, device, plan, segments.length, segments.at(-1)?.start ?? 0]))
    .digest('hex')
    .slice(0, 32);
}

/** Whether a run of the presentation is going (it holds a conversion slot). */
export function isRunning(p: Presentation): boolean {
  return p.job !== null && !p.job.ended;
}

/** Being converted, waited for or read: what the cache never evicts. */
export function inUse(p: Presentation): boolean {
  return isRunning(p) || p.waiting > 0 || p.leases > 0;
}

/** The first segment some rendition lacks (0 when none is missing). */
export function firstMissing(p: Presentation): number {
  for (let i = 0; i < p.segments.length; i++) if (!hasEvery(p, i)) return i;
  return 0;
}

/** Whether every rendition of segment `index` is announced. */
export function hasEvery(p: Presentation, index: number): boolean {
  return p.renditions.every((r) => p.stored.get(r)?.has(index) === true);
}

/** Wakes whoever waits for a change of the presentation (a segment stored, a run ended). */
export function notify(p: Presentation): void {
  const listeners = [...p.listeners];
  p.listeners.clear();
  for (const l of listeners) l();
}
