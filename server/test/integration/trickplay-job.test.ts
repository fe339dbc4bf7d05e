/**
 * The trickplay job end to end through a real server (docs/trickplay.md "Making and keeping"): a
 * scan queues every analysed film, one job each makes Jellyfin's sheets (ffmpeg), the Roku re-cut
 * and the BIF (sharp, from the sheets) into a part folder renamed into place; each thumbnail has the
 * colour of its moment in every form; POST remakes (a new generation, the old one removed); a broken
 * film's failure is recorded and not retried; a removed root takes the sets with it; a restart
 * removes the part folder of a job the process died in, and folders no row names; off, nothing is
 * queued and POST says why.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { JobStatusName, JobView } from '@reelshelf/contract';
import sharp from 'sharp';
import type { TrickplayStatus } from '../../src/services/trickplay/trickplay-ports.ts';
import { readBif } from '../helpers/bif-reader.ts';
import { jsonBody, startTestServer, type TestServer } from '../helpers/test-server.ts';
import { type ColourFilm, makeColourFilm, SEGMENT_COLOURS } from '../helpers/trickplay-fixtures.ts';
import { testEngine } from '../helpers/test-database.ts';
import { waitFor } from '../helpers/wait.ts';

type Rgb = readonly [number, number, number];

let scratch = '';
let media = '';
let colours: ColourFilm;

before(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'reelshelf-trickplay-job-'));
  media = join(scratch, 'media');
  mkdirSync(media);
  // Colour k from 10k − 7 s to 10k + 3 s, keyframes every 4 s: the keyframe nearest each mark has colour k.
  colours = await makeColourFilm(media, 'Colours (2001).mp4', {
    durationSeconds: 100,
    offsetSeconds: 3,
    gopSeconds: 4,
    codec: 'h264',
  });
  await makeColourFilm(media, 'Broken (2002).mp4', {
    durationSeconds: 60,
    offsetSeconds: 0,
    gopSeconds: 4,
    codec: 'h264',
  });
});
after(() => rmSync(scratch, { recursive: true, force: true }));

async function addRoot(t: TestServer, path: string): Promise<number> {
  const root = (await (await t.api('/api/library-roots', jsonBody('POST', { path }))).json()) as {
    id: number;
  };
  const scan = await t.api(`/api/library-roots/${root.id}/scan?wait=true`, { method: 'POST' });
  assert.equal(scan.status, 200);
  return root.id;
}

async function fileIds(t: TestServer): Promise<Map<string, number>> {
  const rows = await t.server.database.db.selectFrom('media_files').select(['id', 'relative_path']).execute();
  return new Map(rows.map((r) => [r.relative_path, r.id]));
}

/**
 * The file's set once ready or failed, and its job finished: the row is recorded before the job
 * removes the previous set and ends, so the job's end is what says everything is in place.
 */
async function settled(t: TestServer, fileId: number, notJob?: number): Promise<TrickplayStatus> {
  const status = await recorded(t, fileId, notJob);
  const jobId =
    status.state === 'ready' ? status.made.generation : status.state === 'failed' ? status.jobId : null;
  if (jobId !== null) await t.server.services.jobs.wait(jobId);
  return status;
}

async function recorded(t: TestServer, fileId: number, notJob?: number): Promise<TrickplayStatus> {
  let last: TrickplayStatus = { state: 'none' };
  return waitFor(
    async () => {
      last = await t.server.services.trickplay.status(fileId);
      if (last.state !== 'ready' && last.state !== 'failed') return null;
      if (notJob !== undefined && last.state === 'ready' && last.made.generation === notJob) return null;
      return last;
    },
    () => `file ${fileId}'s trickplay to settle (${JSON.stringify(last)})`,
    { timeoutMs: 90_000, intervalMs: 100 },
  );
}

