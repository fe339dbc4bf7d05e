import { benchAnalysis } from './analysis.bench.ts';
import { benchBinders } from './binders.bench.ts';
import { benchDlna } from './dlna.ts';
import { printEngineComparison, stopBenchEngines } from './engines.ts';
import { benchImport } from './import.bench.ts';
import { benchJellyfin } from './jellyfin.bench.ts';
import { benchLibrary } from './library.bench.ts';
import { benchNodes } from './nodes.bench.ts';
import { benchPassword } from './password.bench.ts';
import { benchPlayback } from './playback.ts';
import { benchScan } from './scan.bench.ts';
import { benchSearch } from './search.bench.ts';
import { benchStats } from './stats.bench.ts';
import { benchStream } from './stream.bench.ts';
import { benchTrickplay } from './trickplay.bench.ts';

/**
 * `npm run bench [name…] [--flag…]`: runs the benchmarks and prints each figure (and ratio where one
 * is asked). Flags (`--quick`) are left to the benchmarks, which read them from process.argv.
 */
const BENCHES: Record<string, () => Promise<void>> = {
  library: benchLibrary,
  analysis: benchAnalysis,
  scan: benchScan,
  stream: benchStream,
  import: benchImport,
  playback: benchPlayback,
  search: benchSearch,
  password: benchPassword,
  jellyfin: benchJellyfin,
  dlna: benchDlna,
  trickplay: benchTrickplay,
  nodes: benchNodes,
  binders: benchBinders,
  stats: benchStats,
};

const wanted = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
for (const [name, run] of Object.entries(BENCHES)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  console.log(`\n## ${name}`);
  try {
    await run();
  } catch (error) {
    await stopBenchEngines();
    throw error;
  }
}
printEngineComparison();
await stopBenchEngines();
