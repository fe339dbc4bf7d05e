import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  fileFingerprint,
  formatFingerprint,
  osHash,
  osHashFromBlocks,
  parseFingerprint,
} from '../../../src/adapters/fingerprint.ts';

/**
 * An independent, deliberately plain OSHash over a whole buffer: 32-bit halves with explicit carry
 * (no BigInt, no DataView), head = first min(64 KiB, n) bytes, tail = last min(64 KiB, n) bytes, whole
 * 8-byte words only — the trac.opensubtitles.org C reference.
 */
function referenceOsHash(data: Uint8Array): string {
  let lo = data.length % 0x1_0000_0000;
  let hi = Math.floor(data.length / 0x1_0000_0000);
  const add = (from: number, length: number): void => {
    for (let at = from; at + 8 <= from + length; at += 8) {
      const wordLo =
        ((data[at] ?? 0) | ((data[at + 1] ?? 0) << 8) | ((data[at + 2] ?? 0) << 16)) +
        (data[at + 3] ?? 0) * 0x100_0000;
      const wordHi =
        ((data[at + 4] ?? 0) | ((data[at + 5] ?? 0) << 8) | ((data[at + 6] ?? 0) << 16)) +
        (data[at + 7] ?? 0) * 0x100_0000;
      const sumLo = lo + wordLo;
      lo = sumLo % 0x1_0000_0000;
      hi = (hi + wordHi + Math.floor(sumLo / 0x1_0000_0000)) % 0x1_0000_0000;
    }
  };
  const block = Math.min(65536, data.length);
  add(0, block);
  add(data.length - block, block);
  return hi.toString(16).padStart(8, '0') + lo.toString(16).padStart(8, '0');
}

/** Deterministic pseudo-random bytes (xorshift32), so the test needs no fixture file. */
function noise(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

const blocks = (data: Uint8Array): [Uint8Array, Uint8Array] => {
  const n = Math.min(65536, data.length);
  return [data.subarray(0, n), data.subarray(data.length - n)];
};

describe('osHashFromBlocks (metadata.md §5.1 vectors)', () => {
  const pattern = new Uint8Array(131072).map((_v, i) => i % 256);
  const table: [string, Uint8Array, string][] = [
    ['131,072 zero bytes', new Uint8Array(131072), '0000000000020000'],
    ['200,000 zero bytes', new Uint8Array(200000), '0000000000030d40'],
    ['131,072 bytes of 0xFF (wraps mod 2^64)', new Uint8Array(131072).fill(0xff), '000000000001c000'],
    ['bytes 0,1,…,255 repeated', pattern, 'a0601fdf9f610000'],
  ];
  for (const [name, data, expected] of table) {
    it(name, () => {
      const [head, tail] = blocks(data);
      assert.equal(osHashFromBlocks(data.length, head, tail), expected);
      assert.equal(referenceOsHash(data), expected);
    });
  }

  it('matches the independent implementation on pseudo-random data', () => {
    for (const [length, seed] of [
      [131072, 1],
      [1_000_003, 7],
      [300_000, 99],
    ] as const) {
      const data = noise(length, seed);
      const [head, tail] = blocks(data);
      assert.equal(osHashFromBlocks(length, head, tail), referenceOsHash(data), `length ${length}`);
    }
  });

  it('puts the size in: two files differing only in size differ', () => {
    const data = new Uint8Array(131072);
    assert.notEqual(osHashFromBlocks(131072, data, data), osHashFromBlocks(131080, data, data));
  });

  it('accepts sizes beyond 2^53 as bigint and zero-pads', () => {
    const empty = new Uint8Array(0);
    assert.equal(osHashFromBlocks(2n ** 64n + 5n, empty, empty), '0000000000000005');
    assert.equal(osHashFromBlocks(0, empty, empty), '0000000000000000');
  });
});

describe('osHash / fileFingerprint on real files', () => {
  let dir = '';
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'reelshelf-fingerprint-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('hashes a multi-block file by its two ends only', async () => {
    const data = noise(1_234_567, 42);
    const path = join(dir, 'movie.mkv');
    await writeFile(path, data);
    assert.equal(await osHash(path), referenceOsHash(data));
    assert.equal(await fileFingerprint(path), `${referenceOsHash(data)}-1234567`);

    // a change in the middle is invisible (a documented weakness, §5.2); a change at the end is not
    const middle = Uint8Array.from(data);
    middle[600_000] = (middle[600_000] ?? 0) ^ 0xff;
    await writeFile(path, middle);
    assert.equal(await osHash(path), referenceOsHash(data));
    const end = Uint8Array.from(data);
    end[data.length - 10] = (end[data.length - 10] ?? 0) ^ 0xff;
    await writeFile(path, end);
    assert.notEqual(await osHash(path), referenceOsHash(data));
  });

  it('hashes files smaller than 128 KiB like the C reference (overlapping blocks)', async () => {
    for (const length of [0, 7, 8, 100, 65536, 65537, 131071]) {
      const data = noise(length, length + 3);
      const path = join(dir, `small-${length}.bin`);
      await writeFile(path, data);
      assert.equal(await osHash(path), referenceOsHash(data), `length ${length}`);
      assert.equal(await fileFingerprint(path), `${referenceOsHash(data)}-${length}`);
    }
    assert.equal(await fileFingerprint(join(dir, 'small-0.bin')), '0000000000000000-0');
  });

  it('hashes 131,072 zero bytes to the size', async () => {
    const path = join(dir, 'zeros.bin');
    await writeFile(path, new Uint8Array(131072));
    assert.equal(await fileFingerprint(path), '0000000000020000-131072');
  });

  it('rejects a missing file', async () => {
    await assert.rejects(osHash(join(dir, 'missing.mkv')), { code: 'ENOENT' });
  });
});

describe('fingerprint format', () => {
  it('formats and parses <16 hex>-<size>', () => {
    assert.equal(formatFingerprint('8E245D9679D31E12', 12909756), '8e245d9679d31e12-12909756');
    assert.deepEqual(parseFingerprint('8e245d9679d31e12-12909756'), {
      oshash: '8e245d9679d31e12',
      sizeBytes: 12909756,
    });
  });
  it('rejects anything else', () => {
    for (const text of [
      '',
      '8e245d9679d31e12',
      '8e245d9679d31e1-12',
      '8E245D9679D31E12-1',
      '8e245d9679d31e12-012',
      'x-1',
    ]) {
      assert.equal(parseFingerprint(text), null, text);
    }
  });
});
