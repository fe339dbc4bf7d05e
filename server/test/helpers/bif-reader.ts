/**
 * Reads a Roku BIF back for the tests (the server only writes them): the header, an index whose
 * timestamps and offsets only grow and whose end entry closes the file, and images that are each a
 * whole JPEG (FFD8 … FFD9). Throws naming the first thing wrong.
 */
import {
  BIF_END_TIMESTAMP,
  BIF_HEADER_BYTES,
  BIF_INDEX_ENTRY_BYTES,
  BIF_MAGIC,
} from '../../src/domain/trickplay/bif.ts';

export interface ReadBif {
  version: number;
  separationMs: number;
  /** Each image's time (timestamp × separation) and bytes. */
  images: { timeMs: number; bytes: Buffer }[];
}

export function readBif(file: Buffer): ReadBif {
  if (file.length < BIF_HEADER_BYTES + BIF_INDEX_ENTRY_BYTES)
    throw new Error(`a BIF of ${file.length} bytes is too short`);
  if (!BIF_MAGIC.every((byte, position) => file[position] === byte)) throw new Error('no BIF magic');
  const version = file.readUInt32LE(8);
  if (version !== 0) throw new Error(`BIF version ${version}, not 0`);
  const count = file.readUInt32LE(12);
  const separation = file.readUInt32LE(16);
  const separationMs = separation === 0 ? 1000 : separation;
  if (!file.subarray(20, BIF_HEADER_BYTES).every((byte) => byte === 0))
    throw new Error('reserved bytes are not 0');
  const indexEnd = BIF_HEADER_BYTES + (count + 1) * BIF_INDEX_ENTRY_BYTES;
  if (file.length < indexEnd) throw new Error(`the index of ${count} images runs past the file`);
  const entry = (index: number): { timestamp: number; offset: number } => ({
    timestamp: file.readUInt32LE(BIF_HEADER_BYTES + index * BIF_INDEX_ENTRY_BYTES),
    offset: file.readUInt32LE(BIF_HEADER_BYTES + index * BIF_INDEX_ENTRY_BYTES + 4),
  });
  const end = entry(count);
  if (end.timestamp !== BIF_END_TIMESTAMP) throw new Error(`the end entry's timestamp is ${end.timestamp}`);
  if (end.offset !== file.length)
    throw new Error(`the end entry says ${end.offset} bytes, the file has ${file.length}`);
  const images: ReadBif['images'] = [];
  for (let index = 0; index < count; index += 1) {
    const { timestamp, offset } = entry(index);
    const next = entry(index + 1);
    if (index === 0 && offset !== indexEnd)
      throw new Error(`the first image starts at ${offset}, not ${indexEnd}`);
    if (next.offset <= offset)
      throw new Error(`image ${index}: offsets do not grow (${offset} → ${next.offset})`);
    if (index + 1 < count && next.timestamp <= timestamp) {
      throw new Error(`image ${index}: timestamps do not grow (${timestamp} → ${next.timestamp})`);
    }
    const bytes = file.subarray(offset, next.offset);
    const last = bytes.length - 1;
    if (bytes[0] !== 0xff || bytes[1] !== 0xd8 || bytes[last - 1] !== 0xff || bytes[last] !== 0xd9) {
      throw new Error(`image ${index} is not a whole JPEG (FFD8 … FFD9)`);
    }
    images.push({ timeMs: timestamp * separationMs, bytes });
  }
  return { version, separationMs, images };
}
