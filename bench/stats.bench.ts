import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { request } from 'undici';
import { createServer } from '../server/src/server.ts';
import { type BenchEngine, benchConfig, benchDatabaseUrl, benchEngines, recordFigure } from './engines.ts';
import { seedMediaFiles, seedMoviesWithCopies } from './seed.ts';
import { ms, summarize } from './stats.ts';

const MOVIES = 10_000;
const quick = process.argv.includes('--quick');
const RUNS = quick ? 30 : 120;

interface Target {
  engine: BenchEngine;
  url: string;
  auth: Record<string, string>;
  close(): Promise<void>;
}

/** A server on a new database of `engine`: 10,000 movies on disc, 7,000 of them with a file, 1,000 plays. */
async function seededTarget(engine: BenchEngine): Promise<Target> {
  const dataDir = mkdtempSync(join(tmpdir(), 'reelshelf-bench-'));
  const config = benchConfig(await benchDatabaseUrl(engine, dataDir), dataDir);
  const server = await createServer(config);
  const close = async () => {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await seedMoviesWithCopies(server.database.db, MOVIES);
    await seedMediaFiles(server.database.db, dataDir, 0.7);
    if (engine === 'postgres') await sql`analyze`.execute(server.database.db);
    const url = await server.listen();
    return { engine, url, auth: { authorization: `Bearer ${server.apiToken}` }, close };
  } catch (error) {
    await close();
    throw error;
  }
}

async function timed(target: Target, path: string, accept: string): Promise<number> {
  const t0 = performance.now();
  const res = await request(`${target.url}${path}`, { headers: { ...target.auth, accept } });
  await res.body.arrayBuffer();
  if (res.statusCode !== 200) throw new Error(`${path}: ${res.statusCode}`);
  return performance.now() - t0;
}

/**
 * `/stats` at 10,000 movies (issue 27: < 100 ms) as a page and as JSON, and "your year", over real
 * HTTP. The first request decides every file's playback on the six devices (kept per library
 * generation; docs/collector.md "Stats"): it is reported apart, then requests alternate between
 * the engines, the first of each pair taking turns.
 */
export async function benchStats(): Promise<void> {
  const targets: Target[] = [];
  try {
    for (const engine of benchEngines()) targets.push(await seededTarget(engine));
    for (const t of targets) {
      const first = await timed(t, '/stats', 'text/html');
      console.log(`first /stats after start (${t.engine}, every file decided on 6 devices): ${ms(first)}`);
    }
    const figures: [figure: string, path: string, accept: string][] = [
      ['/stats page (10,000 movies)', '/stats', 'text/html'],
      ['GET /api/stats', '/api/stats', 'application/json'],
      ['/stats/year page', '/stats/year?year=2026', 'text/html'],
    ];
    for (const [figure, path, accept] of figures) {
      for (const t of targets) await timed(t, path, accept); // warm: prepared statements, caches
      const samples = new Map(targets.map((t) => [t, [] as number[]]));
      for (let run = 0; run < RUNS; run++) {
        const order = run % 2 === 0 ? targets : [...targets].reverse();
        for (const t of order) samples.get(t)?.push(await timed(t, path, accept));
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
