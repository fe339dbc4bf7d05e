import {
  type BenchEngine,
  type BenchTarget,
  benchEngines,
  type HttpFigure,
  seededBenchServer,
  timeFiguresAlternating,
  timedGet,
} from './engines.ts';
import { seedMediaFiles, seedMoviesWithCopies } from './seed.ts';
import { ms } from './stats.ts';

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
    const figures: HttpFigure[] = [
      ['/stats page (10,000 movies)', '/stats', 'text/html'],
      ['GET /api/stats', '/api/stats', 'application/json'],
      ['/stats/year page', '/stats/year?year=2026', 'text/html'],
    ];
    await timeFiguresAlternating('stats', targets, figures, RUNS);
  } finally {
    for (const t of targets) await t.close();
  }
}
