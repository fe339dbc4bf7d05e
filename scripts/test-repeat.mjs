#!/usr/bin/env node
// Proves the suite deterministic (`npm run test:repeat`): runs the test files N times, each run with
// the files in a seeded random order and a different --test-concurrency, and names every test that
// failed in any run. A flaky test shows up as failing in some runs and passing in others.
//
//   npm run test:repeat                      integration tests, 10 runs
//   npm run test:repeat -- --runs 3 --all    every test file, 3 runs
//   npm run test:repeat -- import-export     only files whose path contains "import-export"
//   npm run test:repeat -- --seed 1234 --runs 1 --concurrency 2   replay one run exactly
//
// Run i uses seed (seed + i) for its order and concurrency [1, 2, 4][i % 3] unless --concurrency is
// given; every run prints the line that replays it alone. Node 20's `node --test` expands no globs,
// so the files are found here (as scripts/run-tests.mjs does) and passed as an explicit list.
// Each run gets its own empty TMPDIR; whatever the tests leave in it is listed as a leftover (a test
// that does not clean up can make a later one depend on it) and then removed.
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const CONCURRENCIES = [1, 2, 4];

function usage(message) {
  if (message) console.error(`test-repeat: ${message}`);
  console.error(
    'usage: node scripts/test-repeat.mjs [--runs N] [--seed S] [--concurrency C] [--all] [path-substring…]',
  );
  process.exit(2);
}

function parseArgs(argv) {
  const options = { runs: 10, seed: null, concurrency: null, all: false, only: [] };
  const number = (name, value) => {
    if (value === undefined || !/^\d+$/.test(value)) usage(`${name} needs a whole number`);
    return Number(value);
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--runs') options.runs = number(arg, argv[++i]);
    else if (arg === '--seed') options.seed = number(arg, argv[++i]);
    else if (arg === '--concurrency') options.concurrency = number(arg, argv[++i]);
    else if (arg === '--all') options.all = true;
    else if (arg === '--help' || arg === '-h') usage();
    else if (arg.startsWith('--')) usage(`unknown option ${arg}`);
    else options.only.push(arg);
  }
  if (options.runs < 1) usage('--runs must be at least 1');
  if (options.concurrency === 0) usage('--concurrency must be at least 1');
  options.seed ??= Math.floor(Math.random() * 2 ** 31);
  return options;
}

function findTests(dir) {
  let entries;
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  const out = [];
  for (const name of entries.sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...findTests(full));
    else if (name.endsWith('.test.ts')) out.push(relative(root, full));
  }
  return out;
}

/** mulberry32: a small seeded PRNG, so an order can be replayed from its seed. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffled(items, seed) {
  const next = random(seed);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/**
 * Reads node's TAP output: counts, and every failed test that has no failed subtest (a suite that
 * failed only because of a child is not named twice), with the file it lives in.
 */
function readTap(tap) {
  const count = (key) => Number(tap.match(new RegExp(`^# ${key} (\\d+)$`, 'm'))?.[1] ?? 0);
  const lines = tap.split('\n');
  const stack = [];
  const failed = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const subtest = /^(\s*)# Subtest: (.*)$/.exec(line);
    if (subtest) {
      const depth = subtest[1].length;
      while (stack.length > 0 && stack[stack.length - 1].depth >= depth) stack.pop();
      stack.push({ depth, name: subtest[2] });
      continue;
    }
    const notOk = /^(\s*)not ok \d+ - (.*?)(?: # (?:SKIP|TODO).*)?$/.exec(line);
    if (!notOk) continue;
    const depth = notOk[1].length;
    const parents = stack.filter((s) => s.depth < depth).map((s) => s.name);
    let location = '';
    for (let j = i + 1; j < lines.length && j < i + 40; j++) {
      const loc = /^\s*location: '(.*?)(?::\d+:\d+)?'$/.exec(lines[j]);
      if (loc) {
        location = relative(root, loc[1]);
        break;
      }
      if (/^\s*\.\.\.$/.test(lines[j])) break;
    }
    failed.push({ path: [...parents, notOk[2]], location });
  }
  const isParent = (f) =>
    failed.some((g) => g !== f && g.path.length > f.path.length && f.path.every((p, k) => g.path[k] === p));
  return {
    tests: count('tests'),
    pass: count('pass'),
    fail: count('fail'),
    cancelled: count('cancelled'),
    skipped: count('skipped') + count('todo'),
    failed: failed
      .filter((f) => !isParent(f))
      .map((f) => `${f.path.join(' > ')}${f.location ? ` (${f.location})` : ''}`),
  };
}

