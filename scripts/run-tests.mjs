#!/usr/bin/env node
// The one test command (`npm test`). Node 20's `node --test` expands no globs and silently runs
// nothing for a folder, so this script finds every *.test.ts itself and passes the explicit list.
// Order: the machine's tools (installed when missing), type-check, lint/format, contract freshness,
// then the test files.
import { spawnSync } from 'node:child_process';
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, isAbsolute, join, relative } from 'node:path';
import { findChromium } from './chromium.mjs';
import { ensurePostgresInstalled, prepareTestPostgres } from './test-postgres.mjs';

const root = new URL('..', import.meta.url).pathname;
const testRoots = ['contract/test', 'server/test', 'client/test'];
const only = process.argv.slice(2);

function onPath(name) {
  // The browser tests launch the Chromium this lookup finds (server/test/helpers/chromium.ts).
  if (name === 'chromium') return findChromium().path !== null;
  // nginx and minidlnad live in /usr/sbin, which a user's PATH often lacks.
  const sbin = name === 'nginx' || name === 'minidlnad' ? ['/usr/sbin'] : [];
  const dirs = [...(process.env.PATH ?? '').split(delimiter), ...sbin];
  for (const dir of dirs) {
    if (dir === '' || !isAbsolute(dir)) continue;
    try {
      accessSync(join(dir, name), constants.X_OK);
      return true;
    } catch {
      // not in this folder
    }
  }
  return false;
}

/**
 * The tests run real ffmpeg/ffprobe (media fixtures), Debian's Chromium (page tests) and nginx (the
 * X-Accel-Redirect deployment of docs/deploy). What is missing is installed with apt-get when this
 * runs as root (a fresh CI machine); otherwise the run stops at once with the one command to run,
 * instead of hundreds of `spawn ffmpeg ENOENT` failures.
 */
const PACKAGE_OF = {
  ffmpeg: 'ffmpeg',
  ffprobe: 'ffmpeg',
  chromium: 'chromium',
  nginx: 'nginx-light',
  // The player matrix (test/helpers/player-matrix.ts): mpv, and VLC with the plugins that demux
  // HLS/TS/MP4 and decode (vlc-bin alone has none).
  mpv: 'mpv',
  cvlc: 'vlc-bin',
  // The DLNA judge (test/helpers/dlna-judge.ts): minidlna as the peer server it is proven on, and
  // GUPnP's gssdp-discover (in gupnp-tools; Debian's gssdp-tools has only a GTK sniffer).
  minidlnad: 'minidlna',
  'gssdp-discover': 'gupnp-tools',
};
/** Packages a tool needs besides its own. */
const ALSO_NEEDS = { 'vlc-bin': ['vlc-plugin-base'] };

