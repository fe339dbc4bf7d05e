import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { walkDirectory } from '../../../../src/adapters/directory-walker.ts';
import { FileSystemAdapter } from '../../../../src/adapters/file-system.ts';
import { fileFingerprint } from '../../../../src/adapters/fingerprint.ts';
import { MediaPathService } from '../../../../src/services/library/media-path.service.ts';
import { ScanService } from '../../../../src/services/scan/scan.service.ts';
import { FakeJobRunner } from '../../../fakes/fake-jobs.ts';
import { FakeScanTables } from '../../../fakes/scan-repositories.ts';
import { fakeUnitOfWork } from '../../../fakes/unit-of-work.ts';

// ScanService on in-memory repositories and jobs: a real folder, the real walker and fingerprint,
// no database. What a scan decides (new, unchanged, moved, missing, sidecars, created movies, a
// commit that fails leaving nothing) is read from the fake tables.

const scratch = mkdtempSync(join(tmpdir(), 'reelshelf-scan-unit-'));
after(() => rmSync(scratch, { recursive: true, force: true }));
let folders = 0;

function library(files: Record<string, string>): string {
  const root = join(scratch, `root-${++folders}`);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

function scanner(
  tables: FakeScanTables,
  overrides: { commits?: ReturnType<FakeScanTables['deps']>['commits'] } = {},
) {
  const jobs = new FakeJobRunner();
  const fs = new FileSystemAdapter();
  const fingerprinted: string[] = [];
  const probed: string[] = [];
  const created: number[][] = [];
  const scans = new ScanService({
    ...tables.deps(),
    ...overrides,
    jobs,
    fs,
    walk: walkDirectory,
    // The real library path rule (symlinks followed, never into a data dir of its own).
    paths: new MediaPathService(fs, { followSymlinks: true, dataDir: join(scratch, 'data') }),
    // The files are a few bytes of text: every probe fails, as ffprobe's would (a failed analysis is
    // an analysis: the file is not probed again until it changes).
    analysis: {
      available: true,
      probe: async (path) => {
        probed.push(path);
        return { status: 'failed' as const, capabilities: null, error: 'not a media file' };
      },
    },
    clock: { now: () => new Date('2026-02-03T04:05:06.000Z') },
    fingerprint: (path) => {
      fingerprinted.push(path);
      return fileFingerprint(path);
    },
    text: fs,
    newMovies: {
      queue: async (ids) => {
        created.push(ids);
        return null;
      },
    },
  });
  const scan = async (rootId: number) => scans.wait((await scans.start(rootId)).scan_id);
  return { scans, scan, fingerprinted, probed, created, jobs };
}

describe('ScanService with fake repositories', () => {
  it('a first scan stages and commits new files, their movies and their sidecars; movies created are handed on', async () => {
    const tables = new FakeScanTables();
    const rootId = tables.addRoot(
      library({
        'Heat (1995)/Heat (1995).mkv': 'heat',
        'Heat (1995)/Heat (1995).en.srt': '1\n00:00:01,000 --> 00:00:02,000\nhi\n',
        'Alien (1979).mkv': 'alien',
        'notes.txt': 'not a video',
      }),
    );
    const { scan, created } = scanner(tables);
    const report = await scan(rootId);
    assert.equal(report.status, 'committed');
    assert.deepEqual(report.counts, {
      found: 2,
      new: 2,
      changed: 0,
      moved: 0,
      unchanged: 0,
      missing: 0,
      errors: 0,
    });
    assert.deepEqual(tables.movies.map((m) => [m.title, m.year]).sort(), [
      ['Alien', 1979],
      ['Heat', 1995],
    ]);
    assert.deepEqual(tables.mediaFiles.map((f) => f.relative_path).sort(), [
      'Alien (1979).mkv',
      'Heat (1995)/Heat (1995).mkv',
    ]);
    assert.ok(
      tables.mediaFiles.every(
        (f) =>
          f.movie_id !== null && f.analysis_status === 'failed' && f.analysis_error === 'not a media file',
      ),
    );
    const heat = tables.mediaFiles.find((f) => f.relative_path.startsWith('Heat'));
    assert.deepEqual(
      tables.sidecars.map((s) => [s.media_file_id, s.relative_path, s.language, s.format]),
      [[heat?.id, 'Heat (1995)/Heat (1995).en.srt', 'eng', 'srt']],
    );
    assert.deepEqual(tables.staging, [], 'the staging rows are gone after the commit');
    assert.equal(tables.roots[0]?.last_scan_at, '2026-02-03T04:05:06.000Z');
    assert.deepEqual(created, [tables.movies.map((m) => m.id).sort((a, b) => a - b)]);
  });

  it('an unchanged rescan fingerprints nothing; a moved file keeps its id, a deleted one is missing', async () => {
    const tables = new FakeScanTables();
    const root = library({ 'Heat (1995).mkv': 'heat', 'Alien (1979).mkv': 'alien' });
    const rootId = tables.addRoot(root);
    const { scan, fingerprinted, probed, created } = scanner(tables);
    await scan(rootId);
    const ids = new Map(tables.mediaFiles.map((f) => [f.relative_path, f.id]));
    fingerprinted.length = 0;
    probed.length = 0;

    const again = await scan(rootId);
    assert.deepEqual([again.counts.unchanged, again.counts.new], [2, 0]);
    assert.deepEqual([fingerprinted, probed], [[], []]);

    mkdirSync(join(root, 'Sci-Fi'));
    renameSync(join(root, 'Alien (1979).mkv'), join(root, 'Sci-Fi', 'Alien (1979).mkv'));
    rmSync(join(root, 'Heat (1995).mkv'));
    const moved = await scan(rootId);
    assert.deepEqual([moved.counts.moved, moved.counts.missing, moved.counts.new], [1, 1, 0]);
    const alien = tables.mediaFiles.find((f) => f.id === ids.get('Alien (1979).mkv'));
    assert.equal(alien?.relative_path, 'Sci-Fi/Alien (1979).mkv');
    assert.equal(tables.mediaFiles.find((f) => f.id === ids.get('Heat (1995).mkv'))?.status, 'missing');
    assert.equal(tables.movies.length, 2, 'a move creates no movie');
    assert.deepEqual(probed, [], 'a moved file keeps its analysis');
    assert.equal(created.length, 1, 'only the first scan created movies');
  });

  it("each commit fulfils the wishes of its new files' movies and of files back from missing, no others", async () => {
    const tables = new FakeScanTables();
    const root = library({ 'Heat (1995).mkv': 'heat', 'Alien (1979).mkv': 'alien' });
    const rootId = tables.addRoot(root);
    const { scan } = scanner(tables);
    await scan(rootId);
    const movieOf = (path: string) => tables.mediaFiles.find((f) => f.relative_path === path)?.movie_id;
    const fileId = (path: string) => tables.mediaFiles.find((f) => f.relative_path === path)?.id;
    assert.deepEqual(tables.fulfilled, [
      {
        movies: [movieOf('Alien (1979).mkv'), movieOf('Heat (1995).mkv')].sort(
          (a, b) => Number(a) - Number(b),
        ),
        files: [],
      },
    ]);
    // Heat goes missing, then comes back; Alien changes (it was present: owned all along); a second
    // file of Alien is new and goes to its movie.
    rmSync(join(root, 'Heat (1995).mkv'));
    await scan(rootId);
    writeFileSync(join(root, 'Heat (1995).mkv'), 'heat');
    writeFileSync(join(root, 'Alien (1979).mkv'), 'alien, longer');
    writeFileSync(join(root, 'Alien (1979) - 4K.mkv'), 'alien 4k');
    await scan(rootId);
    assert.deepEqual(tables.fulfilled.slice(1), [
      { movies: [], files: [] },
      { movies: [movieOf('Alien (1979).mkv')], files: [fileId('Heat (1995).mkv')] },
    ]);
  });

  it('a commit that fails leaves the live tables as they were and drops the staged rows', async () => {
    const tables = new FakeScanTables();
    const rootId = tables.addRoot(library({ 'Heat (1995).mkv': 'heat' }));
    const repos = tables.commitRepositories();
    const failing = fakeUnitOfWork(tables, {
      ...repos,
      roots: {
        touchScanned: () => Promise.reject(new Error('disk full')),
      },
    });
    const { scan, created } = scanner(tables, { commits: failing });
    const report = await scan(rootId);
    assert.equal(report.status, 'failed');
    assert.match(report.message ?? '', /disk full/);
    assert.deepEqual([tables.mediaFiles, tables.movies, tables.staging], [[], [], []]);
    assert.deepEqual(created, []);
  });

  it('a root that is not there fails the scan and marks nothing missing', async () => {
    const tables = new FakeScanTables();
    const root = library({ 'Heat (1995).mkv': 'heat' });
    const rootId = tables.addRoot(root);
    const { scan } = scanner(tables);
    await scan(rootId);
    rmSync(root, { recursive: true });
    const report = await scan(rootId);
    assert.equal(report.status, 'failed');
    assert.match(report.message ?? '', /unreachable/);
    assert.deepEqual(
      tables.mediaFiles.map((f) => f.status),
      ['present'],
    );
  });
});
