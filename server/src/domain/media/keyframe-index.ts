/**
 * The keyframe times of a file's first video track, read from the container's own index: Matroska /
 * WebM Cues, or the MP4 / MOV sample tables (stts, ctts, stss, elst). HLS cuts copied video at these
 * times, so they must be the presentation times at which ffmpeg sees the keyframes (what
 * `ffprobe -select_streams v:0 -show_entries packet=pts_time,flags` flags `K`).
 *
 * Pure: no I/O. {@link readContainerIndex} is a generator that yields the byte ranges it needs and is
 * resumed with their bytes, so its driver (adapters/keyframe-reader.ts) reads a few KB to a few MB of
 * a film, never the whole file. Byte layouts: Matroska spec (RFC 9559) and ISO/IEC 14496-12.
 */

/** Bytes wanted from the file: `length` bytes at `start` (fewer may come back at its end). */
export interface ByteRequest {
  start: number;
  length: number;
}

export type ContainerIndexSource = 'mkv_cues' | 'mp4_stss';

export type ContainerIndex =
  /** Keyframe presentation times in seconds, ascending, no duplicates. */
  | { kind: 'keyframes'; source: ContainerIndexSource; times: number[] }
  /** The container has no video track. */
  | { kind: 'no_video' }
  /** No index to read (another container, MKV without Cues, fragmented MP4, damaged): scan packets. */
  | { kind: 'no_index'; reason: string };

/** The reading: yields what it needs, is resumed with those bytes, returns the index. */
export type ContainerIndexReading = Generator<ByteRequest, ContainerIndex, Buffer>;

/** Bytes read at a time (and first): the EBML header, SeekHead, Info and Tracks fit in it. */
const CHUNK_BYTES = 256 * 1024;
/** A Cues or moov element larger than this is not read (a 3-hour film's are a few hundred KB / MB). */
const MAX_ELEMENT_BYTES = 64 * 1024 * 1024;

/**
 * Reads the keyframe index of a file of `fileSize` bytes.
 * @example
 * const reading = readContainerIndex(size);
 * let step = reading.next();
 * while (!step.done) step = reading.next(readBytes(step.value));
 * step.value // ContainerIndex
 */
export function* readContainerIndex(fileSize: number): ContainerIndexReading {
  const bytes = new ByteWindow(fileSize);
  const head = yield* bytes.at(0, Math.min(16, fileSize));
  if (head.length >= 4 && head.readUInt32BE(0) === EBML_HEADER_ID) return yield* readMatroska(bytes);
  if (head.length >= 8 && MP4_TOP_LEVEL_TYPES.has(head.toString('latin1', 4, 8)))
    return yield* readMp4(bytes);
  return { kind: 'no_index', reason: 'the container is neither Matroska/WebM nor MP4/MOV' };
}

/** The bytes read so far; a request outside them is yielded to the driver (at least CHUNK_BYTES). */
class ByteWindow {
  private chunks: { start: number; data: Buffer }[] = [];
  constructor(readonly size: number) {}

  /** Exactly `length` bytes at `start`, or fewer at the end of the file. */
  *at(start: number, length: number): Generator<ByteRequest, Buffer, Buffer> {
    const end = Math.min(this.size, start + length);
    if (start >= end) return Buffer.alloc(0);
    for (const c of this.chunks) {
      if (c.start <= start && c.start + c.data.length >= end) {
        return c.data.subarray(start - c.start, end - c.start);
      }
    }
    const want = Math.min(this.size - start, Math.max(end - start, CHUNK_BYTES));
    const data = yield { start, length: want };
    this.chunks.push({ start, data });
    if (this.chunks.length > 8) this.chunks.shift();
    return data.subarray(0, Math.min(data.length, end - start));
  }
}

// ---------------------------------------------------------------------------------------------
// Matroska / WebM
// ---------------------------------------------------------------------------------------------

const EBML_HEADER_ID = 0x1a45dfa3;
const ID = {
  docType: 0x4282,
  segment: 0x18538067,
  seekHead: 0x114d9b74,
  seek: 0x4dbb,
  seekId: 0x53ab,
  seekPosition: 0x53ac,
  info: 0x1549a966,
  timestampScale: 0x2ad7b1,
  tracks: 0x1654ae6b,
  trackEntry: 0xae,
  trackNumber: 0xd7,
  trackType: 0x83,
  cues: 0x1c53bb6b,
  cuePoint: 0xbb,
  cueTime: 0xb3,
  cueTrackPositions: 0xb7,
  cueTrack: 0xf7,
  cluster: 0x1f43b675,
} as const;
const MATROSKA_VIDEO_TRACK = 1;

