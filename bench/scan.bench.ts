import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { findOnPath } from '../server/src/adapters/media-tools.ts';
import { loadConfig } from '../server/src/config.ts';
import { createServer } from '../server/src/server.ts';
import { ffprobeFloorSeconds } from './ffprobe-floor.ts';
import { makeMediaTree } from './media-tree.ts';

const FILES = 2000;
/** The system-ffprobe comparison scans fewer files: at ~30 files/s, 2,000 would take a minute. */
const SYSTEM_FILES = 400;

interface ScanFigures {
  firstSecs: number;
  againSecs: number;
  newCount: number;
  unchanged: number;
  status: string;
  ffprobe: string;
  ffprobePath: string;
}

/** First scan then unchanged rescan of `count` fresh files by a fresh server with `env` added. */
async function timeScans(count: number, env: Record<string, string>): Promise<ScanFigures> {
  const root = mkdtempSync(join(tmpdir(), 'reelshelf-bench-scan-'));
  const dataDir = mkdtempSync(join(tmpdir(), 'reelshelf-bench-data-'));
  const server = await createServer(
    loadConfig({
      REELSHELF_DATA_DIR: dataDir,
      REELSHELF_LOG_LEVEL: 'warn',
      REELSHELF_JELLYFIN_PORT: 'off',
      REELSHELF_JELLYFIN_DISCOVERY_PORT: 'off',
      REELSHELF_DLNA_SSDP_PORT: 'off',
      REELSHELF_TRICKPLAY: 'off',
      REELSHELF_WATCH: 'off',
      ...env,
    }),
  );
  try {
    await makeMediaTree(root, count);
    const rootView = await server.services.roots.create({ path: root });
    const t0 = performance.now();
    const first = await server.services.scans.wait((await server.services.scans.start(rootView.id)).scan_id);
    const firstSecs = (performance.now() - t0) / 1000;
    const t1 = performance.now();
    const again = await server.services.scans.wait((await server.services.scans.start(rootView.id)).scan_id);
    const againSecs = (performance.now() - t1) / 1000;
    const probe = server.tools.ffprobe;
    return {
      firstSecs,
      againSecs,
      newCount: first.counts.new,
      unchanged: again.counts.unchanged,
      status: first.status,
      ffprobe: `${probe.source ?? 'missing'} ffprobe ${probe.version ?? ''} (${probe.path})`,
      ffprobePath: probe.path,
    };
  } finally {
    await server.close();
    rmSync(root, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * First scan and unchanged rescan of 2,000 small distinct files with the ffprobe the server picks
 * (the bundled static build), against ffprobe alone on the same files; then the first scan with the
 * system's ffprobe (Debian's) on 400 files for the ratio the choice is made on.
 */
export async function benchScan(): Promise<void> {
  const concurrency = cpus().length;
  const chosen = await timeScans(FILES, {});
  console.log(`ffprobe in use: ${chosen.ffprobe}`);
  console.log(
    `first scan of ${FILES} files: ${chosen.firstSecs.toFixed(2)} s, ${(FILES / chosen.firstSecs).toFixed(0)} files/s (${chosen.status}, new ${chosen.newCount}; target ≥ 60 files/s)`,
  );
  console.log(
    `unchanged rescan of ${FILES} files: ${(chosen.againSecs * 1000).toFixed(0)} ms (unchanged ${chosen.unchanged}; target < 500 ms)`,
  );

  const floorRoot = mkdtempSync(join(tmpdir(), 'reelshelf-bench-floor-'));
  try {
    const files = await makeMediaTree(floorRoot, FILES);
    const floorSecs = await ffprobeFloorSeconds(chosen.ffprobePath, files, concurrency);
    console.log(
      `floor, the same ffprobe alone on the same files at concurrency ${concurrency}: ${floorSecs.toFixed(2)} s, ${(FILES / floorSecs).toFixed(0)} files/s; ratio first scan ÷ floor: ${(chosen.firstSecs / floorSecs).toFixed(2)}`,
    );
  } finally {
    rmSync(floorRoot, { recursive: true, force: true });
  }

  const system = findOnPath('ffprobe', process.env.PATH);
  if (system === null) {
    console.log('no ffprobe on the PATH: the comparison with the system ffprobe is skipped');
    return;
  }
  const withSystem = await timeScans(SYSTEM_FILES, { REELSHELF_FFPROBE: system });
  const systemRate = SYSTEM_FILES / withSystem.firstSecs;
  console.log(
    `first scan of ${SYSTEM_FILES} files with ${withSystem.ffprobe}: ${systemRate.toFixed(0)} files/s; the chosen ffprobe is ${(FILES / chosen.firstSecs / systemRate).toFixed(1)}× faster`,
  );
}
