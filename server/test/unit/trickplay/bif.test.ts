import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { bifPrefix, bifTiming, writeBif } from '../../../src/domain/trickplay/bif.ts';
import { readBif } from '../../helpers/bif-reader.ts';
import { fixtureFfmpeg } from '../../helpers/media.ts';

/** A JPEG-shaped buffer (SOI, filler, EOI) for the layout tests; real JPEGs are made below. */
function jpegLike(size: number, fill: number): Buffer {
  const bytes = Buffer.alloc(size, fill);
  bytes[0] = 0xff;
  bytes[1] = 0xd8;
  bytes[size - 2] = 0xff;
  bytes[size - 1] = 0xd9;
  return bytes;
}

describe('writeBif', () => {
  it('lays out header, N+1 index entries and the images (3 images, 10 s)', () => {
    const images = [jpegLike(10, 1), jpegLike(20, 2), jpegLike(5, 3)];
    const file = writeBif(images, 10_000);
    const indexEnd = 64 + 4 * 8;
    assert.equal(file.length, indexEnd + 35);
    assert.deepEqual([...file.subarray(0, 8)], [0x89, 0x42, 0x49, 0x46, 0x0d, 0x0a, 0x1a, 0x0a]);
    assert.equal(file.readUInt32LE(8), 0);
    assert.equal(file.readUInt32LE(12), 3);
    assert.equal(file.readUInt32LE(16), 1000);
    assert.ok(file.subarray(20, 64).every((byte) => byte === 0));
    const entries = [0, 1, 2, 3].map((index) => [
      file.readUInt32LE(64 + index * 8),
      file.readUInt32LE(68 + index * 8),
    ]);
    assert.deepEqual(entries, [
      [0, indexEnd],
      [10, indexEnd + 10],
      [20, indexEnd + 30],
      [0xffffffff, indexEnd + 35],
    ]);
    assert.deepEqual(file.subarray(indexEnd), Buffer.concat(images));
    const read = readBif(file);
    assert.deepEqual(
      read.images.map((image) => image.timeMs),
      [0, 10_000, 20_000],
    );
    assert.deepEqual(
      read.images.map((image) => image.bytes),
      images,
    );
  });

  // [interval ms, separation, step, times of images 0..2]
  const timings: [number, number, number, number[]][] = [
    [10_000, 1000, 10, [0, 10_000, 20_000]],
    [5_000, 1000, 5, [0, 5_000, 10_000]],
    [1_000, 1000, 1, [0, 1_000, 2_000]],
    [2_500, 1, 2500, [0, 2_500, 5_000]],
    [1, 1, 1, [0, 1, 2]],
  ];
  for (const [intervalMs, separationMs, step, times] of timings) {
    it(`an interval of ${intervalMs} ms: separation ${separationMs}, timestamps step ${step}`, () => {
      assert.deepEqual(bifTiming(intervalMs), { separationMs, step });
      const read = readBif(writeBif([jpegLike(4, 0), jpegLike(6, 0), jpegLike(8, 0)], intervalMs));
      assert.equal(read.separationMs, separationMs);
      assert.deepEqual(
        read.images.map((image) => image.timeMs),
        times,
      );
    });
  }

  it('one image; and 720 images of a 2-hour film stay in order', () => {
    assert.equal(readBif(writeBif([jpegLike(4, 0)], 10_000)).images.length, 1);
    const many = Array.from({ length: 720 }, (_, index) => jpegLike(100 + (index % 7), index % 256));
    const read = readBif(writeBif(many, 10_000));
    assert.equal(read.images.length, 720);
    assert.equal(read.images[719]?.timeMs, 7_190_000);
    assert.deepEqual(read.images[500]?.bytes, many[500]);
  });

  it('bifPrefix is the same header and index as writeBif’s, so the JPEGs can follow it unjoined', () => {
    const images = [jpegLike(10, 1), jpegLike(20, 2)];
    const whole = writeBif(images, 10_000);
    assert.deepEqual(Buffer.concat([bifPrefix([10, 20], 10_000), ...images]), whole);
  });

  const refusals: [string, () => unknown, RegExp][] = [
    ['no images', () => writeBif([], 10_000), /at least one image/],
    ['a PNG', () => writeBif([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0])], 10_000), /image 0 is not a JPEG/],
    [
      'a JPEG cut short (no FFD9)',
      () => writeBif([jpegLike(8, 0), jpegLike(8, 0).subarray(0, 6)], 10_000),
      /image 1/,
    ],
    ['an empty buffer', () => writeBif([Buffer.alloc(0)], 10_000), /not a JPEG/],
    ['a zero interval', () => writeBif([jpegLike(4, 0)], 0), /whole number of ms/],
    ['a fractional interval', () => writeBif([jpegLike(4, 0)], 2.5), /whole number of ms/],
    ['timestamps past 32 bits', () => bifPrefix([4, 4], 0xffffffff), /overflow/],
    ['a file past 4 GiB', () => bifPrefix([0xffffff00, 0x200], 10_000), /4 GiB/],
  ];
  for (const [name, write, message] of refusals) {
    it(`refuses ${name}`, () => assert.throws(write, message));
  }
});

