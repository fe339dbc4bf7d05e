/**
 * File fingerprints for move/rename detection: the OpenSubtitles hash ("oshash") plus the size, stored as
 * `<16 hex>-<size>` so a moved file is found by plain equality (reference/metadata.md §5.1, §5.4).
 *
 * oshash = size + the sum of the first and of the last 64 KiB read as little-endian uint64 words, mod 2^64.
 * It reads 128 KiB per file whatever the size. It is not cryptographic (§5.2): treat equality as "probably
 * the same file", and fingerprint only files whose size and mtime were stable across two scans (a file
 * still being written hashes differently once complete).
 *
 * Files smaller than 128 KiB: hashed like the C reference on trac.opensubtitles.org (head = the first
 * min(64 KiB, size) bytes, tail = the last min(64 KiB, size) bytes, so the blocks overlap; only whole
 * 8-byte words are summed). The Python reference refuses such files instead; we keep one fingerprint
 * format for every file, and the size in it keeps small files apart anyway. They are never movies.
 */
import { open } from 'node:fs/promises';

/** Bytes read from each end of the file. */
export const OSHASH_BLOCK_BYTES = 65_536;

const MASK_64 = 0xffff_ffff_ffff_ffffn;
const FINGERPRINT = /^([0-9a-f]{16})-(0|[1-9][0-9]*)$/u;

function sumWords(hash: bigint, block: Uint8Array): bigint {
  const view = new DataView(block.buffer, block.byteOffset, block.byteLength);
  let sum = hash;
  for (let offset = 0; offset + 8 <= block.byteLength; offset += 8) {
    sum = (sum + view.getBigUint64(offset, true)) & MASK_64;
  }
  return sum;
}

/**
 * The OpenSubtitles hash from the file size and its first and last blocks.
 * @param sizeBytes the whole file's size
 * @param head the first min(64 KiB, size) bytes
 * @param tail the last min(64 KiB, size) bytes
 * @returns 16 lower-case hex digits
 * @example osHashFromBlocks(131072, new Uint8Array(65536), new Uint8Array(65536)) === '0000000000020000'
 */
export function osHashFromBlocks(sizeBytes: number | bigint, head: Uint8Array, tail: Uint8Array): string {
  const size = BigInt(sizeBytes);
  if (size < 0n) throw new RangeError('file size must not be negative');
  const hash = sumWords(sumWords(size & MASK_64, head), tail);
  return hash.toString(16).padStart(16, '0');
}

/** Reads exactly `length` bytes at `position` (fewer only at end of file). */
async function readBlock(
  handle: Awaited<ReturnType<typeof open>>,
  position: number,
  length: number,
): Promise<Uint8Array> {
  const buffer = Buffer.alloc(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await handle.read(buffer, filled, length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

interface HashedFile {
  oshash: string;
  sizeBytes: number;
}

async function hashFile(path: string): Promise<HashedFile> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    const blockBytes = Math.min(OSHASH_BLOCK_BYTES, size);
    const head = await readBlock(handle, 0, blockBytes);
    const tail = await readBlock(handle, size - blockBytes, blockBytes);
    return { oshash: osHashFromBlocks(size, head, tail), sizeBytes: size };
  } finally {
    await handle.close();
  }
}

/**
 * The OpenSubtitles hash of a file, reading only its first and last 64 KiB.
 * @param path absolute path of the file
 * @returns 16 lower-case hex digits
 */
export async function osHash(path: string): Promise<string> {
  return (await hashFile(path)).oshash;
}

/**
 * The stored fingerprint: `<oshash>-<size in bytes>`.
 * @example formatFingerprint('8e245d9679d31e12', 12909756) === '8e245d9679d31e12-12909756'
 */
export function formatFingerprint(oshash: string, sizeBytes: number): string {
  return `${oshash.toLowerCase()}-${sizeBytes}`;
}

/** Splits a stored fingerprint, or null when the text is not one. */
export function parseFingerprint(fingerprint: string): { oshash: string; sizeBytes: number } | null {
  const match = FINGERPRINT.exec(fingerprint);
  const oshash = match?.[1];
  const size = match?.[2];
  if (oshash === undefined || size === undefined) return null;
  const sizeBytes = Number(size);
  return Number.isSafeInteger(sizeBytes) ? { oshash, sizeBytes } : null;
}

/**
 * The stored fingerprint of a file (one open, two 64 KiB reads, always closed).
 * @param path absolute path of the file
 * @returns `<16 hex>-<size>`
 */
export async function fileFingerprint(path: string): Promise<string> {
  const { oshash, sizeBytes } = await hashFile(path);
  return formatFingerprint(oshash, sizeBytes);
}
