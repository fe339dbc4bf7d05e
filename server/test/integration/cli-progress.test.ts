/**
 * The CLI's progress when its output is not a terminal (a pipe, a log file, CI): plain lines on
 * stderr — no bar, no carriage return, no escape sequence — from the first count to the full one,
 * while stdout keeps only the command's result.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BARCODES, type FakeProviders, startFakeProviders } from '../fakes/index.ts';
import { makeMediaTree } from '../helpers/media.ts';
import { testDatabaseEnv } from '../helpers/test-database.ts';

const REPO = new URL('../../../', import.meta.url).pathname;

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], env: Record<string, string>, stdin = ''): Promise<CliRun> {
  const child = spawn(process.execPath, ['bin/reelshelf.mjs', ...args], {
    cwd: REPO,
    env: {
      ...process.env,
      // The engine under test: the data dir's SQLite file or PostgreSQL database.
      ...(env.REELSHELF_DATA_DIR === undefined ? {} : testDatabaseEnv(env.REELSHELF_DATA_DIR)),
      ...env,
      REELSHELF_LOG_LEVEL: 'warn',
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  child.stdin.end(stdin);
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** The progress lines of a run: every one plain, done never going back, the last one full. */
function assertPlainProgress(stderr: string, label: string, unit: string, total: number): string[] {
  assert.doesNotMatch(stderr, /[\r\u001b█░]/, 'no carriage return, escape sequence or bar');
  const lines = stderr.split('\n').filter((line) => line.startsWith(`${label}:`));
  assert.ok(lines.length >= 1, stderr);
  const pattern = new RegExp(`^${label}: (\\d+)/${total} ${unit} \\((\\d+)%\\)(, .+ left)?$`);
  let previous = -1;
  for (const line of lines) {
    const match = pattern.exec(line);
    assert.ok(match !== null, `a plain progress line: ${JSON.stringify(line)}`);
    const done = Number(match[1]);
    assert.ok(done >= previous && done <= total, line);
    previous = done;
  }
  assert.equal(lines.at(-1), `${label}: ${total}/${total} ${unit} (100%)`);
  return lines;
}

describe('CLI progress off a terminal: plain lines', () => {
  let media: string;
  let fakes: FakeProviders;
  before(async () => {
    media = mkdtempSync(join(tmpdir(), 'reelshelf-cli-progress-'));
    fakes = await startFakeProviders();
  });
  after(async () => {
    await fakes.close();
    rmSync(media, { recursive: true, force: true });
  });

  it('scan: "scanning: n/N files (p%)" lines up to the full count; the summary on stdout', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'reelshelf-cli-data-'));
    try {
      const root = join(media, 'library');
      await makeMediaTree(root, 20);
      rmSync(join(root, '.seed'), { recursive: true, force: true });
      const run = await cli(['scan', root], { REELSHELF_DATA_DIR: dataDir });
      assert.equal(run.code, 0, run.stdout + run.stderr);
      assertPlainProgress(run.stderr, 'scanning', 'files', 20);
      assert.match(run.stdout, /committed/);
      assert.doesNotMatch(run.stdout, /scanning:/, 'progress stays off stdout');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('barcode loop with piped codes: one line per disc on stdout, progress lines on stderr', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'reelshelf-cli-data-'));
    try {
      const codes = [BARCODES.inceptionBluRay, BARCODES.unknown, BARCODES.alienDvd];
      const run = await cli(
        ['barcode', '-', '--binder', 'A'],
        { ...fakes.env, REELSHELF_DATA_DIR: dataDir },
        `${codes.join('\n')}\n\n`,
      );
      assert.equal(run.code, 1, 'one code was not found');
      assertPlainProgress(run.stderr, 'adding discs', 'codes', 3);
      const results = run.stdout.split('\n').filter((line) => /^[✓✗]/.test(line));
      assert.equal(results.length, 3, run.stdout);
      assert.match(results[0] ?? '', /^✓ Inception/);
      assert.match(results[1] ?? '', /^✗ 036000291452/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('import of a large CSV: "importing: n/N writes" lines up to the full count', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'reelshelf-cli-data-'));
    try {
      const rows = Array.from({ length: 1500 }, (_, i) => `Movie ${i},${1950 + (i % 70)},B${i % 7},${i}`);
      const file = join(media, 'collection.csv');
      writeFileSync(file, `Title,Year,Binder,Slot\n${rows.join('\n')}\n`);
      const run = await cli(['import', file], { REELSHELF_DATA_DIR: dataDir });
      assert.equal(run.code, 0, run.stdout + run.stderr);
      // Writes are batched (many rows per insert), so the total counts writes, not rows.
      const total = /importing: \d+\/(\d+) writes/.exec(run.stderr)?.[1];
      assert.ok(total !== undefined && Number(total) > 0, run.stderr);
      assertPlainProgress(run.stderr, 'importing', 'writes', Number(total));
      assert.match(run.stdout, /imported: created 1500 movies/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
