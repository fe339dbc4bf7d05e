import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { Fmp4FormatError, type Fmp4Piece, Fmp4Splitter } from '../../../src/domain/hls/fmp4-splitter.ts';
import { fixtureFfmpeg } from '../../helpers/media.ts';

const run = promisify(execFile);

/** A fragmented MP4 as the HLS runs write it, made by ffmpeg. */
async function fragmented(kind: 'video' | 'audio'): Promise<Buffer> {
  const input =
    kind === 'video'
      ? [
          '-f',
          'lavfi',
          '-i',
          'testsrc2=duration=6:size=160x120:rate=25',
          '-c:v',
          'libx264',
          '-preset',
          'ultrafast',
        ]
      : ['-f', 'lavfi', '-i', 'sine=duration=6:sample_rate=48000', '-c:a', 'aac'];
  const fragment =
    kind === 'video'
      ? [
          '-force_key_frames',
          'expr:gte(t,n_forced*2)',
          '-movflags',
          '+frag_keyframe+empty_moov+default_base_moof',
        ]
      : ['-movflags', '+empty_moov+default_base_moof', '-frag_duration', '250000'];
  const { stdout } = await run(
    fixtureFfmpeg,
    ['-hide_banner', '-v', 'error', ...input, ...fragment, '-f', 'mp4', 'pipe:1'],
    {
      encoding: 'buffer',
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  return stdout;
}

/** Feeds the bytes in uneven chunks, as a pipe delivers them. */
function split(bytes: Buffer, chunk: number): Fmp4Piece[] {
  const splitter = new Fmp4Splitter();
  const out: Fmp4Piece[] = [];
  for (let at = 0; at < bytes.length; at += chunk) out.push(...splitter.push(bytes.subarray(at, at + chunk)));
  out.push(...splitter.end());
  return out;
}

describe('Fmp4Splitter', () => {
  for (const kind of ['video', 'audio'] as const) {
    it(`${kind}: one init, then fragments that follow each other exactly (decode time + duration = next)`, async () => {
      const bytes = await fragmented(kind);
      for (const chunk of [7, 4096, bytes.length]) {
        const pieces = split(bytes, chunk);
        assert.equal(pieces[0]?.kind, 'init');
        const fragments = pieces.filter((p) => p.kind === 'fragment');
        assert.ok(fragments.length >= 3, `${fragments.length} fragments`);
        for (let i = 1; i < fragments.length; i++) {
          const previous = fragments[i - 1];
          const current = fragments[i];
          if (previous?.kind !== 'fragment' || current?.kind !== 'fragment') continue;
          assert.ok(
            Math.abs(previous.decodeTime + previous.duration - current.decodeTime) < 1e-6,
            `fragment ${i}`,
          );
        }
        const last = fragments.at(-1);
        assert.ok(last?.kind === 'fragment');
        const end = last.decodeTime + last.duration;
        assert.ok(Math.abs(end - 6) < 0.05, `ends at ${end}`);
      }
    });
  }

  it('video: keyframes every 2 s make one fragment per 2 s', async () => {
    const fragments = split(await fragmented('video'), 65536).filter((p) => p.kind === 'fragment');
    assert.deepEqual(
      fragments.map((p) => (p.kind === 'fragment' ? Math.round(p.decodeTime * 1000) / 1000 : -1)),
      [0, 2, 4],
    );
  });

  it('a stream cut inside a box is an error at the end, never a short fragment', async () => {
    const bytes = await fragmented('audio');
    const splitter = new Fmp4Splitter();
    splitter.push(bytes.subarray(0, bytes.length - 10));
    assert.throws(() => splitter.end(), Fmp4FormatError);
  });
});
