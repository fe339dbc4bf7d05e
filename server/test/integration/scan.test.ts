import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { LibraryResponse, MovieDetail } from '@reelshelf/contract';
import { makeFixture } from '../helpers/media.ts';
import { contract, jsonBody, startTestServer, type TestServer } from '../helpers/test-server.ts';

interface ScanReport {
  id: number;
  root_id: number;
  status: string;
  progress: { done: number; total: number };
  counts: Record<'found' | 'new' | 'changed' | 'moved' | 'unchanged' | 'missing' | 'errors', number>;
  errors: { path: string; error: string }[];
  message?: string;
}

const BR = 'Blade Runner 2049 (2017) [tmdbid-335984]';

async function scan(t: TestServer, rootId: number): Promise<ScanReport> {
  const res = await t.api(`/api/library-roots/${rootId}/scan?wait=true`, { method: 'POST' });
  assert.equal(res.status, 200);
  return (await res.json()) as ScanReport;
}

async function library(t: TestServer): Promise<LibraryResponse> {
  const raw: unknown = await (await t.api('/library?device=web')).json();
  const check = contract.validate('libraryResponse', raw);
  assert.ok(check.ok, check.ok ? '' : check.errors.join('\n'));
  return raw as LibraryResponse;
}

describe('library roots and scanning a generated library', () => {
  let t: TestServer;
  let root: string;
  let rootId: number;

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'reelshelf-lib-'));
    await Promise.all([
      makeFixture('hevc10_hdr10_ac3.mkv', join(root, BR, `${BR} - 2160p.mkv`)),
      makeFixture('h264_aac.mp4', join(root, BR, `${BR} - 1080p.mp4`)),
    ]);
    await Promise.all([
      makeFixture('h264_dts.mkv', join(root, 'The.Matrix.1999.1080p.BluRay.x264-GROUP.mkv')),
      // 400 s: 42 s in is a place to resume once analysed (the resume rule: films of 5 minutes or more).
      makeFixture('h264_aac_long.mp4', join(root, 'Heat (1995)', 'Heat (1995).mp4'), 400),
    ]);
    await Promise.all([
      makeFixture('h264_aac.mp4', join(root, 'Heat (1995)', 'extras', 'Making of.mp4'), 1),
      makeFixture('h264_aac.mp4', join(root, 'Heat (1995)', 'Heat (1995)-trailer.mp4'), 1),
    ]);
    await Promise.all([
      makeFixture('vp9_opus.webm', join(root, 'Amélie (2001)', 'Amélie (2001).webm')),
      makeFixture('h264_aac.mp4', join(root, 'Some Folder', 'alien.mp4'), 1),
    ]);
    writeFileSync(
      join(root, 'Some Folder', 'alien.nfo'),
      '<?xml version="1.0"?><movie><title>Alien</title><year>1979</year><uniqueid type="imdb" default="true">tt0078748</uniqueid></movie>',
    );
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('refuses bad roots with clear 4xx ApiErrors', async () => {
    const post = async (body: unknown, status: number, code: string) => {
      const res = await t.api('/api/library-roots', jsonBody('POST', body));
      assert.equal(res.status, status, JSON.stringify(body));
      const err = (await res.json()) as { error: string; message: string };
      assert.equal(err.error, code);
      assert.ok(err.message.length > 0);
    };
    await post({ path: 'relative/movies' }, 400, 'validation_failed');
    await post({ path: join(root, 'nope') }, 400, 'validation_failed');
    await post({ path: join(root, BR, `${BR} - 1080p.mp4`) }, 400, 'validation_failed');
    await post({}, 400, 'validation_failed');
    const res = await t.api('/api/library-roots', jsonBody('POST', { path: root, collection: 'Movies' }));
    assert.equal(res.status, 201);
    const created = (await res.json()) as { id: number; collection: string };
    rootId = created.id;
    assert.equal(created.collection, 'Movies');
    await post({ path: join(root, 'Heat (1995)') }, 409, 'root_overlaps');
    await post({ path: root }, 409, 'root_exists');
    const unknown = await t.api('/api/library-roots/9999/scan', { method: 'POST' });
    assert.equal(unknown.status, 404);
    assert.equal(((await unknown.json()) as { error: string }).error, 'not_found');
    assert.equal((await t.api('/api/scans/9999')).status, 404);
  });

  it('first scan: counts, extras skipped, names parsed, id tags honoured, versions grouped', async () => {
    const report = await scan(t, rootId);
    assert.equal(report.status, 'committed', report.message);
    assert.deepEqual(report.counts, {
      found: 6,
      new: 6,
      changed: 0,
      moved: 0,
      unchanged: 0,
      missing: 0,
      errors: 0,
    });
    assert.deepEqual(report.progress, { done: 6, total: 6 });
    const movies = (await (await t.api('/api/movies?limit=100')).json()) as {
      items: { id: number; title: string; year: number; tmdb_id: number | null; imdb_id: string | null }[];
    };
    const byTitle = new Map(movies.items.map((m) => [m.title, m]));
    assert.deepEqual([...byTitle.keys()].sort(), [
      'Alien',
      'Amélie',
      'Blade Runner 2049',
      'Heat',
      'The Matrix',
    ]);
    assert.equal(byTitle.get('Blade Runner 2049')?.tmdb_id, 335984);
    assert.equal(byTitle.get('Blade Runner 2049')?.year, 2017);
    assert.equal(byTitle.get('The Matrix')?.year, 1999);
    assert.equal(byTitle.get('Alien')?.imdb_id, 'tt0078748', 'NFO beside the file');
    assert.equal(byTitle.get('Alien')?.year, 1979);
    const br = (await (
      await t.api(`/api/movies/${byTitle.get('Blade Runner 2049')?.id}`)
    ).json()) as MovieDetail;
    assert.deepEqual(br.media_files.map((f) => f.edition_label).sort(), ['1080p', '2160p']);
    const lib = await library(t);
    const brItem = lib.items.find((i) => i.title === 'Blade Runner 2049');
    assert.equal(brItem?.editions.length, 2);
    assert.equal(
      brItem?.editions[brItem.default_edition_index]?.playback_prediction,
      'direct',
      'the playable edition is the default on web',
    );
    assert.equal(lib.items.find((i) => i.title === 'Heat')?.badge, 'playable');
  });

  it('unchanged rescan: everything unchanged and ffprobe not run', async () => {
    const probesBefore = t.server.services.analysis.probeCount;
    const report = await scan(t, rootId);
    assert.deepEqual(report.counts, {
      found: 6,
      new: 0,
      changed: 0,
      moved: 0,
      unchanged: 6,
      missing: 0,
      errors: 0,
    });
    assert.equal(t.server.services.analysis.probeCount, probesBefore, 'no re-probe');
  });

  it('a second scan request joins the running one', async () => {
    const [a, b] = await Promise.all([
      t.api(`/api/library-roots/${rootId}/scan`, { method: 'POST' }),
      t.api(`/api/library-roots/${rootId}/scan`, { method: 'POST' }),
    ]);
    assert.equal(a.status, 202);
    const idA = ((await a.json()) as { scan_id: number }).scan_id;
    const idB = ((await b.json()) as { scan_id: number }).scan_id;
    assert.equal(idA, idB);
    await t.server.services.scans.wait(idA);
    const report = (await (await t.api(`/api/scans/${idA}`)).json()) as ScanReport;
    assert.equal(report.status, 'committed');
    assert.equal(report.root_id, rootId);
  });

  it('rename and move keep the media file id and the resume position', async () => {
    const heat = (await library(t)).items.find((i) => i.title === 'Heat');
    const fileId = heat?.editions[0]?.media_file_id ?? 0;
    const saved = await t.api(
      `/api/media-file/${fileId}/progress`,
      jsonBody('PUT', { position_seconds: 42 }),
    );
    assert.equal(saved.status, 200);
    mkdirSync(join(root, 'Crime'), { recursive: true });
    renameSync(join(root, 'Heat (1995)'), join(root, 'Crime', 'Heat (1995)'));
    renameSync(
      join(root, 'Crime', 'Heat (1995)', 'Heat (1995).mp4'),
      join(root, 'Crime', 'Heat (1995)', 'Heat.1995.mp4'),
    );
    const report = await scan(t, rootId);
    assert.equal(report.counts.moved, 1);
    assert.equal(report.counts.new, 0);
    assert.equal(report.counts.missing, 0);
    const after = (await library(t)).items.find((i) => i.title === 'Heat');
    assert.equal(after?.editions.length, 1);
    assert.equal(after?.editions[0]?.media_file_id, fileId, 'same id');
    assert.equal(after?.editions[0]?.resume_position_seconds, 42, 'resume position kept');
  });

  it('a deleted file is marked missing, never deleted', async () => {
    rmSync(join(root, 'Amélie (2001)'), { recursive: true });
    const report = await scan(t, rootId);
    assert.equal(report.counts.missing, 1);
    const amelie = (await library(t)).items.find((i) => i.title === 'Amélie');
    assert.equal(amelie?.badge, 'missing');
    assert.equal(amelie?.editions.length, 1);
    assert.equal(amelie?.editions[0]?.playback_status_code, 'unknown');
  });

  it('an unreachable root fails the scan and marks nothing missing', async () => {
    renameSync(root, `${root}-unmounted`);
    try {
      const report = await scan(t, rootId);
      assert.equal(report.status, 'failed');
      assert.match(report.message ?? '', /unreachable/);
      const missing = (await library(t)).items.filter((i) => i.badge === 'missing');
      assert.deepEqual(
        missing.map((i) => i.title),
        ['Amélie'],
      );
      // an empty mount point (the folder exists, the disk is not mounted) is refused the same way
      mkdirSync(root);
      const empty = await scan(t, rootId);
      assert.equal(empty.status, 'failed');
      assert.match(empty.message ?? '', /is the disk mounted/);
      assert.deepEqual(
        (await library(t)).items.filter((i) => i.badge === 'missing').map((i) => i.title),
        ['Amélie'],
      );
      rmSync(root, { recursive: true });
    } finally {
      renameSync(`${root}-unmounted`, root);
    }
  });

  it('watch progress: validation and unknown file', async () => {
    const bad = await t.api('/api/media-file/1/progress', jsonBody('PUT', { position_seconds: -5 }));
    assert.equal(bad.status, 400);
    const unknown = await t.api('/api/media-file/9999/progress', jsonBody('PUT', { position_seconds: 5 }));
    assert.equal(unknown.status, 404);
  });
});