function prepareMachine() {
  const missing = Object.keys(PACKAGE_OF).filter((name) => !onPath(name));
  if (missing.length === 0) return;
  // ffprobe comes in Debian's ffmpeg package.
  const packages = [
    ...new Set(missing.flatMap((name) => [PACKAGE_OF[name], ...(ALSO_NEEDS[PACKAGE_OF[name]] ?? [])])),
  ];
  const command = `apt-get install -y --no-install-recommends ${packages.join(' ')}`;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot || !onPath('apt-get')) {
    process.stderr.write(
      `npm test needs ${missing.join(', ')} on the PATH, and cannot install ${packages.length > 1 ? 'them' : 'it'} here` +
        ` (${isRoot ? 'no apt-get' : 'not root'}). Run:\n\n  sudo apt-get update && sudo ${command}\n\nthen npm test again.\n`,
    );
    process.exit(1);
  }
  process.stdout.write(`== installing ${packages.join(' ')} (missing: ${missing.join(', ')}) with apt-get\n`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  // minidlna's package starts a system minidlna at once (SSDP multicast on every interface): while
  // apt-get runs, a policy-rc.d (Debian's switch for invoke-rc.d and deb-systemd-invoke) denies it.
  const policy = '/usr/sbin/policy-rc.d';
  const denyStarts = packages.includes('minidlna') && !existsSync(policy);
  if (denyStarts) writeFileSync(policy, '#!/bin/sh\nexit 101\n', { mode: 0o755 });
  for (const args of [
    ['update', '-qq'],
    ['install', '-y', '-qq', '--no-install-recommends', ...packages],
  ]) {
    const res = spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env });
    if (res.status !== 0) {
      if (denyStarts) rmSync(policy, { force: true });
      process.stderr.write(`apt-get ${args[0]} failed (exit ${res.status}); run: ${command}\n`);
      process.exit(1);
    }
  }
  if (denyStarts) rmSync(policy, { force: true });
  if (packages.includes('minidlna')) {
    // The package enables a system minidlna that multicasts SSDP on every interface: the tests
    // start their own, only inside a private network namespace. Keep it off at boot, and stopped
    // (should a policy-rc.d of the machine's have let it start).
    spawnSync('/etc/init.d/minidlna', ['stop'], { stdio: 'ignore' });
    spawnSync('update-rc.d', ['minidlna', 'disable'], { stdio: 'ignore' });
    if (existsSync('/run/systemd/system'))
      spawnSync('systemctl', ['disable', '--now', 'minidlna.service'], { stdio: 'ignore' });
  }
  if (packages.includes('nginx-light')) {
    // Without a policy-rc.d the package starts the system's nginx on port 80; the tests run their own.
    spawnSync('/usr/sbin/nginx', ['-s', 'quit'], { stdio: 'ignore' });
  }
  const still = missing.filter((name) => !onPath(name));
  if (still.length > 0) {
    process.stderr.write(`still missing after apt-get: ${still.join(', ')}\n`);
    process.exit(1);
  }
  process.stdout.write(`== installed ${packages.join(' ')}\n`);
}

function findTests(dir) {
  const out = [];
  let entries;
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of entries.sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...findTests(full));
    else if (name.endsWith('.test.ts')) out.push(relative(root, full));
  }
  return out;
}

/** The one switch between the engines (REELSHELF_TEST_DATABASE): a file that never reaches it opens no database. */
const DATABASE_SWITCH = 'server/test/helpers/test-database.ts';
const reachCache = new Map();

/**
 * Whether a test file reaches the database switch through its imports or the helper scripts it
 * starts (among test files and helpers; the server's own modules are not followed: a test decides
 * which database they get). A file that does not runs the same on both engines, so the PostgreSQL pass leaves it out.
 */
