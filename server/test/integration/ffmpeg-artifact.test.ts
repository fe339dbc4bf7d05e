/**
 * The artifact argv run through the real ffmpeg on generated 2-second clips, checked with ffprobe:
 * codecs, channels, tags, duration, box order after finalising, seeking, burn-in, and progress.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import {
  closeSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import {
  buildArtifactArgs,
  type FfmpegProgress,
  ProgressParser,
} from '../../src/domain/ffmpeg/artifact-command.ts';
import { type Capabilities, parseFfprobe } from '../../src/domain/media/capabilities.ts';
import type { PlaybackPlan } from '../../src/domain/playback/decision-types.ts';
import { pgsSup } from '../helpers/pgs.ts';
import { makeFixture, makeFixtures } from '../helpers/media.ts';

const run = promisify(execFile);

interface ProbeStream {
  codec_name?: string;
  codec_type?: string;
  codec_tag_string?: string;
  channels?: number;
  pix_fmt?: string;
  field_order?: string;
  color_transfer?: string;
  tags?: Record<string, string>;
}
interface Probe {
  streams: ProbeStream[];
  format: { format_name: string; duration?: string };
}

async function probeJson(path: string): Promise<unknown> {
  const { stdout } = await run('ffprobe', [
    '-v',
    'error',
    '-print_format',
    'json',
    '-show_format',
    '-show_streams',
    path,
  ]);
  return JSON.parse(stdout) as unknown;
}

async function probe(path: string): Promise<Probe> {
  return (await probeJson(path)) as Probe;
}

async function capabilitiesOf(path: string): Promise<Capabilities> {
  return parseFfprobe(await probeJson(path), statSync(path).size, { fileName: basename(path) });
}

async function ffmpeg(args: string[]): Promise<string> {
  const { stdout } = await run('ffmpeg', args, { timeout: 60_000 });
  return stdout;
}

interface Box {
  type: string;
  offset: number;
  size: number;
}

/** Top-level MP4 boxes: 4-byte big-endian size + 4-char type (size 1 = 64-bit size follows). */
function boxesOf(path: string): Box[] {
  const fd = openSync(path, 'r');
  try {
    const fileSize = statSync(path).size;
    const header = Buffer.alloc(16);
    const boxes: Box[] = [];
    let offset = 0;
    while (offset + 8 <= fileSize) {
      readSync(fd, header, 0, 16, offset);
      let size = header.readUInt32BE(0);
      if (size === 1) size = Number(header.readBigUInt64BE(8));
      if (size === 0) size = fileSize - offset; // extends to the end of the file
      if (size < 8) throw new Error(`bad box size ${size} at ${offset}`);
      boxes.push({ type: header.toString('latin1', 4, 8), offset, size });
      offset += size;
    }
    return boxes;
  } finally {
    closeSync(fd);
  }
}

function topLevelBoxes(path: string): string[] {
  return boxesOf(path).map((box) => box.type);
}

function streamsOf(p: Probe, type: 'video' | 'audio' | 'subtitle'): ProbeStream[] {
  return p.streams.filter((s) => s.codec_type === type);
}

function only(p: Probe, type: 'video' | 'audio' | 'subtitle'): ProbeStream {
  const list = streamsOf(p, type);
  assert.equal(list.length, 1, `exactly one ${type} stream`);
  const [stream] = list;
  assert.ok(stream !== undefined);
  return stream;
}

function durationOf(p: Probe): number {
  return Number(p.format.duration);
}

async function canSeek(path: string): Promise<void> {
  await ffmpeg(['-v', 'error', '-nostdin', '-ss', '1', '-i', path, '-frames:v', '1', '-f', 'null', '-']);
}

/** The grey (luma) pixels of a w×h box at (x, y) in the frame at 1 s. */
async function grayBox(path: string, x: number, y: number, w: number, h: number): Promise<Buffer> {
  const crop = `crop=${w}:${h}:${x}:${y},format=gray`;
  const { stdout } = await run(
    'ffmpeg',
    ['-v', 'error', '-ss', '1', '-i', path, '-frames:v', '1', '-vf', crop, '-f', 'rawvideo', '-'],
    { encoding: 'buffer', timeout: 60_000 },
  );
  assert.equal(stdout.length, w * h);
  return stdout;
}