describe('names as people name their files, through the real scan', () => {
  let t: TestServer;
  let root: string;

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'reelshelf-names-'));
    const files: [Parameters<typeof makeFixture>[0], string][] = [
      ['h264_dts.mkv', 'I Live In A Trailer (2011).mkv'],
      ['h264_aac.mp4', 'The DNA Sample.mp4'],
      ['h264_dts.mkv', 'Movie/Movie.mkv'],
      ['h264_dts.mkv', 'Movie/Movie-2.mkv'],
      ['h264_dts.mkv', 'Movie/Movie - bluray.mkv'],
      ['h264_aac.mp4', 'Movie/Movie-trailer.mp4'],
      ['h264_aac.mp4', 'Heat (1995)/Heat (1995).mp4'],
      ['h264_aac.mp4', 'Heat (1995)/extra/Making of.mp4'],
      ['h264_aac.mp4', 'Crouching.Tiger.Hidden.Dragon.UltraHD.mp4'],
      ['h264_aac.mp4', 'My Movie 2013.12.09.mp4'],
      ['h264_aac.mp4', 'Batman/Batman part1.mp4'],
      ['h264_aac.mp4', 'Batman/Batman part2.mp4'],
      // a collection folder: films with their own years, not versions of 'Alien'
      ['h264_aac.mp4', 'Alien/Alien.1979.mp4'],
      ['h264_aac.mp4', 'Alien/Alien.Resurrection.1997.mp4'],
      ['h264_aac.mp4', 'Scream/Scream.2.1997.mp4'],
      // 'Saw.2' alone would read as a version of the folder's film; beside a file with its own year
      // the folder is no set of versions, so it is the sequel (the folder's files decide together)
      ['h264_aac.mp4', 'Saw/Saw.2004.mp4'],
      ['h264_aac.mp4', 'Saw/Saw.2.mp4'],
      ['h264_aac.mp4', 'Movie.2010.1080p.sample.mp4'],
    ];
    for (let i = 0; i < files.length; i += 2) {
      await Promise.all(
        files.slice(i, i + 2).map(([fixture, path]) => makeFixture(fixture, join(root, path), 1)),
      );
    }
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('lists films named like extras, groups versions and parts, skips real extras', async () => {
    const created = await t.api('/api/library-roots', jsonBody('POST', { path: root, collection: 'Movies' }));
    assert.equal(created.status, 201);
    const report = await scan(t, ((await created.json()) as { id: number }).id);
    assert.equal(report.status, 'committed', report.message);
    assert.equal(
      report.counts.found,
      15,
      'the trailer, the release sample and the extra/ folder are not movie files',
    );
    assert.equal(report.counts.errors, 0);

    const lib = await library(t);
    const byTitle = new Map(lib.items.map((item) => [item.title, item]));
    assert.deepEqual([...byTitle.keys()].sort(), [
      'Alien',
      'Alien Resurrection',
      'Batman',
      'Crouching Tiger Hidden Dragon',
      'Heat',
      'I Live In A Trailer',
      'Movie',
      'My Movie 2013.12.09',
      'Saw',
      'Saw 2',
      'Scream 2',
      'The DNA Sample',
    ]);
    assert.deepEqual(
      ['Alien', 'Alien Resurrection', 'Scream 2', 'Saw'].map((title) => byTitle.get(title)?.year),
      [1979, 1997, 1997, 2004],
    );
    assert.equal(byTitle.get('I Live In A Trailer')?.year, 2011);
    assert.equal(byTitle.get('My Movie 2013.12.09')?.year ?? null, null, 'a date is no year');
    assert.equal(byTitle.get('Movie')?.editions.length, 3);
    assert.equal(byTitle.get('Heat')?.editions.length, 1, 'extra/ is an extras folder');

    const movie = (await (
      await t.api(`/api/movies/${byTitle.get('Movie')?.movie_id}`)
    ).json()) as MovieDetail;
    assert.deepEqual(movie.media_files.map((f) => f.edition_label ?? '(none)').sort(), [
      '(none)',
      '2',
      'bluray',
    ]);
    const batman = (await (
      await t.api(`/api/movies/${byTitle.get('Batman')?.movie_id}`)
    ).json()) as MovieDetail;
    assert.equal(batman.media_files.length, 2, 'both parts belong to one movie');
  });
});
