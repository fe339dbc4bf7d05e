// What the tests of conversions across nodes share (hls-nodes*, artifact-takeover, the nodes
// scenario): a film only a conversion plays, an ffmpeg held to a reading speed, and an api node with
// workers on one data dir and database.
import { execFile } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fixtureFfmpeg } from './media.ts';
import { type ServerProcess, startServerProcess } from './server-process.ts';

const run = promisify(execFile);

/**
 * Makes `path`: MPEG-2 video and AC-3 audio, which the web device plays neither of, so every
 * segment of it is converted. `quality` is MPEG-2's -q:v (higher: smaller, faster to make).
 */
export async function makeConvertedFilm(
  path: string,
  seconds: number,
  options: { size?: string; quality?: number } = {},
): Promise<string> {
  await run(fixtureFfmpeg, [
    ...['-hide_banner', '-loglevel', 'error', '-y'],
    ...['-f', 'lavfi', '-i', `testsrc2=duration=${seconds}:size=${options.size ?? '640x360'}:rate=25`],
    ...['-f', 'lavfi', '-i', `sine=frequency=440:duration=${seconds}:sample_rate=48000`],
    ...['-map', '0:v', '-map', '1:a', '-c:v', 'mpeg2video', '-q:v', String(options.quality ?? 4)],
    ...['-c:a', 'ac3', '-ac', '2', path],
  ]);
  return path;
}

/**
 * An ffmpeg (a script in `dir`) that reads its input at `rate` × real time: at 1 a conversion lasts
 * as long as the film, so a freeze or a kill lands mid-conversion; below 1, a machine too slow for it.
 */
export function readRateFfmpeg(dir: string, rate: number): string {
  const path = join(dir, `ffmpeg-read-rate-${rate}`);
  writeFileSync(path, `#!/bin/sh\nexec '${fixtureFfmpeg.replaceAll("'", "'\\''")}' -readrate ${rate} "$@"\n`);
  chmodSync(path, 0o755);
  return path;
}

/**
 * An api node, then `workers` worker nodes, on `dataDir` and its test database: each converts one
 * film at a time with `ffmpeg`, and none watches the roots. The api node starts first (it migrates).
 */
export async function startConvertingNodes(
  dataDir: string,
  options: { token: string; ffmpeg: string; workers: number },
): Promise<{ api: ServerProcess; workers: ServerProcess[] }> {
  const env = (role: string) => ({
    REELSHELF_API_TOKEN: options.token,
    REELSHELF_NODE_ROLE: role,
    REELSHELF_WATCH: 'off',
    REELSHELF_FFMPEG: options.ffmpeg,
    REELSHELF_MAX_CONVERSIONS: '1',
  });
  const api = await startServerProcess(dataDir, env('api'));
  const workers = await Promise.all(
    Array.from({ length: options.workers }, () => startServerProcess(dataDir, env('worker'))),
  );
  return { api, workers };
}
