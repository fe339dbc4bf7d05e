/**
 * Cuts the fragmented MP4 that ffmpeg writes to a pipe into its initialization section (`ftyp` +
 * `moov`) and its fragments (`moof` + `mdat`), each with the decode time of its first sample
 * (`tfdt`, in seconds). The HLS engine groups fragments into segments by that time, so segment
 * boundaries are decided here in Node and are the same whichever ffmpeg run wrote the bytes. Pure:
 * bytes in, pieces out.
 */

export type Fmp4Piece =
  | { kind: 'init'; bytes: Buffer; timescale: number }
  | { kind: 'fragment'; bytes: Buffer; decodeTime: number; duration: number };

/** The stream is not the fragmented MP4 this splitter expects (a bug or a broken tool). */
export class Fmp4FormatError extends Error {
  override name = 'Fmp4FormatError';
}

interface BoxHeader {
  type: string;
  size: number;
  headerSize: number;
}

function readHeader(bytes: Buffer, offset: number, available: number): BoxHeader | null {
  if (available < 8) return null;
  const size32 = bytes.readUInt32BE(offset);
  const type = bytes.toString('latin1', offset + 4, offset + 8);
  if (size32 === 1) {
    if (available < 16) return null;
    const size = Number(bytes.readBigUInt64BE(offset + 8));
    return { type, size, headerSize: 16 };
  }
  if (size32 < 8) throw new Fmp4FormatError(`box "${type}" has an invalid size ${size32}`);
  return { type, size: size32, headerSize: 8 };
}

/** The children of a container box's payload. */
function* children(
  bytes: Buffer,
  start: number,
  end: number,
): Generator<{ type: string; start: number; end: number }> {
  let offset = start;
  while (offset + 8 <= end) {
    const header = readHeader(bytes, offset, end - offset);
    if (header === null || offset + header.size > end) return;
    yield { type: header.type, start: offset + header.headerSize, end: offset + header.size };
    offset += header.size;
  }
}

function findPath(
  bytes: Buffer,
  start: number,
  end: number,
  path: readonly string[],
): { start: number; end: number } | null {
  for (const child of children(bytes, start, end)) {
    if (child.type !== path[0]) continue;
    if (path.length === 1) return child;
    const found = findPath(bytes, child.start, child.end, path.slice(1));
    if (found !== null) return found;
  }
  return null;
}

/** The media timescale of the (single) track of a `moov` payload. */
export function moovTimescale(moov: Buffer): number {
  const mdhd = findPath(moov, 0, moov.length, ['trak', 'mdia', 'mdhd']);
  if (mdhd === null) throw new Fmp4FormatError('moov has no trak/mdia/mdhd');
  const version = moov.readUInt8(mdhd.start);
  const at = mdhd.start + (version === 1 ? 20 : 12);
  const timescale = moov.readUInt32BE(at);
  if (timescale === 0) throw new Fmp4FormatError('mdhd timescale is 0');
  return timescale;
}

/** The `tfdt` base media decode time of the first track fragment of a `moof` payload. */
export function moofDecodeTime(moof: Buffer): bigint {
  const tfdt = findPath(moof, 0, moof.length, ['traf', 'tfdt']);
  if (tfdt === null) throw new Fmp4FormatError('moof has no traf/tfdt');
  const version = moof.readUInt8(tfdt.start);
  return version === 1 ? moof.readBigUInt64BE(tfdt.start + 4) : BigInt(moof.readUInt32BE(tfdt.start + 4));
}

/** `default_sample_duration` of the `trex` in a `moov` payload's `mvex` (0 when absent). */
export function trexDefaultDuration(moov: Buffer): number {
  const trex = findPath(moov, 0, moov.length, ['mvex', 'trex']);
  return trex === null ? 0 : moov.readUInt32BE(trex.start + 12);
}

/**
 * The duration (ticks) of the samples of the first track fragment of a `moof` payload: the sum of
 * its `trun` sample durations, or their count times the default (`tfhd`, else `trex`). A fragment's
 * end tells whether it closes its segment without waiting for the next fragment to arrive.
 */
