import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DataStore } from '../../../../src/adapters/data-store.ts';
import type { FfmpegRunOptions } from '../../../../src/adapters/ffmpeg.ts';
import { AppError } from '../../../../src/errors.ts';
import { HlsRunRepository } from '../../../../src/repositories/hls-run.repository.ts';
import { ReadyArtifactIndex } from '../../../../src/services/playback/artifact-index.ts';
import { ArtifactService } from '../../../../src/services/playback/artifact.service.ts';
import { ConversionSlots } from '../../../../src/services/playback/conversion-slots.ts';
import { DeviceProfileService } from '../../../../src/services/playback/device-profile.service.ts';
import { PlaybackEditionPresenter } from '../../../../src/services/playback/edition-presenter.ts';
import { type HlsDeps, HlsService } from '../../../../src/services/playback/hls.service.ts';
import { PlaybackCache } from '../../../../src/services/playback/playback-cache.ts';
import { PlaybackTokenService } from '../../../../src/services/playback/playback-token.service.ts';
import {
  InMemoryArtifactRecords,
  InMemoryJobs,
  InMemoryMediaFiles,
} from '../../../fakes/playback-repositories.ts';
import { openTestDatabase } from '../../../helpers/test-database.ts';
import { waitFor } from '../../../helpers/wait.ts';
import { audio, file, video } from '../../playback/fixtures.ts';

/** MPEG-2 + AC-3 in MKV, 40 s: `transcode` on web, ten segments of 4 s. */
const TRANSCODE = JSON.stringify(
  file('matroska', video('mpeg2video', { width: 640, height: 360, frame_rate: 25 }), [audio('ac3', 2)], [], {
    duration_seconds: 40,
  }),
);

/** ffmpeg that writes nothing and runs until stopped: which runs started, and where. */
function idleFfmpeg() {
  const runs: { startSeconds: number; stopped: boolean }[] = [];
  return {
    runs,
    run(args: string[], options: FfmpegRunOptions = {}): Promise<void> {
      const at = args.indexOf('-ss');
      const entry = { startSeconds: at === -1 ? 0 : Number(args[at + 1]), stopped: false };
      runs.push(entry);
      return new Promise((_, reject) => {
        options.signal?.addEventListener('abort', () => {
          entry.stopped = true;
          reject(options.signal?.reason);
        });
      });
    },
  };
}

/**
 * Lets requests that are past their presentation's set-up (each test makes it first, awaited) reach
 * their decision (a few reads of the run row); where the test can see the state it waits for, it
 * waits for that instead (`hls.waiting()`, the slot queue).
 */
const settle = () => new Promise((resolve) => setTimeout(resolve, 100));

