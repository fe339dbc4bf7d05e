/**
 * A gzip member (RFC 1952) assembled from raw-deflate pieces compressed one by one: each piece but
 * the last ends with a sync flush (byte-aligned, not final), the last with the final block, so their
 * concatenation is one valid deflate stream. The trailer's CRC-32 of the whole is combined from the
 * pieces' own CRCs (zlib's crc32_combine: multiplication modulo the CRC polynomial), so no piece
 * needs its uncompressed bytes again once compressed.
 */

const POLY = 0xedb88320;

/** a·b modulo the CRC-32 polynomial (reflected bit order, as zlib's multmodp). */
function multModP(a: number, b: number): number {
  if (a === 0) return 0;
  let m = 0x80000000;
  let p = 0;
  let bb = b >>> 0;
  for (;;) {
    if ((a & m) !== 0) {
      p ^= bb;
      if ((a & (m - 1)) === 0) break;
    }
    m >>>= 1;
    bb = (bb & 1) !== 0 ? (bb >>> 1) ^ POLY : bb >>> 1;
  }
  return p >>> 0;
}

/** x^(2^n) modulo the polynomial, n = 0…31. */
const X2N: number[] = (() => {
  const table: number[] = [];
  let p = 1 << 30; // x^1
  table.push(p);
  for (let n = 1; n < 32; n++) {
    p = multModP(p, p);
    table.push(p);
  }
  return table;
})();

/** x^(n·2^k) modulo the polynomial: the operator that shifts a CRC past n bytes when k = 3. */
function x2nModP(n: number, k: number): number {
  let p = 0x80000000; // x^0
  let rest = n;
  let bit = k;
  while (rest > 0) {
    if (rest % 2 === 1) p = multModP(X2N[bit % 32] ?? 0, p);
    rest = Math.floor(rest / 2);
    bit++;
  }
  return p >>> 0;
}

/** The shift operator for a piece of `length` bytes, to be reused with {@link crc32CombineOp}. */
export function crc32ShiftOp(length: number): number {
  return x2nModP(length, 3);
}

/** CRC-32 of A‖B from CRC-32(A), CRC-32(B) and B's shift operator ({@link crc32ShiftOp} of its length). */
export function crc32CombineOp(crcA: number, crcB: number, shiftOpB: number): number {
  return (multModP(shiftOpB, crcA >>> 0) ^ (crcB >>> 0)) >>> 0;
}

/** CRC-32 of A‖B from CRC-32(A), CRC-32(B) and the length of B. */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  return crc32CombineOp(crcA, crcB, crc32ShiftOp(lengthB));
}

/** The 10-byte gzip header: deflate, no name, no time, unknown OS. */
export const GZIP_HEADER: Uint8Array = Uint8Array.of(0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff);

/** The 8-byte gzip trailer: CRC-32 and length modulo 2^32 of the uncompressed bytes, little-endian. */
export function gzipTrailer(crc: number, length: number): Uint8Array {
  const out = new Uint8Array(8);
  const view = new DataView(out.buffer);
  view.setUint32(0, crc >>> 0, true);
  view.setUint32(4, length % 2 ** 32, true);
  return out;
}
