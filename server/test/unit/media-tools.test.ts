/**
 * Where the media tools come from: REELSHELF_FFMPEG/REELSHELF_FFPROBE, else the PATH, else the
 * static builds installed from npm. Real binaries, real PATH folders (temp dirs with symlinks).
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FfmpegAdapter, FfmpegError } from '../../src/adapters/ffmpeg.ts';
import { FfprobeAdapter, ProbeError } from '../../src/adapters/ffprobe.ts';
import {
  bundledToolPath,
  detectMediaTools,
  findOnPath,
  locateMediaTool,
  parseVersionOutput,
  releaseOfLibavcodec,
} from '../../src/adapters/media-tools.ts';
import type { Config } from '../../src/config.ts';
import { loadConfig } from '../../src/config.ts';
import { SystemStatusService } from '../../src/services/system/system-status.service.ts';

describe('FFmpeg release from libavcodec', () => {
  const table: [number, number, string | null][] = [
    [58, 42, '4.1'], // the 2018-12-10 snapshot bundled by @ffmpeg-installer/ffmpeg
    [58, 35, '4.1'],
    [58, 34, '4.0'],
    [59, 37, '5.1'], // Debian 12
    [60, 22, '6.0'], // the 2023-07-21 snapshot bundled by @ffprobe-installer/ffprobe
    [61, 19, '7.1'],
    [56, 60, null],
  ];
  for (const [major, minor, release] of table) {
    it(`libavcodec ${major}.${minor} → ${release}`, () =>
      assert.equal(releaseOfLibavcodec(major, minor), release));
  }
  it('reads a git snapshot banner', () => {
    const out = [
      'ffmpeg version N-47683-g0e8eb07980-static https://johnvansickle.com/ffmpeg/  Copyright (c) 2000-2018',
      'libavutil      56. 24.101 / 56. 24.101',
      'libavcodec     58. 42.100 / 58. 42.100',
    ].join('\n');
    assert.deepEqual(parseVersionOutput(out), { version: 'N-47683-g0e8eb07980-static', release: '4.1' });
  });
});

describe('locating ffmpeg and ffprobe', () => {
  let dir: string;
  let withTools: string;
  let empty: string;
  let decoy: string;
  const systemFfprobe = findOnPath('ffprobe', process.env.PATH);
  const systemFfmpeg = findOnPath('ffmpeg', process.env.PATH);
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'reelshelf-tools-'));
    withTools = join(dir, 'with-tools');
    empty = join(dir, 'empty');
    decoy = join(dir, 'decoy');
    for (const d of [withTools, empty, decoy]) mkdirSync(d);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('the bundled static builds exist and answer', async () => {
    for (const name of ['ffmpeg', 'ffprobe'] as const) {
      const path = bundledToolPath(name);
      assert.ok(path !== null, `${name}: optional dependency installed`);
      assert.match(path, new RegExp(`@${name}-installer/.*/${name}$`));
    }
  });

  it('an empty PATH falls back to the bundled builds', async () => {
    const tools = await detectMediaTools({ ffmpeg: null, ffprobe: null, searchPath: empty });
    assert.equal(tools.ffprobe.source, 'bundled');
    assert.equal(tools.ffprobe.path, bundledToolPath('ffprobe'));
    assert.match(tools.ffprobe.version ?? '', /^N-\d+-g[0-9a-f]+/);
    assert.equal(tools.ffmpeg.source, 'bundled');
    assert.equal(tools.ffmpeg.release, '4.1');
    assert.ok(tools.encoders.includes('libx264'));
    assert.ok(!tools.encoders.includes('libsvtav1'));
  });

  it(
    'ffmpeg: the PATH comes before the bundled build (the bundled one is FFmpeg 4.1)',
    { skip: systemFfmpeg === null && 'no ffmpeg on the PATH' },
    async () => {
      symlinkSync(systemFfmpeg ?? '', join(withTools, 'ffmpeg'));
      const found = await locateMediaTool('ffmpeg', null, `${empty}:${withTools}`);
      assert.equal(found.source, 'path');
      assert.equal(found.path, join(withTools, 'ffmpeg'));
      assert.equal(findOnPath('ffmpeg', `relative/dir:${empty}`), null);
    },
  );

  it(
    'ffprobe: the bundled static build comes before the PATH (it starts ~10× faster)',
    { skip: systemFfprobe === null && 'no ffprobe on the PATH' },
    async () => {
      symlinkSync(systemFfprobe ?? '', join(withTools, 'ffprobe'));
      const found = await locateMediaTool('ffprobe', null, `${empty}:${withTools}`);
      assert.equal(found.source, 'bundled');
      assert.equal(found.path, bundledToolPath('ffprobe'));
    },
  );

  it('a PATH entry that does not run is passed over for the bundled build', async () => {
    writeFileSync(join(decoy, 'ffmpeg'), '#!/bin/sh\nexit 3\n', { mode: 0o755 });
    const found = await locateMediaTool('ffmpeg', null, decoy);
    assert.equal(found.source, 'bundled');
  });

  it('REELSHELF_FFPROBE wins, and a wrong one is reported, not replaced', async () => {
    const bundled = bundledToolPath('ffprobe') ?? '';
    const set = await locateMediaTool('ffprobe', bundled, `${withTools}`);
    assert.deepEqual([set.source, set.path], ['env', bundled]);
    const wrong = await locateMediaTool('ffprobe', 'reelshelf-no-such-ffprobe', `${withTools}`);
    assert.equal(wrong.available, false);
    assert.equal(wrong.path, 'reelshelf-no-such-ffprobe');
  });
});

describe('what the status says about the tools', () => {
  const config = (): Config => loadConfig({ REELSHELF_DATA_DIR: tmpdir() });

  it('a bundled ffmpeg names itself and what it lacks, with the fix', async () => {
    const tools = await detectMediaTools({ ffmpeg: null, ffprobe: null, searchPath: '' });
    const status = new SystemStatusService(config(), tools);
    assert.ok(
      status
        .warnings()
        .includes(
          "bundled ffmpeg 4.1: no AV1 encoding (libsvtav1); install Debian's ffmpeg for it (apt-get install ffmpeg).",
        ),
      status.warnings().join('\n'),
    );
    assert.deepEqual(status.toolReport('ffmpeg').lacks, ['no AV1 encoding (libsvtav1)']);
    assert.equal(status.transcodeAvailable, true);
    assert.deepEqual(status.encodableCodecs('video'), ['h264', 'hevc']);
    const [probeLine, ffmpegLine] = status.toolLines();
    assert.match(probeLine ?? '', /^ffprobe: \/.*ffprobe \(the static build bundled from npm\), version N-/);
    assert.match(
      ffmpegLine ?? '',
      /^ffmpeg: \/.*ffmpeg \(the static build bundled from npm\), version .*\(FFmpeg 4\.1\)$/,
    );
  });

  it('no ffmpeg at all: nothing is encodable and transcoding is unavailable', () => {
    const none = { available: false, source: null, version: null, release: null };
    const status = new SystemStatusService(config(), {
      ffmpeg: { ...none, path: 'ffmpeg' },
      ffprobe: { ...none, path: 'ffprobe' },
      encoders: ['libx264'],
    });
    assert.equal(status.transcodeAvailable, false);
    assert.equal(status.ffmpegAvailable, false);
    assert.deepEqual(status.encodableCodecs('audio'), []);
    assert.deepEqual(status.toolLines(), [
      'ffprobe: not found (tried ffprobe)',
      'ffmpeg: not found (tried ffmpeg)',
    ]);
  });
});

describe('a tool missing when it is spawned', () => {
  it('ffprobe: one clear line naming the path, no spawn stack', async () => {
    const probe = new FfprobeAdapter({ path: '/nonexistent/reelshelf/ffprobe' });
    await assert.rejects(probe.probe('/tmp/x.mkv'), (err: unknown) => {
      assert.ok(err instanceof ProbeError);
      assert.equal(
        err.message,
        'ffprobe is not installed (no /nonexistent/reelshelf/ffprobe); GET /api/health says which tools were found',
      );
      return true;
    });
  });
  it('ffmpeg: the same', async () => {
    const ffmpeg = new FfmpegAdapter('/nonexistent/reelshelf/ffmpeg');
    await assert.rejects(ffmpeg.run(['-version']), (err: unknown) => {
      assert.ok(err instanceof FfmpegError);
      assert.match(err.message, /^ffmpeg is not installed \(no \/nonexistent\/reelshelf\/ffmpeg\);/);
      return true;
    });
  });
});