describe('HlsService with in-memory repositories (and the run rows in a real database): runs, slots, restarts', () => {
  let dir: string;
  const databases: { close(): Promise<void> }[] = [];
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'reelshelf-hls-unit-'));
  });
  after(async () => {
    for (const db of databases) await db.close();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** One node alone on its own database (what SQLite is), as the job runner would name it. */
  async function build(maxConversions = 1, trickplay?: HlsDeps['trickplay'], log?: HlsDeps['log']) {
    const database = await openTestDatabase();
    databases.push(database);
    const store = new DataStore(mkdtempSync(join(dir, 'data-')));
    const clock = { now: () => new Date() };
    const files = new InMemoryMediaFiles();
    files.add({ id: 1, root_path: '/media', relative_path: 'Film (2001).mkv', capabilities_json: TRANSCODE });
    const devices = new DeviceProfileService();
    const index = new ReadyArtifactIndex();
    const editions = new PlaybackEditionPresenter(
      devices,
      {
        policy: 'adaptive',
        transcodeAvailable: true,
        audioEncoders: ['aac'],
        videoEncoders: ['h264'],
        ffmpegAvailable: true,
      },
      new PlaybackTokenService('k'.repeat(43), clock),
      index,
    );
    const slots = new ConversionSlots(maxConversions);
    const cache = new PlaybackCache({ usage: async () => 0, boundBytes: 1e12 });
    const paths = { resolveInsideRoot: async (root: string, relative: string) => join(root, relative) };
    const records = new InMemoryArtifactRecords();
    const artifacts = new ArtifactService({
      records,
      // One node: a build always holds its job.
      fenced: { transaction: (work) => work({ records, jobs: { assertHeld: async () => undefined } }) },
      files,
      jobs: new InMemoryJobs(),
      ffmpeg: { run: async () => assert.fail('no progressive build here') },
      ffmpegAvailable: true,
      transcodeAvailable: true,
      editions,
      devices,
      paths,
      index,
      clock,
      store,
      slots,
      cache,
    });
    const ffmpeg = idleFfmpeg();
    const hls = new HlsService({
      ffmpeg,
      ffmpegAvailable: true,
      artifacts,
      editions,
      paths,
      keyframes: { keyframesOf: async () => assert.fail('encoded video needs no keyframe index') },
      store,
      slots,
      cluster: {
        repo: new HlsRunRepository(database.db),
        node: () => ({ id: 'unit-node', role: 'all', host: 'unit-host' }),
        peers: () => [],
        pidAlive: () => true,
      },
      cache,
      threads: 1,
      idleMs: 60_000,
      ...(trickplay === undefined ? {} : { trickplay }),
      ...(log === undefined ? {} : { log }),
    });
    /** A request that has not settled yet, and how it settled. */
    const pending = <T>(promise: Promise<T>) => {
      const out: { done: boolean; error: unknown } = { done: false, error: null };
      promise.then(
        () => (out.done = true),
        (err: unknown) => {
          out.done = true;
          out.error = err;
        },
      );
      return out;
    };
    return { hls, slots, ffmpeg, pending };
  }

  it('the master announces a made set of seek thumbnails; a reader that fails leaves the line out, not the film', async () => {
    const layout = {
      intervalMs: 10_000,
      thumbnailWidth: 320,
      thumbnailHeight: 180,
      tileWidth: 3,
      tileHeight: 6,
      thumbnailCount: 4,
    };
    const made = {
      fileId: 1,
      generation: 9,
      mode: 'keyframes' as const,
      layout: { ...layout, tileWidth: 10, tileHeight: 10 },
      sheetBytes: [40_000],
      roku: { layout, sheetBytes: [18_000] },
      bifBytes: 50_000,
      madeAt: '2026-11-26T08:00:00.000Z',
    };
    const ready = await build(1, { made: async () => made });
    const text = await ready.hls.masterPlaylist(1, 'web', 'device=web&token=t');
    // 18,000 bytes × 8 / 18 thumbnails / 10 s = 800 b/s.
    assert.match(
      text,
      /\n#EXT-X-IMAGE-STREAM-INF:BANDWIDTH=800,RESOLUTION=320x180,CODECS="jpeg",URI="trickplay\/tiles\.m3u8\?device=web&token=t"\n$/,
    );
    await ready.hls.close();
    const warnings: unknown[] = [];
    const broken = await build(
      1,
      { made: () => Promise.reject(new Error('database is locked')) },
      { warn: (obj) => warnings.push(obj) },
    );
    const plain = await broken.hls.masterPlaylist(1, 'web', 'q');
    assert.match(plain, /^#EXTM3U\n/);
    assert.doesNotMatch(plain, /IMAGE-STREAM-INF/);
    assert.equal(warnings.length, 1);
    await broken.hls.close();
  });

  it('a player that finds every slot held gets 503 conversions_busy with Retry-After', async () => {
    const t = await build(1);
    const build1 = t.slots.takeNow(); // a progressive build holds the machine's only slot
    await assert.rejects(t.hls.segment(1, 'web', 'v', 0), (err: unknown) => {
      assert.ok(err instanceof AppError);
      assert.equal(err.code, 'conversions_busy');
      assert.equal(err.status, 503);
      assert.match(err.headers?.['retry-after'] ?? '', /^\d+$/);
      return true;
    });
    assert.equal(t.ffmpeg.runs.length, 0);
    build1.release();
    await t.hls.close();
  });

  it('a segment the running run reaches soon is waited for: one run for two players', async () => {
    const t = await build(1);
    await t.hls.masterPlaylist(1, 'web', 'q');
    const first = t.pending(t.hls.segment(1, 'web', 'v', 0));
    await waitFor(
      () => t.hls.waiting() === 1,
      () => `the first player to wait (${String(first.error)})`,
    );
    const second = t.pending(t.hls.segment(1, 'web', 'v', 1)); // 4 s further: within reach
    await waitFor(
      () => t.hls.waiting() === 2,
      () => `the second player to wait (${String(second.error)})`,
    );
    assert.equal(t.ffmpeg.runs.length, 1, 'the second player joined the run');
    assert.equal(t.hls.running(), 1);
    assert.equal(first.done || second.done, false);
    await t.hls.close();
  });

  it('a seek far ahead restarts the run there on the same slot; an init asked meanwhile is no 503', async () => {
    const t = await build(1);
    await t.hls.masterPlaylist(1, 'web', 'q');
    // The player's init starts a run at the start (a request that waits without holding the run).
    const init = t.pending(t.hls.init(1, 'web', 'v'));
    await waitFor(
      () => t.ffmpeg.runs.length === 1,
      () => `the first run (${String(init.error)})`,
    );
    // A seek to 32 s: far beyond what the run reaches soon, and nobody waits for its segments.
    const seek = t.pending(t.hls.segment(1, 'web', 'v', 8));
    const audioInit = t.pending(t.hls.init(1, 'web', 'a0'));
    // The two inits and the seek wait (none refused).
    await waitFor(
      () => t.hls.waiting() === 3 || seek.done || audioInit.done || init.done,
      () => `the three requests to wait (${String(seek.error)}, ${String(audioInit.error)})`,
    );
    assert.equal(t.ffmpeg.runs.length, 2, 'restarted once');
    assert.equal(t.ffmpeg.runs[0]?.stopped, true, 'the old run was stopped');
    assert.equal(t.ffmpeg.runs[1]?.startSeconds, 32, 'the new run starts at the segment asked for');
    assert.equal(t.slots.inUse, 1, 'the new run took over the old run’s slot');
    for (const request of [init, seek, audioInit]) {
      assert.equal(request.done, false, `still waiting, not refused: ${String(request.error)}`);
    }
    await t.hls.close();
    await settle();
    assert.equal(t.slots.inUse, 0, 'shutdown gave the slot back');
  });

  it('a prewarm waits for a slot instead of failing, and its run is not stopped for a player it will serve', async () => {
    const t = await build(1);
    await t.hls.masterPlaylist(1, 'tv', 'q');
    const player = t.slots.takeNow();
    const controller = new AbortController();
    const prewarm = t.pending(t.hls.prepareAll(1, 'tv', controller.signal, () => undefined));
    await waitFor(
      () => t.slots.queued === 1 || prewarm.done,
      () => 'the prewarm to ask for a slot',
    );
    assert.equal(t.slots.queued, 1, 'waiting its turn');
    assert.equal(t.ffmpeg.runs.length, 0);
    player.release();
    await waitFor(
      () => t.ffmpeg.runs.length === 1,
      () => 'the prewarm to run once the slot is free',
    );
    // A player of the same presentation asks far ahead: the prewarm's run will make it, so it waits.
    const seek = t.pending(t.hls.segment(1, 'tv', 'v', 9));
    // The prewarm waits for its run's segments, the player for segment 9.
    await waitFor(
      () => t.hls.waiting() === 2 || seek.done,
      () => `the player to wait (${String(seek.error)})`,
    );
    assert.equal(t.ffmpeg.runs.length, 1, 'not restarted for the player');
    assert.equal(t.ffmpeg.runs[0]?.stopped, false);
    controller.abort(new Error('cancelled'));
    await waitFor(
      () => prewarm.done,
      () => 'the prewarm to end when cancelled',
    );
    assert.equal(seek.done, false);
    await t.hls.close();
  });
});
