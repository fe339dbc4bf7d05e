import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type LibraryPathFacts,
  type PathTarget,
  decideLibraryPath,
  describeLibraryPath,
} from '../../src/domain/library-path.ts';

const ROOT = '/srv/films';
const DATA = '/var/lib/reelshelf';

const file = (realPath: string): PathTarget => ({ state: 'present', realPath, kind: 'file' });
const folder = (realPath: string): PathTarget => ({ state: 'present', realPath, kind: 'directory' });

function facts(
  relativePath: string,
  target: PathTarget,
  more: Partial<LibraryPathFacts> = {},
): LibraryPathFacts {
  return {
    relativePath,
    target,
    expected: 'file',
    realRoot: ROOT,
    realDataDir: DATA,
    followSymlinks: true,
    ...more,
  };
}

describe('decideLibraryPath: one rule for walks, probes, streams, subtitles and artwork', () => {
  // name, facts, decision with REELSHELF_FOLLOW_SYMLINKS=on, with =off
  const cases: [string, LibraryPathFacts, string, string][] = [
    [
      'a file of the root',
      facts('Heat/Heat.mkv', file(`${ROOT}/Heat/Heat.mkv`)),
      'inside_root',
      'inside_root',
    ],
    [
      'a symlink that stays in the root',
      facts('alias.mkv', file(`${ROOT}/Heat/Heat.mkv`)),
      'inside_root',
      'inside_root',
    ],
    [
      'a symlink out of the root',
      facts('Heat.mkv', file('/mnt/disk2/Heat.mkv')),
      'followed_out_of_root',
      'refused outside_root',
    ],
    [
      'a folder symlink out of the root (a walk)',
      facts('Disk2', folder('/mnt/disk2'), { expected: 'any', walkedThrough: [ROOT] }),
      'followed_out_of_root',
      'refused outside_root',
    ],
    [
      'a root folder whose name merely starts like the root',
      facts('x.mkv', file('/srv/films-old/x.mkv')),
      'followed_out_of_root',
      'refused outside_root',
    ],
    [
      'a symlink into the data dir',
      facts('db.mkv', file(`${DATA}/reelshelf.sqlite`)),
      'refused data_dir',
      'refused data_dir',
    ],
    [
      'a symlink to the data dir itself',
      facts('d', folder(DATA), { expected: 'any' }),
      'refused data_dir',
      'refused data_dir',
    ],
    [
      'the data dir inside the root (no link at all)',
      facts('data', folder(`${ROOT}/data`), { expected: 'any', realDataDir: `${ROOT}/data` }),
      'refused data_dir',
      'refused data_dir',
    ],
    [
      'a symlink to a FIFO, socket or device',
      facts('pipe.mkv', { state: 'present', realPath: '/tmp/pipe', kind: 'other' }),
      'refused not_regular_file',
      'refused not_regular_file',
    ],
    [
      'a FIFO in the root',
      facts('pipe.mkv', { state: 'present', realPath: `${ROOT}/pipe.mkv`, kind: 'other' }),
      'refused not_regular_file',
      'refused not_regular_file',
    ],
    [
      'a dangling symlink',
      facts('gone.mkv', { state: 'dangling' }),
      'refused dangling_symlink',
      'refused dangling_symlink',
    ],
    [
      'a link chain with no end (ELOOP)',
      facts('a.mkv', { state: 'loop' }),
      'refused symlink_loop',
      'refused symlink_loop',
    ],
    ['nothing there', facts('gone.mkv', { state: 'missing' }), 'refused missing', 'refused missing'],
    [
      'a name that climbs out',
      facts('../secret.mkv', file('/srv/secret.mkv')),
      'refused climbs_out_of_root',
      'refused climbs_out_of_root',
    ],
    [
      'an absolute name',
      facts('/etc/passwd', file('/etc/passwd')),
      'refused climbs_out_of_root',
      'refused climbs_out_of_root',
    ],
    [
      'a name with .. that stays in',
      facts('a/../b.mkv', file(`${ROOT}/b.mkv`)),
      'inside_root',
      'inside_root',
    ],
    [
      'a folder where a file is asked for',
      facts('Heat', folder(`${ROOT}/Heat`)),
      'refused wrong_kind',
      'refused wrong_kind',
    ],
    [
      'a file where a folder is asked for',
      facts('Heat.mkv', file(`${ROOT}/Heat.mkv`), { expected: 'directory' }),
      'refused wrong_kind',
      'refused wrong_kind',
    ],
    [
      'a folder link back to the root (a walk)',
      facts('Heat/back', folder(ROOT), { expected: 'any', walkedThrough: [ROOT, `${ROOT}/Heat`] }),
      'refused symlink_loop',
      'refused symlink_loop',
    ],
    [
      'a folder link to a folder holding the root (a walk)',
      facts('up', folder('/srv'), { expected: 'any', walkedThrough: [ROOT] }),
      'refused symlink_loop',
      'refused outside_root',
    ],
    [
      'a link in a followed folder back to it (a walk)',
      facts('Disk2/again', folder('/mnt/disk2'), { expected: 'any', walkedThrough: [ROOT, '/mnt/disk2'] }),
      'refused symlink_loop',
      'refused outside_root',
    ],
    [
      'a second link to a folder already walked',
      facts('Collections/Heat', folder(`${ROOT}/Heat`), {
        expected: 'any',
        walkedThrough: [ROOT, `${ROOT}/Collections`],
        alreadyWalked: true,
      }),
      'refused already_scanned',
      'refused already_scanned',
    ],
    [
      'a folder of the root, when no data dir is known',
      facts('Heat', folder(`${ROOT}/Heat`), { expected: 'any', realDataDir: null }),
      'inside_root',
      'inside_root',
    ],
  ];
  const show = (f: LibraryPathFacts) => {
    const d = decideLibraryPath(f);
    return d.allowed ? d.reason : `refused ${d.reason}`;
  };
  for (const [name, f, on, off] of cases) {
    it(`${name}: ${on} (on) / ${off} (off)`, () => {
      assert.equal(show({ ...f, followSymlinks: true }), on);
      assert.equal(show({ ...f, followSymlinks: false }), off);
    });
  }

  it('an allowed path carries its real path; a refused one none', () => {
    assert.deepEqual(decideLibraryPath(facts('Heat.mkv', file('/mnt/disk2/Heat.mkv'))), {
      allowed: true,
      reason: 'followed_out_of_root',
      realPath: '/mnt/disk2/Heat.mkv',
    });
    assert.equal(decideLibraryPath(facts('db', file(`${DATA}/x`))).realPath, null);
  });

  it('the report line starts with the stable reason', () => {
    assert.match(describeLibraryPath('symlink_loop'), /^symlink_loop: /);
    assert.match(describeLibraryPath('data_dir'), /REELSHELF_DATA_DIR/);
  });
});