interface EbmlElement {
  id: number;
  /** Offset of the element's data (just past its header). */
  dataStart: number;
  /** Data size in bytes; null when unknown (a live or piped file). */
  size: number | null;
}

/** An EBML variable-length integer at `pos`: its length in bytes and value (marker bit kept for ids). */
function readVint(
  buf: Buffer,
  pos: number,
  keepMarker: boolean,
): { length: number; value: number | null } | null {
  const first = buf[pos];
  if (first === undefined || first === 0) return null;
  const length = Math.clz32(first) - 23;
  if (pos + length > buf.length) return null;
  let value = keepMarker ? first : first & (0xff >> length);
  let allOnes = value === 0xff >> length;
  for (let i = 1; i < length; i++) {
    const b = buf[pos + i] ?? 0;
    if (b !== 0xff) allOnes = false;
    value = value * 256 + b;
  }
  return { length, value: !keepMarker && allOnes ? null : value };
}

/** The element header at `pos` of `buf` (whose first byte is at file offset `base`). */
function elementAt(buf: Buffer, pos: number, base: number): EbmlElement | null {
  const id = readVint(buf, pos, true);
  if (id === null || id.length > 4) return null;
  const size = readVint(buf, pos + id.length, false);
  if (size === null) return null;
  return { id: id.value ?? 0, dataStart: base + pos + id.length + size.length, size: size.value };
}

/** The children of an element whose data is all in `data` (starting at file offset `base`). */
function* childrenOf(data: Buffer, base: number): Generator<EbmlElement & { data: Buffer }> {
  let pos = 0;
  while (pos < data.length) {
    const el = elementAt(data, pos, base);
    if (el === null || el.size === null) return;
    const from = el.dataStart - base;
    if (from + el.size > data.length) return;
    yield { ...el, data: data.subarray(from, from + el.size) };
    pos = from + el.size;
  }
}

function uintOf(data: Buffer): number {
  let v = 0;
  for (const b of data) v = v * 256 + b;
  return v;
}

