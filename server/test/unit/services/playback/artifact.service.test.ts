import assert from 'node:assert/strict';
import { waitFor } from '../../../helpers/wait.ts';
import type { UnitOfWork } from '../../../../src/repositories/unit-of-work.ts';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DataStore } from '../../../../src/adapters/data-store.ts';
import type { FfmpegRunOptions } from '../../../../src/adapters/ffmpeg.ts';
import { ReadyArtifactIndex } from '../../../../src/services/playback/artifact-index.ts';
import {
  type ArtifactFencedWrites,
  ArtifactService,
} from '../../../../src/services/playback/artifact.service.ts';
import { ConversionSlots } from '../../../../src/services/playback/conversion-slots.ts';
import { DeviceProfileService } from '../../../../src/services/playback/device-profile.service.ts';
import { PlaybackEditionPresenter } from '../../../../src/services/playback/edition-presenter.ts';
import { PlaybackCache } from '../../../../src/services/playback/playback-cache.ts';
import { PlaybackTokenService } from '../../../../src/services/playback/playback-token.service.ts';
import {
  InMemoryArtifactRecords,
  InMemoryJobs,
  InMemoryMediaFiles,
} from '../../../fakes/playback-repositories.ts';
import { ARTIFACT_IN_USE_MS } from '../../../../src/domain/playback/cache-use.ts';
import { audio, file, h264 } from '../../playback/fixtures.ts';

/**
 * A clock the test moves: the order of last uses is the order of the steps. Each step is as long as
 * the window in which a use counts as in use (`ARTIFACT_IN_USE_MS`): uses are told apart by their
 * order only, not kept for being a moment old.
 */
function steppingClock() {
  let ms = Date.parse('2030-01-01T00:00:00Z');
  return { now: () => new Date((ms += ARTIFACT_IN_USE_MS)) };
}

/** ffmpeg that writes `bytes` to its output and ends when let go (or at once), counting its runs. */
function fakeFfmpeg(bytes: number) {
  const state = { runs: 0, running: 0, gate: null as Promise<void> | null };
  return {
    state,
    async run(args: string[], options: FfmpegRunOptions = {}) {
      state.runs++;
      state.running++;
      try {
        const output = args.at(-1) ?? '';
        writeFileSync(output, Buffer.alloc(bytes, 7));
        if (state.gate !== null) {
          const signal = options.signal;
          await Promise.race([
            state.gate,
            new Promise((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason))),
          ]);
        }
      } finally {
        state.running--;
      }
    },
  };
}

/** H.264 + AC-3 in MKV: `adaptive` on web (the audio is converted, the video copied). */
const ADAPTIVE = JSON.stringify(file('matroska', h264({ width: 640, height: 360 }), [audio('ac3', 2)]));

