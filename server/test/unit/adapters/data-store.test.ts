import assert from 'node:assert/strict';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { DataStore, StoragePathError } from '../../../src/adapters/data-store.ts';

const scratch = mkdtempSync(join(tmpdir(), 'reelshelf-store-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

function freshStore(): DataStore {
  return new DataStore(mkdtempSync(join(scratch, 'data-')));
}

async function text(file: { read(): NodeJS.ReadableStream }): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of file.read()) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

describe('DataStore.resolve: a path stays inside its area', () => {
  const store = new DataStore('/srv/reelshelf-data');
  const refused: [string, string][] = [
    ['parent', '../secret'],
    ['climbs out midway', 'a/../../secret'],
    ['into another area', '../artifacts/x.mp4'],
    ['absolute', '/etc/passwd'],
    ['NUL byte', 'poster.jpg\0.png'],
    ['empty', ''],
    ['the area itself', '.'],
  ];
  for (const [name, path] of refused) {
    test(`refuses ${name}: ${JSON.stringify(path)}`, () => {
      assert.throws(() => store.resolve('artwork', path), StoragePathError);
    });
  }
  test('accepts nested relative paths', () => {
    assert.equal(store.resolve('artwork', '12/poster.jpg'), '/srv/reelshelf-data/artwork/12/poster.jpg');
    assert.equal(store.resolve('artifacts', 'a/../b.mp4'), '/srv/reelshelf-data/artifacts/b.mp4');
  });
  test('locate maps an absolute path back to its area, and nothing else', () => {
    assert.equal(store.locate('artwork', '/srv/reelshelf-data/artwork/12/poster.jpg'), '12/poster.jpg');
    assert.equal(store.locate('artwork', '/srv/reelshelf-data/artifacts/x.mp4'), null);
    assert.equal(store.locate('artwork', '/srv/reelshelf-data/artwork/../db.sqlite'), null);
    assert.equal(store.locate('artwork', '/media/films/poster.jpg'), null);
  });
});

describe('DataStore writes', () => {
  test('writeAtomic creates folders, replaces the old file and leaves no temporary file', async () => {
    const store = freshStore();
    await store.writeAtomic('artwork', '7/poster.jpg', 'first');
    const second = await store.writeAtomic('artwork', '7/poster.jpg', 'second version');
    assert.equal(second.sizeBytes, 'second version'.length);
    assert.equal(readFileSync(store.resolve('artwork', '7/poster.jpg'), 'utf8'), 'second version');
    assert.deepEqual(readdirSync(join(store.dir('artwork'), '7')), ['poster.jpg']);
    assert.equal(await text(second), 'second version');
  });

  test('a write that fails leaves the old file and no temporary file', async () => {
    const store = freshStore();
    // The target is a folder: the final rename fails after the bytes were written aside.
    mkdirSync(join(store.dir('artwork'), '3', 'poster.jpg'), { recursive: true });
    writeFileSync(join(store.dir('artwork'), '3', 'poster.jpg', 'keep'), 'old');
    await assert.rejects(store.writeAtomic('artwork', '3/poster.jpg', 'new'));
    assert.deepEqual(readdirSync(join(store.dir('artwork'), '3')), ['poster.jpg']);
    assert.equal(readFileSync(join(store.dir('artwork'), '3', 'poster.jpg', 'keep'), 'utf8'), 'old');
  });

  test('writeAtomic refuses a path out of the area before touching the disk', async () => {
    const store = freshStore();
    await assert.rejects(store.writeAtomic('artwork', '../db.sqlite', 'x'), StoragePathError);
    assert.deepEqual(readdirSync(store.dataDir), []);
  });

  test('commit renames a file a tool wrote; remove forgets it, twice without error', async () => {
    const store = freshStore();
    await store.ensure('artifacts');
    writeFileSync(store.resolve('artifacts', 'k.part.mp4'), 'movie bytes');
    const done = await store.commit('artifacts', 'k.part.mp4', 'k.mp4');
    assert.equal(done.sizeBytes, 11);
    assert.equal(await store.stat('artifacts', 'k.part.mp4'), null);
    await store.remove('artifacts', 'k.mp4');
    await store.remove('artifacts', 'k.mp4');
    assert.equal(await store.stat('artifacts', 'k.mp4'), null);
  });
});

describe('DataStore reads and accounting', () => {
  test('stat reads a range and refuses a symlink that leads out of the area', async () => {
    const store = freshStore();
    await store.writeAtomic('artifacts', 'a.mp4', '0123456789');
    const file = await store.stat('artifacts', 'a.mp4');
    assert.ok(file !== null);
    const chunks: Buffer[] = [];
    for await (const c of file.read({ start: 2, end: 4 })) chunks.push(c as Buffer);
    assert.equal(Buffer.concat(chunks).toString(), '234');
    const outside = join(scratch, 'outside.txt');
    writeFileSync(outside, 'not ours');
    symlinkSync(outside, store.resolve('artifacts', 'escape.mp4'));
    await assert.rejects(store.stat('artifacts', 'escape.mp4'), StoragePathError);
    assert.equal(await store.stat('artifacts', 'absent.mp4'), null);
  });

  test('list names files (not folders or temporary files); usage counts every byte below the area', async () => {
    const store = freshStore();
    assert.deepEqual(await store.list('devices'), []);
    assert.deepEqual(await store.usage('artifacts'), { files: 0, bytes: 0 });
    await store.writeAtomic('artifacts', 'b.mp4', 'bbbb');
    await store.writeAtomic('artifacts', 'a.mp4', 'aa');
    await store.writeAtomic('artifacts', 'nested/c.mp4', 'c');
    assert.deepEqual(await store.list('artifacts'), ['a.mp4', 'b.mp4']);
    assert.deepEqual(await store.usage('artifacts'), { files: 3, bytes: 7 });
  });

  test('readTextFilesSync reads the small files of an area and reports the ones it cannot', () => {
    const store = freshStore();
    mkdirSync(store.dir('devices'), { recursive: true });
    writeFileSync(join(store.dir('devices'), 'b.json'), '{"id":"b"}');
    writeFileSync(join(store.dir('devices'), 'a.json'), '{"id":"a"}');
    writeFileSync(join(store.dir('devices'), 'big.json'), 'x'.repeat(100));
    writeFileSync(join(store.dir('devices'), 'notes.txt'), 'ignored');
    assert.deepEqual(store.readTextFilesSync('devices', '.json', 50), [
      { name: 'a.json', text: '{"id":"a"}' },
      { name: 'b.json', text: '{"id":"b"}' },
      { name: 'big.json', error: 'larger than 50 bytes' },
    ]);
    assert.deepEqual(freshStore().readTextFilesSync('devices', '.json', 50), []);
  });
});
