import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { findChromium } from '../../../scripts/chromium.mjs';

const repo = new URL('../../../', import.meta.url).pathname;
const SYSTEM_CHROMIUM = '/usr/bin/chromium';

/** This process's environment with `changes` (undefined: removed), outside this test run's context. */
function childEnv(changes: Record<string, string | undefined>): Record<string, string> {
  // NODE_TEST_CONTEXT would make the child report to this run instead of running its own file.
  const merged: Record<string, string | undefined> = {
    ...process.env,
    NODE_TEST_CONTEXT: undefined,
    ...changes,
  };
  return Object.fromEntries(
    Object.entries(merged).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

/** Runs helpers/browser-probe.ts as its own test process with `env` (over this one's). */
function probe(env: Record<string, string | undefined>): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', '--test', '--test-reporter=tap', 'server/test/helpers/browser-probe.ts'],
      { cwd: repo, env: childEnv(env), timeout: 120_000 },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : 1;
        resolve({ code, out: `${stdout}${stderr}` });
      },
    );
  });
}

function withoutCi(): Record<string, string | undefined> {
  return { CI: undefined };
}

/**
 * One Chromium lookup (scripts/chromium.mjs) for the prelude, the browser tests and the bench; a
 * browser test skips without Chromium locally and fails on CI.
 */
describe('the Chromium lookup', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'reelshelf-chromium-lookup-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('finds chromium or chromium-browser on the PATH, skipping folders where it is not executable', () => {
    // A `chromium` that is not executable, then an executable `chromium-browser` (Ubuntu's name).
    const plain = mkdtempSync(join(dir, 'plain-'));
    const ubuntu = mkdtempSync(join(dir, 'ubuntu-'));
    writeFileSync(join(plain, 'chromium'), '#!/bin/sh\n');
    chmodSync(join(plain, 'chromium'), 0o644);
    writeFileSync(join(ubuntu, 'chromium-browser'), '#!/bin/sh\n');
    chmodSync(join(ubuntu, 'chromium-browser'), 0o755);
    const found = findChromium({ PATH: `relative/bin:${plain}:${ubuntu}` });
    assert.deepEqual(found, {
      path: join(ubuntu, 'chromium-browser'),
      source: 'path',
      reason: 'chromium-browser on the PATH',
    });
    const none = findChromium({ PATH: plain });
    assert.equal(none.path, null);
    assert.match(none.reason, /no chromium or chromium-browser on the PATH/);
  });

  it('REELSHELF_CHROMIUM is used alone: a wrong value is reported, not replaced by the PATH', () => {
    const set = findChromium({ REELSHELF_CHROMIUM: process.execPath, PATH: '/usr/bin' });
    assert.deepEqual(set, {
      path: process.execPath,
      source: 'env',
      reason: `REELSHELF_CHROMIUM=${process.execPath}`,
    });
    const wrong = findChromium({ REELSHELF_CHROMIUM: join(dir, 'nothing'), PATH: '/usr/bin' });
    assert.equal(wrong.path, null);
    assert.match(wrong.reason, /REELSHELF_CHROMIUM=.*nothing is not an executable file/);
  });

  it('no file names Chromium by a fixed path: the prelude, the helper and the bench share the lookup', () => {
    const files = (folder: string): string[] =>
      readdirSync(folder).flatMap((name) => {
        const full = join(folder, name);
        if (name === 'node_modules') return [];
        return statSync(full).isDirectory() ? files(full) : /\.(ts|mjs)$/.test(name) ? [full] : [];
      });
    const fixed = ['server/test', 'bench', 'scripts']
      .flatMap((folder) => files(join(repo, folder)))
      .filter((file) => file !== new URL(import.meta.url).pathname)
      .filter((file) => readFileSync(file, 'utf8').includes(SYSTEM_CHROMIUM))
      .map((file) => relative(repo, file));
    assert.deepEqual(fixed, []);
    for (const file of ['scripts/run-tests.mjs', 'bench/playback.ts', 'server/test/helpers/chromium.ts']) {
      assert.match(readFileSync(join(repo, file), 'utf8'), /findChromium\(/, `${file} uses the lookup`);
    }
    for (const name of readdirSync(join(repo, 'server/test/browser'))) {
      const text = readFileSync(join(repo, 'server/test/browser', name), 'utf8');
      if (!text.includes('chromium.launch(')) continue;
      assert.match(text, /skip: browserSkip\(\)/, `${name} skips through browserSkip`);
      assert.match(text, /executablePath: chromiumExecutable\(\)/, `${name} launches the Chromium found`);
    }
  });

  it('a browser test without Chromium is skipped locally and fails on CI (CI=true)', async () => {
    const missing = join(dir, 'no-chromium-here');
    const local = await probe({ ...withoutCi(), REELSHELF_CHROMIUM: missing });
    assert.equal(local.code, 0, local.out);
    // A skipped describe counts in no "# skipped" total: only its own line says so.
    assert.match(local.out, /^ok 1 - browser probe # SKIP no Chromium: REELSHELF_CHROMIUM=/m);
    const ci = await probe({ CI: 'true', REELSHELF_CHROMIUM: missing });
    assert.notEqual(ci.code, 0, ci.out);
    assert.match(ci.out, /# fail 1/);
    assert.match(ci.out, /no Chromium for the browser tests \(CI: not skipped\): REELSHELF_CHROMIUM=/);
  });

  it(
    'a Chromium on the PATH only (not where the helper used to look) is the one the browser tests launch',
    { skip: existsSync(SYSTEM_CHROMIUM) ? false : `needs ${SYSTEM_CHROMIUM} to wrap` },
    async () => {
      const bin = mkdtempSync(join(dir, 'bin-'));
      const marker = join(dir, 'launched');
      // A Chromium elsewhere: it notes that it ran, then is Debian's.
      writeFileSync(
        join(bin, 'chromium'),
        `#!/bin/sh\necho launched > '${marker}'\nexec ${SYSTEM_CHROMIUM} "$@"\n`,
      );
      chmodSync(join(bin, 'chromium'), 0o755);
      const run = await probe({
        CI: 'true',
        REELSHELF_CHROMIUM: undefined,
        PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      });
      assert.equal(run.code, 0, run.out);
      assert.match(run.out, /# pass 1/);
      assert.equal(existsSync(marker), true, 'the Chromium on the PATH was the one launched');
    },
  );
});
