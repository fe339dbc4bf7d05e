import { benchAnalysis } from './analysis.bench.ts';
import { benchImport } from './import.bench.ts';
import { benchLibrary } from './library.bench.ts';
import { benchScan } from './scan.bench.ts';
import { benchStream } from './stream.bench.ts';

/** `npm run bench [name…]`: runs the benchmarks and prints each figure (and ratio where one is asked). */
const BENCHES: Record<string, () => Promise<void>> = {
  library: benchLibrary,
  analysis: benchAnalysis,
  scan: benchScan,
  stream: benchStream,
  import: benchImport,
};

const wanted = process.argv.slice(2);
for (const [name, run] of Object.entries(BENCHES)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  console.log(`\n## ${name}`);
  await run();
}
