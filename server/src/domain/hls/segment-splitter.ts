/**
 * The splitter of one run's pipe, whatever container the run writes: the first byte tells
 * (0x47, the MPEG-TS sync byte, else an fMP4 box). Same pieces either way: the initialization
 * section once, then fragments with their decode time. Pure.
 */
import { Fmp4Splitter, type Fmp4Piece } from './fmp4-splitter.ts';
import { renumberTsSegment } from './ts-continuity.ts';
import { TsSplitter } from './ts-splitter.ts';

export type SegmentPiece = Fmp4Piece;

export class SegmentSplitter {
  private inner: Fmp4Splitter | TsSplitter | null = null;

  push(chunk: Buffer): SegmentPiece[] {
    if (chunk.length === 0) return [];
    this.inner ??= chunk[0] === 0x47 ? new TsSplitter() : new Fmp4Splitter();
    return this.inner.push(chunk);
  }

  /**
   * A segment's bytes from its fragments. An MPEG-TS segment starts with its PAT and PMT and gets
   * its continuity counters renumbered (ts-continuity.ts), so it joins the segment before it
   * whichever run wrote that one.
   */
  segment(fragments: Buffer[]): Buffer {
    if (this.inner instanceof TsSplitter) return renumberTsSegment(this.inner.segment(fragments));
    return Buffer.concat(fragments);
  }

  /** At EOF: the last pieces (MPEG-TS knows a fragment is whole only when the next one starts). */
  end(): SegmentPiece[] {
    return this.inner?.end() ?? [];
  }
}
