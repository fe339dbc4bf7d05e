/**
 * Every long-running job reports progress the same way: GET /api/jobs/{id} → `{id, kind, status,
 * progress: {done, total}, …}`, with done ≤ total on every read and done = total at the end. Each kind
 * runs for real: a scan over generated files, an artwork fetch against the fake TMDb, a TV build with
 * ffmpeg.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ArtworkJob, JobView, LibraryResponse, ScanReport } from '@reelshelf/contract';
import { BARCODES, type FakeProviders, startFakeProviders } from '../fakes/index.ts';
import { registerFiles } from '../helpers/library-fixtures.ts';
import { makeFixture, makeMediaTree } from '../helpers/media.ts';
import { jsonBody, startTestServer, type TestServer } from '../helpers/test-server.ts';

const FINISHED = new Set(['succeeded', 'failed', 'cancelled']);

async function json<T>(
  t: TestServer,
  path: string,
  init?: RequestInit,
): Promise<{ status: number; body: T }> {
  const res = await t.api(path, init);
  return { status: res.status, body: (await res.json()) as T };
}

function assertProgressShape(progress: { done: number; total: number }, where: string): void {
  assert.deepEqual(Object.keys(progress).sort(), ['done', 'total'], where);
  assert.ok(Number.isInteger(progress.done) && progress.done >= 0, `${where}: done ${progress.done}`);
  assert.ok(Number.isInteger(progress.total) && progress.total >= 0, `${where}: total ${progress.total}`);
  assert.ok(progress.done <= progress.total, `${where}: ${progress.done} ≤ ${progress.total}`);
}

/**
 * Polls GET /api/jobs/{id} until the job ends; checks every reading and that `done` never goes back.
 * @returns the readings, the final one last
 */
async function followJob(t: TestServer, id: number): Promise<JobView[]> {
  const seen: JobView[] = [];
  const deadline = Date.now() + 120_000;
  for (;;) {
    const { status, body } = await json<JobView>(t, `/api/jobs/${id}`);
    assert.equal(status, 200);
    assertProgressShape(body.progress, `job ${id} (${body.kind}, ${body.status})`);
    const previous = seen.at(-1);
    if (previous !== undefined && previous.progress.total === body.progress.total) {
      assert.ok(body.progress.done >= previous.progress.done, 'done never goes back');
    }
    seen.push(body);
    if (FINISHED.has(body.status)) return seen;
    assert.ok(Date.now() < deadline, `job ${id} still ${body.status} after 2 minutes`);
    await new Promise((resolve) => setTimeout(resolve, 40));
  }
}

function assertEndsFull(readings: JobView[], kind: string): JobView {
  const last = readings.at(-1);
  assert.ok(last !== undefined);
  assert.equal(last.kind, kind);
  assert.equal(last.status, 'succeeded', JSON.stringify(last));
  assert.ok(last.progress.total > 0, `${kind}: a total was known`);
  assert.equal(last.progress.done, last.progress.total, `${kind}: progress reaches total`);
  assert.ok(last.started_at !== null && last.finished_at !== null);
  return last;
}

