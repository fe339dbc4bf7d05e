/**
 * The trickplay job's own rules with a real DataStore, real ConversionSlots and sharp, and the
 * ffmpeg pass faked (it writes a black sheet, or waits to be cancelled): a job not started waits
 * while a viewer's conversion holds a slot; a cancelled job leaves no part folder and the set made
 * before it is served again.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import sharp from 'sharp';
import { DataStore } from '../../../../src/adapters/data-store.ts';
import type { SheetRunOptions, SheetRunResult } from '../../../../src/adapters/trickplay-ffmpeg.ts';
import type { MediaFileRow } from '../../../../src/repositories/media-file.repository.ts';
import type {
  TrickplayCandidate,
  TrickplayMadeColumns,
  TrickplayRow,
  TrickplaySourceFacts,
} from '../../../../src/repositories/trickplay.repository.ts';
import { ConversionSlots } from '../../../../src/services/playback/conversion-slots.ts';
import { TrickplayService } from '../../../../src/services/trickplay/trickplay.service.ts';
import { FakeJobRunner } from '../../../fakes/fake-jobs.ts';
import { waitFor } from '../../../helpers/wait.ts';

const scratch = mkdtempSync(join(tmpdir(), 'reelshelf-trickplay-service-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const NOW = '2026-01-01T00:00:00.000Z';

/** The trickplay table in memory (the repository's queries, as the service uses them). */
class MemoryRows {
  readonly rows = new Map<number, TrickplayRow>();

  async get(fileId: number) {
    return this.rows.get(fileId);
  }
  async getMany(ids: readonly number[]) {
    return ids.flatMap((id) => this.rows.get(id) ?? []);
  }
  async folders() {
    return [...this.rows.values()].map((r) => ({
      media_file_id: r.media_file_id,
      generation: r.generation,
      job_id: r.job_id,
    }));
  }
  private upsert(fileId: number, jobId: number, mode: string, source: TrickplaySourceFacts, state: string) {
    const row = this.rows.get(fileId);
    if (row !== undefined) {
      Object.assign(row, { state, job_id: jobId, reason: null });
      return;
    }
    this.rows.set(fileId, {
      media_file_id: fileId,
      state,
      job_id: jobId,
      generation: null,
      mode,
      interval_ms: null,
      thumbnail_width: null,
      thumbnail_height: null,
      tile_width: null,
      tile_height: null,
      thumbnail_count: null,
      sheet_bytes_json: null,
      roku_tile_width: null,
      roku_tile_height: null,
      roku_sheet_bytes_json: null,
      bif_bytes: null,
      reason: null,
      ...source,
      made_at: null,
      failed_at: null,
      created_at: NOW,
      updated_at: NOW,
    });
  }
  async queue(fileId: number, jobId: number, mode: string, source: TrickplaySourceFacts) {
    if (this.rows.get(fileId)?.job_id !== jobId) this.upsert(fileId, jobId, mode, source, 'queued');
  }
  async begin(fileId: number, jobId: number, mode: string, source: TrickplaySourceFacts) {
    this.upsert(fileId, jobId, mode, source, 'running');
  }
  async markReady(fileId: number, jobId: number, mode: string, made: TrickplayMadeColumns) {
    const row = this.rows.get(fileId);
    if (row?.job_id !== jobId) return false;
    Object.assign(row, { state: 'ready', mode, ...made });
    return true;
  }
  async markFailed(fileId: number, jobId: number, reason: string) {
    const row = this.rows.get(fileId);
    if (row?.job_id === jobId) Object.assign(row, { state: 'failed', reason, generation: null });
  }
  async abandon(fileId: number, jobId: number) {
    const row = this.rows.get(fileId);
    if (row?.job_id !== jobId) return;
    if (row.generation !== null) row.state = 'ready';
    else this.rows.delete(fileId);
  }
  async candidates(): Promise<TrickplayCandidate[]> {
    return [];
  }
}

const FILE: MediaFileRow & { root_path: string } = {
  id: 1,
  movie_id: null,
  edition_id: null,
  library_root_id: 1,
  edition_label: null,
  analysis_error: null,
  analyzed_size_bytes: 1000,
  analyzed_fingerprint: 'fp',
  analyzed_at: NOW,
  missing_since: null,
  created_at: NOW,
  updated_at: NOW,
  root_path: '/library',
  relative_path: 'Film (2001).mp4',
  size_bytes: 1000,
  mtime_ms: 5,
  fingerprint: 'fp',
  status: 'present',
  analysis_status: 'analyzed',
  capabilities_json: JSON.stringify({
    container: 'mp4',
    duration_seconds: 60,
    video: { width: 160, height: 90, sar: null, rotation: 0, frame_rate: 25, hdr: 'sdr' },
    audio: [],
    subtitles: [],
  }),
};

