import { ownedElsewhere } from '../../../domain/hls/run-ownership.ts';
import type { ConversionSlots } from '../conversion-slots.ts';
import { type HlsOwnership, rowView } from './hls-ownership.ts';
import { firstMissing, hasEvery, type Presentation } from './presentation.ts';
import type { PresentationRegistry } from './presentation-registry.ts';
import type { HlsRuns } from './hls-runs.ts';
import type { HlsSegmentStore } from './segment-store.ts';

/** What a prewarm hands the remux: local media playlists of the segments, kept until `release`. */
export interface PreparedSegments {
  /** Absolute path of the video's local media playlist (null without video). */
  video: string | null;
  /** Absolute path of the default audio's local media playlist (null without audio). */
  audio: string | null;
  /** The default audio rendition's codec (AAC out of MPEG-TS needs `aac_adtstoasc` in MP4). */
  audioCodec: string | null;
  /** The segments may be evicted again (the remux is done with them). */
  release(): void;
}

export interface HlsPrewarmDeps {
  presentations: PresentationRegistry;
  runs: HlsRuns;
  segments: HlsSegmentStore;
  slots: ConversionSlots;
  ownership: HlsOwnership;
  now: () => number;
}

/**
 * Prewarm: makes every segment of every rendition of a presentation — a run kept going whoever
 * watches, restarted at the first missing segment until none is missing — then writes local
 * playlists beside them so the progressive artifact can be remuxed from the same segments (one
 * encode, one source of truth). Players of the same presentation share the run meanwhile; a prewarm
 * that finds every conversion slot held waits its turn instead of failing. A run another node holds
 * is pinned on its row (its owner keeps it going to the end) and its segments are awaited.
 */
export class HlsPrewarm {
  constructor(private readonly deps: HlsPrewarmDeps) {}

  async prepareAll(
    fileId: number,
    device: string,
    signal: AbortSignal,
    onProgress: (done: number, total: number) => void,
  ): Promise<PreparedSegments> {
    const s = await this.deps.presentations.of(fileId, device, true);
    // Leased from the first segment on: what is made must still be there for the remux.
    s.leases++;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      s.leases--;
    };
    try {
      await this.makeEverySegment(s, signal, onProgress);
      const audio = s.plan.audio.find((a) => a.isDefault) ?? s.plan.audio[0];
      return {
        video: s.plan.video === null ? null : await this.deps.segments.writeLocalPlaylist(s, 'v'),
        audio: audio === undefined ? null : await this.deps.segments.writeLocalPlaylist(s, `a${audio.track}`),
        audioCodec: audio?.codec ?? null,
        release,
      };
    } catch (err) {
      release();
      throw err;
    }
  }

  private async makeEverySegment(
    s: Presentation,
    signal: AbortSignal,
    onProgress: (done: number, total: number) => void,
  ): Promise<void> {
    const total = s.segments.length;
    const { ownership } = this.deps;
    const done = () => {
      let n = 0;
      for (let i = 0; i < total; i++) if (hasEvery(s, i)) n++;
      return n;
    };
    let pinnedElsewhere = false;
    const stop = () => {
      const job = s.job;
      if (job !== null && !job.ended && job.pinned) job.abort.abort(new Error('prewarm cancelled'));
    };
    signal.addEventListener('abort', stop, { once: true });
    let lastStart: { index: number; done: number } | null = null;
    try {
      for (;;) {
        signal.throwIfAborted();
        this.deps.presentations.touch(s);
        // What other nodes made counts too (read again at most every 250 ms).
        await ownership.refresh(s);
        const count = done();
        onProgress(count, total);
        if (count === total && s.renditions.every((r) => s.inits.has(r))) return;
        const job = s.job;
        if (job !== null && job.ended && job.pinned && job.error !== null) {
          throw new Error(`the conversion failed: ${job.error}`);
        }
        if (job?.replaced) {
          await job.replaced; // a player is restarting it elsewhere: the loop pins the new run
          continue;
        }
        if (s.claiming !== null) {
          await s.claiming; // a player of this node is starting a run: the loop pins it
          continue;
        }
        if (job === null || job.ended) {
          const row = await ownership.row(s);
          const gone = row !== undefined && ownership.ownerProcessGone(row);
          if (
            row !== undefined &&
            ownedElsewhere(rowView(row), this.deps.now(), {
              nodeId: ownership.node().id,
              ownerProcessGone: gone,
            })
          ) {
            // Another node converts it: it keeps the run going to the end; its segments are awaited.
            if (row.pinned !== 1) await ownership.pin(s, true);
            pinnedElsewhere = true;
            await this.deps.presentations.changed(s, this.deps.now() + 3_600_000);
            continue;
          }
          // Every slot held (players converting): a prewarm waits its turn, it does not fail.
          const slot = await this.deps.slots.take(signal);
          // The wait may have been long: look again with the slot in hand (a player may have
          // started a run, which the loop then pins, or made what was missing).
          if (s.job !== job || done() !== count) {
            slot.release();
            continue;
          }
          const index = firstMissing(s);
          // A run that ended cleanly without making what it was started for would loop forever.
          if (lastStart !== null && lastStart.index === index && lastStart.done === count) {
            slot.release();
            throw new Error(`the conversion ended without producing segment ${index}`);
          }
          lastStart = { index, done: count };
          const takeFrom = gone && row !== undefined ? row.owner_node : null;
          if (!(await this.deps.runs.claimAndStart(s, index, true, slot, takeFrom))) continue;
        } else if (!job.pinned) job.pinned = true; // a player's run: keep it going to the end
        await this.deps.presentations.changed(s, this.deps.now() + 3_600_000);
      }
    } finally {
      signal.removeEventListener('abort', stop);
      if (pinnedElsewhere) await ownership.pin(s, false).catch(() => undefined);
    }
  }
}
