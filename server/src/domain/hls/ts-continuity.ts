/**
 * Makes an MPEG-TS segment join any other segment of its presentation without a continuity error,
 * whichever ffmpeg run wrote either of them. Pure: bytes in, bytes out.
 *
 * Each TS packet carries a 4-bit continuity_counter per PID that goes up by one with every packet
 * that has a payload (ISO 13818-1 §2.4.3.3). Each run starts its counters at 0, so where a segment
 * of one run follows a segment of another (a seek restarts the run; prewarm and a player's run
 * write side by side), the counters jump: FFmpeg's demuxer (ffmpeg, mpv, Kodi) flags the packet
 * corrupt and VLC marks the block corrupted and drops it. A discontinuity_indicator would excuse the
 * jump, but VLC then flushes its decoder (B-frames still queued are lost) and libdvbpsi ignores the
 * flag on tables. So every segment is renumbered instead: each PID's packets count 0, 1, 2, … from
 * the segment's first packet, and each PID gets a multiple of 16 payload packets, so its last packet
 * carries 15 and the next segment — of whatever run — continues at 0.
 *
 * Padding: a PES PID reaches the next multiple of 16 by splitting packets in two (the payload
 * shared between them, adaptation-field stuffing filling each; the PES bytes stay the same); a
 * table PID (PAT, PMT) by repeating its table, which the standard allows at any time. The SDT
 * (PID 0x11), which HLS players do not need, is dropped rather than padded.
 */
import { TS_PACKET_BYTES } from './ts-splitter.ts';

const SYNC_BYTE = 0x47;
const PAT_PID = 0;
const SDT_PID = 0x11;
const NULL_PID = 0x1fff;
const CC_MODULO = 16;

export class TsContinuityError extends Error {}

interface Parsed {
  bytes: Buffer;
  pid: number;
  unitStart: boolean;
  /** The adaptation field's bytes after its length byte (flags, fields, stuffing); null = none. */
  adaptation: Buffer | null;
  payload: Buffer;
}

function parse(bytes: Buffer): Parsed {
  if (bytes.length !== TS_PACKET_BYTES || bytes[0] !== SYNC_BYTE) {
    throw new TsContinuityError('not an MPEG-TS packet (no sync byte)');
  }
  const pid = ((bytes.readUInt8(1) & 0x1f) << 8) | bytes.readUInt8(2);
  const control = (bytes.readUInt8(3) >> 4) & 0x3;
  let at = 4;
  let adaptation: Buffer | null = null;
  if ((control & 0x2) !== 0) {
    const length = bytes.readUInt8(4);
    if (5 + length > TS_PACKET_BYTES) throw new TsContinuityError(`adaptation field too long on PID ${pid}`);
    adaptation = bytes.subarray(5, 5 + length);
    at = 5 + length;
  }
  const payload = (control & 0x1) !== 0 ? bytes.subarray(at) : Buffer.alloc(0);
  return { bytes, pid, unitStart: (bytes.readUInt8(1) & 0x40) !== 0, adaptation, payload };
}

/** The PMT PID of the first program a PAT packet lists (its section in this one packet), or null. */
function pmtPidOfPat(packet: Parsed): number | null {
  if (!packet.unitStart || packet.payload.length < 1) return null;
  const section = packet.payload.subarray(1 + packet.payload.readUInt8(0));
  if (section.length < 16 || section.readUInt8(0) !== 0x00) return null;
  const length = ((section.readUInt8(1) & 0x0f) << 8) | section.readUInt8(2);
  for (let at = 8; at + 4 <= Math.min(section.length, 3 + length - 4); at += 4) {
    if (section.readUInt16BE(at) !== 0) return section.readUInt16BE(at + 2) & 0x1fff;
  }
  return null;
}

/** The adaptation field's content without its trailing stuffing (0xFF after the flagged fields). */
function adaptationCore(adaptation: Buffer | null): Buffer | null {
  if (adaptation === null || adaptation.length === 0) return null;
  const flags = adaptation.readUInt8(0);
  let length = 1;
  if ((flags & 0x10) !== 0) length += 6; // PCR
  if ((flags & 0x08) !== 0) length += 6; // OPCR
  if ((flags & 0x04) !== 0) length += 1; // splice countdown
  if ((flags & 0x02) !== 0) length += 1 + (adaptation.readUInt8(length) ?? 0); // private data
  if ((flags & 0x01) !== 0) length += 1 + (adaptation.readUInt8(length) ?? 0); // extension
  return adaptation.subarray(0, Math.min(length, adaptation.length));
}

/**
 * One packet of `pid` carrying `payload` (at least one byte) after `core` (an adaptation field's
 * flags and fields, or null), with stuffing to fill 188 bytes; its counter is set later.
 */
function build(pid: number, unitStart: boolean, core: Buffer | null, payload: Buffer): Buffer {
  const room = TS_PACKET_BYTES - 4 - payload.length;
  const coreLength = core?.length ?? 0;
  if (room < 0 || (room > 0 && room < 1 + coreLength) || (room === 0 && coreLength > 0)) {
    throw new TsContinuityError(`no room for ${payload.length} payload bytes on PID ${pid}`);
  }
  const packet = Buffer.alloc(TS_PACKET_BYTES, 0xff);
  packet.writeUInt8(SYNC_BYTE, 0);
  packet.writeUInt16BE((unitStart ? 0x4000 : 0) | pid, 1);
  packet.writeUInt8(room > 0 ? 0x30 : 0x10, 3);
  if (room > 0) {
    packet.writeUInt8(room - 1, 4);
    // A field of length ≥ 1 starts with its flags: none set when the original had no field.
    if (room > 1) {
      if (core === null) packet.writeUInt8(0x00, 5);
      else core.copy(packet, 5);
    }
  }
  payload.copy(packet, 4 + room);
  return packet;
}

