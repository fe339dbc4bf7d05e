// A throwaway PostgreSQL for `REELSHELF_TEST_DATABASE=postgres npm test` (and test:repeat, bench):
// Debian's server binaries (installed with apt-get when missing and root), `initdb` in a temp folder
// as an unprivileged user (initdb and postgres refuse root), `postgres` on a free loopback port,
// owned by this process: it runs under `setpriv --pdeathsig KILL`, so even a `kill -9` of the test
// runner takes the postmaster (and, through postmaster death, every backend) with it. A crashed
// run's folder is swept by the next start.
/* global AbortController */
import { spawn, spawnSync } from 'node:child_process';
import {
  accessSync,
  chownSync,
  constants,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';

const PREFIX = 'reelshelf-pg-';
/** The superuser of the throwaway cluster (trust authentication on 127.0.0.1 only). */
export const TEST_PG_USER = 'reelshelf';

/** The folder holding initdb/postgres/pg_isready of the newest installed major version, or null. */
export function findPostgresBin() {
  const base = '/usr/lib/postgresql';
  let versions = [];
  try {
    versions = readdirSync(base)
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
  } catch {
    return null;
  }
  for (const v of versions) {
    const bin = join(base, v, 'bin');
    try {
      accessSync(join(bin, 'postgres'), constants.X_OK);
      accessSync(join(bin, 'initdb'), constants.X_OK);
      return bin;
    } catch {
      // not this one
    }
  }
  return null;
}

function isRoot() {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/**
 * Installs Debian's `postgresql` when it is missing and this runs as root; otherwise says the one
 * command to run. The package's own cluster is kept from starting (policy-rc.d) and disabled.
 */
export function ensurePostgresInstalled() {
  if (findPostgresBin() !== null) return;
  const command = 'apt-get install -y --no-install-recommends postgresql';
  if (!isRoot()) {
    process.stderr.write(
      `REELSHELF_TEST_DATABASE=postgres needs PostgreSQL's server binaries (/usr/lib/postgresql/*/bin). Run:\n\n  sudo apt-get update && sudo ${command}\n\nthen npm test again.\n`,
    );
    process.exit(1);
  }
  process.stdout.write('== installing postgresql with apt-get\n');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const policy = '/usr/sbin/policy-rc.d';
  const denyStarts = !existsSync(policy);
  if (denyStarts) writeFileSync(policy, '#!/bin/sh\nexit 101\n', { mode: 0o755 });
  try {
    for (const args of [
      ['update', '-qq'],
      ['install', '-y', '-qq', '--no-install-recommends', 'postgresql'],
    ]) {
      const res = spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env });
      if (res.status !== 0) {
        process.stderr.write(`apt-get ${args[0]} failed (exit ${res.status}); run: ${command}\n`);
        process.exit(1);
      }
    }
  } finally {
    if (denyStarts) rmSync(policy, { force: true });
  }
  // The package's system cluster (port 5432) is not ours: keep it stopped and off at boot.
  if (existsSync('/run/systemd/system'))
    spawnSync('systemctl', ['disable', '--now', 'postgresql'], { stdio: 'ignore' });
  else spawnSync('/etc/init.d/postgresql', ['stop'], { stdio: 'ignore' });
  if (findPostgresBin() === null) {
    process.stderr.write('postgresql is still missing after apt-get\n');
    process.exit(1);
  }
}

/** uid/gid the cluster runs as: this user, or (as root) Debian's `postgres`, else nobody. */
function clusterOwner() {
  if (!isRoot()) return null;
  const passwd = readFileSync('/etc/passwd', 'utf8');
  const line = passwd.split('\n').find((l) => l.startsWith('postgres:'));
  if (line !== undefined) {
    const [, , uid, gid] = line.split(':');
    return { uid: Number(uid), gid: Number(gid) };
  }
  return { uid: 65534, gid: 65534 };
}

/** argv prefix that runs a command as the owner and kills it when this process dies. */
function asOwner(owner, deathSignal) {
  const base = ['setpriv'];
  if (owner !== null) base.push(`--reuid=${owner.uid}`, `--regid=${owner.gid}`, '--clear-groups');
  if (deathSignal) base.push('--pdeathsig', 'KILL');
  base.push('--');
  return base;
}

function pidAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/** Removes the folders of earlier runs whose postmaster is gone (a crashed or killed run). */
function sweepStale() {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(PREFIX)) continue;
    const dir = join(tmpdir(), name);
    let pid = null;
    try {
      pid = Number(readFileSync(join(dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
    } catch {
      // no pid file: never started, or stopped
    }
    if (pid !== null && Number.isInteger(pid) && pid > 0 && pidAlive(pid)) continue;
    try {
      const runner = Number(readFileSync(join(dir, 'runner.pid'), 'utf8'));
      if (pidAlive(runner) && runner !== process.pid) continue; // another run still starting
    } catch {
      // no runner file
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(address.port));
    });
  });
}

