import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../server/src/config.ts';
import { createServer } from '../server/src/server.ts';
import { registerFiles } from '../server/test/helpers/library-fixtures.ts';
import { ffprobeFloorSeconds } from './ffprobe-floor.ts';
import { makeMediaTree } from './media-tree.ts';

const FILES = 1000;

/** Analysis of 1,000 files (ffprobe, parse, store) at concurrency = cores, against ffprobe alone. */
export async function benchAnalysis(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'reelshelf-bench-media-'));
  const dataDir = mkdtempSync(join(tmpdir(), 'reelshelf-bench-data-'));
  const server = await createServer(
    loadConfig({
      REELSHELF_DATA_DIR: dataDir,
      REELSHELF_LOG_LEVEL: 'warn',
      REELSHELF_JELLYFIN_PORT: 'off',
      REELSHELF_JELLYFIN_DISCOVERY_PORT: 'off',
      REELSHELF_DLNA_SSDP_PORT: 'off',
      REELSHELF_TRICKPLAY: 'off',
    }),
  );
  try {
    const files = await makeMediaTree(root, FILES);
    const concurrency = cpus().length;
    const floorSecs = await ffprobeFloorSeconds(server.tools.ffprobe.path, files, concurrency);

    await registerFiles(server.database.db, root, Object.fromEntries(files.map((f, i) => [String(i), f])));
    const start = performance.now();
    const counts = await server.services.analysis.analyzePending({ concurrency });
    const secs = (performance.now() - start) / 1000;
    console.log(
      `analysis of ${FILES} files at concurrency ${concurrency}: ${secs.toFixed(2)} s, ${(FILES / secs).toFixed(0)} files/s (${counts.analyzed} analyzed, ${counts.failed} failed)`,
    );
    console.log(
      `floor, the same ffprobe (${server.tools.ffprobe.source ?? 'missing'}) alone at the same concurrency: ${floorSecs.toFixed(2)} s, ${(FILES / floorSecs).toFixed(0)} files/s`,
    );
    console.log(`ratio analysis ÷ ffprobe-only time: ${(secs / floorSecs).toFixed(2)}`);
  } finally {
    await server.close();
    rmSync(root, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
}