/** The shortest adaptation-field prefix a piece of `packet` keeps (flags and fields, never stuffing). */
function keptCore(packet: Parsed, first: boolean): Buffer | null {
  // PCR and random-access flags stay on the first piece only; the second piece carries none.
  return first ? adaptationCore(packet.adaptation) : null;
}

/**
 * Splits one payload packet into two whose payloads together are the original's; the first keeps
 * the header and adaptation field. Null when the packet is too small to split.
 */
function split(packet: Parsed): [Buffer, Buffer] | null {
  const core = keptCore(packet, true);
  // The second piece needs at least one payload byte, the first its field and one payload byte;
  // a PES start keeps its whole PES header in the first piece (demuxers read it from one packet).
  let minimumFirst = 1;
  if (packet.unitStart && packet.payload.length >= 9) minimumFirst = 9 + packet.payload.readUInt8(8);
  const firstLength = Math.max(minimumFirst, Math.floor(packet.payload.length / 2));
  if (firstLength >= packet.payload.length) return null;
  const firstRoom = TS_PACKET_BYTES - 4 - firstLength;
  if (firstRoom < 1 + (core?.length ?? 0)) return null;
  return [
    build(packet.pid, packet.unitStart, core, packet.payload.subarray(0, firstLength)),
    build(packet.pid, false, keptCore(packet, false), packet.payload.subarray(firstLength)),
  ];
}

function withCounter(packet: Buffer, counter: number): Buffer {
  const out = Buffer.from(packet);
  out.writeUInt8((out.readUInt8(3) & 0xf0) | (counter & 0x0f), 3);
  return out;
}

/**
 * The segment with every PID's counters running 0…15, 0…15, … from its first packet to its last,
 * which carries 15. The PAT and the PMT it names are padded by repeating their packet, the others by
 * splitting packets.
 */
export function renumberTsSegment(segment: Buffer): Buffer {
  if (segment.length % TS_PACKET_BYTES !== 0) {
    throw new TsContinuityError(`a segment of ${segment.length} bytes is not whole MPEG-TS packets`);
  }
  const packets: Parsed[] = [];
  for (let at = 0; at < segment.length; at += TS_PACKET_BYTES) {
    const packet = parse(segment.subarray(at, at + TS_PACKET_BYTES));
    if (packet.pid === SDT_PID || packet.pid === NULL_PID) continue;
    packets.push(packet);
  }
  const tablePids = new Set([PAT_PID]);
  for (const packet of packets) {
    const pmt = packet.pid === PAT_PID ? pmtPidOfPat(packet) : null;
    if (pmt !== null) tablePids.add(pmt);
  }
  const counts = new Map<number, number>();
  for (const packet of packets) {
    if (packet.payload.length > 0) counts.set(packet.pid, (counts.get(packet.pid) ?? 0) + 1);
  }
  // Per PID, how many packets to add: a table repeats its first copy; a PES PID splits its fullest
  // piece (a piece may split again) until the count is reached.
  const replacement = new Map<Parsed, Parsed[]>();
  for (const [pid, count] of counts) {
    let missing = (CC_MODULO - (count % CC_MODULO)) % CC_MODULO;
    if (missing === 0) continue;
    const own = packets.filter((packet) => packet.pid === pid && packet.payload.length > 0);
    if (tablePids.has(pid)) {
      const first = own[0];
      if (first !== undefined)
        replacement.set(
          first,
          Array.from({ length: missing + 1 }, () => first),
        );
      continue;
    }
    const pieces = new Map<Parsed, Parsed[]>(own.map((packet) => [packet, [packet]]));
    while (missing > 0) {
      const fullestFirst = [...pieces.entries()]
        .flatMap(([origin, list]) => list.map((piece) => ({ origin, piece })))
        .sort((a, b) => b.piece.payload.length - a.piece.payload.length);
      let progressed = false;
      for (const { origin, piece } of fullestFirst) {
        if (missing === 0) break;
        const halves = split(piece);
        if (halves === null) continue;
        const list = pieces.get(origin) ?? [];
        list.splice(list.indexOf(piece), 1, parse(halves[0]), parse(halves[1]));
        replacement.set(origin, list);
        missing--;
        progressed = true;
      }
      if (!progressed) {
        throw new TsContinuityError(`PID ${pid}: ${missing} packet(s) short of a multiple of ${CC_MODULO}`);
      }
    }
  }
  const counters = new Map<number, number>();
  const out: Buffer[] = [];
  for (const packet of packets) {
    for (const { bytes } of replacement.get(packet) ?? [packet]) {
      const hasPayload = (bytes.readUInt8(3) & 0x10) !== 0;
      const next = counters.get(packet.pid) ?? 0;
      // A packet without payload repeats the counter of the packet before it (§2.4.3.3).
      const counter = hasPayload ? next : (next + CC_MODULO - 1) % CC_MODULO;
      out.push(withCounter(bytes, counter));
      if (hasPayload) counters.set(packet.pid, (next + 1) % CC_MODULO);
    }
  }
  return Buffer.concat(out);
}
