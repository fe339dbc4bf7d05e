import assert from 'node:assert/strict';
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
mkdirSync(join(root, 'Heat (1995)'), { recursive: true });
writeFileSync(join(root, 'Heat (1995)', 'Heat.mkv'), '0123456789');
const outside = join(scratch, 'secret.mkv');
writeFileSync(outside, 'not a film');
symlinkSync(outside, join(root, 'escape.mkv'));
symlinkSync(join(root, 'Heat (1995)', 'Heat.mkv'), join(root, 'alias.mkv'));
mkdirSync(join(root, 'folder.mkv'));

const paths = new MediaPathService(new FileSystemAdapter());

async function errorCode(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof AppError, `not an AppError: ${String(err)}`);
    return `${err.status} ${err.code}`;
  }
  return 'opened';
}

describe('MediaPathService.openInsideRoot: media is opened only inside its library root', () => {
  const cases: [string, string, string][] = [
    ['a file of the root', 'Heat (1995)/Heat.mkv', 'opened'],
    ['a symlink that stays inside', 'alias.mkv', 'opened'],
    ['a symlink out of the root', 'escape.mkv', '403 forbidden'],
    ['a path that climbs out', '../secret.mkv', '403 forbidden'],
    ['a file that is not there', 'Gone.mkv', '404 file_missing'],
    ['a folder', 'folder.mkv', '404 file_missing'],
  ];
  for (const [name, relative, expected] of cases) {
    test(`${name}: ${expected}`, async () => {
      assert.equal(await errorCode(paths.openInsideRoot(root, relative)), expected);
    });
  }

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
