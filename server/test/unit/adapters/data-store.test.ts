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

  test('commitFolder renames a filled folder into place, never over an existing one', async () => {
    const store = freshStore();
    mkdirSync(store.resolve('trickplay', '7/3.part/sheets'), { recursive: true });
    writeFileSync(store.resolve('trickplay', '7/3.part/sheets/0.jpg'), 'sheet');
    await store.commitFolder('trickplay', '7/3.part', '7/3');
    assert.deepEqual(await store.listFolders('trickplay', '7'), ['3']);
    assert.equal((await store.stat('trickplay', '7/3/sheets/0.jpg'))?.sizeBytes, 5);
    mkdirSync(store.resolve('trickplay', '7/4.part'), { recursive: true });
    await assert.rejects(store.commitFolder('trickplay', '7/4.part', '7/3'), StoragePathError);
    await assert.rejects(store.commitFolder('trickplay', '7/absent.part', '7/5'), StoragePathError);
    assert.deepEqual(await store.listFolders('trickplay', '7'), ['3', '4.part']);
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

  test('measure sizes and dates one folder of an area (an HLS presentation), never one outside it', async () => {
    const store = freshStore();
    await store.writeAtomic('segments', 'p1/v/0.m4s', 'aaaa');
    await store.writeAtomic('segments', 'p1/a0/0.m4s', 'bb');
    await store.writeAtomic('segments', 'p2/v/0.m4s', 'c');
    const p1 = await store.measure('segments', 'p1');
    assert.deepEqual({ files: p1.files, bytes: p1.bytes }, { files: 2, bytes: 6 });
    assert.ok(p1.newestMtimeMs > 0 && p1.newestMtimeMs <= Date.now() + 1000);
    assert.deepEqual(await store.measure('segments', 'gone'), { files: 0, bytes: 0, newestMtimeMs: 0 });
    assert.equal((await store.measure('segments')).bytes, 7, 'the whole area by default');
    symlinkSync(scratch, store.resolve('segments', 'escape'));
    await assert.rejects(store.measure('segments', 'escape'), StoragePathError);
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

describe('DataStore: a symlink never carries a write, a rename or a remove out of the area', () => {
  /** A store whose artwork area holds `12 → <outside>` and an outside folder holding `keep.jpg`. */
  function withSymlinkedFolder(): { store: DataStore; outside: string } {
    const store = freshStore();
    const outside = mkdtempSync(join(scratch, 'outside-'));
    writeFileSync(join(outside, 'keep.jpg'), 'not ours');
    mkdirSync(store.dir('artwork'), { recursive: true });
    symlinkSync(outside, join(store.dir('artwork'), '12'));
    return { store, outside };
  }

  const refused: [string, (store: DataStore) => Promise<unknown>][] = [
    ['writeAtomic into the symlinked folder', (s) => s.writeAtomic('artwork', '12/poster.jpg', 'x')],
    ['writeAtomic over a file there', (s) => s.writeAtomic('artwork', '12/keep.jpg', 'x')],
    ['writeAtomic into a new folder below it', (s) => s.writeAtomic('artwork', '12/new/poster.jpg', 'x')],
    ['commit into the symlinked folder', (s) => s.commit('artwork', 'mine.jpg', '12/moved.jpg')],
    ['commit out of the symlinked folder', (s) => s.commit('artwork', '12/keep.jpg', 'taken.jpg')],
    ['commitFolder into the symlinked folder', (s) => s.commitFolder('artwork', 'set', '12/set')],
    ['commitFolder out of the symlinked folder', (s) => s.commitFolder('artwork', '12', 'taken')],
    ['commitFolder of a folder inside it', (s) => s.commitFolder('artwork', '12/inner', 'taken')],
    ['remove through the symlinked folder', (s) => s.remove('artwork', '12/keep.jpg')],
    ['remove the symlink itself', (s) => s.remove('artwork', '12')],
    ['stat through the symlinked folder', (s) => s.stat('artwork', '12/keep.jpg')],
    ['list the symlinked folder', (s) => s.list('artwork', '12')],
  ];
  for (const [name, act] of refused) {
    test(`refuses ${name}; the outside folder is untouched`, async () => {
      const { store, outside } = withSymlinkedFolder();
      writeFileSync(join(store.dir('artwork'), 'mine.jpg'), 'ours');
      mkdirSync(join(store.dir('artwork'), 'set'));
      await assert.rejects(act(store), StoragePathError);
      assert.deepEqual(readdirSync(outside), ['keep.jpg']);
      assert.equal(readFileSync(join(outside, 'keep.jpg'), 'utf8'), 'not ours');
      assert.equal(readFileSync(join(store.dir('artwork'), 'mine.jpg'), 'utf8'), 'ours');
    });
  }

  test('an area that is itself a symlink out of the data dir is refused for every use', async () => {
    const store = freshStore();
    const outside = mkdtempSync(join(scratch, 'outside-area-'));
    writeFileSync(join(outside, 'a.mp4'), 'not ours');
    symlinkSync(outside, store.dir('artifacts'));
    await assert.rejects(store.writeAtomic('artifacts', 'b.mp4', 'x'), StoragePathError);
    await assert.rejects(store.stat('artifacts', 'a.mp4'), StoragePathError);
    await assert.rejects(store.remove('artifacts', 'a.mp4'), StoragePathError);
    await assert.rejects(store.list('artifacts'), StoragePathError);
    await assert.rejects(store.usage('artifacts'), StoragePathError);
    assert.deepEqual(readdirSync(outside), ['a.mp4']);
  });

  test('a symlink that stays inside the area is followed like a folder', async () => {
    const store = freshStore();
    await store.writeAtomic('artwork', 'real/poster.jpg', 'first');
    symlinkSync(join(store.dir('artwork'), 'real'), join(store.dir('artwork'), 'alias'));
    const written = await store.writeAtomic('artwork', 'alias/backdrop.jpg', 'second');
    assert.equal(written.path, join(store.dir('artwork'), 'real', 'backdrop.jpg'));
    assert.deepEqual(await store.list('artwork', 'alias'), ['backdrop.jpg', 'poster.jpg']);
    await store.remove('artwork', 'alias/poster.jpg');
    assert.deepEqual(readdirSync(join(store.dir('artwork'), 'real')), ['backdrop.jpg']);
  });
});

describe('DataStore.growing: a file a tool is still writing', () => {
  async function bytesOf(stream: NodeJS.ReadableStream): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const c of stream) chunks.push(Buffer.from(c as Buffer));
    return Buffer.concat(chunks).toString();
  }

  test('reads the part file while it grows, then the finished file once it is renamed', async () => {
    const store = freshStore();
    await store.ensure('artifacts');
    const part = store.resolve('artifacts', 'k.part.mp4');
    const file = store.growing('artifacts', 'k.part.mp4', 'k.mp4');
    assert.equal(await file.size(), null);
    writeFileSync(part, '0123');
    assert.equal(await file.size(), 4);
    const reader = await file.open();
    writeFileSync(part, '0123456789');
    const buffer = Buffer.alloc(16);
    assert.equal(await reader.read(buffer, 16, 2), 8);
    assert.equal(buffer.subarray(0, 8).toString(), '23456789');
    await reader.close();
    await store.commit('artifacts', 'k.part.mp4', 'k.mp4');
    // The part is gone: its size reads null (the build is over), but its bytes are still readable.
    assert.equal(await file.size(), null);
    assert.equal(await bytesOf(await file.read({ start: 5, end: 7 })), '567');
    const after = await file.open();
    assert.equal(await after.read(buffer, 3, 0), 3);
    await after.close();
  });

  test('refuses a part file that is a symlink out of the area', async () => {
    const store = freshStore();
    await store.ensure('artifacts');
    const outside = join(mkdtempSync(join(scratch, 'outside-part-')), 'secret.mp4');
    writeFileSync(outside, 'not ours');
    symlinkSync(outside, store.resolve('artifacts', 'k.part.mp4'));
    const file = store.growing('artifacts', 'k.part.mp4', 'k.mp4');
    await assert.rejects(file.size(), StoragePathError);
    await assert.rejects(file.open(), StoragePathError);
  });
});