/** Mean colour of each cell of a grid of `w`×`h` thumbnails (inner part: JPEG blurs the edges). */
async function cellColours(
  jpeg: Buffer,
  grid: { w: number; h: number; columns: number },
  count: number,
): Promise<Rgb[]> {
  const { data, info } = await sharp(jpeg).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const out: Rgb[] = [];
  for (let n = 0; n < count; n++) {
    const left = (n % grid.columns) * grid.w;
    const top = Math.floor(n / grid.columns) * grid.h;
    const sums = [0, 0, 0];
    let pixels = 0;
    for (let y = top + 12; y < top + grid.h - 12; y++) {
      for (let x = left + 16; x < left + grid.w - 16; x++) {
        const at = (y * info.width + x) * info.channels;
        for (let c = 0; c < 3; c++) sums[c] = (sums[c] ?? 0) + (data[at + c] ?? 0);
        pixels++;
      }
    }
    out.push([(sums[0] ?? 0) / pixels, (sums[1] ?? 0) / pixels, (sums[2] ?? 0) / pixels]);
  }
  return out;
}

function nearestColour(rgb: Rgb): number {
  const distance = (a: Rgb, b: Rgb) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
  let best = 0;
  SEGMENT_COLOURS.forEach((colour, index) => {
    if (distance(colour, rgb) < distance(SEGMENT_COLOURS[best] ?? colour, rgb)) best = index;
  });
  return best;
}