describe('ArtifactService with in-memory repositories', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'reelshelf-artifact-unit-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  function build(options: { bytes?: number; boundBytes?: number; slots?: ConversionSlots } = {}) {
    const data = mkdtempSync(join(dir, 'data-'));
    const store = new DataStore(data);
    const clock = steppingClock();
    const records = new InMemoryArtifactRecords();
    const files = new InMemoryMediaFiles();
    const jobs = new InMemoryJobs();
    const devices = new DeviceProfileService();
    const index = new ReadyArtifactIndex();
    const editions = new PlaybackEditionPresenter(
      devices,
      {
        policy: 'adaptive',
        transcodeAvailable: true,
        audioEncoders: ['aac', 'ac3', 'eac3', 'opus'],
        videoEncoders: ['h264'],
        ffmpegAvailable: true,
      },
      new PlaybackTokenService('k'.repeat(43), clock),
      index,
    );
    const slots = options.slots ?? new ConversionSlots(1);
    const cache = new PlaybackCache({
      usage: async () => (await store.usage('artifacts')).bytes + (await store.usage('segments')).bytes,
      boundBytes: options.boundBytes ?? 1e12,
    });
    const ffmpeg = fakeFfmpeg(options.bytes ?? 1000);
    const service = new ArtifactService({
      records,
      fenced: alwaysHeld(records),
      files,
      jobs,
      ffmpeg,
      ffmpegAvailable: true,
      transcodeAvailable: true,
      editions,
      devices,
      paths: { resolveInsideRoot: async (root, relative) => join(root, relative) },
      index,
      clock,
      store,
      slots,
      cache,
    });
    for (const id of [1, 2, 3]) {
      files.add({
        id,
        root_path: '/media',
        relative_path: `Film ${id} (2001).mkv`,
        capabilities_json: ADAPTIVE,
      });
    }
    return { service, records, files, jobs, index, ffmpeg, slots, store, data, cache };
  }

  it('a build is a job: building, then ready, its file committed and the ready index told', async () => {
    const t = build();
    const started = await t.service.start(1, 'web');
    assert.equal(started.status, 'building');
    await t.jobs.idle();
    const state = await t.service.state(1, 'web');
    assert.equal(state.status, 'ready');
    assert.ok(state.status === 'ready' && existsSync(state.artifact.path));
    assert.equal(state.status === 'ready' && state.artifact.size_bytes, 1000);
    assert.equal(existsSync(`${state.status === 'ready' ? state.artifact.path : ''}.part.mp4`), false);
    const row = [...t.records.rows.values()][0];
    assert.ok(row !== undefined);
    assert.equal(t.index.isReady({ id: 1, fingerprint: 'fp-1', size_bytes: 1_000_000 }, 'web'), true);
    // Asked again: nothing more is built.
    assert.equal((await t.service.start(1, 'web')).status, 'ready');
    assert.equal(t.ffmpeg.state.runs, 1);
  });

  it('a finished file wins over its job row still saying running (another node ending its build): ready, not growing', async () => {
    const t = build();
    const started = await t.service.start(1, 'web');
    assert.ok(started.status === 'building');
    await t.jobs.idle();
    t.jobs.rowStillRunning(started.jobId);
    // The prewarm state and a stream's target (start) both see the complete file: a stream served
    // as growing would send it without ranges, and players could not seek in it.
    assert.equal((await t.service.state(1, 'web')).status, 'ready');
    assert.equal((await t.service.start(1, 'web')).status, 'ready');
    assert.equal(t.ffmpeg.state.runs, 1);
    // Without its file the row is not ready: the job row says what goes on.
    const row = [...t.records.rows.values()][0];
    rmSync(row?.path ?? '');
    assert.equal((await t.service.state(1, 'web')).status, 'building');
  });

  it('a file that plays directly needs nothing; an unknown file is 404', async () => {
    const t = build();
    t.files.add({
      id: 9,
      root_path: '/media',
      relative_path: 'Direct (2001).mp4',
      capabilities_json: JSON.stringify(file('mp4', h264({ width: 640, height: 360 }), [audio('aac', 2)])),
    });
    assert.equal((await t.service.start(9, 'web')).status, 'not_needed');
    await assert.rejects(t.service.state(404, 'web'), { code: 'not_found' });
  });

  it('a build waits for a conversion slot (one limit with the HLS runs), then runs', async () => {
    const t = build();
    const player = t.slots.takeNow(); // an HLS run of a player holds the only slot
    await t.service.start(1, 'web');
    // Waited for, not timed: a fixed 50 ms was at times too short on a loaded machine (queued 0).
    await waitFor(
      () => t.slots.queued === 1,
      () => `the build to wait for the slot (queued ${t.slots.queued})`,
    );
    assert.equal(t.ffmpeg.state.runs, 0, 'no ffmpeg while the slot is held');
    assert.equal((await t.service.state(1, 'web')).status, 'building');
    player.release();
    await t.jobs.idle();
    assert.equal(t.ffmpeg.state.runs, 1);
    assert.equal((await t.service.state(1, 'web')).status, 'ready');
    assert.equal(t.slots.inUse, 0, 'the build gave its slot back');
  });

  it('a cancelled build leaves no file, its row cancelled, its slot free', async () => {
    const t = build();
    let letGo = () => {};
    t.ffmpeg.state.gate = new Promise<void>((resolve) => (letGo = resolve));
    await t.service.start(1, 'web');
    while (t.ffmpeg.state.running === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(t.slots.inUse, 1);
    assert.equal(await t.service.cancel(1, 'web'), true);
    letGo();
    assert.equal((await t.service.state(1, 'web')).status, 'cancelled');
    assert.deepEqual(await t.store.list('artifacts'), []);
    assert.equal(t.slots.inUse, 0);
  });

  it('after a build the cache keeps its bound: the least recently streamed goes, never the one just made', async () => {
    // Each artifact is 1000 bytes; the bound holds two.
    const t = build({ boundBytes: 2500 });
    for (const id of [1, 2]) {
      await t.service.start(id, 'web');
      await t.jobs.idle();
    }
    const keyOf = async (id: number) => {
      const s = await t.service.state(id, 'web');
      assert.equal(s.status, 'ready');
      return s.status === 'ready' ? s.artifact.artifact_key : '';
    };
    const [first, second] = [await keyOf(1), await keyOf(2)];
    // The first is streamed after the second was made: the second is now the least recently used.
    await t.service.touch(first);
    await t.service.start(3, 'web');
    await t.jobs.idle();
    assert.equal((await t.service.state(2, 'web')).status, 'not_ready', 'the least recently used went');
    assert.equal(await t.records.getByKey(second), undefined, 'its row too');
    assert.equal(t.index.isReady({ id: 2, fingerprint: 'fp-2', size_bytes: 1_000_000 }, 'web'), false);
    assert.equal((await t.service.state(1, 'web')).status, 'ready');
    assert.equal((await t.service.state(3, 'web')).status, 'ready');
    assert.equal((await t.store.usage('artifacts')).bytes, 2000);

    // A bound smaller than one artifact: the others go, the one just made stays.
    const tight = build({ boundBytes: 500 });
    for (const id of [1, 2]) {
      await tight.service.start(id, 'web');
      await tight.jobs.idle();
    }
    assert.equal((await tight.service.state(1, 'web')).status, 'not_ready');
    assert.equal((await tight.service.state(2, 'web')).status, 'ready', 'the one just made');
  });

  it('start-up: files no row names are removed, the ready ones indexed', async () => {
    const t = build();
    await t.service.start(1, 'web');
    await t.jobs.idle();
    await t.store.writeAtomic('artifacts', 'stray.mp4', Buffer.from('x'));
    const fresh = new ReadyArtifactIndex();
    const again = new ArtifactService({
      records: t.records,
      fenced: alwaysHeld(t.records),
      files: t.files,
      jobs: new InMemoryJobs(),
      ffmpeg: fakeFfmpeg(10),
      ffmpegAvailable: true,
      transcodeAvailable: true,
      editions: { decide: () => assert.fail('not asked'), capabilitiesOf: () => null, policy: 'adaptive' },
      devices: new DeviceProfileService(),
      paths: { resolveInsideRoot: async () => assert.fail('not asked') },
      index: fresh,
      clock: steppingClock(),
      store: t.store,
      slots: new ConversionSlots(1),
      cache: t.cache,
    });
    await again.load();
    assert.equal(fresh.isReady({ id: 1, fingerprint: 'fp-1', size_bytes: 1 }, 'web'), true);
    assert.equal((await t.store.list('artifacts')).length, 1, 'the stray file is gone, the artifact stays');
  });
});

/** One node here: a build always holds its job (fencing is tested with real nodes: artifact-takeover). */
function alwaysHeld(records: InMemoryArtifactRecords): UnitOfWork<ArtifactFencedWrites> {
  return { transaction: (work) => work({ records, jobs: { assertHeld: async () => undefined } }) };
}
