import { execFile, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { LibraryResponse } from '@reelshelf/contract';
import { makeFixture } from '../server/test/helpers/media.ts';

const run = promisify(execFile);
const repo = new URL('../', import.meta.url).pathname;

function has(cmd: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function ensureTools(): boolean {
  if (has('nginx') && has('wrk')) return true;
  console.log('installing nginx-light and wrk (apt-get) for the comparison…');
  try {
    execFileSync(
      'sh',
      [
        '-c',
        'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light wrk >/dev/null',
      ],
      {
        stdio: 'inherit',
      },
    );
  } catch {
    return false;
  }
  return has('nginx') && has('wrk');
}

/** wrk's transfer rate in MB/s for one URL: 2 threads, 8 connections. */
async function wrk(url: string, seconds: number): Promise<number> {
  const { stdout } = await run('wrk', ['-t2', '-c8', `-d${seconds}s`, url], { maxBuffer: 1 << 20 });
  const match = /Transfer\/sec:\s+([\d.]+)([KMG]B)/.exec(stdout);
  if (match?.[1] === undefined) throw new Error(`wrk printed no rate: ${stdout}`);
  const factor = match[2] === 'GB' ? 1024 : match[2] === 'KB' ? 1 / 1024 : 1;
  return Number(match[1]) * factor;
}

/** wrk's request rate for one URL with one extra header: 2 threads, 8 connections. */
async function wrkRequests(url: string, seconds: number, header: string): Promise<number> {
  const { stdout } = await run('wrk', ['-t2', '-c8', `-d${seconds}s`, '-H', header, url], {
    maxBuffer: 1 << 20,
  });
  const match = /Requests\/sec:\s+([\d.]+)/.exec(stdout);
  if (match?.[1] === undefined) throw new Error(`wrk printed no request rate: ${stdout}`);
  return Number(match[1]);
}

function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

async function startServer(
  dataDir: string,
): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], {
    cwd: repo,
    env: {
      ...process.env,
      REELSHELF_DATA_DIR: dataDir,
      REELSHELF_PORT: '0',
      REELSHELF_HOST: '127.0.0.1',
      REELSHELF_LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m?.[1] !== undefined) {
        clearInterval(timer);
        resolve(m[1]);
      }
    }, 50);
    child.on('exit', (code) => reject(new Error(`server exited ${code}: ${out}`)));
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return {
    url,
    pid: child.pid ?? 0,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Direct-stream throughput (8 clients) against nginx on the same file, peak RSS, and TTFB of a not-yet-built stream. */
export async function benchStream(): Promise<void> {
  if (!ensureTools()) {
    console.log('nginx/wrk unavailable: stream benchmark skipped');
    return;
  }
  const media = mkdtempSync(join(tmpdir(), 'reelshelf-bench-stream-'));
  const dataDir = mkdtempSync(join(tmpdir(), 'reelshelf-bench-stream-data-'));
  const nginxDir = mkdtempSync(join(tmpdir(), 'reelshelf-bench-nginx-'));
  let nginx: ReturnType<typeof spawn> | undefined;
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    const big = await makeFixture('mpeg2_720p.mkv', join(media, 'Big (2020)', 'Big (2020).mkv'), 30);
    await makeFixture('h264_dts.mkv', join(media, 'Dts (2021)', 'Dts (2021).mkv'), 120);
    const size = readFileSync(big).length;
    await run(process.execPath, ['bin/reelshelf.mjs', 'scan', media], {
      cwd: repo,
      env: { ...process.env, REELSHELF_DATA_DIR: dataDir, REELSHELF_LOG_LEVEL: 'warn' },
    });
    server = await startServer(dataDir);
    const token = readFileSync(join(dataDir, 'api-token'), 'utf8').trim();
    const lib = async (device: string) =>
      (await (
        await fetch(`${server?.url}/library?device=${device}`, {
          headers: { authorization: `Bearer ${token}` },
        })
      ).json()) as LibraryResponse;
    const bigEdition = (await lib('full')).items.find((i) => i.title === 'Big')?.editions[0];
    const dtsEdition = (await lib('tv')).items.find((i) => i.title === 'Dts')?.editions[0];
    if (bigEdition === undefined || dtsEdition === undefined)
      throw new Error('bench media not in the library');

    const port = 20000 + Math.floor(Math.random() * 20000);
    mkdirSync(join(nginxDir, 'logs'), { recursive: true });
    writeFileSync(
      join(nginxDir, 'nginx.conf'),
      `daemon off; worker_processes 1; user root; error_log ${nginxDir}/logs/error.log; pid ${nginxDir}/nginx.pid;
events { worker_connections 256; }
http { access_log off; sendfile on; tcp_nopush on; client_body_temp_path ${nginxDir}; proxy_temp_path ${nginxDir};
  fastcgi_temp_path ${nginxDir}; uwsgi_temp_path ${nginxDir}; scgi_temp_path ${nginxDir};
  server { listen 127.0.0.1:${port}; root ${media}; } }\n`,
    );
    nginx = spawn('nginx', ['-c', join(nginxDir, 'nginx.conf'), '-p', nginxDir], { stdio: 'ignore' });
    await new Promise((r) => setTimeout(r, 500));
    const nginxUrl = `http://127.0.0.1:${port}/Big%20(2020)/Big%20(2020).mkv`;
    const ours = `${server.url}${bigEdition.stream_url}`;
    await wrk(ours, 1);
    // The machine is shared: nginx and reelshelf take turns in short slices, so a burst of load from
    // elsewhere hits both sides of a ratio alike; the median of the slices is the figure.
    const seconds = 3;
    const slices = 3;
    const ratios: number[] = [];
    const rates: { ours: number; nginx: number }[] = [];
    for (let slice = 0; slice < slices; slice++) {
      const nginxRate = await wrk(nginxUrl, seconds);
      const ourRate = await wrk(ours, seconds);
      rates.push({ ours: ourRate, nginx: nginxRate });
      ratios.push(ourRate / nginxRate);
    }
    const middle = [...ratios].sort((a, b) => a - b)[Math.floor(slices / 2)] ?? 0;
    console.log(
      `direct stream of a ${(size / 1e6).toFixed(1)} MB file, 8 concurrent clients (wrk -t2 -c8, ${slices} alternating slices of ${seconds}s):`,
    );
    console.log(
      `  reelshelf ${rates.map((r) => r.ours.toFixed(0)).join('/')} MB/s, nginx ${rates.map((r) => r.nginx.toFixed(0)).join('/')} MB/s; ratio per slice ${ratios.map((r) => r.toFixed(2)).join('/')}, median ratio ${middle.toFixed(2)} (target ≥ 0.8)`,
    );

    // Revalidation: a player or browser holding the file asks If-None-Match and must get a 304.
    const nginxTag = (await fetch(nginxUrl, { method: 'HEAD' })).headers.get('etag') ?? '';
    const ourTag = (await fetch(ours, { method: 'HEAD' })).headers.get('etag') ?? '';
    const ourStatus = (await fetch(ours, { headers: { 'if-none-match': ourTag } })).status;
    const nginxReq = await wrkRequests(nginxUrl, 2, `If-None-Match: ${nginxTag}`);
    const ourReq = await wrkRequests(ours, 2, `If-None-Match: ${ourTag}`);
    console.log(
      `revalidation (If-None-Match → ${ourStatus}): reelshelf ${ourReq.toFixed(0)} req/s, nginx ${nginxReq.toFixed(0)} req/s`,
    );

    const t0 = performance.now();
    const res = await fetch(`${server.url}${dtsEdition.stream_url}`);
    const reader = res.body?.getReader();
    await reader?.read();
    const ttfb = performance.now() - t0;
    await reader?.cancel();
    console.log(
      `time to first byte of a not-yet-built adaptive stream (120 s H.264 + DTS MKV on tv): ${ttfb.toFixed(0)} ms`,
    );
    console.log(
      `peak RSS of the server process during the run: ${peakRssMb(server.pid).toFixed(0)} MB (target < 200 MB)`,
    );
  } finally {
    nginx?.kill('SIGTERM');
    await server?.stop();
    rmSync(media, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(nginxDir, { recursive: true, force: true });
  }
}