function* readMatroska(bytes: ByteWindow): Generator<ByteRequest, ContainerIndex, Buffer> {
  const headBuf = yield* bytes.at(0, 64);
  const header = elementAt(headBuf, 0, 0);
  if (header === null || header.size === null) return { kind: 'no_index', reason: 'damaged EBML header' };
  const headerData = yield* bytes.at(header.dataStart, header.size);
  let docType = 'matroska';
  for (const c of childrenOf(headerData, header.dataStart)) {
    if (c.id === ID.docType) docType = c.data.toString('latin1').replace(/\0+$/u, '');
  }
  if (docType !== 'matroska' && docType !== 'webm') {
    return { kind: 'no_index', reason: `EBML document type ${docType} is not Matroska` };
  }
  const segStart = header.dataStart + header.size;
  const segHead = yield* bytes.at(segStart, 12);
  const segment = elementAt(segHead, 0, segStart);
  if (segment === null || segment.id !== ID.segment) {
    return { kind: 'no_index', reason: 'no Matroska Segment after the EBML header' };
  }
  const segmentEnd = segment.size === null ? bytes.size : segment.dataStart + segment.size;

  // Top-level elements up to the first Cluster; SeekHead names where the others are.
  const found = new Map<number, number>();
  const seekHeads: number[] = [];
  let pos = segment.dataStart;
  while (pos < segmentEnd) {
    const h = yield* bytes.at(pos, 12);
    const el = elementAt(h, 0, pos);
    if (el === null || el.id === ID.cluster || el.size === null) break;
    if (!found.has(el.id)) found.set(el.id, pos);
    if (el.id === ID.seekHead) seekHeads.push(pos);
    pos = el.dataStart + el.size;
  }
  const readSeekHead = function* (at: number): Generator<ByteRequest, void, Buffer> {
    const el = yield* elementFrom(bytes, at);
    if (el === null || el.id !== ID.seekHead) return;
    for (const seek of childrenOf(el.data, el.dataStart)) {
      if (seek.id !== ID.seek) continue;
      let id: number | null = null;
      let position: number | null = null;
      for (const c of childrenOf(seek.data, seek.dataStart)) {
        if (c.id === ID.seekId) id = uintOf(c.data);
        if (c.id === ID.seekPosition) position = uintOf(c.data);
      }
      if (id === null || position === null) continue;
      const at = segment.dataStart + position;
      if (id === ID.seekHead && !seekHeads.includes(at)) seekHeads.push(at);
      else if (!found.has(id)) found.set(id, at);
    }
  };
  // A SeekHead may point to a second one (mkvmerge puts one after the clusters); each is read once.
  for (let i = 0; i < seekHeads.length && i < 4; i++) yield* readSeekHead(seekHeads[i] ?? 0);

  const tracksAt = found.get(ID.tracks);
  if (tracksAt === undefined) return { kind: 'no_index', reason: 'no Matroska Tracks element' };
  const tracks = yield* elementFrom(bytes, tracksAt);
  if (tracks === null || tracks.id !== ID.tracks) return { kind: 'no_index', reason: 'damaged Tracks' };
  let videoTrack: number | null = null;
  for (const entry of childrenOf(tracks.data, tracks.dataStart)) {
    if (entry.id !== ID.trackEntry) continue;
    let number: number | null = null;
    let type: number | null = null;
    for (const c of childrenOf(entry.data, entry.dataStart)) {
      if (c.id === ID.trackNumber) number = uintOf(c.data);
      if (c.id === ID.trackType) type = uintOf(c.data);
    }
    if (type === MATROSKA_VIDEO_TRACK && number !== null) {
      videoTrack = number;
      break;
    }
  }
  if (videoTrack === null) return { kind: 'no_video' };

  let timestampScale = 1_000_000;
  const infoAt = found.get(ID.info);
  if (infoAt !== undefined) {
    const info = yield* elementFrom(bytes, infoAt);
    for (const c of info === null ? [] : childrenOf(info.data, info.dataStart)) {
      if (c.id === ID.timestampScale) timestampScale = uintOf(c.data) || 1_000_000;
    }
  }

  const cuesAt = found.get(ID.cues);
  if (cuesAt === undefined) return { kind: 'no_index', reason: 'the Matroska file has no Cues' };
  const cues = yield* elementFrom(bytes, cuesAt);
  if (cues === null || cues.id !== ID.cues) return { kind: 'no_index', reason: 'damaged Cues' };
  const ticks: number[] = [];
  for (const point of childrenOf(cues.data, cues.dataStart)) {
    if (point.id !== ID.cuePoint) continue;
    let time: number | null = null;
    let ofVideo = false;
    for (const c of childrenOf(point.data, point.dataStart)) {
      if (c.id === ID.cueTime) time = uintOf(c.data);
      if (c.id !== ID.cueTrackPositions) continue;
      for (const p of childrenOf(c.data, c.dataStart)) {
        if (p.id === ID.cueTrack && uintOf(p.data) === videoTrack) ofVideo = true;
      }
    }
    if (time !== null && ofVideo) ticks.push(time);
  }
  if (ticks.length === 0) return { kind: 'no_index', reason: 'the Cues name no keyframe of the video track' };
  return {
    kind: 'keyframes',
    source: 'mkv_cues',
    times: ascendingUnique(ticks.map((t) => (t * timestampScale) / 1e9)),
  };
}

/** The whole element at `at` (header and data), or null when it is damaged or unknown-sized. */
function* elementFrom(
  bytes: ByteWindow,
  at: number,
): Generator<ByteRequest, (EbmlElement & { data: Buffer; size: number }) | null, Buffer> {
  const h = yield* bytes.at(at, 12);
  const el = elementAt(h, 0, at);
  if (el === null || el.size === null || el.size > MAX_ELEMENT_BYTES) return null;
  const data = yield* bytes.at(el.dataStart, el.size);
  if (data.length < el.size) return null;
  return { ...el, size: el.size, data };
}

// ---------------------------------------------------------------------------------------------
// MP4 / MOV (ISO base media file format, QuickTime)
// ---------------------------------------------------------------------------------------------