describe('trickplay job: made after a scan, kept, remade, failed, removed', { timeout: 300_000 }, () => {
  let t: TestServer;
  let rootId = 0;
  let colourId = 0;
  let brokenId = 0;
  let firstGeneration = 0;

  before(async () => {
    t = await startTestServer({ REELSHELF_TRICKPLAY: 'on' });
    rootId = await addRoot(t, media);
    const ids = await fileIds(t);
    colourId = ids.get('Colours (2001).mp4') ?? 0;
    brokenId = ids.get('Broken (2002).mp4') ?? 0;
  });
  after(() => t.close());

  it('a scan queues every film; each set has the layout, the files and the colours of its moments', async () => {
    const status = await settled(t, colourId);
    assert.equal(status.state, 'ready', JSON.stringify(status));
    assert.equal((await settled(t, brokenId)).state, 'ready');
    if (status.state !== 'ready') return;
    const { made } = status;
    firstGeneration = made.generation;
    // 100 s of a 160×90 film: ten 160×90 thumbnails (no upscaling), 10×10 per sheet; Roku 6×10.
    assert.deepEqual(made.layout, {
      intervalMs: 10_000,
      thumbnailWidth: 160,
      thumbnailHeight: 90,
      tileWidth: 10,
      tileHeight: 10,
      thumbnailCount: 10,
    });
    assert.equal(made.mode, 'keyframes');
    assert.deepEqual([made.roku.layout.tileWidth, made.roku.layout.tileHeight], [6, 10]);
    assert.equal(made.sheetBytes.length, 1);
    assert.equal(made.roku.sheetBytes.length, 1);
    const set = join(t.dataDir, 'trickplay', String(colourId));
    assert.deepEqual(readdirSync(set), [String(made.generation)], 'no part folder left');
    const folder = join(set, String(made.generation));
    assert.deepEqual(readdirSync(folder).sort(), ['roku', 'sheets', 'trickplay.bif']);
    assert.deepEqual(readdirSync(join(folder, 'sheets')), ['0.jpg']);
    assert.deepEqual(readdirSync(join(folder, 'roku')), ['0.jpg']);

    const sheet = readFileSync(join(folder, 'sheets', '0.jpg'));
    assert.equal(sheet.length, made.sheetBytes[0]);
    const meta = await sharp(sheet).metadata();
    assert.deepEqual([meta.width, meta.height], [1600, 900]);
    const expected = Array.from({ length: 10 }, (_, k) => colours.colourIndexAt(10 * k));
    const sheetCells = await cellColours(sheet, { w: 160, h: 90, columns: 10 }, 10);
    assert.deepEqual(sheetCells.map(nearestColour), expected);

    // Roku: sheets no larger than 1080 px a side (6×10 of 160×90), the same thumbnails, padded black.
    const roku = readFileSync(join(folder, 'roku', '0.jpg'));
    const rokuMeta = await sharp(roku).metadata();
    assert.deepEqual([rokuMeta.width, rokuMeta.height], [960, 900]);
    assert.equal(roku.length, made.roku.sheetBytes[0]);
    const rokuCells = await cellColours(roku, { w: 160, h: 90, columns: 6 }, 60);
    assert.deepEqual(rokuCells.slice(0, 10).map(nearestColour), expected);
    assert.ok(
      rokuCells.slice(10).every((rgb) => rgb.every((v) => v < 20)),
      'padded black after the last',
    );

    // BIF: one JPEG per real thumbnail (not the padding), every 10 s.
    const bifBytes = readFileSync(join(folder, 'trickplay.bif'));
    assert.equal(bifBytes.length, made.bifBytes);
    const bif = readBif(bifBytes);
    assert.deepEqual(
      bif.images.map((image) => image.timeMs),
      expected.map((_, k) => k * 10_000),
    );
    const bifColours: number[] = [];
    for (const image of bif.images) {
      const m = await sharp(image.bytes).metadata();
      assert.deepEqual([m.width, m.height], [160, 90]);
      bifColours.push(
        nearestColour((await cellColours(image.bytes, { w: 160, h: 90, columns: 1 }, 1))[0] ?? [0, 0, 0]),
      );
    }
    assert.deepEqual(bifColours, expected);

    // The reader serves the current set only.
    const reader = t.server.services.trickplay;
    assert.equal(
      (await reader.sheet(colourId, made.generation, 'roku', 0)).sizeBytes,
      made.roku.sheetBytes[0],
    );
    await assert.rejects(reader.sheet(colourId, made.generation, 'roku', 1), { code: 'not_found' });
    assert.equal((await reader.bif(colourId)).sizeBytes, made.bifBytes);
    await assert.rejects(reader.sheet(colourId, made.generation + 1000, 'sheets', 0), { code: 'not_found' });
    await assert.rejects(reader.sheet(colourId, made.generation, 'sheets', 1), { code: 'not_found' });
    assert.deepEqual(
      [...(await reader.madeMany([colourId, brokenId, 999_999])).keys()].sort(),
      [colourId, brokenId].sort(),
    );

    const jobs = (await (await t.api('/api/jobs?kind=trickplay')).json()) as {
      items: { status: string; progress: { done: number; total: number } }[];
    };
    assert.deepEqual(
      jobs.items.map((j) => [j.status, j.progress.done === j.progress.total]),
      [
        ['succeeded', true],
        ['succeeded', true],
      ],
    );
  });

  it('POST remakes: 202 {job_id}, a new generation, the old set removed; bad input is a clear ApiError', async () => {
    const response = await t.api(
      `/api/media-file/${colourId}/trickplay`,
      jsonBody('POST', { mode: 'accurate' }),
    );
    assert.equal(response.status, 202);
    const { job_id: jobId } = (await response.json()) as { job_id: number };
    const status = await settled(t, colourId, firstGeneration);
    assert.equal(status.state, 'ready');
    if (status.state !== 'ready') return;
    assert.equal(status.made.generation, jobId);
    assert.equal(status.made.mode, 'accurate');
    assert.deepEqual(readdirSync(join(t.dataDir, 'trickplay', String(colourId))), [String(jobId)]);
    const sheet = readFileSync(
      join(t.dataDir, 'trickplay', String(colourId), String(jobId), 'sheets', '0.jpg'),
    );
    assert.deepEqual(
      (await cellColours(sheet, { w: 160, h: 90, columns: 10 }, 10)).map(nearestColour),
      Array.from({ length: 10 }, (_, k) => colours.colourIndexAt(10 * k)),
    );
    // An empty POST uses the configured mode.
    assert.equal((await t.api(`/api/media-file/${colourId}/trickplay`, { method: 'POST' })).status, 202);
    await settled(t, colourId, jobId);

    const unknown = await t.api('/api/media-file/999999/trickplay', { method: 'POST' });
    assert.equal(unknown.status, 404);
    assert.equal(((await unknown.json()) as { error: string }).error, 'not_found');
    const bad = await t.api(`/api/media-file/${colourId}/trickplay`, jsonBody('POST', { mode: 'fast' }));
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as { error: string }).error, 'validation_failed');
  });

  it('a broken film: the failure is recorded with its reason, its old set removed, and it is not retried', async () => {
    const before = await t.server.services.trickplay.status(brokenId);
    assert.equal(before.state, 'ready');
    // The file is cut short behind the library's back (the database still knows it whole).
    truncateSync(join(media, 'Broken (2002).mp4'), 4096);
    const response = await t.api(`/api/media-file/${brokenId}/trickplay`, { method: 'POST' });
    assert.equal(response.status, 202);
    const { job_id: jobId } = (await response.json()) as { job_id: number };
    const status = await settled(t, brokenId);
    assert.equal(status.state, 'failed', JSON.stringify(status));
    if (status.state !== 'failed') return;
    assert.equal(status.jobId, jobId);
    assert.match(status.reason, /^broken_stream: ffmpeg failed/);
    assert.equal(await t.server.services.trickplay.made(brokenId), null);
    assert.deepEqual(
      readdirSync(join(t.dataDir, 'trickplay', String(brokenId))),
      [],
      'old set and part gone',
    );
    const job = (await (await t.api(`/api/jobs/${jobId}`)).json()) as { status: string; error: string };
    assert.equal(job.status, 'failed');
    assert.match(job.error, /broken_stream/);
    // Never again by itself: the queueing pass (as after every scan) leaves it alone.
    assert.equal(await t.server.services.trickplayJobs.requestMissing(), 0);
    assert.equal((await t.server.services.trickplay.status(brokenId)).state, 'failed');
  });

  it('a removed library root takes its files’ sets with it', async () => {
    assert.ok(existsSync(join(t.dataDir, 'trickplay', String(colourId))));
    assert.equal((await t.api(`/api/library-roots/${rootId}`, { method: 'DELETE' })).status, 204);
    await waitFor(
      () =>
        !existsSync(join(t.dataDir, 'trickplay', String(colourId))) &&
        !existsSync(join(t.dataDir, 'trickplay', String(brokenId))),
      () => `the sets to go: ${readdirSync(join(t.dataDir, 'trickplay')).join(', ')}`,
    );
    assert.equal((await t.server.services.trickplay.status(colourId)).state, 'none');
  });
});

