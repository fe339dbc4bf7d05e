import { copyFileSync, mkdirSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeFixture } from '../server/test/helpers/media.ts';

/**
 * Makes `count` small distinct video files under `root` (a real H.264/AAC MP4 each, with a
 * different trailer of bytes after the index so every file has its own size and fingerprint),
 * laid out as a Jellyfin library: `Movie NNNN (2000+k)/Movie NNNN (2000+k).mp4`.
 */
export async function makeMediaTree(root: string, count: number): Promise<string[]> {
  const seed = await makeFixture('h264_aac.mp4', join(root, '.seed', 'seed.mp4'), 1);
  const files: string[] = [];
  for (let i = 0; i < count; i++) {
    const name = `Movie ${String(i).padStart(4, '0')} (${2000 + (i % 25)})`;
    const dir = join(root, name);
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${name}.mp4`);
    copyFileSync(seed, file);
    appendFileSync(file, Buffer.alloc(16 + (i % 4096), i % 251));
    files.push(file);
  }
  return files;
}
