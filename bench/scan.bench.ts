import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../server/src/config.ts';
import { createServer } from '../server/src/server.ts';
import { ffprobeFloorSeconds } from './ffprobe-floor.ts';
import { makeMediaTree } from './media-tree.ts';

const FILES = 2000;

/** First scan and unchanged rescan of 2,000 small distinct files, with the ffprobe-only floor. */
export async function benchScan(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'reelshelf-bench-scan-'));
  const dataDir = mkdtempSync(join(tmpdir(), 'reelshelf-bench-data-'));
  const server = await createServer(loadConfig({ REELSHELF_DATA_DIR: dataDir, REELSHELF_LOG_LEVEL: 'warn' }));
  try {
    const files = await makeMediaTree(root, FILES);
    const concurrency = cpus().length;

    const floorSecs = await ffprobeFloorSeconds(files, concurrency);

    const rootView = await server.services.roots.create({ path: root });
    const t0 = performance.now();
    const first = await server.services.scans.wait((await server.services.scans.start(rootView.id)).scan_id);
    const firstSecs = (performance.now() - t0) / 1000;
    const t1 = performance.now();
    const again = await server.services.scans.wait((await server.services.scans.start(rootView.id)).scan_id);
    const againSecs = (performance.now() - t1) / 1000;

    console.log(
      `first scan of ${FILES} files: ${firstSecs.toFixed(2)} s, ${(FILES / firstSecs).toFixed(0)} files/s (${first.status}, new ${first.counts.new})`,
    );
    console.log(
      `floor, ffprobe alone on the same files at concurrency ${concurrency}: ${floorSecs.toFixed(2)} s, ${(FILES / floorSecs).toFixed(0)} files/s`,
    );
    console.log(`ratio first scan ÷ ffprobe-only time: ${(firstSecs / floorSecs).toFixed(2)}`);
    console.log(
      `unchanged rescan of ${FILES} files: ${(againSecs * 1000).toFixed(0)} ms (unchanged ${again.counts.unchanged}; target < 1000 ms)`,
    );
  } finally {
    await server.close();
    rmSync(root, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
}
