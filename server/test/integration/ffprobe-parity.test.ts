/**
 * The bundled static ffprobe is preferred to the system one because it starts ~10× faster (issue 15:
 * first scans went from ~29 to ~150 files/s). That choice is only sound while both read every file
 * the same way: this test holds the capability records (and the error lines, and the keyframes a
 * packet scan finds) of the whole fixture matrix, with subtitle streams of every kind, identical
 * between the two binaries.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { FfprobeAdapter } from '../../src/adapters/ffprobe.ts';
import { bundledToolPath, findOnPath } from '../../src/adapters/media-tools.ts';
import { type Capabilities, parseFfprobe } from '../../src/domain/media/capabilities.ts';
import { type FixtureName, fixtureFfmpeg, makeFixture, makeFixtures } from '../helpers/media.ts';
import { pgsSup } from '../helpers/pgs.ts';

const run = promisify(execFile);

const systemProbe = findOnPath('ffprobe', process.env.PATH);
const bundledProbe = bundledToolPath('ffprobe');
const skip =
  systemProbe === null
    ? 'no ffprobe on the PATH to compare with'
    : bundledProbe === null
      ? 'the bundled ffprobe is not installed'
      : false;

const MATRIX: FixtureName[] = [
  'h264_aac.mp4',
  'mpeg2_720p.mkv',
  'h264_dts.mkv',
  'hevc10_hdr10_ac3.mkv',
  'vp9_opus.webm',
  'mpeg2_ac3.mkv',
  'h264_aac_eng_dts_multi.mkv',
  'garbage.mkv',
  'truncated.mp4',
];

function srt(text: string): string {
  return `1\n00:00:00,100 --> 00:00:00,900\n${text}\n`;
}

/** An MKV with SubRip, ASS (forced) and PGS streams, and an MP4 with mov_text: every subtitle kind a scan records. */
async function makeSubtitleFiles(dir: string): Promise<string[]> {
  const base = await makeFixture('h264_aac.mp4', join(dir, 'base.mp4'), 2);
  writeFileSync(join(dir, 'en.srt'), srt('Hello'));
  writeFileSync(
    join(dir, 'fr.ass'),
    '[Script Info]\nScriptType: v4.00+\n\n[V4+ Styles]\nFormat: Name, Fontname, Fontsize\nStyle: Default,Arial,20\n\n' +
      '[Events]\nFormat: Layer, Start, End, Style, Text\nDialogue: 0,0:00:00.10,0:00:00.90,Default,Bonjour\n',
  );
  writeFileSync(join(dir, 'de.sup'), pgsSup());
  const mkv = join(dir, 'subtitles.mkv');
  const mp4 = join(dir, 'mov_text.mp4');
  const quiet = ['-hide_banner', '-loglevel', 'error', '-y'];
  await run(
    fixtureFfmpeg,
    [
      ...quiet,
      ...[
        '-i',
        base,
        '-i',
        join(dir, 'en.srt'),
        '-i',
        join(dir, 'fr.ass'),
        '-f',
        'sup',
        '-i',
        join(dir, 'de.sup'),
      ],
      ...['-map', '0:v', '-map', '0:a', '-map', '1:0', '-map', '2:0', '-map', '3:0'],
      ...['-c', 'copy', '-c:s:0', 'srt', '-c:s:1', 'ass'],
      ...[
        '-metadata:s:s:0',
        'language=eng',
        '-metadata:s:s:1',
        'language=fre',
        '-metadata:s:s:2',
        'language=ger',
      ],
      ...['-disposition:s:0', 'default', '-disposition:s:1', 'forced', '-disposition:s:2', '0'],
      mkv,
    ],
    { timeout: 120_000 },
  );
  await run(
    fixtureFfmpeg,
    [
      ...quiet,
      ...['-i', base, '-i', join(dir, 'en.srt'), '-map', '0:v', '-map', '0:a', '-map', '1:0'],
      ...['-c', 'copy', '-c:s', 'mov_text', '-metadata:s:s:0', 'language=eng', mp4],
    ],
    { timeout: 120_000 },
  );
  return [mkv, mp4];
}

describe('the bundled ffprobe reads the fixture matrix exactly as the system ffprobe', { skip }, () => {
  let dir = '';
  let files: string[] = [];
  const system = new FfprobeAdapter({ path: systemProbe ?? 'ffprobe' });
  const bundled = new FfprobeAdapter({ path: bundledProbe ?? 'ffprobe' });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'reelshelf-ffprobe-parity-'));
    const matrix = await makeFixtures(dir, MATRIX, 2);
    files = [...MATRIX.map((name) => matrix[name] ?? ''), ...(await makeSubtitleFiles(dir))];
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** What the analysis stores for a file: the capability record and ffprobe's error lines, or why it failed. */
  async function record(probe: FfprobeAdapter, file: string): Promise<unknown> {
    try {
      const out = await probe.probe(file);
      return {
        capabilities: parseFfprobe(out.json, statSync(file).size, { fileName: file }),
        errors: out.errors,
      };
    } catch (err) {
      return { failed: (err as Error).name };
    }
  }

  it('the same capability record for every file', async () => {
    let parsed = 0;
    for (const file of files) {
      const fromSystem = await record(system, file);
      assert.deepEqual(await record(bundled, file), fromSystem, file);
      if (typeof fromSystem === 'object' && fromSystem !== null && 'capabilities' in fromSystem) parsed++;
    }
    // garbage.mkv fails on both; everything else must parse, or the comparison proves little.
    assert.equal(parsed, files.length - 1);
    const subtitled = (await record(system, join(dir, 'subtitles.mkv'))) as { capabilities: Capabilities };
    assert.deepEqual(
      subtitled.capabilities.subtitles.map((s) => [s.codec, s.kind, s.language, s.forced, s.default]),
      [
        ['srt', 'text', 'eng', false, true],
        ['ass', 'text', 'fre', true, false],
        ['pgs', 'image', 'ger', false, false],
      ],
    );
  });

  it('the same keyframes from a packet scan', async () => {
    for (const name of ['mpeg2_720p.mkv', 'vp9_opus.webm', 'hevc10_hdr10_ac3.mkv'] as const) {
      const file = join(dir, name);
      const fromSystem = await system.keyframes(file);
      assert.ok(fromSystem.length > 0, name);
      assert.deepEqual(await bundled.keyframes(file), fromSystem, name);
    }
  });
});