/** Box types that start an MP4/MOV file (QuickTime files may open with mdat, free, wide…). */
const MP4_TOP_LEVEL_TYPES = new Set(['ftyp', 'moov', 'mdat', 'free', 'skip', 'wide', 'pnot', 'styp']);

interface Box {
  type: string;
  /** Offset of the box's payload (past size, type and any 64-bit size). */
  dataStart: number;
  /** Offset just past the box. */
  end: number;
}

/** The box header at `pos` of `buf` (at file offset `base`); `fileEnd` bounds a size-0 box. */
function boxAt(buf: Buffer, pos: number, base: number, fileEnd: number): Box | null {
  if (pos + 8 > buf.length) return null;
  let size = buf.readUInt32BE(pos);
  const type = buf.toString('latin1', pos + 4, pos + 8);
  let header = 8;
  if (size === 1) {
    if (pos + 16 > buf.length) return null;
    size = Number(buf.readBigUInt64BE(pos + 8));
    header = 16;
  } else if (size === 0) {
    size = fileEnd - (base + pos);
  }
  if (size < header) return null;
  return { type, dataStart: base + pos + header, end: base + pos + size };
}

/** The child boxes of a payload held whole in `data` (at file offset `base`). */
function* boxesIn(data: Buffer, base: number): Generator<Box & { data: Buffer }> {
  let pos = 0;
  while (pos + 8 <= data.length) {
    const box = boxAt(data, pos, base, base + data.length);
    if (box === null || box.end - base > data.length) return;
    yield { ...box, data: data.subarray(box.dataStart - base, box.end - base) };
    pos = box.end - base;
  }
}

function childBox(data: Buffer, type: string): Buffer | null {
  for (const b of boxesIn(data, 0)) if (b.type === type) return b.data;
  return null;
}

/** Follows a path of box types (`['mdia', 'minf', 'stbl']`) from a payload. */
function boxPath(data: Buffer, path: string[]): Buffer | null {
  let at: Buffer | null = data;
  for (const type of path) {
    if (at === null) return null;
    at = childBox(at, type);
  }
  return at;
}

function* readMp4(bytes: ByteWindow): Generator<ByteRequest, ContainerIndex, Buffer> {
  let pos = 0;
  let moov: Box | null = null;
  let fragmented = false;
  while (pos + 8 <= bytes.size) {
    const h = yield* bytes.at(pos, 16);
    const box = boxAt(h, 0, pos, bytes.size);
    if (box === null) break;
    if (box.type === 'moov') moov = box;
    if (box.type === 'moof') fragmented = true;
    if (moov !== null && (fragmented || box.type === 'mdat')) break;
    pos = box.end;
  }
  if (moov === null) return { kind: 'no_index', reason: 'the MP4 file has no moov box' };
  if (moov.end - moov.dataStart > MAX_ELEMENT_BYTES) {
    return { kind: 'no_index', reason: 'the moov box is too large to read' };
  }
  const data = yield* bytes.at(moov.dataStart, moov.end - moov.dataStart);
  if (data.length < moov.end - moov.dataStart)
    return { kind: 'no_index', reason: 'the moov box is cut short' };
  if (childBox(data, 'mvex') !== null) fragmented = true;

  const mvhd = childBox(data, 'mvhd');
  if (mvhd === null) return { kind: 'no_index', reason: 'the moov box has no mvhd' };
  const movieTimescale = mvhd.readUInt8(0) === 1 ? mvhd.readUInt32BE(20) : mvhd.readUInt32BE(12);

  for (const trak of boxesIn(data, moov.dataStart)) {
    if (trak.type !== 'trak') continue;
    const hdlr = boxPath(trak.data, ['mdia', 'hdlr']);
    if (hdlr === null || hdlr.length < 12 || hdlr.toString('latin1', 8, 12) !== 'vide') continue;
    const stbl = boxPath(trak.data, ['mdia', 'minf', 'stbl']);
    const mdhd = boxPath(trak.data, ['mdia', 'mdhd']);
    if (stbl === null || mdhd === null) return { kind: 'no_index', reason: 'damaged video track' };
    const times = trackKeyframes(stbl, mdhd, boxPath(trak.data, ['edts', 'elst']), movieTimescale);
    if (times === null) {
      return {
        kind: 'no_index',
        reason: fragmented
          ? 'the MP4 file is fragmented (samples are in moof boxes)'
          : 'the video track has no samples',
      };
    }
    return { kind: 'keyframes', source: 'mp4_stss', times };
  }
  return { kind: 'no_video' };
}

