/** A PGS (.sup) stream: one opaque white 100×40 box at (110, 180) from 0.2 s to 1.8 s on 320×240. */
export function pgsSup(): Buffer {
  const segment = (pts: number, type: number, data: number[]) => {
    const head = Buffer.alloc(13);
    head.write('PG', 0, 'latin1');
    head.writeUInt32BE(pts, 2);
    head.writeUInt32BE(0, 6);
    head.writeUInt8(type, 10);
    head.writeUInt16BE(data.length, 11);
    return Buffer.concat([head, Buffer.from(data)]);
  };
  const u16 = (n: number) => [(n >> 8) & 255, n & 255];
  const [w, h, x, y] = [100, 40, 110, 180];
  const rle: number[] = [];
  for (let row = 0; row < h; row++) rle.push(0, 0xc0 | (w >> 8), w & 255, 1, 0, 0);
  const objectLength = rle.length + 4;
  const window = [1, 0, ...u16(x), ...u16(y), ...u16(w), ...u16(h)];
  const [show, hide] = [0.2 * 90_000, 1.8 * 90_000];
  return Buffer.concat([
    segment(show, 0x16, [
      ...u16(320),
      ...u16(240),
      0x10,
      0,
      0,
      0x80,
      0,
      0,
      1,
      0,
      0,
      0,
      0,
      ...u16(x),
      ...u16(y),
    ]),
    segment(show, 0x17, window),
    segment(show, 0x14, [0, 0, 1, 235, 128, 128, 255]),
    segment(show, 0x15, [
      0,
      0,
      0,
      0xc0,
      objectLength >> 16,
      (objectLength >> 8) & 255,
      objectLength & 255,
      ...u16(w),
      ...u16(h),
      ...rle,
    ]),
    segment(show, 0x80, []),
    segment(hide, 0x16, [...u16(320), ...u16(240), 0x10, 0, 1, 0, 0, 0, 0]),
    segment(hide, 0x17, window),
    segment(hide, 0x80, []),
  ]);
}
