/**
 * Roku's BIF (players.md §3.3; Roku "Trick Mode Support"; also what Plex and Emby read): one JPEG per
 * thumbnail, no sheets, behind a 64-byte header and an index. All integers uint32 little-endian:
 *
 *   0x00  8  magic 89 42 49 46 0D 0A 1A 0A
 *   0x08  4  version 0
 *   0x0C  4  N, the image count
 *   0x10  4  framewise separation: ms per index timestamp unit (0 means 1000)
 *   0x14 44  reserved, 0
 *   0x40     N+1 entries {timestamp, absolute offset of the image}; the last {0xFFFFFFFF, end offset}
 *   …        the JPEGs, concatenated
 *
 * Timestamps: Roku's biftool writes seconds with a separation of 1000, and readers that ignore the
 * separation assume that; we do the same for whole-second intervals, and write milliseconds with a
 * separation of 1 otherwise, so any whole-ms interval is exact. Pure: the caller reads the JPEGs.
 */

export const BIF_MAGIC: readonly number[] = [0x89, 0x42, 0x49, 0x46, 0x0d, 0x0a, 0x1a, 0x0a];
export const BIF_HEADER_BYTES = 64;
export const BIF_INDEX_ENTRY_BYTES = 8;
export const BIF_END_TIMESTAMP = 0xffffffff;

/** The separation and timestamp unit for an interval (see above). */
export function bifTiming(intervalMs: number): { separationMs: number; step: number } {
  if (!Number.isInteger(intervalMs) || intervalMs < 1) {
    throw new RangeError(`a BIF interval is a whole number of ms ≥ 1: ${intervalMs}`);
  }
  return intervalMs % 1000 === 0
    ? { separationMs: 1000, step: intervalMs / 1000 }
    : { separationMs: 1, step: intervalMs };
}

function isJpeg(image: Uint8Array): boolean {
  const end = image.length;
  return (
    end >= 4 && image[0] === 0xff && image[1] === 0xd8 && image[end - 2] === 0xff && image[end - 1] === 0xd9
  );
}

/**
 * The header and index for images of these sizes, thumbnail i at i × interval: what goes before
 * the JPEGs, so that a caller can write them after it without joining them in memory.
 */
export function bifPrefix(imageBytes: readonly number[], intervalMs: number): Buffer {
  const { separationMs, step } = bifTiming(intervalMs);
  const count = imageBytes.length;
  if (count === 0) throw new RangeError('a BIF needs at least one image');
  const prefixBytes = BIF_HEADER_BYTES + (count + 1) * BIF_INDEX_ENTRY_BYTES;
  const lastTimestamp = (count - 1) * step;
  if (lastTimestamp >= BIF_END_TIMESTAMP) throw new RangeError('BIF timestamps overflow 32 bits');
  const prefix = Buffer.alloc(prefixBytes);
  prefix.set(BIF_MAGIC, 0);
  prefix.writeUInt32LE(0, 8);
  prefix.writeUInt32LE(count, 12);
  prefix.writeUInt32LE(separationMs, 16);
  let offset = prefixBytes;
  imageBytes.forEach((bytes, index) => {
    if (!Number.isInteger(bytes) || bytes < 4)
      throw new RangeError(`image ${index}: ${bytes} bytes is no JPEG`);
    prefix.writeUInt32LE(index * step, BIF_HEADER_BYTES + index * BIF_INDEX_ENTRY_BYTES);
    prefix.writeUInt32LE(offset, BIF_HEADER_BYTES + index * BIF_INDEX_ENTRY_BYTES + 4);
    offset += bytes;
    // Offsets are uint32: a BIF ends before 4 GiB (a 2-hour film's is a few MB).
    if (offset > BIF_END_TIMESTAMP) throw new RangeError('a BIF larger than 4 GiB');
  });
  prefix.writeUInt32LE(BIF_END_TIMESTAMP, BIF_HEADER_BYTES + count * BIF_INDEX_ENTRY_BYTES);
  prefix.writeUInt32LE(offset, BIF_HEADER_BYTES + count * BIF_INDEX_ENTRY_BYTES + 4);
  return prefix;
}

/** The whole BIF of the thumbnails in film order, one every `intervalMs`. */
export function writeBif(images: readonly Uint8Array[], intervalMs: number): Buffer {
  images.forEach((image, index) => {
    if (!isJpeg(image)) throw new RangeError(`image ${index} is not a JPEG (no FFD8 … FFD9)`);
  });
  const prefix = bifPrefix(
    images.map((image) => image.length),
    intervalMs,
  );
  return Buffer.concat([prefix, ...images]);
}