describe('readBif (the test helper) rejects broken files', () => {
  const good = writeBif([jpegLike(10, 1), jpegLike(20, 2), jpegLike(5, 3)], 10_000);
  const broken = (change: (file: Buffer) => void): Buffer => {
    const copy = Buffer.from(good);
    change(copy);
    return copy;
  };
  const cases: [string, Buffer, RegExp][] = [
    ['a wrong magic', broken((file) => (file[1] = 0x43)), /magic/],
    ['version 1', broken((file) => file.writeUInt32LE(1, 8)), /version 1/],
    ['a reserved byte set', broken((file) => (file[40] = 1)), /reserved/],
    ['no end marker', broken((file) => file.writeUInt32LE(30, 64 + 3 * 8)), /end entry's timestamp/],
    ['an end offset short of the file', Buffer.concat([good, Buffer.from([0])]), /end entry says/],
    ['timestamps going back', broken((file) => file.writeUInt32LE(0, 64 + 8)), /timestamps do not grow/],
    [
      'offsets going back',
      broken((file) => file.writeUInt32LE(64 + 32 + 40, 64 + 8 + 4)),
      /offsets do not grow/,
    ],
    ['an image without FFD8', broken((file) => (file[64 + 32 + 10] = 0)), /image 1 is not a whole JPEG/],
    ['a truncated file', good.subarray(0, 70), /runs past|too short/],
  ];
  for (const [name, file, message] of cases) {
    it(name, () => assert.throws(() => readBif(file), message));
  }
});

describe('writeBif with real JPEGs (ffmpeg)', () => {
  const ffmpeg = (args: string[], input?: Buffer): Buffer =>
    execFileSync(fixtureFfmpeg, ['-hide_banner', '-loglevel', 'error', ...args], {
      input,
      timeout: 30_000,
      maxBuffer: 16 * 1024 * 1024,
    });

  it('each image read back decodes to the colour it was made with', () => {
    const colours: [string, number[]][] = [
      ['red', [255, 0, 0]],
      ['lime', [0, 255, 0]],
      ['blue', [0, 0, 255]],
    ];
    const jpegs = colours.map(([name]) =>
      ffmpeg([
        '-f',
        'lavfi',
        '-i',
        `color=c=${name}:s=64x36`,
        '-frames:v',
        '1',
        '-c:v',
        'mjpeg',
        '-f',
        'mjpeg',
        '-',
      ]),
    );
    const read = readBif(writeBif(jpegs, 10_000));
    read.images.forEach((image, index) => {
      const rgb = ffmpeg(
        ['-f', 'mjpeg', '-i', '-', '-vf', 'scale=1:1', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'],
        image.bytes,
      );
      const expected = colours[index]?.[1] ?? [];
      assert.equal(rgb.length, 3);
      [...rgb].forEach((value, channel) =>
        assert.ok(Math.abs(value - (expected[channel] ?? 0)) <= 8, `image ${index}: ${[...rgb].join(',')}`),
      );
    });
  });
});