describe('trickplay job: a restart cleans up after a process that died', { timeout: 300_000 }, () => {
  it('the part folder of a job the process died in goes, the set made before stays, strays go', async () => {
    const dataDir = mkdtempSync(join(scratch, 'data-'));
    const films = join(scratch, 'restart');
    mkdirSync(films);
    await makeColourFilm(films, 'Again (2003).mp4', {
      durationSeconds: 60,
      offsetSeconds: 0,
      gopSeconds: 4,
      codec: 'h264',
    });
    const env = { REELSHELF_TRICKPLAY: 'on', REELSHELF_DATA_DIR: dataDir };
    const first = await startTestServer(env);
    let fileId = 0;
    let generation = 0;
    let deadJob = 0;
    try {
      await addRoot(first, films);
      fileId = (await fileIds(first)).get('Again (2003).mp4') ?? 0;
      const status = await settled(first, fileId);
      assert.equal(status.state, 'ready');
      generation = status.state === 'ready' ? status.made.generation : 0;
      // As a process killed mid-remake leaves it: a running job, its row, its part folder.
      const db = first.server.database.db;
      const now = new Date().toISOString();
      const inserted = await db
        .insertInto('jobs')
        .values({
          kind: 'trickplay',
          dedupe_key: `trickplay:${fileId}`,
          status: 'running',
          payload_json: JSON.stringify({ fileId, mode: 'keyframes' }),
          progress_done: 10,
          progress_total: 100,
          result_json: null,
          error: null,
          created_at: now,
          started_at: now,
          finished_at: null,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      deadJob = inserted.id;
      await db
        .updateTable('trickplay')
        .set({ state: 'running', job_id: deadJob })
        .where('media_file_id', '=', fileId)
        .execute();
      mkdirSync(join(dataDir, 'trickplay', String(fileId), `${deadJob}.part`, 'sheets'), { recursive: true });
      mkdirSync(join(dataDir, 'trickplay', '987654', '3', 'sheets'), { recursive: true });
    } finally {
      await first.close();
    }
    const second = await startTestServer(env);
    if (testEngine === 'postgres') {
      // Nodes share the database (docs/cluster.md): the dead job is taken over, its part folder
      // removed by the claim, and run again to the end; the set it makes replaces the old one.
      try {
        const job = await waitFor(
          async () => {
            const view = (await (await second.api(`/api/jobs/${deadJob}`)).json()) as JobView;
            const ended: JobStatusName[] = ['succeeded', 'failed', 'cancelled'];
            return ended.includes(view.status) ? view : undefined;
          },
          () => 'the taken-over trickplay job to end',
          { timeoutMs: 120_000 },
        );
        assert.equal(job.status, 'succeeded');
        assert.deepEqual(readdirSync(join(dataDir, 'trickplay')), [String(fileId)]);
        assert.deepEqual(readdirSync(join(dataDir, 'trickplay', String(fileId))), [String(deadJob)]);
        const status = await second.server.services.trickplay.status(fileId);
        assert.equal(status.state === 'ready' ? status.made.generation : 0, deadJob);
      } finally {
        await second.close();
      }
      return;
    }
    try {
      assert.deepEqual(readdirSync(join(dataDir, 'trickplay')), [String(fileId)]);
      assert.deepEqual(readdirSync(join(dataDir, 'trickplay', String(fileId))), [String(generation)]);
      const status = await second.server.services.trickplay.status(fileId);
      assert.equal(status.state, 'ready');
      assert.equal(status.state === 'ready' ? status.made.generation : 0, generation);
      const job = (await (await second.api(`/api/jobs/${deadJob}`)).json()) as { status: string };
      assert.equal(job.status, 'failed');
    } finally {
      await second.close();
    }
  });
});

describe('trickplay off', { timeout: 120_000 }, () => {
  it('REELSHELF_TRICKPLAY=off: a scan queues nothing, and POST says why', async () => {
    const films = join(scratch, 'off');
    mkdirSync(films);
    await makeColourFilm(films, 'Quiet (2004).mp4', {
      durationSeconds: 60,
      offsetSeconds: 0,
      gopSeconds: 4,
      codec: 'h264',
    });
    const t = await startTestServer({ REELSHELF_TRICKPLAY: 'off' });
    try {
      await addRoot(t, films);
      const fileId = (await fileIds(t)).get('Quiet (2004).mp4') ?? 0;
      assert.equal(await t.server.services.trickplayJobs.requestMissing(), 0);
      const jobs = (await (await t.api('/api/jobs?kind=trickplay')).json()) as { items: unknown[] };
      assert.deepEqual(jobs.items, []);
      assert.equal(t.server.services.trickplay.enabled, false);
      const response = await t.api(`/api/media-file/${fileId}/trickplay`, { method: 'POST' });
      assert.equal(response.status, 409);
      const body = (await response.json()) as { error: string; message: string; hint: string };
      assert.equal(body.error, 'trickplay_unavailable');
      assert.match(body.hint, /REELSHELF_TRICKPLAY=on/);
      assert.ok(!existsSync(join(t.dataDir, 'trickplay')));
    } finally {
      await t.close();
    }
  });
});