function reachesDatabase(file, seen = new Set()) {
  if (file === DATABASE_SWITCH) return true;
  if (reachCache.has(file)) return reachCache.get(file);
  if (seen.has(file) || !/\/test\//.test(file)) return false;
  seen.add(file);
  let text = '';
  try {
    text = readFileSync(join(root, file), 'utf8');
  } catch {
    return false;
  }
  const dir = file.slice(0, file.lastIndexOf('/') + 1);
  const imported = [...text.matchAll(/(?:from|import\()\s*'(\.\.?\/[^']+)'/g)].map((m) =>
    relative(root, join(root, dir, m[1])),
  );
  // A helper script a test starts as a process of its own ('server/test/helpers/….ts' on its argv).
  const started = [...text.matchAll(/'((?:server|client|contract)\/test\/[^']+\.ts)'/g)].map((m) => m[1]);
  const reaches = [...imported, ...started].some((f) => reachesDatabase(f, seen));
  reachCache.set(file, reaches);
  return reaches;
}

/**
 * Files left out of the PostgreSQL pass, each group by a named rule (CI's budget, README "Tests on
 * both engines"); they all run in the SQLite pass, and a file named on the command line always runs.
 * Named one by one, so a new file (a cross-node HLS test) is never left out by accident.
 */
const integration = (names) => new Set(names.map((name) => `server/test/integration/${name}.test.ts`));

/** Media-heavy: their subject is ffmpeg, the players and the wire, not the database. */
const MEDIA_ONLY = integration([
  'player-matrix-adaptive',
  'player-matrix-prewarm',
  'player-matrix-transcode',
  'dlna-peer-reelshelf',
  'hls',
  'hls-limits',
  'hls-process',
  'hls-subtitles',
  'growing-stream',
  'subtitle-burn-in',
]);

/**
 * Engine-fixed: the file picks its databases itself whatever REELSHELF_TEST_DATABASE says (the
 * library a SQLite file, the target a PostgreSQL of helpers/postgres-cluster.ts, which starts its own
 * cluster on the SQLite pass), so both passes would run the very same test.
 */
const ENGINE_FIXED = integration(['migrate-database']);

/**
 * Not the data: the subject is what goes over the wire (HTTP semantics, UDP, UPnP, limits, errors),
 * the CLI's or the log's output, the process and its tools, or the file system, and the data they
 * touch goes through the same repositories as the files that stay (people and revocation, scan and
 * scan-process, import-export, visibility-walk, streaming, the jobs, cluster and HLS-across-nodes
 * files). None of them asserts anything of its own on PostgreSQL (no `testEngine` branch): a file
 * that does, such as streaming's prewarm taken over by the next node, stays.
 */
const NOT_THE_DATA = integration([
  // the wire
  'accel-redirect',
  'conditional-byte-routes',
  'conditional-requests',
  'dlna-media',
  'jellyfin-bad-input',
  'jellyfin-discovery',
  'jellyfin-port',
  'slow-clients',
  'upload-limits',
  // media bytes and conversions
  'playback-policy',
  'subtitles-vtt',
  // the CLI's and the log's output, the process and its tools
  'cli-progress',
  'fresh-machine',
  'log-redaction',
  'people-process',
  'process',
  // the file system
  'root-watcher',
  'symlinks',
]);

/** The groups, in the order the left-out lines are printed. */
const NOT_ON_POSTGRES = [
  { what: 'media-heavy files (their subject is not the database)', files: MEDIA_ONLY },
  { what: 'engine-fixed files (the same databases on both passes)', files: ENGINE_FIXED },
  {
    what: 'files whose subject is the wire, the output, the process or the file system',
    files: NOT_THE_DATA,
  },
];

function step(label, cmd, args) {
  process.stdout.write(`\n== ${label}\n`);
  const started = Date.now();
  const res = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: process.env });
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  if (res.status !== 0) {
    process.stdout.write(`== ${label} failed (${secs}s)\n`);
    process.exit(res.status ?? 1);
  }
  process.stdout.write(`== ${label} ok (${secs}s)\n`);
}

// A name that is no file (renamed, removed) would leave nothing out and say nothing: it stops the run.
const stale = NOT_ON_POSTGRES.flatMap((g) => [...g.files]).filter((f) => !existsSync(join(root, f)));
if (stale.length > 0) {
  process.stderr.write(`scripts/run-tests.mjs names test files that do not exist: ${stale.join(', ')}\n`);
  process.exit(1);
}
prepareMachine();
// PostgreSQL's server binaries, before any test file runs: the SQLite pass needs them too (a few
// files start a throwaway cluster of their own: migrate-database, search parity, the triggers), and
// files running in parallel must not each run apt-get (dpkg's lock refuses the second).
ensurePostgresInstalled();
let files = testRoots.flatMap((d) => findTests(join(root, d)));
if (only.length > 0) files = files.filter((f) => only.some((o) => f.includes(o)));
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}

