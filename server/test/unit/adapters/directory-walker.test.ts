import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { walkDirectory } from '../../../src/adapters/directory-walker.ts';

const scratch = mkdtempSync(join(tmpdir(), 'reelshelf-walker-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

function file(path: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, 'x');
}

/** The walk of a root with the scan's own filters: `.mkv` files, hidden entries skipped. */
async function walk(root: string, followSymlinks: boolean, dataDir: string | null = null) {
  const result = await walkDirectory(root, {
    keepFile: (_rel, name) => name.endsWith('.mkv'),
    skipEntry: (name) => name.startsWith('.'),
    isIgnoreMarker: (name) => name === '.ignore',
    links: { followSymlinks, dataDir },
    concurrency: 8,
  });
  return {
    files: result.files.map((f) => f.relativePath),
    problems: result.problems.map((p) => `${p.path} ${p.error.split(':')[0]}`),
  };
}

describe('walkDirectory: the library path rule on a real tree', () => {
  it('two links to one folder out of the root: the first by path is walked, every time', async () => {
    const root = join(scratch, 'two-links', 'root');
    file(join(scratch, 'two-links', 'out', 'Heat (1995)', 'Heat.mkv'));
    mkdirSync(root, { recursive: true });
    symlinkSync(join(scratch, 'two-links', 'out'), join(root, 'b'));
    symlinkSync(join(scratch, 'two-links', 'out'), join(root, 'a'));
    for (let run = 0; run < 5; run++) {
      assert.deepEqual(await walk(root, true), {
        files: ['a/Heat (1995)/Heat.mkv'],
        problems: ['b already_scanned'],
      });
    }
  });

  it('a link to a folder already walked inside the root is scanned at its own place only', async () => {
    const root = join(scratch, 'collections');
    file(join(root, 'Films', 'Heat (1995)', 'Heat.mkv'));
    mkdirSync(join(root, 'Collections'));
    symlinkSync(join(root, 'Films', 'Heat (1995)'), join(root, 'Collections', 'Heat'));
    assert.deepEqual(await walk(root, false), {
      files: ['Films/Heat (1995)/Heat.mkv'],
      problems: ['Collections/Heat already_scanned'],
    });
  });

  it('the data dir inside a root is never walked, even without a link; a FIFO is reported, not opened', async () => {
    const root = join(scratch, 'with-data');
    file(join(root, 'Heat.mkv'));
    file(join(root, 'reelshelf-data', 'artifacts', 'abc.mkv'));
    execFileSync('mkfifo', [join(root, 'pipe.mkv')]);
    assert.deepEqual(await walk(root, true, join(root, 'reelshelf-data')), {
      files: ['Heat.mkv'],
      problems: ['pipe.mkv not_regular_file', 'reelshelf-data data_dir'],
    });
  });

  it('a loop through a followed folder back into the root is reported once', async () => {
    const base = join(scratch, 'loop-out');
    const root = join(base, 'root');
    file(join(root, 'Heat.mkv'));
    mkdirSync(join(base, 'out'));
    symlinkSync(join(base, 'out'), join(root, 'Out'));
    symlinkSync(root, join(base, 'out', 'back'));
    assert.deepEqual(await walk(root, true), { files: ['Heat.mkv'], problems: ['Out/back symlink_loop'] });
    assert.deepEqual(await walk(root, false), { files: ['Heat.mkv'], problems: ['Out outside_root'] });
  });
});