/**
 * Starts a throwaway cluster. Returns `{ url, bin, stop() }`: `url` is the superuser's URL of the
 * `postgres` database (tests create their own databases from it).
 */
export async function startTestPostgres() {
  ensurePostgresInstalled();
  const bin = findPostgresBin();
  sweepStale();
  const dir = mkdtempSync(join(tmpdir(), PREFIX));
  writeFileSync(join(dir, 'runner.pid'), String(process.pid));
  const owner = clusterOwner();
  if (owner !== null) chownSync(dir, owner.uid, owner.gid);
  const data = join(dir, 'data');
  const init = spawnSync(
    asOwner(owner, false)[0],
    [
      ...asOwner(owner, false).slice(1),
      join(bin, 'initdb'),
      '-D',
      data,
      '-U',
      TEST_PG_USER,
      '--auth=trust',
      '--no-sync',
      '--encoding=UTF8',
      // C.UTF-8: byte-order collation by default and Unicode character classes (lower(), unaccent).
      '--locale=C.UTF-8',
    ],
    { encoding: 'utf8' },
  );
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed (exit ${init.status}): ${init.stderr}`);
  }
  const port = await freePort();
  const log = openSync(join(dir, 'postgres.log'), 'a');
  if (owner !== null) chownSync(join(dir, 'postgres.log'), owner.uid, owner.gid);
  const argv = [
    ...asOwner(owner, true),
    join(bin, 'postgres'),
    '-D',
    data,
    '-p',
    String(port),
    '-k',
    dir,
    '-c',
    'listen_addresses=127.0.0.1',
    // A throwaway cluster: no durability, so no fsync waits.
    '-c',
    'fsync=off',
    '-c',
    'synchronous_commit=off',
    '-c',
    'full_page_writes=off',
    // Two test files at once, each with servers whose pools hold up to 10 connections.
    '-c',
    'max_connections=500',
    '-c',
    'shared_buffers=128MB',
  ];
  const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', log, log], detached: false });
  const url = `postgres://${TEST_PG_USER}@127.0.0.1:${port}/postgres`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) {
      const text = readFileSync(join(dir, 'postgres.log'), 'utf8');
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`postgres exited at start (${child.exitCode}):\n${text}`);
    }
    const ready = spawnSync(
      join(bin, 'pg_isready'),
      ['-h', '127.0.0.1', '-p', String(port), '-U', TEST_PG_USER],
      {
        stdio: 'ignore',
      },
    );
    if (ready.status === 0) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error('postgres did not become ready within 30 s');
    }
    await sleep(100);
  }
  let stopped = false;
  return {
    url,
    bin,
    dir,
    async stop() {
      if (stopped) return;
      stopped = true;
      if (child.exitCode === null) {
        // SIGQUIT: immediate shutdown (a throwaway cluster needs no checkpoint).
        child.kill('SIGQUIT');
        const exited = new Promise((resolve) => child.once('exit', resolve));
        const abort = new AbortController();
        const timedOut = sleep(10_000, 'timeout', { signal: abort.signal }).catch(() => 'exited');
        if ((await Promise.race([exited, timedOut])) === 'timeout') child.kill('SIGKILL');
        abort.abort();
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Starts the cluster of a PostgreSQL test run and migrates the template every test database is
 * copied from (server/test/helpers/test-database.ts). Returns the cluster and the environment the
 * test processes need.
 */
export async function prepareTestPostgres(root) {
  const cluster = await startTestPostgres();
  const psql = join(cluster.bin, 'psql');
  const template = cluster.url.replace(/\/postgres$/, '/reelshelf_template');
  const create = spawnSync(
    psql,
    ['-X', '-q', '-d', cluster.url, '-c', 'CREATE DATABASE reelshelf_template'],
    {
      encoding: 'utf8',
    },
  );
  const migrate =
    create.status === 0
      ? spawnSync(
          process.execPath,
          ['--import', 'tsx', join(root, 'scripts/migrate-test-template.ts'), template],
          {
            cwd: root,
            encoding: 'utf8',
          },
        )
      : create;
  if (migrate.status !== 0) {
    await cluster.stop();
    throw new Error(`cannot make the template database: ${migrate.stderr}`);
  }
  return {
    cluster,
    env: {
      REELSHELF_TEST_DATABASE: 'postgres',
      // Through the cluster's Unix socket (the URL's host and port name it): reachable from a test's
      // private network namespace too (helpers/netns.ts), whose loopback is not the host's.
      REELSHELF_TEST_POSTGRES_URL: `${cluster.url}?host=${encodeURIComponent(cluster.dir)}`,
      REELSHELF_TEST_POSTGRES_PSQL: psql,
    },
  };
}