describe('job progress: one shape for every long-running job', () => {
  let fakes: FakeProviders;
  let t: TestServer;
  let media: string;

  before(async () => {
    media = mkdtempSync(join(tmpdir(), 'reelshelf-jobs-media-'));
    fakes = await startFakeProviders();
    t = await startTestServer(fakes.env);
  });
  after(async () => {
    await t.close();
    await fakes.close();
    rmSync(media, { recursive: true, force: true });
  });

  it('scan: GET /api/scans/{id} and GET /api/jobs/{id} report the same {done, total}, ending full', async () => {
    const root = join(media, 'library');
    const files = await makeMediaTree(root, 14);
    rmSync(join(root, '.seed'), { recursive: true, force: true });
    const created = await json<{ id: number }>(t, '/api/library-roots', jsonBody('POST', { path: root }));
    assert.equal(created.status, 201);
    const started = await json<{ scan_id: number }>(t, `/api/library-roots/${created.body.id}/scan`, {
      method: 'POST',
    });
    assert.equal(started.status, 202);
    const readings = await followJob(t, started.body.scan_id);
    const last = assertEndsFull(readings, 'scan');
    assert.equal(last.progress.total, files.length, 'one unit per file');
    const report = await json<ScanReport>(t, `/api/scans/${started.body.scan_id}`);
    assert.equal(report.body.status, 'committed');
    assert.deepEqual(report.body.progress, last.progress, 'the scan report and the job view agree');

    // runtime_text is the file's own duration (a 1-second clip), in the one duration style.
    const library = await json<LibraryResponse>(t, '/library?device=web');
    const editions = library.body.items.flatMap((item) => item.editions);
    assert.equal(editions.length, files.length);
    for (const edition of editions) assert.equal(edition.runtime_text, '1 s', edition.display_label);
  });

  it('artwork fetch: 202 job followed to the end; ?wait=true carries the same progress', async () => {
    for (const code of [BARCODES.inceptionBluRay, BARCODES.dune4k, BARCODES.alienDvd]) {
      const res = await t.api(`/api/barcode/${code}`, jsonBody('POST', {}));
      assert.equal(res.status, 201, code);
    }
    const movies = (await json<{ total: number }>(t, '/api/movies')).body.total;
    const started = await json<{ job_id: number }>(t, '/api/artwork/fetch', jsonBody('POST', {}));
    assert.equal(started.status, 202);
    const readings = await followJob(t, started.body.job_id);
    const last = assertEndsFull(readings, 'artwork');
    assert.equal(last.progress.total, movies, 'one unit per movie');

    const waited = await json<ArtworkJob>(t, '/api/artwork/fetch?wait=true', jsonBody('POST', {}));
    assert.equal(waited.status, 200);
    assert.equal(waited.body.status, 'succeeded');
    assert.deepEqual(waited.body.progress, { done: movies, total: movies });
    assert.equal(waited.body.report?.failed, 0, JSON.stringify(waited.body.report));

    const listed = await json<{ items: JobView[] }>(t, '/api/jobs?kind=artwork');
    assert.ok(listed.body.items.length >= 2);
    assert.ok(listed.body.items.every((job) => job.kind === 'artwork'));
    assert.ok(
      listed.body.items.some((job) => job.id === started.body.job_id),
      'the fetch is listed',
    );
  });

  it('prewarm (TV build with ffmpeg): the job is found by kind and ends at total', async () => {
    const clip = await makeFixture('h264_dts.mkv', join(media, 'tv', 'dts.mkv'), 8);
    const ids = await registerFiles(t.server.database.db, join(media, 'tv'), { dts: clip });
    await t.server.services.analysis.analyzePending();
    const fileId = ids.dts?.fileId ?? 0;
    const started = await json<{ status: string; message?: string }>(
      t,
      `/api/media-file/${fileId}/prewarm-tv`,
      { method: 'POST' },
    );
    assert.equal(started.body.status, 'building', JSON.stringify(started.body));
    const running = await json<{ items: JobView[] }>(t, '/api/jobs?kind=artifact&limit=1');
    const job = running.body.items[0];
    assert.ok(job !== undefined, 'the build is a job');
    const readings = await followJob(t, job.id);
    const last = assertEndsFull(readings, 'artifact');
    assert.equal(last.progress.total, 1000, 'a build counts tenths of a percent');
    const after = await json<{ status: string }>(t, `/api/media-file/${fileId}/prewarm-tv`);
    assert.equal(after.body.status, 'ready');
  });

  it('import: the writes are an `import` job that ends full; a dry run is none; a refused file fails', async () => {
    const rows = Array.from(
      { length: 3000 },
      (_, i) => `Imported Film ${i},${1950 + (i % 70)},DVD,Shelf I,${i + 1}`,
    );
    const csv = `Title,Year,Format,Binder,Slot\n${rows.join('\n')}\n`;
    const before = await json<{ items: JobView[] }>(t, '/api/jobs?kind=import');
    const dry = await t.api('/api/import?dry_run=true', {
      method: 'POST',
      headers: { 'content-type': 'text/csv' },
      body: csv,
    });
    assert.equal(dry.status, 200);
    const afterDry = await json<{ items: JobView[] }>(t, '/api/jobs?kind=import');
    assert.equal(afterDry.body.items.length, before.body.items.length, 'a dry run writes nothing, so no job');

    // (What a reader sees while the import runs is tested at a known point in the next test.)
    const res = await t.api('/api/import', {
      method: 'POST',
      headers: { 'content-type': 'text/csv' },
      body: csv,
    });
    assert.equal(res.status, 200);
    const imported = (await res.json()) as { created: { movies: number } };
    assert.equal(imported.created.movies, 3000);
    const done = await json<{ items: JobView[] }>(t, '/api/jobs?kind=import&limit=1');
    const job = done.body.items[0];
    assert.ok(job !== undefined);
    assertEndsFull([job], 'import');

    // A refused file is a failed job: the same truth the request answered.
    const refused = await t.api('/api/import', {
      method: 'POST',
      headers: { 'content-type': 'text/csv' },
      body: 'Title,Year,Format,Binder,Slot\nClash,2001,DVD,Shelf I,1\n',
    });
    assert.equal(refused.status, 400);
    const failed = await json<{ items: JobView[] }>(t, '/api/jobs?kind=import&limit=1');
    assert.equal(failed.body.items[0]?.status, 'failed');
  });

  it('import: GET /api/jobs reads the running import mid-write, while its transaction holds the database', async () => {
    // Held at a known point: the import awaits its progress callback after a write, inside its
    // transaction, while a real HTTP request reads the job list (answered from memory).
    const rows = Array.from(
      { length: 2000 },
      (_, i) => `Held Film ${i},${1950 + (i % 70)},DVD,Shelf H,${i + 1}`,
    );
    const csv = Buffer.from(`Title,Year,Format,Binder,Slot\n${rows.join('\n')}\n`);
    let seen: JobView | undefined;
    let healthStatus: number | undefined;
    const imported = await t.server.services.importExport.importCsv(csv, {
      onProgress: async (done, total) => {
        if (seen !== undefined || done === 0 || done >= total) return;
        const read = await json<{ items: JobView[] }>(t, '/api/jobs?kind=import&status=running');
        seen = read.body.items[0];
        healthStatus = (await t.api('/api/health')).status;
      },
    });
    assert.equal(imported.created.movies, 2000);
    assert.ok(seen !== undefined, 'the running import is listed');
    assert.equal(seen.status, 'running');
    assert.ok(
      seen.progress.done > 0 && seen.progress.done < seen.progress.total,
      JSON.stringify(seen.progress),
    );
    assert.equal(healthStatus, 200, 'requests that need no database are answered during an import');
    const after = await json<JobView>(t, `/api/jobs/${seen.id}`);
    assertEndsFull([after.body], 'import');
  });

  it('unknown job → 404 not_found; an unknown kind or status → 400', async () => {
    const missing = await json<{ error: string }>(t, '/api/jobs/999999');
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error, 'not_found');
    for (const query of ['kind=transcode', 'status=done', 'limit=0', 'limit=501', 'other=1']) {
      const bad = await json<{ error: string }>(t, `/api/jobs?${query}`);
      assert.equal(bad.status, 400, query);
      assert.equal(bad.body.error, 'validation_failed', query);
    }
    // Two jobs of its own (small imports), so the test stands alone in any order.
    for (const title of ['List Film One', 'List Film Two']) {
      const res = await t.api('/api/import', {
        method: 'POST',
        headers: { 'content-type': 'text/csv' },
        body: `Title,Year\n${title},1999\n`,
      });
      assert.equal(res.status, 200);
    }
    const all = await json<{ items: JobView[] }>(t, '/api/jobs?status=succeeded&limit=2');
    assert.equal(all.status, 200);
    assert.equal(all.body.items.length, 2);
    assert.ok(all.body.items[0] !== undefined && all.body.items[1] !== undefined);
    assert.ok(all.body.items[0].id > all.body.items[1].id, 'newest first');

    // DELETE /api/scans/{id} cancels scans only: another job's id is no scan.
    const importJob = all.body.items[0];
    assert.equal(importJob.kind, 'import');
    const cancel = await json<{ error: string }>(t, `/api/scans/${importJob.id}`, { method: 'DELETE' });
    assert.equal(cancel.status, 404);
    assert.equal(cancel.body.error, 'not_found');
    assert.equal((await json<JobView>(t, `/api/jobs/${importJob.id}`)).body.status, 'succeeded');
  });
});
