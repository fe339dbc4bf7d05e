// The database engines a benchmark runs on, side by side (issue 26: "npm run bench prints the library,
// search and import benchmarks on both engines side by side; PostgreSQL within 2× of SQLite on
// each"). SQLite always; PostgreSQL on a throwaway cluster (scripts/test-postgres.mjs) when its
// server binaries are installed, started once per bench run. `--engine=sqlite|postgres` picks one.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { request } from 'undici';
import pg from 'pg';
import { type Config, loadConfig } from '../server/src/config.ts';
import { type ReelshelfServer, createServer } from '../server/src/server.ts';
import { findPostgresBin, startTestPostgres } from '../scripts/test-postgres.mjs';
import { ms, summarize } from './stats.ts';

export type BenchEngine = 'sqlite' | 'postgres';

interface Cluster {
  url: string;
  stop(): Promise<void>;
}

let cluster: Promise<Cluster> | null = null;

/** The engines this run measures. */
export function benchEngines(): BenchEngine[] {
  const picked = process.argv.find((a) => a.startsWith('--engine='))?.slice('--engine='.length);
  if (picked === 'sqlite' || picked === 'postgres') return [picked];
  return findPostgresBin() === null ? ['sqlite'] : ['sqlite', 'postgres'];
}

async function startedCluster(): Promise<Cluster> {
  cluster ??= startTestPostgres();
  return cluster;
}

/**
 * The database URL of a bench data dir on `engine`: SQLite's file in it, or a new PostgreSQL
 * database named after it (created empty; the server migrates it).
 */
export async function benchDatabaseUrl(engine: BenchEngine, dataDir: string): Promise<string> {
  if (engine === 'sqlite') return `sqlite:${join(dataDir, 'reelshelf.sqlite')}`;
  const { url } = await startedCluster();
  const name = `bench_${createHash('sha256').update(dataDir).digest('hex').slice(0, 16)}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const target = new URL(url);
  target.pathname = `/${name}`;
  return target.href;
}

/** A bench server's config: loopback, a free port, quiet, no discovery, no seek thumbnails. */
export function benchConfig(databaseUrl: string, dataDir: string): Config {
  return loadConfig({
    REELSHELF_DATABASE_URL: databaseUrl,
    REELSHELF_DATA_DIR: dataDir,
    REELSHELF_HOST: '127.0.0.1',
    REELSHELF_PORT: '0',
    REELSHELF_LOG_LEVEL: 'warn',
    REELSHELF_JELLYFIN_PORT: 'off',
    REELSHELF_JELLYFIN_DISCOVERY_PORT: 'off',
    REELSHELF_DLNA_SSDP_PORT: 'off',
    REELSHELF_TRICKPLAY: 'off',
  });
}

/** Stops the cluster, if one was started (at the end of `npm run bench`). */
export async function stopBenchEngines(): Promise<void> {
  if (cluster === null) return;
  const started = await cluster;
  cluster = null;
  await started.stop();
}

const figures: { bench: string; figure: string; engine: BenchEngine; ms: number }[] = [];

/** Records a figure (milliseconds, lower is better) for the side-by-side table. */
export function recordFigure(bench: string, figure: string, engine: BenchEngine, ms: number): void {
  figures.push({ bench, figure, engine, ms });
}

/** Prints every figure measured on both engines: SQLite, PostgreSQL, their ratio, and the ≤ 2× target. */
export function printEngineComparison(): void {
  const keys = [...new Set(figures.map((f) => `${f.bench}\u0000${f.figure}`))];
  const rows = keys.flatMap((key) => {
    const [bench = '', figure = ''] = key.split('\u0000');
    const of = (engine: BenchEngine) =>
      figures.find((f) => f.bench === bench && f.figure === figure && f.engine === engine)?.ms;
    const sqlite = of('sqlite');
    const postgres = of('postgres');
    return sqlite === undefined || postgres === undefined ? [] : [{ bench, figure, sqlite, postgres }];
  });
  if (rows.length === 0) return;
  console.log('\n## engines side by side (PostgreSQL within 2× of SQLite)');
  for (const r of rows) {
    const ratio = r.postgres / Math.max(r.sqlite, 0.001);
    console.log(
      `  ${r.bench} · ${r.figure}: SQLite ${r.sqlite.toFixed(1)} ms, PostgreSQL ${r.postgres.toFixed(1)} ms — ${ratio.toFixed(2)}× ${ratio <= 2 ? '✓' : '✗'}`,
    );
  }
}

/** A seeded server of one engine, listening on loopback, as the HTTP benches time it. */
export interface BenchTarget {
  engine: BenchEngine;
  url: string;
  auth: Record<string, string>;
  close(): Promise<void>;
}

/**
 * A server on a new database of `engine` in a new data dir, seeded by `seed` before it listens and
 * then ANALYZEd on PostgreSQL: the seed writes its rows behind the server's back in seconds, and a
 * library in use has had them counted by autovacuum within a minute, so PostgreSQL plans as it
 * would for every request but the first minute's. On any failure the server and dir are removed.
 */
export async function seededBenchServer(
  engine: BenchEngine,
  seed: (server: ReelshelfServer, dataDir: string) => Promise<void>,
): Promise<BenchTarget> {
  const dataDir = mkdtempSync(join(tmpdir(), 'reelshelf-bench-'));
  const server = await createServer(benchConfig(await benchDatabaseUrl(engine, dataDir), dataDir));
  const close = async () => {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await seed(server, dataDir);
    if (engine === 'postgres') await sql`analyze`.execute(server.database.db);
    const url = await server.listen();
    return { engine, url, auth: { authorization: `Bearer ${server.apiToken}` }, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** One GET over real HTTP, the body read to its end, in ms; anything but 200 stops the bench. */
export async function timedGet(target: BenchTarget, path: string, accept: string): Promise<number> {
  const t0 = performance.now();
  const res = await request(`${target.url}${path}`, { headers: { ...target.auth, accept } });
  await res.body.arrayBuffer();
  if (res.statusCode !== 200) throw new Error(`${path}: ${res.statusCode}`);
  return performance.now() - t0;
}

/** A figure an HTTP bench times: its name, the path asked for and the Accept header. */
export type HttpFigure = [figure: string, path: string, accept: string];

/**
 * Times each figure on every target, `runs` GETs each after one warming GET (prepared statements,
 * caches), alternating between the targets with the first of each pair taking turns; prints and
 * records each target's median (and p95) under `bench`, against the 100 ms target of issue 27.
 */
export async function timeFiguresAlternating(
  bench: string,
  targets: readonly BenchTarget[],
  figures: readonly HttpFigure[],
  runs: number,
): Promise<void> {
  for (const [figure, path, accept] of figures) {
    for (const t of targets) await timedGet(t, path, accept);
    const samples = new Map(targets.map((t) => [t, [] as number[]]));
    for (let run = 0; run < runs; run++) {
      const order = run % 2 === 0 ? targets : [...targets].reverse();
      for (const t of order) samples.get(t)?.push(await timedGet(t, path, accept));
    }
    console.log(`${figure}:`);
    for (const [t, list] of samples) {
      const s = summarize(list);
      recordFigure(bench, figure, t.engine, s.median);
      console.log(`  ${t.engine}: median ${ms(s.median)}, p95 ${ms(s.p95)} (target < 100 ms)`);
    }
  }
}