/** Keyframe presentation times (seconds) of one track, or null when its sample table is empty. */
function trackKeyframes(
  stbl: Buffer,
  mdhd: Buffer,
  elst: Buffer | null,
  movieTimescale: number,
): number[] | null {
  const timescale = mdhd.readUInt8(0) === 1 ? mdhd.readUInt32BE(20) : mdhd.readUInt32BE(12);
  const stts = childBox(stbl, 'stts');
  if (stts === null || timescale === 0) return null;
  const sampleCount = countSamples(stts);
  if (sampleCount === 0) return null;

  // Sync samples (1-based); no stss means every sample is a sync sample.
  const stss = childBox(stbl, 'stss');
  let sync: number[];
  if (stss === null) {
    sync = Array.from({ length: sampleCount }, (_, i) => i + 1);
  } else {
    const n = stss.readUInt32BE(4);
    sync = [];
    for (let i = 0; i < n && 8 + i * 4 + 4 <= stss.length; i++) sync.push(stss.readUInt32BE(8 + i * 4));
  }

  // Decode time of each wanted sample: walk stts once, sync numbers ascending.
  const wanted = [...new Set(sync)].filter((s) => s >= 1 && s <= sampleCount).sort((a, b) => a - b);
  const dts = new Map<number, number>();
  {
    const entries = stts.readUInt32BE(4);
    let sample = 1;
    let time = 0;
    let w = 0;
    for (let e = 0; e < entries && w < wanted.length; e++) {
      const count = stts.readUInt32BE(8 + e * 8);
      const delta = stts.readUInt32BE(12 + e * 8);
      while (w < wanted.length && (wanted[w] ?? 0) < sample + count) {
        const s = wanted[w] ?? 0;
        dts.set(s, time + (s - sample) * delta);
        w++;
      }
      sample += count;
      time += count * delta;
    }
  }
  // Composition offsets (ctts v0 and v1 both read as signed: ffmpeg does so for v0 too).
  const cts = new Map<number, number>();
  const ctts = childBox(stbl, 'ctts');
  if (ctts !== null) {
    const entries = ctts.readUInt32BE(4);
    let sample = 1;
    let w = 0;
    for (let e = 0; e < entries && w < wanted.length && 16 + e * 8 <= ctts.length; e++) {
      const count = ctts.readUInt32BE(8 + e * 8);
      const offset = ctts.readInt32BE(12 + e * 8);
      while (w < wanted.length && (wanted[w] ?? 0) < sample + count) {
        cts.set(wanted[w] ?? 0, offset);
        w++;
      }
      sample += count;
    }
  }

  // Edit list: leading empty edits delay the track; the first media edit starts at its media_time.
  let shift = 0;
  if (elst !== null) {
    const version = elst.readUInt8(0);
    const entries = elst.readUInt32BE(4);
    const entryBytes = version === 1 ? 20 : 12;
    for (let e = 0; e < entries && 8 + (e + 1) * entryBytes <= elst.length; e++) {
      const at = 8 + e * entryBytes;
      const duration = version === 1 ? Number(elst.readBigUInt64BE(at)) : elst.readUInt32BE(at);
      const mediaTime = version === 1 ? Number(elst.readBigInt64BE(at + 8)) : elst.readInt32BE(at + 4);
      if (mediaTime === -1) {
        shift += movieTimescale > 0 ? (duration * timescale) / movieTimescale : 0;
        continue;
      }
      shift -= mediaTime;
      break;
    }
  }
  return ascendingUnique(wanted.map((s) => ((dts.get(s) ?? 0) + (cts.get(s) ?? 0) + shift) / timescale));
}

function countSamples(stts: Buffer): number {
  const entries = stts.readUInt32BE(4);
  let n = 0;
  for (let e = 0; e < entries && 16 + e * 8 <= stts.length; e++) n += stts.readUInt32BE(8 + e * 8);
  return n;
}

function ascendingUnique(times: number[]): number[] {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted.filter((t, i) => i === 0 || t !== sorted[i - 1]);
}