export function moofDuration(moof: Buffer, trexDefault: number): number {
  const traf = findPath(moof, 0, moof.length, ['traf']);
  if (traf === null) throw new Fmp4FormatError('moof has no traf');
  let defaultDuration = trexDefault;
  let total = 0;
  for (const child of children(moof, traf.start, traf.end)) {
    if (child.type === 'tfhd') {
      const flags = moof.readUInt32BE(child.start) & 0xffffff;
      let at = child.start + 8;
      if ((flags & 0x01) !== 0) at += 8;
      if ((flags & 0x02) !== 0) at += 4;
      if ((flags & 0x08) !== 0) defaultDuration = moof.readUInt32BE(at);
    } else if (child.type === 'trun') {
      const flags = moof.readUInt32BE(child.start) & 0xffffff;
      const count = moof.readUInt32BE(child.start + 4);
      if ((flags & 0x100) === 0) {
        total += count * defaultDuration;
        continue;
      }
      let at = child.start + 8;
      if ((flags & 0x01) !== 0) at += 4;
      if ((flags & 0x04) !== 0) at += 4;
      const stride = 4 * [0x100, 0x200, 0x400, 0x800].filter((bit) => (flags & bit) !== 0).length;
      for (let i = 0; i < count && at + 4 <= child.end; i++, at += stride) total += moof.readUInt32BE(at);
    }
  }
  return total;
}

/**
 * Incremental splitter: `push` the pipe's chunks in order, `end` at EOF. Bytes are copied once per
 * box (chunks are kept in a list until a whole box has arrived), so a 10 MB `mdat` costs one copy.
 */
export class Fmp4Splitter {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private readonly initBoxes: Buffer[] = [];
  private timescale: number | null = null;
  private trexDefault = 0;
  private initSent = false;
  private moof: { bytes: Buffer; decodeTime: number; duration: number } | null = null;

  push(chunk: Buffer): Fmp4Piece[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const out: Fmp4Piece[] = [];
    for (;;) {
      const box = this.nextBox();
      if (box === null) break;
      this.handle(box.type, box.bytes, box.headerSize, out);
    }
    return out;
  }

  /** At EOF: what is left must be nothing (a cut box means the writer died mid-fragment). */
  end(): Fmp4Piece[] {
    if (this.buffered > 0)
      throw new Fmp4FormatError(`the stream ended inside a box (${this.buffered} bytes left)`);
    return [];
  }

  private nextBox(): { type: string; bytes: Buffer; headerSize: number } | null {
    if (this.buffered < 16 && this.buffered < 8) return null;
    const head = this.peek(Math.min(16, this.buffered));
    const header = readHeader(head, 0, head.length);
    if (header === null || this.buffered < header.size) return null;
    const bytes = this.take(header.size);
    return { type: header.type, bytes, headerSize: header.headerSize };
  }

  private peek(n: number): Buffer {
    const first = this.chunks[0];
    if (first !== undefined && first.length >= n) return first.subarray(0, n);
    return Buffer.concat(this.chunks, this.buffered).subarray(0, n);
  }

  private take(n: number): Buffer {
    const all =
      this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks, this.buffered);
    const box = Buffer.from(all.subarray(0, n));
    const rest = all.subarray(n);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.buffered = rest.length;
    return box;
  }

  private handle(type: string, bytes: Buffer, headerSize: number, out: Fmp4Piece[]): void {
    if (type === 'moof') {
      if (this.timescale === null) throw new Fmp4FormatError('moof before moov');
      if (!this.initSent) {
        out.push({ kind: 'init', bytes: Buffer.concat(this.initBoxes), timescale: this.timescale });
        this.initSent = true;
      }
      const payload = bytes.subarray(headerSize);
      const ticks = moofDecodeTime(payload);
      this.moof = {
        bytes,
        decodeTime: Number(ticks) / this.timescale,
        duration: moofDuration(payload, this.trexDefault) / this.timescale,
      };
      return;
    }
    if (type === 'mdat' && this.moof !== null) {
      out.push({
        kind: 'fragment',
        bytes: Buffer.concat([this.moof.bytes, bytes]),
        decodeTime: this.moof.decodeTime,
        duration: this.moof.duration,
      });
      this.moof = null;
      return;
    }
    if (this.initSent) return; // mfra / sidx after the fragments: not part of any segment
    if (type === 'moov') {
      this.timescale = moovTimescale(bytes.subarray(headerSize));
      this.trexDefault = trexDefaultDuration(bytes.subarray(headerSize));
    }
    if (type === 'ftyp' || type === 'moov') this.initBoxes.push(bytes);
  }
}
