import { remoteSegmentAction } from '../../../domain/hls/run-ownership.ts';
import { AppError } from '../../../errors.ts';
import type { ConversionSlots } from '../conversion-slots.ts';
import { type HlsOwnership, rowView } from './hls-ownership.ts';
import type { HlsRuns } from './hls-runs.ts';
import type { Presentation } from './presentation.ts';
import type { PresentationRegistry } from './presentation-registry.ts';

export interface ClusterRequestsDeps {
  ownership: HlsOwnership;
  runs: HlsRuns;
  presentations: PresentationRegistry;
  slots: ConversionSlots;
  now: () => number;
}

/**
 * A player's request on a node that runs nothing for the presentation (docs/cluster.md "HLS across
 * nodes"): the run row decides where its segment comes from (`remoteSegmentAction`).
 */
export class ClusterRequests {
  constructor(private readonly deps: ClusterRequestsDeps) {}

  /**
   * One step towards segment `index` (or, `forInit`, any run's init sections) when this node runs
   * nothing for the presentation: what other nodes announced, else the run row decides — claim it
   * here, ask the nodes that convert, wait for the owner, or ask the owner to seek.
   */
  async step(s: Presentation, index: number, deadline: number, forInit: boolean): Promise<void> {
    const { ownership } = this.deps;
    await ownership.refresh(s);
    if (!forInit && s.renditions.some((r) => s.stored.get(r)?.has(index) === true)) return;
    const row = (await ownership.row(s)) ?? null;
    // Another request of this node started a run meanwhile: the caller looks again.
    if (s.claiming !== null || (s.job !== null && !s.job.ended)) return;
    const ownerProcessGone = row !== null && ownership.ownerProcessGone(row);
    const self = ownership.node();
    const view = row === null ? null : rowView(row);
    const decide = () =>
      remoteSegmentAction({
        index,
        row: view,
        now: this.deps.now(),
        self: {
          nodeId: self.id,
          ownerProcessGone,
          converts: ownership.converts(),
          freeSlot: this.deps.slots.inUse < this.deps.slots.max,
        },
        others: ownership.others(),
        startOf: (i) => s.segments[i]?.start,
      });
    let action = decide();
    // The nodes as the last heartbeat read them may miss a worker that has just started: read them
    // again before telling the player that no node converts.
    if (action === 'no_converter') {
      await ownership.refreshPeers();
      action = decide();
    }
    // Any run writes the init sections first: an owner elsewhere in the film is not asked to move.
    if (forInit && action === 'seek') action = 'wait';
    if (forInit && action === 'fail') action = ownership.converts() ? 'claim' : 'ask';
    switch (action) {
      case 'claim':
        await this.deps.runs.claimAndStart(
          s,
          index,
          false,
          null,
          ownerProcessGone ? (row?.owner_node ?? null) : null,
        );
        return;
      case 'ask':
        if (row === null || row.asked !== 1 || row.wanted_index !== index)
          await ownership.want(s, index, true);
        else ownership.touch(s);
        break;
      case 'seek':
        await ownership.want(s, index, false);
        break;
      case 'wait':
        ownership.touch(s);
        break;
      case 'fail':
        throw conversionFailed(row?.error ?? 'unknown error');
      case 'busy':
        throw new AppError('conversions_busy', {
          status: 503,
          message: 'Every node that converts already runs its limit of conversions.',
          hint: 'Retry shortly, or prepare the film ahead (prewarm) so it plays without converting.',
          headers: { 'retry-after': '10' },
        });
      case 'no_converter':
        throw new AppError('service_unavailable', {
          message: 'No node converts: every node on this database is REELSHELF_NODE_ROLE=api.',
          hint: 'Start a node with REELSHELF_NODE_ROLE=worker (or all) on the same database and data dir.',
          headers: { 'retry-after': '10' },
        });
    }
    await this.deps.presentations.changed(s, deadline);
  }
}

/** 500: the conversion started at the segment asked for failed (not tried again the same way). */
export function conversionFailed(error: string): AppError {
  return new AppError('internal_error', {
    status: 500,
    message: `The conversion failed: ${error}`,
    hint: 'GET /api/health says which ffmpeg is in use; the server log has the details.',
  });
}
