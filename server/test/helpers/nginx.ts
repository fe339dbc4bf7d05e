import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findOnPath } from '../../src/adapters/media-tools.ts';
import { waitFor } from './wait.ts';

const repo = new URL('../../../', import.meta.url).pathname;

/** nginx as Debian installs it (`nginx-light`), or null. */
export const nginxBinary: string | null =
  findOnPath('nginx', process.env.PATH) ??
  findOnPath('nginx', '/usr/sbin:/usr/local/sbin:/usr/local/nginx/sbin');

export interface RunningNginx {
  /** http://127.0.0.1:<port> */
  url: string;
  stop(): Promise<void>;
}

export interface NginxOptions {
  /** The reelshelf server nginx proxies to (`host:port`), through docs/deploy/nginx.conf. */
  upstream?: string;
  /** A folder nginx serves itself under `/direct/` (the "nginx alone" of a comparison). */
  directRoot?: string;
}

/** A free port on 127.0.0.1 (asked of the kernel, then released for nginx to take). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Runs real nginx in the foreground with its own prefix folder: the deployment file
 * docs/deploy/nginx.conf as documented (only its listen address and upstream address changed), and
 * optionally a plain static location to compare against. Worker and temp files stay in the prefix;
 * the process is killed with its owner's `stop()`.
 */
export async function startNginx(options: NginxOptions): Promise<RunningNginx> {
  if (nginxBinary === null) throw new Error('nginx is not installed (apt-get install nginx-light)');
  const prefix = mkdtempSync(join(tmpdir(), 'reelshelf-nginx-'));
  mkdirSync(join(prefix, 'logs'));
  const port = await freePort();
  let site = readFileSync(join(repo, 'docs/deploy/nginx.conf'), 'utf8');
  if (options.upstream !== undefined) {
    site = site.replace('server 127.0.0.1:8787;', `server ${options.upstream};`);
  }
  site = site.replace('listen 80;', `listen 127.0.0.1:${port};`);
  if (options.directRoot !== undefined) {
    // nginx alone: the same sendfile settings, no upstream in the way.
    site = site.replace(
      'location / {',
      `location /direct/ {\n        alias ${options.directRoot}/;\n        sendfile on;\n        tcp_nopush on;\n    }\n\n    location / {`,
    );
  }
  writeFileSync(join(prefix, 'site.conf'), site);
  // As root the workers would run as nobody and could not read the 0700 temp folders of the tests.
  const user = process.getuid?.() === 0 ? 'user root;' : '';
  writeFileSync(
    join(prefix, 'nginx.conf'),
    `daemon off; worker_processes 1; ${user} error_log ${prefix}/logs/error.log; pid ${prefix}/nginx.pid;
events { worker_connections 1024; }
http { access_log off; client_body_temp_path ${prefix}/body; proxy_temp_path ${prefix}/proxy;
  fastcgi_temp_path ${prefix}/fastcgi; uwsgi_temp_path ${prefix}/uwsgi; scgi_temp_path ${prefix}/scgi;
  include ${prefix}/site.conf; }\n`,
  );
  const child: ChildProcess = spawn(nginxBinary, ['-c', join(prefix, 'nginx.conf'), '-p', prefix], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor(
      async () => {
        if (gone)
          throw new Error(`nginx exited: ${stderr}${readFileSync(join(prefix, 'logs/error.log'), 'utf8')}`);
        return fetch(`${url}/internal-media/`).then(
          (res) => res.status === 404,
          () => false,
        );
      },
      () => `nginx on port ${port}: ${stderr}`,
      { timeoutMs: 10_000 },
    );
  } catch (err) {
    child.kill('SIGKILL');
    rmSync(prefix, { recursive: true, force: true });
    throw err;
  }
  return {
    url,
    async stop() {
      if (!gone) {
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(prefix, { recursive: true, force: true });
    },
  };
}
