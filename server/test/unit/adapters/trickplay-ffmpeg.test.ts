import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { countSheets, lowPriorityPrefix } from '../../../src/adapters/trickplay-ffmpeg.ts';

const root = mkdtempSync(join(tmpdir(), 'reelshelf-trickplay-prefix-'));
after(() => rmSync(root, { recursive: true, force: true }));

function binDir(name: string, tools: string[]): string {
  const dir = join(root, name);
  mkdirSync(dir);
  for (const tool of tools) {
    writeFileSync(join(dir, tool), '#!/bin/sh\nexec "$@"\n');
    chmodSync(join(dir, tool), 0o755);
  }
  return dir;
}

describe('trickplay ffmpeg: low priority prefix', () => {
  const table: [string, string[], (dir: string) => string[]][] = [
    ['nice and ionice', ['nice', 'ionice'], (d) => [join(d, 'nice'), '-n', '19', join(d, 'ionice'), '-c3']],
    ['nice only (no ionice, e.g. macOS)', ['nice'], (d) => [join(d, 'nice'), '-n', '19']],
    ['neither: ffmpeg as it is', [], () => []],
  ];
  for (const [name, tools, expected] of table) {
    it(name, () => {
      const dir = binDir(name.replace(/\W+/g, '-'), tools);
      assert.deepEqual(lowPriorityPrefix(dir), expected(dir));
    });
  }
});

describe('trickplay ffmpeg: counting sheets', () => {
  it('counts <n>.jpg only; a missing folder has none', async () => {
    const dir = join(root, 'sheets');
    mkdirSync(dir);
    for (const name of ['0.jpg', '1.jpg', '12.jpg', 'x.jpg', '3.jpg.tmp', '4.png'])
      writeFileSync(join(dir, name), '');
    assert.equal(await countSheets(dir), 3);
    assert.equal(await countSheets(join(root, 'absent')), 0);
  });
});
