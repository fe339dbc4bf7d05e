import { execFile, spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { promisify } from 'node:util';
import { bundledToolPath, findOnPath } from '../../src/adapters/media-tools.ts';
import { fixtureFfmpeg } from './media.ts';

const run = promisify(execFile);

/** The ffprobe the tests compare against, found as the server finds it. */
export const fixtureFfprobe: string =
  process.env.REELSHELF_FFPROBE ??
  findOnPath('ffprobe', process.env.PATH) ??
  bundledToolPath('ffprobe') ??
  'ffprobe';

/**
 * The truth the keyframe index must match: the presentation times of the packets ffprobe flags `K`
 * on the first video stream, ascending.
 */
export async function ffprobeKeyframes(path: string): Promise<number[]> {
  const { stdout } = await run(
    fixtureFfprobe,
    [
      '-v',
      'error',
      '-select_streams',
      'v:0',
      '-show_entries',
      'packet=pts_time,flags',
      '-of',
      'csv=p=0',
      path,
    ],
    { maxBuffer: 64 * 1024 * 1024, timeout: 120_000 },
  );
  return stdout
    .split('\n')
    .map((line) => line.trim().split(','))
    .filter(([pts, flags]) => pts !== undefined && pts !== 'N/A' && flags?.includes('K') === true)
    .map(([pts]) => Number(pts))
    .sort((a, b) => a - b);
}

/** Runs the fixture ffmpeg with quiet flags; `args` end with the output. */
export async function ffmpeg(args: string[]): Promise<void> {
  await run(fixtureFfmpeg, ['-hide_banner', '-nostdin', '-loglevel', 'error', '-y', ...args], {
    timeout: 300_000,
    maxBuffer: 64 * 1024 * 1024,
  });
}

/**
 * Runs ffmpeg writing to `pipe:1` with its stdout on `path`: the muxer sees a pipe (not seekable), so
 * a Matroska file gets no Cues, as when a stream is recorded.
 */
export async function ffmpegToPipe(args: string[], path: string): Promise<void> {
  const fd = openSync(path, 'w');
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(fixtureFfmpeg, ['-hide_banner', '-nostdin', '-loglevel', 'error', '-y', ...args], {
        stdio: ['ignore', fd, 'inherit'],
      });
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`ffmpeg exited ${code}`))));
    });
  } finally {
    closeSync(fd);
  }
}

/** Keyframes at irregular times (what scene cuts give a real film): 0, 1.5, 4, 4.5, 9.2 s and every 2 s. */
export const IRREGULAR_KEYFRAMES = '0,1.5,4,4.5,9.2';

/** H.264 with B-frames and keyframes at irregular times, plus AC-3 audio, in `container`. */
export function h264IrregularArgs(seconds: number, size = '320x240'): string[] {
  return [
    '-f',
    'lavfi',
    '-i',
    `testsrc2=size=${size}:rate=25:duration=${seconds}`,
    '-f',
    'lavfi',
    '-i',
    `sine=frequency=440:duration=${seconds}`,
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-bf',
    '3',
    '-g',
    '50',
    '-keyint_min',
    '5',
    '-force_key_frames',
    IRREGULAR_KEYFRAMES,
    '-pix_fmt',
    'yuv420p',
    '-c:a',
    'ac3',
    '-b:a',
    '96k',
  ];
}

/** Whether two keyframe lists are equal within `toleranceSeconds` each (the reason when not). */
export function sameKeyframes(actual: number[], expected: number[], toleranceSeconds = 0.001): string | null {
  if (actual.length !== expected.length) {
    return `${actual.length} keyframes, ffprobe has ${expected.length}: ${actual.slice(0, 8).join(', ')} vs ${expected.slice(0, 8).join(', ')}`;
  }
  for (let i = 0; i < actual.length; i++) {
    const a = actual[i] ?? NaN;
    const e = expected[i] ?? NaN;
    if (!(Math.abs(a - e) <= toleranceSeconds)) return `keyframe ${i}: ${a} s, ffprobe says ${e} s`;
  }
  return null;
}
