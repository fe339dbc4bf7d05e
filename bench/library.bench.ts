import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { Agent, request } from 'undici';
import { loadConfig } from '../server/src/config.ts';
import { openDatabase } from '../server/src/db/database.ts';
import { type ServerProcess, startServerProcess } from '../server/test/helpers/server-process.ts';
import { type BenchEngine, benchDatabaseUrl, benchEngines, recordFigure } from './engines.ts';
import { seedMoviesWithCopies } from './seed.ts';
import { ms, summarize } from './stats.ts';

const run = promisify(execFile);

/** GET /library at 10,000 and 50,000 movies, against the floor; then 200 clients at once at 10,000. */
export async function benchLibrary(): Promise<void> {
  const quick = process.argv.includes('--quick');
  for (const engine of benchEngines()) {
    console.log(`\n### ${engine}`);
    await benchScale(quick ? 2_000 : 10_000, { load: !quick, engine });
    if (!quick) await benchScale(50_000, { load: false, engine });
  }
}

/** Peak resident memory of a process so far (VmHWM), in MB. */
function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

const agent = new Agent({ connections: 4 });

async function get(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; bytes: number; etag: string; body: Buffer }> {
  const res = await request(url, { headers, dispatcher: agent });
  const body = Buffer.from(await res.body.arrayBuffer());
  return { status: res.statusCode, bytes: body.length, etag: String(res.headers.etag ?? ''), body };
}

