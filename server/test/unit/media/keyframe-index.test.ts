import assert from 'node:assert/strict';
import {
  closeSync,
  fstatSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FfprobeAdapter } from '../../../src/adapters/ffprobe.ts';
import { checkedFileAt } from '../../../src/adapters/file-system.ts';
import { KeyframeReader } from '../../../src/adapters/keyframe-reader.ts';
import { type ContainerIndex, readContainerIndex } from '../../../src/domain/media/keyframe-index.ts';
import {
  ffmpeg,
  ffmpegToPipe,
  ffprobeKeyframes,
  fixtureFfprobe,
  h264IrregularArgs,
  sameKeyframes,
} from '../../helpers/keyframes.ts';
import { skipWithoutEncoders } from '../../helpers/media.ts';

const dir = mkdtempSync(join(tmpdir(), 'reelshelf-keyframes-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Drives the reading over a real file, counting what it asked for. */
function indexOf(path: string): { index: ContainerIndex; reads: number; bytes: number } {
  const fd = openSync(path, 'r');
  try {
    const reading = readContainerIndex(fstatSync(fd).size);
    let step = reading.next();
    let reads = 0;
    let bytes = 0;
    while (!step.done) {
      const buffer = Buffer.alloc(step.value.length);
      const n = readSync(fd, buffer, 0, buffer.length, step.value.start);
      reads++;
      bytes += n;
      step = reading.next(buffer.subarray(0, n));
    }
    return { index: step.value, reads, bytes };
  } finally {
    closeSync(fd);
  }
}

/**
 * An MP4 whose mdat has a 64-bit size (as files over 4 GiB have): its 8-byte header becomes 16 bytes,
 * and every chunk offset (stco) after it moves 8 bytes on, so ffprobe still reads the file.
 */
function withLargeMdatHeader(source: string, target: string): void {
  const data = readFileSync(source);
  let pos = 0;
  while (pos + 8 <= data.length) {
    const size = data.readUInt32BE(pos);
    if (data.toString('latin1', pos + 4, pos + 8) === 'mdat') {
      const header = Buffer.alloc(16);
      header.writeUInt32BE(1, 0);
      header.write('mdat', 4, 'latin1');
      header.writeBigUInt64BE(BigInt(size + 8), 8);
      const out = Buffer.concat([data.subarray(0, pos), header, data.subarray(pos + 8)]);
      for (let at = out.indexOf('stco'); at !== -1; at = out.indexOf('stco', at + 4)) {
        const count = out.readUInt32BE(at + 8);
        for (let i = 0; i < count; i++) {
          const offset = out.readUInt32BE(at + 12 + i * 4);
          if (offset > pos) out.writeUInt32BE(offset + 8, at + 12 + i * 4);
        }
      }
      writeFileSync(target, out);
      return;
    }
    pos += size;
  }
  throw new Error(`no mdat in ${source}`);
}

interface Case {
  name: string;
  file: string;
  make: (path: string) => Promise<void>;
  expect: 'mkv_cues' | 'mp4_stss' | 'no_index' | 'no_video';
  skip?: string | false;
}

const SECONDS = 12;
const h264 = h264IrregularArgs(SECONDS);
const CASES: Case[] = [
  {
    name: 'MKV, H.264 with B-frames, keyframes at 0/1.5/4/4.5/9.2 s and every 2 s (Cues at the end)',
    file: 'irregular.mkv',
    make: (p) => ffmpeg([...h264, p]),
    expect: 'mkv_cues',
  },
  {
    name: 'MKV with its Cues at the front (-cues_to_front) and a 5-frame minimum GOP',
    file: 'cues-front.mkv',
    make: (p) => ffmpeg([...h264, '-reserve_index_space', '50000', '-cues_to_front', '1', p]),
    expect: 'mkv_cues',
  },
  {
    name: 'MKV starting at 2 s (timestamps offset)',
    file: 'offset.mkv',
    make: (p) => ffmpeg([...h264, '-output_ts_offset', '2', p]),
    expect: 'mkv_cues',
  },
  {
    name: 'MP4 with B-frames (ctts) and an edit list, index at the end',
    file: 'bframes.mp4',
    make: (p) => ffmpeg([...h264.slice(0, -4), '-c:a', 'aac', p]),
    expect: 'mp4_stss',
  },
  {
    name: 'MP4 with its index at the front (faststart)',
    file: 'faststart.mp4',
    make: (p) => ffmpeg([...h264.slice(0, -4), '-c:a', 'aac', '-movflags', '+faststart', p]),
    expect: 'mp4_stss',
  },
  {
    name: 'MP4 delayed 2 s (an empty edit before the media)',
    file: 'delayed.mp4',
    make: (p) => ffmpeg([...h264.slice(0, -4), '-c:a', 'aac', '-output_ts_offset', '2', p]),
    expect: 'mp4_stss',
  },
  {
    name: 'MP4 with a 64-bit mdat size',
    file: 'large-mdat.mp4',
    make: async (p) => {
      await ffmpeg([...h264.slice(0, -4), '-c:a', 'aac', '-movflags', '+faststart', `${p}.src.mp4`]);
      withLargeMdatHeader(`${p}.src.mp4`, p);
    },
    expect: 'mp4_stss',
  },
  {
    name: 'MOV at 29.97 fps with B-frames',
    file: 'ntsc.mov',
    make: (p) =>
      ffmpeg([
        '-f',
        'lavfi',
        '-i',
        `testsrc2=size=320x240:rate=30000/1001:duration=${SECONDS}`,
        '-c:v',
        'libx264',
        '-preset',
        'ultrafast',
        '-bf',
        '2',
        '-g',
        '45',
        '-force_key_frames',
        '0,2.5,3.1',
        p,
      ]),
    expect: 'mp4_stss',
  },
  {
    name: 'MP4 of intra-only video (MJPEG: no stss, every sample is a keyframe)',
    file: 'intra.mp4',
    make: (p) =>
      ffmpeg(['-f', 'lavfi', '-i', 'testsrc2=size=160x120:rate=10:duration=3', '-c:v', 'mjpeg', p]),
    expect: 'mp4_stss',
  },
  {
    name: 'WebM, VP9',
    file: 'vp9.webm',
    make: (p) =>
      ffmpeg([
        '-f',
        'lavfi',
        '-i',
        `testsrc2=size=320x240:rate=25:duration=6`,
        '-c:v',
        'libvpx-vp9',
        '-deadline',
        'realtime',
        '-cpu-used',
        '8',
        '-g',
        '30',
        p,
      ]),
    expect: 'mkv_cues',
    skip: skipWithoutEncoders('libvpx-vp9'),
  },
  {
    name: 'MKV written to a pipe (no Cues): no index',
    file: 'piped.mkv',
    make: (p) => ffmpegToPipe([...h264, '-f', 'matroska', 'pipe:1'], p),
    expect: 'no_index',
  },
  {
    name: 'fragmented MP4 (samples in moof boxes): no index',
    file: 'fragmented.mp4',
    make: (p) => ffmpeg([...h264.slice(0, -4), '-c:a', 'aac', '-movflags', 'frag_keyframe+empty_moov', p]),
    expect: 'no_index',
  },
  {
    name: 'MPEG-TS: no index',
    file: 'stream.ts',
    make: (p) => ffmpeg([...h264, '-f', 'mpegts', p]),
    expect: 'no_index',
  },
  {
    name: 'audio-only MKV: no video',
    file: 'audio.mka',
    make: (p) => ffmpeg(['-f', 'lavfi', '-i', 'sine=duration=2', '-c:a', 'ac3', '-f', 'matroska', p]),
    expect: 'no_video',
  },
  {
    name: 'audio-only MP4: no video',
    file: 'audio.m4a',
    make: (p) => ffmpeg(['-f', 'lavfi', '-i', 'sine=duration=2', '-c:a', 'aac', p]),
    expect: 'no_video',
  },
];

describe('readContainerIndex: keyframe times from the container index equal ffprobe K packets', () => {
  before(async () => {
    const todo = CASES.filter((c) => c.skip === undefined || c.skip === false);
    for (let i = 0; i < todo.length; i += 2) {
      await Promise.all(todo.slice(i, i + 2).map((c) => c.make(join(dir, c.file))));
    }
  });

  for (const c of CASES) {
    it(c.name, { skip: c.skip ?? false }, async () => {
      const path = join(dir, c.file);
      const { index, reads } = indexOf(path);
      if (c.expect === 'no_index' || c.expect === 'no_video') {
        assert.equal(index.kind, c.expect, JSON.stringify(index));
        if (c.expect === 'no_index')
          assert.ok((await ffprobeKeyframes(path)).length > 0, 'the file has video');
        return;
      }
      assert.equal(index.kind, 'keyframes', JSON.stringify(index));
      if (index.kind !== 'keyframes') return;
      assert.equal(index.source, c.expect);
      const truth = await ffprobeKeyframes(path);
      assert.ok(truth.length >= 3, `ffprobe found ${truth.length} keyframes`);
      assert.equal(sameKeyframes(index.times, truth), null);
      assert.ok(reads <= 4, `${reads} reads`);
    });
  }

  it('the B-frame MP4 really has composition offsets and an edit list (the case is not trivial)', () => {
    const data = readFileSync(join(dir, 'bframes.mp4'));
    assert.ok(data.includes('ctts'), 'ctts');
    assert.ok(data.includes('elst'), 'elst');
    const { index } = indexOf(join(dir, 'bframes.mp4'));
    assert.ok(index.kind === 'keyframes' && index.times.includes(0), 'first keyframe at 0 s after the edit');
  });

  it('the irregular keyframes are where they were forced (1.5 s → the frame at 1.52 s, 9.2 s)', () => {
    // Times are relative to the first keyframe: the muxer may shift the whole film a few ms (AC-3 delay).
    for (const file of ['irregular.mkv', 'bframes.mp4']) {
      const { index } = indexOf(join(dir, file));
      assert.equal(index.kind, 'keyframes');
      if (index.kind !== 'keyframes') return;
      const first = index.times[0] ?? NaN;
      for (const t of [0, 1.52, 4, 4.52, 9.2]) {
        assert.ok(
          index.times.some((k) => Math.abs(k - first - t) < 0.001),
          `${file}: ${t} in ${index.times.join(',')}`,
        );
      }
    }
  });
});

describe('readContainerIndex: what it asks for', () => {
  const reading = (size: number, bytes: Buffer) => {
    const r = readContainerIndex(size);
    let step = r.next();
    const asked: { start: number; length: number }[] = [];
    while (!step.done) {
      asked.push(step.value);
      step = r.next(bytes.subarray(step.value.start, step.value.start + step.value.length));
    }
    return { index: step.value, asked };
  };

  it('an empty file and unknown bytes are no index, read once', () => {
    assert.deepEqual(reading(0, Buffer.alloc(0)).index.kind, 'no_index');
    const text = Buffer.from('RIFF....AVI LIST');
    const { index, asked } = reading(text.length, text);
    assert.equal(index.kind, 'no_index');
    assert.equal(asked.length, 1);
  });

  it('a truncated Matroska header or a moov cut short is no index, not an exception', () => {
    const mkv = readFileSync(join(dir, 'irregular.mkv'));
    for (const cut of [4, 20, 60, 400]) {
      const part = mkv.subarray(0, cut);
      assert.equal(reading(part.length, part).index.kind, 'no_index', `cut at ${cut}`);
    }
    const mp4 = readFileSync(join(dir, 'faststart.mp4'));
    const part = mp4.subarray(0, 2000);
    assert.equal(reading(part.length, part).index.kind, 'no_index');
  });

  it('garbage after an EBML magic is no index', () => {
    const bytes = Buffer.alloc(4096, 0xff);
    bytes.writeUInt32BE(0x1a45dfa3, 0);
    assert.equal(reading(bytes.length, bytes).index.kind, 'no_index');
  });
});

describe('KeyframeReader: the container index when there is one, else a packet scan', () => {
  const reader = new KeyframeReader(new FfprobeAdapter({ path: fixtureFfprobe }));
  const fileAt = (name: string) => {
    const path = join(dir, name);
    const size = readFileSync(path).length;
    return checkedFileAt(path, size, 0);
  };

  it('MKV with Cues: mkv_cues, no ffprobe', async () => {
    const scans = reader.counts.packetScans;
    const index = await reader.read(fileAt('irregular.mkv'));
    assert.equal(index?.source, 'mkv_cues');
    assert.equal(reader.counts.packetScans, scans);
  });

  for (const name of ['piped.mkv', 'fragmented.mp4', 'stream.ts']) {
    it(`${name}: ffprobe_packets, equal to ffprobe's K packets`, async () => {
      const index = await reader.read(fileAt(name));
      assert.equal(index?.source, 'ffprobe_packets');
      assert.equal(sameKeyframes(index?.times ?? [], await ffprobeKeyframes(join(dir, name))), null);
    });
  }

  it('audio only: null, without a packet scan for a container that says so', async () => {
    const scans = reader.counts.packetScans;
    assert.equal(await reader.read(fileAt('audio.mka')), null);
    assert.equal(await reader.read(fileAt('audio.m4a')), null);
    assert.equal(reader.counts.packetScans, scans);
  });

  it('a file ffprobe cannot read: ProbeError', async () => {
    const path = join(dir, 'garbage.avi');
    writeFileSync(path, Buffer.alloc(4096, 7));
    await assert.rejects(reader.read(checkedFileAt(path, 4096, 0)), { name: 'ProbeError' });
  });
});
