import {
  type BenchEngine,
  type BenchTarget,
  benchEngines,
  recordFigure,
  seededBenchServer,
  timedGet,
} from './engines.ts';
import { seedMediaFiles, seedMoviesWithCopies } from './seed.ts';
import { ms, summarize } from './stats.ts';

const MOVIES = 10_000;
const quick = process.argv.includes('--quick');
const RUNS = quick ? 30 : 120;

/** A server on a new database of `engine`: 10,000 movies on disc, 7,000 of them with a file, 1,000 plays. */
function seededTarget(engine: BenchEngine): Promise<BenchTarget> {
  return seededBenchServer(engine, async (server, dataDir) => {
    await seedMoviesWithCopies(server.database.db, MOVIES);
    await seedMediaFiles(server.database.db, dataDir, 0.7);
  });
}

/**
 * `/stats` at 10,000 movies (issue 27: < 100 ms) as a page and as JSON, and "your year", over real
 * HTTP. The first request decides every file's playback on the six devices (kept per library
 * generation; docs/collector.md "Stats"): it is reported apart, then requests alternate between
 * the engines, the first of each pair taking turns.
 */
export async function benchStats(): Promise<void> {
  const targets: BenchTarget[] = [];
  try {
    for (const engine of benchEngines()) targets.push(await seededTarget(engine));
    for (const t of targets) {
      const first = await timedGet(t, '/stats', 'text/html');
      console.log(`first /stats after start (${t.engine}, every file decided on 6 devices): ${ms(first)}`);
    }
    const figures: [figure: string, path: string, accept: string][] = [
      ['/stats page (10,000 movies)', '/stats', 'text/html'],
      ['GET /api/stats', '/api/stats', 'application/json'],
      ['/stats/year page', '/stats/year?year=2026', 'text/html'],
    ];
    for (const [figure, path, accept] of figures) {
      for (const t of targets) await timedGet(t, path, accept); // warm: prepared statements, caches
      const samples = new Map(targets.map((t) => [t, [] as number[]]));
      for (let run = 0; run < RUNS; run++) {
        const order = run % 2 === 0 ? targets : [...targets].reverse();
        for (const t of order) samples.get(t)?.push(await timedGet(t, path, accept));
      }
      console.log(`${figure}:`);
      for (const [t, list] of samples) {
        const s = summarize(list);
        recordFigure('stats', figure, t.engine, s.median);
        console.log(`  ${t.engine}: median ${ms(s.median)}, p95 ${ms(s.p95)} (target < 100 ms)`);
      }
    }
  } finally {
    for (const t of targets) await t.close();
  }
}