if (only.length === 0) {
  // One after the other: started at once on this 2-core machine they took longer (92 s against 77 s,
  // measured back to back; 181 s against 111 s under a heavier load), not half.
  step('type-check (tsc --noEmit)', 'npx', ['tsc', '-p', 'tsconfig.json', '--noEmit']);
  step('lint (eslint)', 'npx', ['eslint', '.']);
  step('format (prettier --check)', 'npx', ['prettier', '--check', '--log-level', 'warn', '.']);
  step('contract is fresh (contract:check)', 'node', [
    '--import',
    'tsx',
    'contract/scripts/build-contract.ts',
    '--check',
  ]);
}
// REELSHELF_TEST_DATABASE=postgres: the same files on a throwaway PostgreSQL (scripts/test-postgres.mjs),
// stopped at the end (and killed with this process, should it die first).
const engine = process.env.REELSHELF_TEST_DATABASE === 'postgres' ? 'postgres' : 'sqlite';
let postgres = null;
if (engine === 'postgres') {
  process.stdout.write('\n== starting a throwaway PostgreSQL\n');
  postgres = await prepareTestPostgres(root);
  process.stdout.write(`== PostgreSQL ready (${postgres.cluster.url})\n`);
}
if (engine === 'postgres') {
  // A file named exactly still runs; of a folder's files, those that open no database are left out.
  const same = files.filter((f) => !only.includes(f) && !reachesDatabase(f));
  files = files.filter((f) => !same.includes(f));
  if (same.length > 0)
    process.stdout.write(
      `== left out on PostgreSQL: ${same.length} files that open no database (they run the same on both engines)\n`,
    );
  for (const group of NOT_ON_POSTGRES) {
    const out = files.filter((f) => !only.includes(f) && group.files.has(f));
    files = files.filter((f) => !out.includes(f));
    if (out.length > 0)
      process.stdout.write(
        `== left out on PostgreSQL: ${out.length} ${group.what}: ${out.map((f) => f.replace(/^.*\//, '')).join(', ')}\n`,
      );
  }
}
process.stdout.write(`\n== ${files.length} test files (${engine})\n`);
mkdirSync(join(root, 'test-output'), { recursive: true });
// The run's fixture cache (helpers/media.ts makeFixture): an MP4 fixture is encoded once per run and
// copied to every test that asks for it. Removed when this process exits.
const fixtureCache = mkdtempSync(join(tmpdir(), 'reelshelf-fixture-cache-'));
process.on('exit', () => rmSync(fixtureCache, { recursive: true, force: true }));
// Files run in parallel processes (2 cores); each test file owns its own temp data dir and port.
const res = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    '--test',
    // Two files at once on 2 cores (ffmpeg, players and browsers mostly wait on real time): the suite
    // in ~8 minutes instead of ~11. npm run test:repeat proves the files independent at 1, 2 and 4.
    '--test-concurrency=2',
    // A test that hangs fails after this long instead of holding the suite (CI has its own bound).
    '--test-timeout=180000',
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    '--test-reporter=tap',
    '--test-reporter-destination=test-output/tap.txt',
    ...files,
  ],
  {
    cwd: root,
    stdio: 'inherit',
    env: {
      ...process.env,
      ...(postgres === null ? {} : postgres.env),
      REELSHELF_LOG_LEVEL: process.env.REELSHELF_LOG_LEVEL ?? 'silent',
      REELSHELF_TEST_FIXTURE_CACHE: fixtureCache,
    },
  },
);
if (postgres !== null) await postgres.cluster.stop();
const copies = existsSync(join(fixtureCache, 'copies'))
  ? readFileSync(join(fixtureCache, 'copies'), 'utf8').split('\n').filter(Boolean).length
  : 0;
const encoded = readdirSync(fixtureCache).filter((f) => f !== 'copies').length;
process.stdout.write(
  `\n== fixture cache: ${encoded} MP4 fixtures encoded, ${copies} copies of them handed out\n`,
);
// A plain closing line that any CI reads, taken from the TAP summary written beside the spec output.
const tap = readFileSync(join(root, 'test-output/tap.txt'), 'utf8');
const count = (key) => Number(tap.match(new RegExp(`^# ${key} (\\d+)$`, 'm'))?.[1] ?? 0);
const skipped = count('skipped') + count('todo');
// A file that timed out or crashed is `cancelled`, not `fail`: said here too, so 0 failed is never read as green.
const cancelled = count('cancelled');
process.stdout.write(
  `\ntests (${engine}): ${count('pass')} passed, ${count('fail')} failed${cancelled ? `, ${cancelled} cancelled (timed out or crashed)` : ''}${skipped ? `, ${skipped} skipped` : ''}\n`,
);
process.exit(res.status ?? 1);
