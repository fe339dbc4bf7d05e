import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { renumberTsSegment, TsContinuityError } from '../../../src/domain/hls/ts-continuity.ts';
import { TS_PACKET_BYTES } from '../../../src/domain/hls/ts-splitter.ts';
import { fixtureFfmpeg } from '../../helpers/media.ts';

const run = promisify(execFile);

interface Seen {
  pid: number;
  counter: number;
  payloadStart: boolean;
  hasPayload: boolean;
  payload: Buffer;
  pcr: boolean;
}

function packets(bytes: Buffer): Seen[] {
  const out: Seen[] = [];
  for (let at = 0; at < bytes.length; at += TS_PACKET_BYTES) {
    const p = bytes.subarray(at, at + TS_PACKET_BYTES);
    assert.equal(p[0], 0x47, `sync byte at ${at}`);
    const control = ((p[3] ?? 0) >> 4) & 3;
    const afLength = (control & 2) !== 0 ? (p[4] ?? 0) + 1 : 0;
    out.push({
      pid: (((p[1] ?? 0) & 0x1f) << 8) | (p[2] ?? 0),
      counter: (p[3] ?? 0) & 0x0f,
      payloadStart: ((p[1] ?? 0) & 0x40) !== 0,
      hasPayload: (control & 1) !== 0,
      payload: (control & 1) !== 0 ? Buffer.from(p.subarray(4 + afLength)) : Buffer.alloc(0),
      pcr: afLength > 1 && ((p[5] ?? 0) & 0x10) !== 0,
    });
  }
  return out;
}

/** The continuity rule a demuxer checks, over one segment followed by another. */
function continuityBreaks(...segments: Buffer[]): string[] {
  const last = new Map<number, number>();
  const breaks: string[] = [];
  segments.forEach((segment, n) => {
    for (const p of packets(segment)) {
      const before = last.get(p.pid);
      const expected = before === undefined ? p.counter : p.hasPayload ? (before + 1) % 16 : before;
      if (p.counter !== expected) breaks.push(`segment ${n} PID ${p.pid}: ${p.counter} after ${before}`);
      last.set(p.pid, p.counter);
    }
  });
  return breaks;
}

/** The bytes a PID's packets carry, in order (the PES data a demuxer reassembles). */
function payloadOf(bytes: Buffer, pid: number): Buffer {
  return Buffer.concat(
    packets(bytes)
      .filter((p) => p.pid === pid)
      .map((p) => p.payload),
  );
}

/** MPEG-TS as an HLS run writes it: one stream, the tables before it, counters from 0. */
async function tsOf(kind: 'video' | 'audio', seconds: number): Promise<Buffer> {
  const input =
    kind === 'video'
      ? ['-f', 'lavfi', '-i', `testsrc2=duration=${seconds}:size=160x120:rate=25`, '-c:v', 'libx264']
      : ['-f', 'lavfi', '-i', `sine=duration=${seconds}:sample_rate=48000`, '-c:a', 'aac'];
  const { stdout } = await run(
    fixtureFfmpeg,
    ['-hide_banner', '-v', 'error', ...input, '-pes_payload_size', '0', '-f', 'mpegts', 'pipe:1'],
    { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 },
  );
  return stdout;
}

/** `count` whole packets from `from` (a segment cut anywhere: counters start mid-sequence). */
function slice(ts: Buffer, from: number, count: number): Buffer {
  return Buffer.from(ts.subarray(from * TS_PACKET_BYTES, (from + count) * TS_PACKET_BYTES));
}

describe('renumberTsSegment: every segment joins every other without a continuity error', () => {
  it('segments cut from two different runs join: each PID counts 0…15 and ends on 15', async () => {
    for (const kind of ['video', 'audio'] as const) {
      const runA = await tsOf(kind, 2);
      const runB = await tsOf(kind, 2);
      // Cut at odd places so the raw counters disagree at the join.
      const first = slice(runA, 0, 37);
      const second = slice(runB, 53, 41);
      assert.notDeepEqual(continuityBreaks(first, second), [], 'the raw join breaks continuity');
      const a = renumberTsSegment(first);
      const b = renumberTsSegment(second);
      assert.deepEqual(continuityBreaks(a, b), [], kind);
      assert.deepEqual(continuityBreaks(b, a), [], `${kind}, the other way round`);
      for (const segment of [a, b]) {
        const seen = packets(segment);
        for (const pid of new Set(seen.map((p) => p.pid))) {
          const own = seen.filter((p) => p.pid === pid && p.hasPayload);
          assert.equal(own.length % 16, 0, `${kind} PID ${pid}: ${own.length} payload packets`);
          assert.equal(own[0]?.counter, 0);
          assert.equal(own.at(-1)?.counter, 15);
        }
      }
    }
  });

  it('the stream PID carries the same bytes (packets split, never changed); tables are repeated', async () => {
    const ts = await tsOf('video', 2);
    const segment = slice(ts, 0, 120);
    const out = renumberTsSegment(segment);
    // ffmpeg's first elementary stream PID (the PMT is 0x1000).
    const streamPid = 0x100;
    assert.deepEqual(payloadOf(out, streamPid), payloadOf(segment, streamPid));
    // PES starts and the PCR stay where they were: on the first piece of a split packet.
    const starts = (bytes: Buffer) =>
      packets(bytes).filter((p) => p.pid === streamPid && p.payloadStart).length;
    const pcrs = (bytes: Buffer) => packets(bytes).filter((p) => p.pid === streamPid && p.pcr).length;
    assert.equal(starts(out), starts(segment));
    assert.equal(pcrs(out), pcrs(segment));
    const pat = packets(out).filter((p) => p.pid === 0);
    assert.equal(pat.length, 16);
    assert.ok(pat.every((p) => p.payload.equals(pat[0]?.payload ?? Buffer.alloc(0))));
  });

  it('drops the SDT, which no HLS player reads and which cannot be padded like a table of one packet', async () => {
    const ts = await tsOf('audio', 1);
    assert.ok(
      packets(ts).some((p) => p.pid === 0x11),
      'ffmpeg writes an SDT',
    );
    const out = renumberTsSegment(slice(ts, 0, 60));
    assert.ok(!packets(out).some((p) => p.pid === 0x11));
  });

  it('a segment of few packets is padded by splitting a packet again', () => {
    // One PES of two packets: 14 more are needed, so pieces are split again.
    const header = Buffer.from([0x47, 0x41, 0x00, 0x17]);
    const pes = Buffer.alloc(184, 0xab);
    pes.set([0x00, 0x00, 0x01, 0xc0, 0x00, 0x00, 0x80, 0x80, 0x05, 0x21, 0x00, 0x01, 0x00, 0x01], 0);
    const rest = Buffer.concat([Buffer.from([0x47, 0x01, 0x00, 0x18]), Buffer.alloc(184, 0xcd)]);
    const segment = Buffer.concat([header, pes, rest]);
    const out = renumberTsSegment(segment);
    assert.deepEqual(continuityBreaks(out, out), []);
    assert.equal(packets(out).length, 16);
    assert.deepEqual(payloadOf(out, 0x100), payloadOf(segment, 0x100));
  });

  const bad: [string, Buffer][] = [
    ['not whole packets', Buffer.alloc(TS_PACKET_BYTES + 3, 0x47)],
    ['no sync byte', Buffer.alloc(TS_PACKET_BYTES, 0x00)],
  ];
  for (const [name, bytes] of bad) {
    it(`refuses a segment of ${name}`, () => {
      assert.throws(() => renumberTsSegment(bytes), TsContinuityError);
    });
  }
});