async function timed<T>(fn: () => Promise<T>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

function line(label: string, value: string, target?: string, ok?: boolean): void {
  const verdict = ok === undefined ? '' : ok ? '  ✓' : '  ✗';
  console.log(`  ${label}: ${value}${target === undefined ? '' : ` (target ${target})`}${verdict}`);
}

async function benchScale(movies: number, options: { load: boolean; engine: BenchEngine }): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'reelshelf-bench-library-'));
  let server: ServerProcess | undefined;
  const record = (figure: string, value: number) =>
    recordFigure('library', `${movies} movies: ${figure}`, options.engine, value);
  try {
    const databaseUrl = await benchDatabaseUrl(options.engine, dataDir);
    const config = loadConfig({
      REELSHELF_DATABASE_URL: databaseUrl,
      REELSHELF_DATA_DIR: dataDir,
      REELSHELF_LOG_LEVEL: 'warn',
      REELSHELF_JELLYFIN_PORT: 'off',
      REELSHELF_JELLYFIN_DISCOVERY_PORT: 'off',
      REELSHELF_DLNA_SSDP_PORT: 'off',
      REELSHELF_TRICKPLAY: 'off',
    });
    const seedStart = performance.now();
    const opened = await openDatabase(config.databaseUrl);
    await seedMoviesWithCopies(opened.db, movies);
    await opened.close();
    console.log(`\n${movies} movies (seeded with copies in ${ms(performance.now() - seedStart)}):`);
    server = await startServerProcess(dataDir, {
      REELSHELF_WATCH: 'off',
      REELSHELF_DATABASE_URL: databaseUrl,
    });
    const url = `${server.url}/library`;
    const auth = { authorization: `Bearer ${server.token}` };
    const gz = { ...auth, 'accept-encoding': 'gzip' };

    const cold = await timed(() => get(url, gz));
    line('first build (cold, whole listing)', ms(cold));
    record('first build (cold)', cold);
    const first = await get(url, gz);
    const wire = first.bytes;

    // 304: the client holds the listing and asks whether it changed.
    const notModified: number[] = [];
    for (let i = 0; i < 100; i++) {
      notModified.push(
        await timed(async () => {
          const r = await get(url, { ...gz, 'if-none-match': first.etag });
          if (r.status !== 304) throw new Error(`expected 304, got ${r.status}`);
        }),
      );
    }
    // Cached 200: the body is the kept buffer.
    const cached: number[] = [];
    for (let i = 0; i < 40; i++) cached.push(await timed(() => get(url, gz)));

    // The floor, in this run: JSON.stringify + gzip level 1 of the same object.
    const identity = await get(url, { ...auth, 'accept-encoding': 'identity' });
    const object: unknown = JSON.parse(identity.body.toString());
    const floor: number[] = [];
    let floorBytes = 0;
    for (let i = 0; i < 20; i++) {
      floor.push(
        await timed(async () => {
          floorBytes = gzipSync(JSON.stringify(object), { level: 1 }).length;
        }),
      );
    }
    // One movie changed (PATCH through the API), then the first GET rebuilds.
    const rebuild: number[] = [];
    for (let i = 0; i < 20; i++) {
      const id = 1 + ((i * 7919) % movies);
      const patched = await request(`${server.url}/api/movies/${id}`, {
        method: 'PATCH',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ overview: `Changed in run ${i}.` }),
        dispatcher: agent,
      });
      await patched.body.arrayBuffer();
      if (patched.statusCode !== 200) throw new Error(`PATCH ${id}: ${patched.statusCode}`);
      rebuild.push(await timed(() => get(url, gz)));
    }
    const n = summarize(notModified);
    const c = summarize(cached);
    const f = summarize(floor);
    const r = summarize(rebuild);
    record('unchanged → 304 (p50)', n.median);
    record('cached 200 (p50)', c.median);
    record('first build after one movie changed (p50)', r.median);
    line('unchanged → 304', `p50 ${ms(n.median)}, p95 ${ms(n.p95)}`, '< 3 ms', n.median < 3);
    line(
      'floor (JSON.stringify + gzip level 1 of the same object)',
      `p50 ${ms(f.median)} (${(floorBytes / 1e6).toFixed(2)} MB gzipped; ${(identity.bytes / 1e6).toFixed(1)} MB of JSON)`,
    );
    line(
      'cached 200 (gzip)',
      `p50 ${ms(c.median)}, p95 ${ms(c.p95)} (${(wire / 1e6).toFixed(2)} MB on the wire); ratio to the floor ${(c.median / f.median).toFixed(2)}`,
      '≤ 1.5',
      c.median / f.median <= 1.5,
    );
    line(
      'first build after one movie changed',
      `p50 ${ms(r.median)}, p95 ${ms(r.p95)}; ratio to the floor ${(r.median / f.median).toFixed(2)}`,
      '≤ 2',
      r.median / f.median <= 2,
    );
    await benchChildListing(server, url, f.median, c.median);
    const peak = peakRssMb(server.pid);
    line(
      'server peak RSS so far',
      `${peak.toFixed(0)} MB (now ${rssMb(server.pid).toFixed(0)} MB)`,
      '< 400 MB',
      peak < 400,
    );
    if (options.load) await benchLoad(server, url, gz);
  } finally {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * A child's GET /library (issue 22): the kept listing filtered by their content limit and gzipped
 * once per version (then kept). The seeded films carry no certification, so with `allow_unrated` the
 * child sees all of them: the worst case (every item re-sent). Against the adult's cached 200 and
 * the floor of the same run.
 */
async function benchChildListing(
  server: ServerProcess,
  url: string,
  floorMs: number,
  adultMs: number,
): Promise<void> {
  const admin = { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' };
  const post = async (path: string, body: unknown): Promise<Record<string, unknown>> => {
    const res = await request(`${server.url}${path}`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify(body),
      dispatcher: agent,
    });
    const parsed = (await res.body.json()) as Record<string, unknown>;
    if (res.statusCode !== 201) throw new Error(`POST ${path}: ${res.statusCode} ${JSON.stringify(parsed)}`);
    return parsed;
  };
  const child = await post('/api/users', {
    name: 'Bench Child',
    password: 'bench-child-password',
    role: 'child',
    max_certification: 'PG',
    allow_unrated: true,
  });
  const key = await post('/api/keys', { name: 'bench', scope: 'read', user: child.id });
  const gz = { authorization: `Bearer ${String(key.key)}`, 'accept-encoding': 'gzip' };
  const first = await get(url, gz);
  const times: number[] = [];
  for (let i = 0; i < 20; i++) times.push(await timed(() => get(url, gz)));
  const notModified: number[] = [];
  for (let i = 0; i < 40; i++) {
    notModified.push(
      await timed(async () => {
        const r = await get(url, { ...gz, 'if-none-match': first.etag });
        if (r.status !== 304) throw new Error(`child: expected 304, got ${r.status}`);
      }),
    );
  }
  const t = summarize(times);
  const n = summarize(notModified);
  line(
    "a child's 200 (filtered once per version, every film shown)",
    `p50 ${ms(t.median)}, p95 ${ms(t.p95)}; ratio to the floor ${(t.median / floorMs).toFixed(2)}, to the adult's cached 200 ${(t.median / adultMs).toFixed(1)}`,
  );
  line("a child's unchanged → 304", `p50 ${ms(n.median)}, p95 ${ms(n.p95)}`, '< 3 ms', n.median < 3);
}

function hasCommand(name: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function hasWrk(): boolean {
  if (hasCommand('wrk')) return true;
  console.log('installing wrk (apt-get) for the load test…');
  try {
    execFileSync(
      'sh',
      ['-c', 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null'],
      { stdio: 'inherit' },
    );
    return hasCommand('wrk');
  } catch {
    return false;
  }
}

/** wrk's latency figure (`12.3ms`, `1.2s`, `900us`) in ms. */
function wrkMs(text: string | undefined): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(text ?? '');
  if (m === null) return Number.NaN;
  const value = Number(m[1]);
  return m[2] === 'us' ? value / 1000 : m[2] === 's' ? value * 1000 : m[2] === 'm' ? value * 60_000 : value;
}

/** 200 clients on GET /library for 20 s (wrk), with GET /api/health timed beside them. */
async function benchLoad(server: ServerProcess, url: string, headers: Record<string, string>): Promise<void> {
  if (!hasWrk()) {
    console.log('  wrk unavailable: load test skipped');
    return;
  }
  for (const [label, coding] of [
    ['gzip', 'gzip'],
    ['no compression', 'identity'],
  ] as const) {
    const before = rssMb(server.pid);
    const health: number[] = [];
    let loading = true;
    const healthLoop = (async () => {
      await new Promise((r) => setTimeout(r, 500));
      while (loading) {
        health.push(await timed(() => get(`${server.url}/api/health`, {})));
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    // One wrk thread, on the second core when taskset is there: on this 2-core machine a second wrk
    // thread competes with the server for the CPU, and wrk's own stalls (late reads, delayed ACKs,
    // TCP loss probes) then show up as server latency (p99 ~2 s at the same requests/s).
    const args = ['-t1', '-c200', '-d20s', '--timeout', '10s', '--latency'];
    for (const [name, value] of Object.entries({ ...headers, 'accept-encoding': coding })) {
      args.push('-H', `${name}: ${value}`);
    }
    const pinned = hasCommand('taskset');
    const { stdout } = pinned
      ? await run('taskset', ['-c', '1', 'wrk', ...args, url], { maxBuffer: 1 << 20 })
      : await run('wrk', [...args, url], { maxBuffer: 1 << 20 });
    loading = false;
    await healthLoop;
    const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1] ?? Number.NaN);
    const p99 = wrkMs(/99%\s+(\S+)/.exec(stdout)?.[1]);
    const timeouts = Number(/timeout (\d+)/.exec(stdout)?.[1] ?? 0);
    const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(stdout)?.[1] ?? 0);
    const errors = /Socket errors: (.*)/.exec(stdout)?.[1] ?? 'none';
    const h = summarize(health);
    const healthMax = Math.max(...health);
    const peak = peakRssMb(server.pid);
    console.log(
      `  200 clients on GET /library (${label}), 20 s (wrk -t1 -c200, timeout 10 s${pinned ? ', wrk on CPU 1' : ''}):`,
    );
    line('requests/s', rps.toFixed(0));
    line('p99 latency', ms(p99), '< 1 s', p99 < 1000);
    line('requests past 10 s', String(timeouts), '0', timeouts === 0);
    line('non-2xx', String(non2xx), '0', non2xx === 0);
    line('socket errors', errors);
    line(
      'server RSS',
      `${rssMb(server.pid).toFixed(0)} MB after (${before.toFixed(0)} MB before), peak ${peak.toFixed(0)} MB`,
      '< 400 MB',
      peak < 400,
    );
    line(
      `GET /api/health during it (${health.length} requests)`,
      `p50 ${ms(h.median)}, max ${ms(healthMax)}`,
      '< 100 ms',
      healthMax < 100,
    );
  }
}
