import { benchDatabaseUrl, benchEngines } from './engines.ts';
import { playThroughApiNodes } from '../server/test/helpers/hls-nodes-scenario.ts';

/**
 * `npm run bench nodes` (issue 26): a 10-minute conversion played by ffmpeg's HLS demuxer through two
 * API nodes alternately while its segments are made on a worker, the worker killed with SIGKILL a
 * quarter in (server/test/helpers/hls-nodes-scenario.ts asserts every promise on the way). Prints
 * the take-over time (target ≤ lease + 5 s), where the survivor resumed, the reader's longest stall
 * and its wall time against the film's length. PostgreSQL only (one SQLite process is one node).
 * `--quick`: a 3-minute film.
 */
export async function benchNodes(): Promise<void> {
  if (!benchEngines().includes('postgres')) {
    console.log('  skipped: PostgreSQL server binaries are not installed (apt-get install postgresql)');
    return;
  }
  const filmSeconds = process.argv.includes('--quick') ? 180 : 600;
  const databaseUrl = await benchDatabaseUrl('postgres', `nodes-${process.pid}-${Date.now()}`);
  const f = await playThroughApiNodes({
    filmSeconds,
    databaseUrl,
    onPhase: (what) => console.log(`  · ${what}`),
  });
  console.log(
    `  film: ${f.filmSeconds} s in ${f.segments} segments, 2 API nodes + 2 workers (started in ${f.startMs} ms)`,
  );
  console.log(`  requests per API node: ${f.perNode[0]} / ${f.perNode[1]}`);
  console.log(
    `  worker killed after segment ${f.highestRead} was read; first missing on disk: ${f.firstMissing}`,
  );
  console.log(
    `  take-over: ${f.takeOverMs} ms (target ≤ 10000 ms: lease 5 s + 5 s), resumed at segment ${f.resumedSegment}`,
  );
  console.log(`  reader's longest stall: ${f.longestStallMs} ms; errors: none`);
  console.log(
    `  read end to end in ${(f.readMs / 1000).toFixed(1)} s: ${(f.filmSeconds / (f.readMs / 1000)).toFixed(1)}× real time`,
  );
}
