// The small film library every DLNA server is judged on (dlna-judge.ts), generated with ffmpeg at
// test time: MP4 and Matroska (H.264 + AAC), one film in two copies, and one film long enough for
// VLC to play 10 s of it. Titles start with distinct letters, so any sensible title order agrees.
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { fixtureFfmpeg } from './media.ts';

const run = promisify(execFile);

export interface LibraryFilm {
  /** Path under the library root. */
  path: string;
  /** The film's name as the file names it ("Title (Year)"). */
  name: string;
  seconds: number;
  container: 'mp4' | 'mkv';
}

export const JUDGE_LIBRARY: readonly LibraryFilm[] = [
  { path: 'Alien (1979)/Alien (1979).mp4', name: 'Alien (1979)', seconds: 12, container: 'mp4' },
  { path: 'Brazil (1985).mkv', name: 'Brazil (1985)', seconds: 3, container: 'mkv' },
  { path: 'Casablanca (1942).mp4', name: 'Casablanca (1942)', seconds: 3, container: 'mp4' },
  { path: 'Dune (2021)/Dune (2021).mkv', name: 'Dune (2021)', seconds: 3, container: 'mkv' },
  // One film, two copies (a second file of the same film in another folder and container).
  { path: 'Fargo (1996)/Fargo (1996).mp4', name: 'Fargo (1996)', seconds: 3, container: 'mp4' },
  { path: 'Fargo (1996) copy/Fargo (1996).mkv', name: 'Fargo (1996)', seconds: 3, container: 'mkv' },
];

/** Writes one film: a test pattern and a tone, H.264 + AAC stereo, 320×240 at 25 fps. */
export async function makeFilm(path: string, seconds: number, container: 'mp4' | 'mkv'): Promise<void> {
  mkdirSync(dirname(path), { recursive: true });
  await run(
    fixtureFfmpeg,
    [
      ...['-hide_banner', '-loglevel', 'error', '-y'],
      ...['-f', 'lavfi', '-i', `testsrc=duration=${seconds}:size=320x240:rate=25`],
      ...['-f', 'lavfi', '-i', `sine=frequency=440:duration=${seconds}:sample_rate=48000`],
      ...['-map', '0:v', '-map', '1:a', '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p'],
      ...['-c:a', 'aac', '-b:a', '96k', '-ac', '2'],
      ...(container === 'mp4' ? ['-movflags', '+faststart'] : []),
      path,
    ],
    { timeout: 120_000 },
  );
}

/** Generates JUDGE_LIBRARY under `root` (two at a time: 2 cores); returns the absolute paths. */
export async function makeJudgeLibrary(root: string): Promise<string[]> {
  const paths = JUDGE_LIBRARY.map((film) => join(root, film.path));
  for (let i = 0; i < JUDGE_LIBRARY.length; i += 2) {
    await Promise.all(
      JUDGE_LIBRARY.slice(i, i + 2).map((film) =>
        makeFilm(join(root, film.path), film.seconds, film.container),
      ),
    );
  }
  return paths;
}
