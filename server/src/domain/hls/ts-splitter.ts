/**
 * Cuts the MPEG-TS that ffmpeg writes to a pipe (one elementary stream per pipe) into its
 * initialization section (the PAT and the PMT, RFC 8216 §3.3 / §4.3.2.5) and its fragments: a
 * fragment starts at a random access point of the stream (a video keyframe, every audio PES) with
 * the tables ffmpeg wrote right before it, and runs to the next one. Each fragment carries the
 * decode time of its first PES (DTS, else PTS; 90 kHz), so the HLS engine groups fragments into
 * segments exactly as it does for fMP4. Pure: bytes in, pieces out.
 *
 * Why MPEG-TS at all: FFmpeg's HLS demuxer up to 7.0 (mpv, Kodi, Jellyfin Media Player and every
 * other libavformat player) cannot seek in fMP4 HLS — see docs/hls.md. Its MPEG-TS demuxer handles
 * the seek.
 */
import { Fmp4FormatError, type Fmp4Piece } from './fmp4-splitter.ts';

export const TS_PACKET_BYTES = 188;
const SYNC_BYTE = 0x47;
const PAT_PID = 0;
const TS_CLOCK_HZ = 90_000;

interface Packet {
  bytes: Buffer;
  pid: number;
  unitStart: boolean;
  randomAccess: boolean;
  /** Offset of the payload in the packet (188 when there is none). */
  payload: number;
}

function parsePacket(bytes: Buffer): Packet {
  if (bytes[0] !== SYNC_BYTE) throw new Fmp4FormatError('MPEG-TS packet without its sync byte');
  const pid = ((bytes.readUInt8(1) & 0x1f) << 8) | bytes.readUInt8(2);
  const unitStart = (bytes.readUInt8(1) & 0x40) !== 0;
  const control = (bytes.readUInt8(3) >> 4) & 0x3;
  let payload = 4;
  let randomAccess = false;
  if ((control & 0x2) !== 0) {
    const length = bytes.readUInt8(4);
    randomAccess = length > 0 && (bytes.readUInt8(5) & 0x40) !== 0;
    payload = 5 + length;
  }
  if ((control & 0x1) === 0) payload = TS_PACKET_BYTES;
  return { bytes, pid, unitStart, randomAccess, payload: Math.min(payload, TS_PACKET_BYTES) };
}

/** The section a PSI packet starts (after its pointer field), or null. */
function sectionOf(packet: Packet): Buffer | null {
  if (!packet.unitStart || packet.payload >= TS_PACKET_BYTES) return null;
  const pointer = packet.bytes.readUInt8(packet.payload);
  const start = packet.payload + 1 + pointer;
  return start + 3 <= TS_PACKET_BYTES ? packet.bytes.subarray(start) : null;
}

/** The PMT PID of the first program of a PAT section. */
function pmtPidOf(section: Buffer): number | null {
  if (section.readUInt8(0) !== 0x00 || section.length < 12) return null;
  const length = ((section.readUInt8(1) & 0x0f) << 8) | section.readUInt8(2);
  for (let at = 8; at + 4 <= Math.min(section.length, 3 + length - 4); at += 4) {
    const program = section.readUInt16BE(at);
    if (program !== 0) return section.readUInt16BE(at + 2) & 0x1fff;
  }
  return null;
}

/** The PID of the (single) elementary stream of a PMT section. */
function streamPidOf(section: Buffer): number | null {
  if (section.readUInt8(0) !== 0x02 || section.length < 12) return null;
  const length = ((section.readUInt8(1) & 0x0f) << 8) | section.readUInt8(2);
  const infoLength = ((section.readUInt8(10) & 0x0f) << 8) | section.readUInt8(11);
  const at = 12 + infoLength;
  if (at + 5 > Math.min(section.length, 3 + length - 4)) return null;
  return section.readUInt16BE(at + 1) & 0x1fff;
}

function timestamp(bytes: Buffer, at: number): number {
  const high = (bytes.readUInt8(at) >> 1) & 0x07;
  const middle = bytes.readUInt16BE(at + 1) >> 1;
  const low = bytes.readUInt16BE(at + 3) >> 1;
  return high * 2 ** 30 + middle * 2 ** 15 + low;
}

/** The decode time (90 kHz ticks) of the PES a packet starts: its DTS, else its PTS. */
export function pesDecodeTicks(packet: Buffer, payload: number): number | null {
  if (payload + 14 > TS_PACKET_BYTES) return null;
  if (packet.readUInt8(payload) !== 0 || packet.readUInt16BE(payload + 1) !== 0x0001) return null;
  const flags = packet.readUInt8(payload + 7) >> 6;
  if (flags === 3 && payload + 19 <= TS_PACKET_BYTES) return timestamp(packet, payload + 14);
  if (flags === 2 || flags === 3) return timestamp(packet, payload + 9);
  return null;
}