function mean(bytes: Buffer): number {
  let sum = 0;
  for (const byte of bytes) sum += byte;
  return sum / bytes.length;
}

function meanDifference(a: Buffer, b: Buffer): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs((a[i] ?? 0) - (b[i] ?? 0));
  return sum / a.length;
}

const PLAN: PlaybackPlan = {
  container: 'mp4',
  video: 'copy',
  videoTag: null,
  videoStrip: null,
  audio: 'copy',
  audioTrack: 0,
  subtitles: { mode: 'none' },
};

describe('ffmpeg artifact argv on the real ffmpeg', () => {
  let dir = '';
  let src: Record<string, string> = {};
  const caps: Record<string, Capabilities> = {};
  /** H.264 + DTS with two subtitle tracks: 0 = PGS (image, ger), 1 = SRT (text, fre). */
  let subbed = '';

  async function artifact(name: string, source: string, plan: PlaybackPlan): Promise<string> {
    const output = join(dir, `${name}.part.mp4`);
    const capabilities = caps[source] ?? (await capabilitiesOf(source));
    await ffmpeg(buildArtifactArgs({ source, output, plan, capabilities }));
    return output;
  }

  async function assertPlayableArtifact(fragmented: string): Promise<Probe> {
    const boxes = topLevelBoxes(fragmented);
    assert.deepEqual(
      boxes.slice(0, 3),
      ['ftyp', 'moov', 'sidx'],
      'fragmented while written, an index per fragment',
    );
    assert.ok(boxes.includes('moof'), 'movie fragments');
    assert.ok(boxes.includes('mdat'));
    await canSeek(fragmented);
    // The finished artifact is served as written (no faststart rewrite): its sidx per fragment is the index.
    assert.ok(boxes.includes('mfra'), 'a random-access index at the end');
    return probe(fragmented);
  }

  function assertDuration(p: Probe, source: string) {
    const expected = caps[source]?.duration_seconds ?? 2;
    assert.ok(Math.abs(durationOf(p) - expected) < 0.2, `duration ${durationOf(p)} ≈ ${expected}`);
  }

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'reelshelf-ffmpeg-'));
    src = await makeFixtures(
      dir,
      ['h264_dts.mkv', 'hevc10_hdr10_ac3.mkv', 'mpeg2_ac3.mkv', 'h264_aac_eng_dts_multi.mkv'],
      2,
    );
    const sup = join(dir, 'sub.sup');
    const srt = join(dir, 'sub.srt');
    writeFileSync(sup, pgsSup());
    writeFileSync(srt, '1\n00:00:00,200 --> 00:00:01,800\nBonjour\n\n');
    // A name that needs every kind of filtergraph escaping.
    subbed = join(dir, "it's: [odd], ok;\\x.mkv");
    const base = src['h264_dts.mkv'] ?? '';
    const inputs = ['-i', base, '-i', sup, '-i', srt];
    const maps = ['-map', '0:v', '-map', '0:a', '-map', '1:s', '-map', '2:s'];
    const codecs = ['-c', 'copy', '-c:s:1', 'srt', '-bsf:s:0', 'pgs_frame_merge'];
    const languages = ['-metadata:s:s:0', 'language=ger', '-metadata:s:s:1', 'language=fre'];
    await ffmpeg(['-v', 'error', '-y', ...inputs, ...maps, ...codecs, ...languages, subbed]);
    for (const path of [...Object.values(src), subbed]) caps[path] = await capabilitiesOf(path);
  });

  after(() => {
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  });

  it('the growing file is a playable MP4 at every fragment boundary', async () => {
    const source = await makeFixture('h264_dts.mkv', join(dir, 'six', 'h264_dts.mkv'), 6);
    const built = await artifact('growing', source, {
      ...PLAN,
      audio: { codec: 'aac', channels: 2, bitrate: 128_000 },
    });
    const boxes = boxesOf(built);
    const fragments = boxes.filter((box) => box.type === 'mdat');
    assert.ok(fragments.length >= 3, `one fragment per 2 s at most (${fragments.length})`);
    const bytes = readFileSync(built);
    // What a reader sees while ffmpeg is still writing: the file cut after the first fragments.
    for (const [count, seconds] of [
      [1, 2],
      [2, 4],
    ] as const) {
      const fragment = fragments[count - 1];
      assert.ok(fragment !== undefined);
      const prefix = join(dir, `growing-${count}.mp4`);
      writeFileSync(prefix, bytes.subarray(0, fragment.offset + fragment.size));
      const out = await probe(prefix);
      assert.equal(only(out, 'video').codec_name, 'h264');
      assert.ok(
        Math.abs(durationOf(out) - seconds) < 0.3,
        `prefix of ${count} fragment(s): ${durationOf(out)} s`,
      );
      await ffmpeg(['-v', 'error', '-nostdin', '-i', prefix, '-f', 'null', '-']);
    }
  });

  it('remux MKV → MP4: H.264 and DTS copied (DTS under -strict experimental), seekable, indexed', async () => {
    const source = src['h264_dts.mkv'] ?? '';
    const out = await assertPlayableArtifact(await artifact('remux', source, PLAN));
    assert.match(out.format.format_name, /mp4/);
    assert.equal(only(out, 'video').codec_name, 'h264');
    assert.equal(only(out, 'audio').codec_name, 'dts');
    assert.equal(only(out, 'audio').tags?.language, 'eng');
    assertDuration(out, source);
  });

  it('HEVC copy is tagged hvc1; AC-3 5.1 → E-AC-3 5.1', async () => {
    const source = src['hevc10_hdr10_ac3.mkv'] ?? '';
    const plan: PlaybackPlan = {
      ...PLAN,
      videoTag: 'hvc1',
      audio: { codec: 'eac3', channels: 6, bitrate: 640_000 },
    };
    const out = await assertPlayableArtifact(await artifact('hevc-copy', source, plan));
    const video = only(out, 'video');
    assert.equal(video.codec_name, 'hevc');
    assert.equal(video.codec_tag_string, 'hvc1');
    assert.equal(video.color_transfer, 'smpte2084');
    const audio = only(out, 'audio');
    assert.equal(audio.codec_name, 'eac3');
    assert.equal(audio.channels, 6);
    assertDuration(out, source);
  });

  it('adaptive: video copied, DTS → E-AC-3 and DTS → AAC 2.0 from the multi-track file', async () => {
    const source = src['h264_aac_eng_dts_multi.mkv'] ?? '';
    const eac3 = await probe(
      await artifact('adaptive-eac3', source, {
        ...PLAN,
        audio: { codec: 'eac3', channels: 2, bitrate: 256_000 },
      }),
    );
    assert.equal(only(eac3, 'video').codec_name, 'h264');
    assert.equal(only(eac3, 'audio').codec_name, 'eac3');
    const aacPath = await artifact('adaptive-aac', source, {
      ...PLAN,
      audio: { codec: 'aac', channels: 2, bitrate: 256_000 },
    });
    const aac = await assertPlayableArtifact(aacPath);
    assert.equal(only(aac, 'audio').codec_name, 'aac');
    assert.equal(only(aac, 'audio').channels, 2);
    assert.equal(only(aac, 'audio').tags?.language, 'eng');
    assertDuration(aac, source);
  });

  it('transcode: HEVC 10-bit HDR10 → H.264 8-bit, tone-mapped to BT.709, with progress read to the end', async () => {
    const source = src['hevc10_hdr10_ac3.mkv'] ?? '';
    const capabilities = caps[source];
    assert.ok(capabilities !== undefined);
    const output = join(dir, 'transcode.part.mp4');
    const plan: PlaybackPlan = {
      ...PLAN,
      video: {
        codec: 'h264',
        bitDepth: 8,
        hdr: 'sdr',
        toneMap: true,
        deinterlace: false,
        burnSubtitle: null,
      },
      audio: { codec: 'aac', channels: 2, bitrate: 256_000 },
    };
    const args = buildArtifactArgs({ source, output, plan, capabilities });
    const parser = new ProgressParser(capabilities.duration_seconds);
    const seen: FfmpegProgress[] = [];
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn('ffmpeg', args, { stdio: ['ignore', 'pipe', 'inherit'] });
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => {
        // Split every chunk mid-line as a pipe may.
        for (let i = 0; i < chunk.length; i += 17) seen.push(parser.push(chunk.slice(i, i + 17)));
      });
      child.on('error', reject);
      child.on('close', resolve);
    });
    assert.equal(code, 0);
    const last = seen.at(-1);
    assert.equal(last?.percent, 100);
    assert.equal(last?.done, true);
    assert.ok((last?.outTimeSeconds ?? 0) > 1.5);
    for (let i = 1; i < seen.length; i++) {
      assert.ok((seen[i]?.percent ?? 0) >= (seen[i - 1]?.percent ?? 0), 'never decreases');
    }
    assert.ok(seen.slice(0, -1).every((p) => p.percent < 100 || p.done));
    const out = await assertPlayableArtifact(output);
    const video = only(out, 'video');
    assert.equal(video.codec_name, 'h264');
    assert.equal(video.pix_fmt, 'yuv420p');
    assert.equal(video.color_transfer, 'bt709');
    assert.equal(only(out, 'audio').codec_name, 'aac');
    assertDuration(out, source);
  });

  it('MPEG-2 interlaced → H.264 progressive (yadif), AC-3 copied', async () => {
    const source = src['mpeg2_ac3.mkv'] ?? '';
    assert.equal(caps[source]?.video?.interlaced, true);
    const plan: PlaybackPlan = {
      ...PLAN,
      video: {
        codec: 'h264',
        bitDepth: 8,
        hdr: 'sdr',
        toneMap: false,
        deinterlace: true,
        burnSubtitle: null,
      },
    };
    const out = await assertPlayableArtifact(await artifact('deinterlace', source, plan));
    const video = only(out, 'video');
    assert.equal(video.codec_name, 'h264');
    assert.equal(video.field_order, 'progressive');
    assert.equal(only(out, 'audio').codec_name, 'ac3');
    assertDuration(out, source);
  });

  const encodeH264 = (burnSubtitle: number | null): PlaybackPlan['video'] => ({
    codec: 'h264',
    bitDepth: 8,
    hdr: 'sdr',
    toneMap: false,
    deinterlace: false,
    burnSubtitle,
  });

  it('burns an image (PGS) subtitle into the picture', async () => {
    const plan: PlaybackPlan = {
      ...PLAN,
      video: encodeH264(0),
      audio: { codec: 'aac', channels: 2, bitrate: 128_000 },
      subtitles: { mode: 'burn_in', track: 0 },
    };
    const burned = await artifact('burn-pgs', subbed, plan);
    assert.equal(streamsOf(await probe(burned), 'subtitle').length, 0);
    const plain = await artifact('no-burn', subbed, {
      ...plan,
      video: encodeH264(null),
      subtitles: { mode: 'none' },
    });
    assert.ok(mean(await grayBox(burned, 120, 190, 80, 20)) > 200, 'the white box is in the picture');
    assert.ok(mean(await grayBox(plain, 120, 190, 80, 20)) < 200, 'and not without burn-in');
  });

  it('burns a text subtitle through the subtitles filter from a path that needs escaping', async () => {
    const plan: PlaybackPlan = {
      ...PLAN,
      video: encodeH264(1),
      audio: 'none',
      subtitles: { mode: 'burn_in', track: 1 },
    };
    const burned = await artifact('burn-srt', subbed, plan);
    const out = await probe(burned);
    assert.equal(only(out, 'video').codec_name, 'h264');
    assert.equal(streamsOf(out, 'audio').length, 0);
    const plain = await artifact('no-burn-srt', subbed, {
      ...plan,
      video: encodeH264(null),
      subtitles: { mode: 'none' },
    });
    const [text, none] = [await grayBox(burned, 100, 200, 120, 40), await grayBox(plain, 100, 200, 120, 40)];
    assert.ok(meanDifference(text, none) > 3, 'the text is drawn at the bottom centre');
    const top = meanDifference(await grayBox(burned, 0, 0, 320, 100), await grayBox(plain, 0, 0, 320, 100));
    assert.ok(top < 3, 'and nothing else');
  });

  it('converts a text subtitle to mov_text with its language; audio none maps no audio', async () => {
    const plan: PlaybackPlan = {
      ...PLAN,
      audio: 'none',
      subtitles: { mode: 'convert', track: 1, codec: 'mov_text' },
    };
    const out = await assertPlayableArtifact(await artifact('mov-text', subbed, plan));
    assert.equal(only(out, 'video').codec_name, 'h264');
    assert.equal(streamsOf(out, 'audio').length, 0);
    const sub = only(out, 'subtitle');
    assert.equal(sub.codec_name, 'mov_text');
    assert.equal(sub.tags?.language, 'fre');
  });
});
