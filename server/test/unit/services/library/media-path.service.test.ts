import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { FileSystemAdapter } from '../../../../src/adapters/file-system.ts';
import { AppError } from '../../../../src/errors.ts';
import { MediaPathService } from '../../../../src/services/library/media-path.service.ts';

const scratch = mkdtempSync(join(tmpdir(), 'reelshelf-media-path-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const root = join(scratch, 'films');
const dataDir = join(scratch, 'data');
mkdirSync(join(root, 'Heat (1995)'), { recursive: true });
mkdirSync(dataDir);
writeFileSync(join(root, 'Heat (1995)', 'Heat.mkv'), '0123456789');
writeFileSync(join(dataDir, 'reelshelf.sqlite'), 'the database');
const outside = join(scratch, 'secret.mkv');
writeFileSync(outside, 'not a film');
symlinkSync(outside, join(root, 'escape.mkv'));
symlinkSync(join(root, 'Heat (1995)', 'Heat.mkv'), join(root, 'alias.mkv'));
symlinkSync(join(dataDir, 'reelshelf.sqlite'), join(root, 'database.mkv'));
symlinkSync(join(scratch, 'nothing-here.mkv'), join(root, 'dangling.mkv'));
symlinkSync(join(root, 'loop-b.mkv'), join(root, 'loop-a.mkv'));
symlinkSync(join(root, 'loop-a.mkv'), join(root, 'loop-b.mkv'));
execFileSync('mkfifo', [join(scratch, 'pipe')]);
symlinkSync(join(scratch, 'pipe'), join(root, 'pipe.mkv'));
mkdirSync(join(root, 'folder.mkv'));

const gate = (followSymlinks: boolean) =>
  new MediaPathService(new FileSystemAdapter(), { followSymlinks, dataDir });
const paths = gate(true);

async function errorCode(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof AppError, `not an AppError: ${String(err)}`);
    const reason = err.extra.reason;
    return `${err.status} ${err.code}${typeof reason === 'string' ? ` ${reason}` : ''}`;
  }
  return 'opened';
}

describe('MediaPathService.openInsideRoot: the library path rule, symlinks followed (on) or not (off)', () => {
  const cases: [string, string, string, string][] = [
    // name, path, REELSHELF_FOLLOW_SYMLINKS=on, =off
    ['a file of the root', 'Heat (1995)/Heat.mkv', 'opened', 'opened'],
    ['a symlink that stays inside', 'alias.mkv', 'opened', 'opened'],
    ['a symlink out of the root', 'escape.mkv', 'opened', '403 forbidden outside_root'],
    ['a symlink into the data dir', 'database.mkv', '403 forbidden data_dir', '403 forbidden data_dir'],
    ['a symlink to a FIFO', 'pipe.mkv', '403 forbidden not_regular_file', '403 forbidden not_regular_file'],
    [
      'a path that climbs out',
      '../secret.mkv',
      '403 forbidden climbs_out_of_root',
      '403 forbidden climbs_out_of_root',
    ],
    [
      'a dangling symlink',
      'dangling.mkv',
      '404 file_missing dangling_symlink',
      '404 file_missing dangling_symlink',
    ],
    ['a symlink loop', 'loop-a.mkv', '404 file_missing symlink_loop', '404 file_missing symlink_loop'],
    ['a file that is not there', 'Gone.mkv', '404 file_missing missing', '404 file_missing missing'],
    ['a folder', 'folder.mkv', '404 file_missing wrong_kind', '404 file_missing wrong_kind'],
  ];
  for (const [name, relative, on, off] of cases) {
    test(`${name}: ${on} (on), ${off} (off)`, async () => {
      assert.equal(await errorCode(gate(true).openInsideRoot(root, relative)), on);
      assert.equal(await errorCode(gate(false).openInsideRoot(root, relative)), off);
    });
  }

  test('a folder is resolved as a folder, a file is not', async () => {
    assert.equal(await paths.resolveInsideRoot(root, 'Heat (1995)', 'directory'), join(root, 'Heat (1995)'));
    assert.equal(
      await errorCode(paths.resolveInsideRoot(root, 'alias.mkv', 'directory')),
      '404 file_missing wrong_kind',
    );
  });

  test('a symlink out of the root opens its target, at the target’s real path', async () => {
    const file = await paths.openInsideRoot(root, 'escape.mkv');
    assert.equal(file.path, outside);
    assert.equal(file.sizeBytes, 'not a film'.length);
  });

  test('the opened file reads its bytes, whole, by range, and at positions', async () => {
    const file = await paths.openInsideRoot(root, 'alias.mkv');
    assert.equal(file.path, join(root, 'Heat (1995)', 'Heat.mkv'));
    assert.equal(file.sizeBytes, 10);
    const chunks: Buffer[] = [];
    for await (const c of file.read({ start: 3, end: 5 })) chunks.push(c as Buffer);
    assert.equal(Buffer.concat(chunks).toString(), '345');
    const reader = await file.open();
    const buffer = Buffer.alloc(4);
    assert.equal(await reader.read(buffer, 4, 8), 2);
    assert.equal(buffer.subarray(0, 2).toString(), '89');
    await reader.close();
  });
});