/**
 * Incremental splitter: `push` the pipe's chunks in order, `end` at EOF (which gives the last
 * fragment: a fragment is whole only when the next one starts).
 */
export class TsSplitter {
  private rest: Buffer = Buffer.alloc(0);
  private pmtPid: number | null = null;
  private streamPid: number | null = null;
  private pat: Buffer | null = null;
  private pmt: Buffer | null = null;
  private initSent = false;
  /** Table packets (PAT, PMT, SDT) waiting to see whether the next packet starts a fragment. */
  private tables: Buffer[] = [];
  private current: { parts: Buffer[]; ticks: number } | null = null;

  push(chunk: Buffer): Fmp4Piece[] {
    const bytes = this.rest.length === 0 ? chunk : Buffer.concat([this.rest, chunk]);
    const whole = bytes.length - (bytes.length % TS_PACKET_BYTES);
    const out: Fmp4Piece[] = [];
    for (let at = 0; at < whole; at += TS_PACKET_BYTES) {
      this.handle(parsePacket(Buffer.from(bytes.subarray(at, at + TS_PACKET_BYTES))), out);
    }
    this.rest = Buffer.from(bytes.subarray(whole));
    return out;
  }

  /**
   * A segment of fragments, starting with the PAT and the PMT: a fragment carries the tables only
   * when ffmpeg wrote them right before it (every video keyframe; every 0.1 s of audio), and a player
   * that starts at this segment needs them first.
   */
  segment(fragments: Buffer[]): Buffer {
    const first = fragments[0];
    const startsWithPat =
      first !== undefined && first.length > 2 && (first.readUInt16BE(1) & 0x1fff) === PAT_PID;
    if (startsWithPat || this.pat === null || this.pmt === null) return Buffer.concat(fragments);
    return Buffer.concat([this.pat, this.pmt, ...fragments]);
  }

  /** At EOF: the last fragment; a cut packet means the writer died mid-packet. */
  end(): Fmp4Piece[] {
    if (this.rest.length > 0) {
      throw new Fmp4FormatError(`the stream ended inside a packet (${this.rest.length} bytes left)`);
    }
    const out: Fmp4Piece[] = [];
    this.close(null, out);
    return out;
  }

  private handle(packet: Packet, out: Fmp4Piece[]): void {
    if (packet.pid === PAT_PID || packet.pid === this.pmtPid || packet.pid === 0x11) {
      this.learn(packet);
      this.tables.push(packet.bytes);
      return;
    }
    if (packet.pid !== this.streamPid) return; // null packets, or a stream we did not ask for
    const ticks =
      packet.unitStart && packet.randomAccess ? pesDecodeTicks(packet.bytes, packet.payload) : null;
    if (ticks !== null) {
      this.close(ticks, out);
      if (!this.initSent) {
        if (this.pat === null || this.pmt === null) throw new Fmp4FormatError('PES before PAT and PMT');
        out.push({ kind: 'init', bytes: Buffer.concat([this.pat, this.pmt]), timescale: TS_CLOCK_HZ });
        this.initSent = true;
      }
      this.current = { parts: [...this.tables, packet.bytes], ticks };
    } else if (this.current !== null) {
      this.current.parts.push(...this.tables, packet.bytes);
    }
    this.tables = [];
  }

  /** Ends the fragment being collected; its duration runs to the next one's start. */
  private close(nextTicks: number | null, out: Fmp4Piece[]): void {
    const current = this.current;
    if (current === null) return;
    this.current = null;
    out.push({
      kind: 'fragment',
      bytes: Buffer.concat(current.parts),
      decodeTime: current.ticks / TS_CLOCK_HZ,
      duration: nextTicks === null ? 0 : Math.max(0, nextTicks - current.ticks) / TS_CLOCK_HZ,
    });
  }

  private learn(packet: Packet): void {
    const section = sectionOf(packet);
    if (section === null) return;
    if (packet.pid === PAT_PID) {
      const pid = pmtPidOf(section);
      if (pid !== null) {
        this.pmtPid = pid;
        this.pat ??= packet.bytes;
      }
    } else if (packet.pid === this.pmtPid) {
      const pid = streamPidOf(section);
      if (pid !== null) {
        this.streamPid = pid;
        this.pmt ??= packet.bytes;
      }
    }
  }
}
