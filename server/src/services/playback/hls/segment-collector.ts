import { SegmentSplitter, type SegmentPiece } from '../../../domain/hls/segment-splitter.ts';
import { HLS_TIMESTAMP_OFFSET_SECONDS } from '../../../domain/hls/hls-command.ts';
import type { HlsSegment } from '../../../domain/hls/segment-plan.ts';
import type { Run } from './presentation.ts';

/** A fragment that starts this little before a boundary belongs to the segment after it (AAC priming). */
const BOUNDARY_SLACK_SECONDS = 0.1;

/** Where a collector hands a whole segment (`<n>.m4s`) or init section (`init.mp4`) of its rendition. */
export type PieceSink = (name: string, bytes: Buffer) => Promise<void>;

/**
 * Turns one pipe of a run into segments: fragments are grouped by the segment their decode time
 * falls in; a segment is stored when the first fragment of the next one arrives (or the run ends
 * cleanly), so a run that is stopped or dies never leaves half a segment behind.
 */
export class SegmentCollector {
  private readonly splitter = new SegmentSplitter();
  private current: { index: number; parts: Buffer[] } | null = null;
  private chain: Promise<void> = Promise.resolve();
  private failed: unknown = null;

  constructor(
    private readonly segments: readonly HlsSegment[],
    private readonly job: Run,
    private readonly sink: PieceSink,
  ) {}

  push(chunk: Buffer): void {
    if (this.failed !== null) return;
    try {
      for (const piece of this.splitter.push(chunk)) this.accept(piece);
    } catch (err) {
      this.failed = err;
      // Recorded before the abort: an aborted run's error is otherwise taken for a stop we asked for.
      this.job.error ??= `the conversion wrote a stream that cannot be cut: ${err instanceof Error ? err.message : String(err)}`;
      this.job.abort.abort(err);
    }
  }

  /** The run ended cleanly: the segment being collected is whole. */
  end(): void {
    if (this.failed !== null) return;
    // MPEG-TS knows its last piece is whole only at EOF.
    for (const piece of this.splitter.end()) this.accept(piece);
    this.complete();
  }

  private accept(piece: SegmentPiece): void {
    if (piece.kind === 'init') {
      this.write('init.mp4', piece.bytes);
      return;
    }
    const index = this.segmentOf(piece.decodeTime - HLS_TIMESTAMP_OFFSET_SECONDS);
    if (index < this.job.start) return; // before the seek point (a copy seek lands on an earlier keyframe)
    if (this.current === null) this.current = { index, parts: [piece.bytes] };
    else if (index <= this.current.index) this.current.parts.push(piece.bytes);
    else {
      this.complete();
      this.current = { index, parts: [piece.bytes] };
    }
    // A fragment that reaches the next boundary closes its segment now: waiting for the next
    // fragment would hold an encoded segment back by a whole segment's worth of encoding.
    const end = piece.decodeTime + piece.duration - HLS_TIMESTAMP_OFFSET_SECONDS;
    const next = this.segments[this.current.index + 1];
    if (next !== undefined && end >= next.start - BOUNDARY_SLACK_SECONDS) this.complete();
  }

  flushed(): Promise<void> {
    return this.chain;
  }

  private complete(): void {
    const current = this.current;
    this.current = null;
    if (current === null) return;
    this.write(`${current.index}.m4s`, this.splitter.segment(current.parts));
  }

  private write(name: string, bytes: Buffer): void {
    this.chain = this.chain.then(() => this.sink(name, bytes));
  }

  private segmentOf(time: number): number {
    const segments = this.segments;
    let lo = 0;
    let hi = segments.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      const seg = segments[mid];
      if (seg !== undefined && seg.start - BOUNDARY_SLACK_SECONDS <= time) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}