/**
 * ffmpeg's part faked: one black 10×10 sheet of 160×90 holding the 6 thumbnails of a 60-s film, one
 * Roku sheet, and the 6 thumbnails one JPEG each (in the folders beside the sheets', as the pass writes them).
 */
async function writeSheet(options: SheetRunOptions): Promise<SheetRunResult> {
  const black = (width: number, height: number) =>
    sharp({ create: { width, height, channels: 3, background: '#000' } })
      .jpeg()
      .toBuffer();
  writeFileSync(join(options.outputDir, '0.jpg'), await black(1600, 900));
  writeFileSync(join(options.outputDir, '../roku/0.jpg'), await black(960, 1080));
  for (let i = 0; i < 6; i++)
    writeFileSync(join(options.outputDir, `../thumbnails/${i}.jpg`), await black(160, 90));
  return { sheets: 1, thumbnails: 6 };
}

function build(run: (options: SheetRunOptions) => Promise<SheetRunResult>) {
  const store = new DataStore(mkdtempSync(join(scratch, 'data-')));
  const slots = new ConversionSlots(1);
  const jobs = new FakeJobRunner();
  const rows = new MemoryRows();
  const calls: number[] = [];
  const service = new TrickplayService({
    configured: true,
    ffmpegAvailable: true,
    mode: 'keyframes',
    rows,
    // One node here: the job is always held.
    fenced: { transaction: (work) => work({ rows, jobs: { assertHeld: async () => undefined } }) },
    files: {
      getWithRoot: async (id) =>
        id === FILE.id ? FILE : id === 2 ? { ...FILE, id: 2, status: 'missing' } : undefined,
    },
    keyframes: { keyframesOf: async () => ({ times: [0, 4, 8] }) },
    paths: { resolveInsideRoot: async () => '/library/Film (2001).mp4' },
    store,
    jobs,
    ffmpeg: {
      run: (options) => {
        calls.push(Date.now());
        return run(options);
      },
    },
    slots,
    clock: { now: () => new Date(NOW) },
    threads: 1,
  });
  return { service, store, slots, jobs, rows, calls };
}

describe('TrickplayService: never in a viewer’s way, nothing half made', () => {
  it('a job not started waits while a conversion slot is held, and runs once it is released', async () => {
    const { service, slots, jobs, calls } = build(writeSheet);
    const viewer = slots.takeNow();
    const { jobId } = await service.request(FILE.id);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.deepEqual(calls, [], 'ffmpeg not started while a viewer converts');
    assert.deepEqual(await service.status(FILE.id), { state: 'running', jobId });
    viewer.release();
    assert.equal((await jobs.wait(jobId))?.status, 'succeeded');
    assert.equal(calls.length, 1);
    const status = await service.status(FILE.id);
    assert.equal(status.state, 'ready');
    assert.equal(status.state === 'ready' ? status.made.layout.thumbnailCount : 0, 6);
  });

  it('cancelled mid-run: no part folder is left, and the set made before is served again', async () => {
    let cancelNext = false;
    let running = false;
    // The cancelled run: like the real adapter, it rejects at once on a signal already aborted, and
    // when the signal aborts while it runs.
    const runUntilAborted = (options: SheetRunOptions) =>
      new Promise<SheetRunResult>((_resolve, reject) => {
        const signal = options.signal;
        if (signal?.aborted === true) return reject(signal.reason as Error);
        signal?.addEventListener('abort', () => reject(signal.reason as Error));
        running = true;
      });
    const { service, store, jobs } = build((options) =>
      cancelNext ? runUntilAborted(options) : writeSheet(options),
    );
    const first = await service.request(FILE.id);
    await jobs.wait(first.jobId);
    cancelNext = true;
    const second = await service.request(FILE.id);
    // The part folder carries the run's epoch (the fake runner claims once: epoch 1).
    const part = store.resolve('trickplay', `${FILE.id}/${second.jobId}.1.part`);
    // Mid-run is once ffmpeg runs (the part folder is made a few awaits before it): waited for, not timed.
    await waitFor(
      () => running,
      () => 'the second run to start ffmpeg',
    );
    assert.ok(existsSync(part), 'the part folder exists while it runs');
    assert.equal(await jobs.cancel(second.jobId), true);
    assert.equal((await jobs.wait(second.jobId))?.status, 'cancelled');
    assert.deepEqual(readdirSync(store.resolve('trickplay', String(FILE.id))), [String(first.jobId)]);
    const status = await service.status(FILE.id);
    assert.equal(status.state === 'ready' ? status.made.generation : null, first.jobId);
  });

  it('POST on an unknown file is 404, on a missing one 404 file_missing: nothing queued, nothing recorded', async () => {
    const { service, jobs, rows } = build(writeSheet);
    await assert.rejects(service.request(99), { code: 'not_found' });
    await assert.rejects(service.request(2), { code: 'file_missing' });
    assert.deepEqual([jobs.rows.length, rows.rows.size], [0, 0]);
  });
});