function runOnce(files, concurrency, tapFile, tempDir) {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--test',
        '--test-timeout=180000',
        `--test-concurrency=${concurrency}`,
        '--test-reporter=tap',
        `--test-reporter-destination=${tapFile}`,
        ...files,
      ],
      {
        cwd: root,
        stdio: ['ignore', 'ignore', 'pipe'],
        env: {
          ...process.env,
          REELSHELF_LOG_LEVEL: process.env.REELSHELF_LOG_LEVEL ?? 'silent',
          TMPDIR: tempDir,
        },
      },
    );
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    child.on('close', (code, signal) => resolve({ code, signal, stderr }));
  });
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const roots = options.all ? ['contract/test', 'server/test', 'client/test'] : ['server/test/integration'];
  let files = roots.flatMap((d) => findTests(join(root, d)));
  if (options.only.length > 0) files = files.filter((f) => options.only.some((o) => f.includes(o)));
  if (files.length === 0) usage('no test files found');

  const outDir = join(root, 'test-output', 'repeat');
  mkdirSync(outDir, { recursive: true });
  console.log(
    `test-repeat: ${files.length} file(s) from ${options.all ? 'all test folders' : 'server/test/integration'}` +
      `, ${options.runs} run(s), seed ${options.seed}`,
  );

  const runs = [];
  const failures = new Map();
  const leftovers = new Set();
  for (let i = 0; i < options.runs; i++) {
    const seed = options.seed + i;
    const concurrency = options.concurrency ?? CONCURRENCIES[i % CONCURRENCIES.length];
    const order = shuffled(files, seed);
    const tapFile = join(outDir, `run-${i + 1}.tap`);
    const tempDir = mkdtempSync(join(tmpdir(), 'reelshelf-repeat-'));
    // Like /tmp, others may pass through it: VLC runs as `nobody` (it refuses root) and writes
    // into a folder a test makes for it here; mkdtemp's 0700 would refuse it.
    chmodSync(tempDir, 0o755);
    const started = Date.now();
    const exit = await runOnce(order, concurrency, tapFile, tempDir);
    const secs = ((Date.now() - started) / 1000).toFixed(1);
    // tsx keeps its compile cache there (tsx-<uid>): a cache, not a test's leftover.
    const left = readdirSync(tempDir)
      .filter((name) => !/^tsx-\d+$/.test(name))
      .sort();
    rmSync(tempDir, { recursive: true, force: true });
    let tap = '';
    try {
      tap = readFileSync(tapFile, 'utf8');
    } catch {
      // no TAP at all: the runner itself failed; reported below from its exit and stderr
    }
    const result = readTap(tap);
    const ok = exit.code === 0 && result.fail === 0 && result.cancelled === 0 && result.tests > 0;
    runs.push({ seed, concurrency, ok, result });
    console.log(
      `run ${i + 1}/${options.runs}: ${ok ? 'ok  ' : 'FAIL'} ${result.pass} passed, ${result.fail} failed` +
        `${result.cancelled ? `, ${result.cancelled} cancelled` : ''}${result.skipped ? `, ${result.skipped} skipped` : ''}` +
        ` (${secs}s, concurrency ${concurrency}, replay: --seed ${seed} --runs 1 --concurrency ${concurrency})`,
    );
    if (left.length > 0) {
      console.log(`    leftovers in TMPDIR: ${left.join(' ')}`);
      for (const name of left) leftovers.add(name.replace(/[-_.][\w]{6,}$/, '-*'));
    }
    if (!ok) {
      for (const name of result.failed) {
        console.log(`    not ok: ${name}`);
        failures.set(name, [...(failures.get(name) ?? []), i + 1]);
      }
      if (result.failed.length === 0) {
        const why = exit.signal ? `signal ${exit.signal}` : `exit ${exit.code}`;
        console.log(`    the runner failed (${why}) without naming a test; stderr ends:\n${exit.stderr}`);
        failures.set(`(runner: ${why})`, [...(failures.get(`(runner: ${why})`) ?? []), i + 1]);
      }
      console.log(`    order: ${order.join(' ')}`);
    }
  }

  const failedRuns = runs.filter((r) => !r.ok);
  console.log(
    `\ntest-repeat summary: ${runs.length - failedRuns.length}/${runs.length} runs passed` +
      ` (seed ${options.seed}, ${files.length} files, TAP per run in test-output/repeat/)`,
  );
  for (const [name, inRuns] of failures) {
    const kind = inRuns.length === runs.length ? 'failed every run' : 'FLAKY';
    console.log(`  ${kind}: ${name} — run(s) ${inRuns.join(', ')}`);
  }
  if (leftovers.size > 0) console.log(`  left in TMPDIR by some test: ${[...leftovers].join(' ')}`);
  process.exit(failedRuns.length === 0 ? 0 : 1);
}

await main();
