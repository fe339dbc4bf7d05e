import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  type FolderWatch,
  folderIdentity,
  networkFileSystem,
  watchFolderTree,
} from '../../../src/adapters/folder-watcher.ts';
import { waitFor } from '../../helpers/wait.ts';

const scratch = mkdtempSync(join(tmpdir(), 'reelshelf-watch-unit-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const watchHandles = () => process.getActiveResourcesInfo().filter((r) => r === 'FSEventWrap').length;

/** A watched tree and every path it reported. */
async function watched(root: string): Promise<{ watch: FolderWatch; seen: Set<string>; errors: Error[] }> {
  const seen = new Set<string>();
  const errors: Error[] = [];
  const result = await watchFolderTree(
    root,
    { change: (p) => seen.add(p), error: (e) => errors.push(e) },
    { skipFolder: (name) => name.startsWith('.') },
  );
  assert.ok('watch' in result, JSON.stringify(result));
  return { watch: result.watch, seen, errors };
}

describe('watchFolderTree', () => {
  it('reports changes at any depth, in folders that appear, move or were there', async () => {
    const root = mkdtempSync(join(scratch, 'tree-'));
    mkdirSync(join(root, 'Heat (1995)', 'extras'), { recursive: true });
    mkdirSync(join(root, '.hidden'));
    const before = watchHandles();
    const { watch, seen, errors } = await watched(root);
    try {
      assert.equal(watchHandles() - before, 3, 'one watch per folder: the root, Heat and extras');
      const expect = async (path: string) =>
        waitFor(
          () => seen.has(path),
          () => `${path} reported (seen: ${[...seen].join(', ')})`,
          { timeoutMs: 5000 },
        );
      writeFileSync(join(root, 'Heat (1995)', 'extras', 'trailer.mp4'), 'x');
      await expect('Heat (1995)/extras/trailer.mp4');
      // a folder made with files already in it (mkdir -p + copy faster than its watch is set)
      mkdirSync(join(root, 'Ran (1985)', 'Subs'), { recursive: true });
      writeFileSync(join(root, 'Ran (1985)', 'Subs', 'en.srt'), 'x');
      await expect('Ran (1985)/Subs/en.srt');
      appendFileSync(join(root, 'Ran (1985)', 'Subs', 'en.srt'), 'y');
      seen.clear();
      appendFileSync(join(root, 'Ran (1985)', 'Subs', 'en.srt'), 'z');
      await expect('Ran (1985)/Subs/en.srt');
      // a folder moved inside the tree is watched under its new name only
      renameSync(join(root, 'Ran (1985)'), join(root, 'Ran'));
      await expect('Ran (1985)');
      await expect('Ran/Subs/en.srt');
      seen.clear();
      writeFileSync(join(root, 'Ran', 'Subs', 'fr.srt'), 'x');
      await expect('Ran/Subs/fr.srt');
      // a removed folder is no longer watched
      const watching = watchHandles();
      rmSync(join(root, 'Ran'), { recursive: true });
      await expect('Ran');
      await waitFor(
        () => watchHandles() === watching - 2,
        () => `the two watches of Ran released (${watchHandles()} open, ${watching} before)`,
        { timeoutMs: 5000 },
      );
      // hidden folders are not watched (their files are not events)
      writeFileSync(join(root, '.hidden', 'x.mkv'), 'x');
      writeFileSync(join(root, 'Heat (1995)', 'Heat.mkv'), 'x');
      await expect('Heat (1995)/Heat.mkv');
      assert.equal(
        [...seen].some((p) => p.startsWith('.hidden/')),
        false,
      );
      assert.deepEqual(errors, []);
    } finally {
      watch.close();
    }
    await waitFor(
      () => watchHandles() === before,
      () => `every watch released (${watchHandles()} open, ${before} before)`,
      { timeoutMs: 2000 },
    );
  });

  it('reports the root itself ("") when it is moved away', async () => {
    const root = mkdtempSync(join(scratch, 'moved-'));
    const identity = await folderIdentity(root);
    assert.notEqual(identity, null);
    const { watch, seen } = await watched(root);
    try {
      renameSync(root, `${root}-away`);
      await waitFor(
        () => seen.has(''),
        () => `the root reported (seen: ${[...seen].join(', ')})`,
        { timeoutMs: 5000 },
      );
      assert.equal(await folderIdentity(root), null);
      renameSync(`${root}-away`, root);
      assert.equal(await folderIdentity(root), identity, 'the same folder back');
    } finally {
      watch.close();
    }
  });

  it('does not watch a folder that is not there, nor network file systems', async () => {
    const result = await watchFolderTree(
      join(scratch, 'nope'),
      { change: () => undefined, error: () => undefined },
      { skipFolder: () => false },
    );
    assert.ok('unwatched' in result);
    assert.equal(networkFileSystem(0x6969), 'NFS');
    assert.equal(networkFileSystem(0xff534d42), 'CIFS');
    assert.equal(networkFileSystem(0xef53), null, 'ext4 is local');
  });
});
