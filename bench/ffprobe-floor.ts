import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import PQueue from 'p-queue';

const run = promisify(execFile);

/** Seconds `ffprobe` alone takes over `files` at `concurrency`: the floor a scan or analysis is measured against. */
export async function ffprobeFloorSeconds(
  ffprobe: string,
  files: string[],
  concurrency: number,
): Promise<number> {
  const start = performance.now();
  const queue = new PQueue({ concurrency });
  for (const f of files) {
    queue.add(() =>
      run(ffprobe, ['-v', 'error', '-show_format', '-show_streams', '-of', 'json', f], {
        maxBuffer: 4 << 20,
      }),
    );
  }
  await queue.onIdle();
  return (performance.now() - start) / 1000;
}
