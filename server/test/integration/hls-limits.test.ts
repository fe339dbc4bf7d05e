import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { registerFiles } from '../helpers/library-fixtures.ts';
import { fixtureFfmpeg } from '../helpers/media.ts';
import { ADMIN, startTestServer, type TestServer } from '../helpers/test-server.ts';
import { waitFor } from '../helpers/wait.ts';

const run = promisify(execFile);

/** MPEG-2 + AC-3 in MKV: `transcode` on web. */
async function makeTranscode(path: string, seconds: number, frequency = 440): Promise<string> {
  await run(fixtureFfmpeg, [
    ...['-hide_banner', '-loglevel', 'error', '-y'],
    ...['-f', 'lavfi', '-i', `testsrc2=duration=${seconds}:size=320x240:rate=25`],
    ...['-f', 'lavfi', '-i', `sine=frequency=${frequency}:duration=${seconds}:sample_rate=48000`],
    ...['-map', '0:v', '-map', '1:a', '-c:v', 'mpeg2video', '-q:v', '5', '-c:a', 'ac3', '-ac', '2', path],
  ]);
  return path;
}

/**
 * The server's ffmpeg reads its input at half real time (`-readrate 0.5`), as a machine too slow for
 * the conversion would: runs last long enough to be seen, measured and stopped, without a sleep.
 */
function halfSpeedFfmpeg(dir: string, rate = 0.5): string {
  const path = join(dir, `ffmpeg-at-${rate}x`);
  writeFileSync(path, `#!/bin/sh\nexec '${fixtureFfmpeg.replaceAll("'", "'\\''")}' -readrate ${rate} "$@"\n`);
  chmodSync(path, 0o755);
  return path;
}

describe('HLS conversion limits: slots, idle players, slow machines', () => {
  let t: TestServer;
  let dir: string;
  let ids: Record<string, { movieId: number; fileId: number }>;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'reelshelf-hls-limits-'));
    const files = {
      first: await makeTranscode(join(dir, 'First (2001).mkv'), 12),
      second: await makeTranscode(join(dir, 'Second (2002).mkv'), 12, 660),
    };
    // A 4-second film (one segment) for the tests that need a run to end soon.
    await makeTranscode(join(dir, 'Short (2005).mkv'), 4, 880);
    // The same content under another name (a copy on another disk): one presentation with the first.
    copyFileSync(files.first, join(dir, 'First Copy (2001).mkv'));
    Object.assign(files, { copy: join(dir, 'First Copy (2001).mkv') });
    t = await startTestServer(
      {
        REELSHELF_FFMPEG: halfSpeedFfmpeg(dir),
        REELSHELF_MAX_CONVERSIONS: '1',
        REELSHELF_HLS_IDLE_SECONDS: '1',
      },
      { hlsSlowWarningMs: 500 },
    );
    ids = await registerFiles(t.server.database.db, dir, files);
    await t.server.services.analysis.analyzePending();
    // As a scan would fingerprint them: the copy has the first film's fingerprint.
    await t.server.database.db
      .updateTable('media_files')
      .set({ fingerprint: 'oshash-of-first-film' })
      .where('id', 'in', [ids.first?.fileId ?? 0, ids.copy?.fileId ?? 0])
      .execute();
  });
  after(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const segment = (name: string, index: number) => {
    const id = ids[name]?.fileId ?? 0;
    const q = new URLSearchParams({ device: 'web', token: t.server.services.tokens.sign(id, 'web', ADMIN) });
    return fetch(`${t.url}/stream/media_file/${id}/hls/v/${index}.m4s?${q}`);
  };

  it('one slot: a second film waits its turn (503 + Retry-After); a slow run is a warning; an idle run stops', async () => {
    const hls = t.server.services.hls;
    const first = segment('first', 0);
    await waitFor(
      () => hls.running() === 1,
      () => 'the first conversion to start',
    );
    // A copy of the first film's content joins its run instead of taking a slot…
    const copy = segment('copy', 0);
    // …while another film finds the one slot taken.
    const busy = await segment('second', 0);
    assert.equal(busy.status, 503);
    assert.match(busy.headers.get('retry-after') ?? '', /^\d+$/);
    const body = (await busy.json()) as { error: string; hint: string };
    assert.equal(body.error, 'conversions_busy');
    assert.ok(body.hint.length > 0);

    // Below real time for longer than the warning delay: the playback endpoint says so.
    const firstId = ids.first?.fileId ?? 0;
    const warnings = await waitFor(
      async () => {
        const res = await t.api(`/api/media-file/${firstId}/playback?device=web`);
        const info = (await res.json()) as { warnings: string[] };
        return info.warnings.length > 0 ? info.warnings : null;
      },
      () => 'a slow-conversion warning',
      { timeoutMs: 15_000, intervalMs: 100 },
    );
    assert.match(warnings[0] ?? '', /real time/);

    // The waiting request gets its segment (a wait is not idleness)…
    const res = await first;
    assert.equal(res.status, 200);
    const bytes = Buffer.from(await res.arrayBuffer());
    const copied = await copy;
    assert.equal(copied.status, 200);
    assert.deepEqual(Buffer.from(await copied.arrayBuffer()), bytes, 'the copy got the same segment');
    assert.equal(hls.counts.runsStarted, 1, 'one run for the film and its copy');
    // …then nobody asks for more: the run stops long before the film's end (12 s at 0.5x = 24 s).
    const startedAt = Date.now();
    await waitFor(
      () => hls.running() === 0,
      () => 'the idle run to stop',
      { timeoutMs: 8_000, intervalMs: 50 },
    );
    assert.ok(Date.now() - startedAt < 8_000);
    // The slot is free again: the second film converts now.
    const now = await segment('second', 0);
    assert.equal(now.status, 200);
    await now.arrayBuffer();
  });

  it('two players far apart take turns: each gets its segment, neither run is stopped before it serves', async () => {
    // Real time: a run needs ~4 s per segment, so two players that stopped each other's runs at
    // every request would never be served (each request waits at most 15 s).
    const realTime = await startTestServer({ REELSHELF_FFMPEG: halfSpeedFfmpeg(dir, 1) });
    try {
      const played = await registerFiles(realTime.server.database.db, dir, {
        far: join(dir, 'Second (2002).mkv'),
      });
      await realTime.server.services.analysis.analyzePending();
      const id = played.far?.fileId ?? 0;
      const q = new URLSearchParams({
        device: 'web',
        token: realTime.server.services.tokens.sign(id, 'web', ADMIN),
      });
      const get = (index: number) => fetch(`${realTime.url}/stream/media_file/${id}/hls/v/${index}.m4s?${q}`);
      const [start, end] = await Promise.all([get(0), get(2)]);
      assert.equal(start.status, 200, 'the player at the start');
      assert.equal(end.status, 200, 'the player near the end');
      await start.arrayBuffer();
      await end.arrayBuffer();
      const runs = realTime.server.services.hls.counts.runsStarted;
      assert.ok(runs <= 3, `${runs} conversion runs for two segments: the players stopped each other's runs`);
    } finally {
      await realTime.close();
    }
  });

  it('a prewarm that finds every slot taken waits its turn instead of failing', async () => {
    const short = join(dir, 'Short (2005).mkv');
    const realTime = await startTestServer({
      REELSHELF_FFMPEG: halfSpeedFfmpeg(dir, 1),
      REELSHELF_MAX_CONVERSIONS: '1',
      REELSHELF_HLS_IDLE_SECONDS: '1',
    });
    try {
      const files = await registerFiles(realTime.server.database.db, dir, {
        playing: join(dir, 'Second (2002).mkv'),
        prewarmed: short,
      });
      await realTime.server.services.analysis.analyzePending();
      const hls = realTime.server.services.hls;
      const playing = files.playing?.fileId ?? 0;
      const prewarmed = files.prewarmed?.fileId ?? 0;
      const q = new URLSearchParams({
        device: 'web',
        token: realTime.server.services.tokens.sign(playing, 'web', ADMIN),
      });
      const segment = fetch(`${realTime.url}/stream/media_file/${playing}/hls/v/0.m4s?${q}`);
      await waitFor(
        () => hls.running() === 1,
        () => 'the player to take the one slot',
      );
      const started = await realTime.api(`/api/media-file/${prewarmed}/prewarm-tv`, { method: 'POST' });
      assert.equal(started.status, 202);
      const state = async () =>
        ((await (await realTime.api(`/api/media-file/${prewarmed}/prewarm-tv`)).json()) as { status: string })
          .status;
      assert.equal(await state(), 'building', 'waiting for the slot is building, not a failure');
      assert.equal((await segment).status, 200);
      await waitFor(
        async () => ((await state()) === 'ready' ? true : null),
        () => 'the prewarm to finish once the player let the slot go',
        { timeoutMs: 60_000, intervalMs: 100 },
      );
    } finally {
      await realTime.close();
    }
  });

  it('segments count towards the cache bound: an old presentation goes, the one just played stays', async () => {
    const bounded = await startTestServer({ REELSHELF_ARTIFACT_CACHE_MB: '16' });
    try {
      // What an earlier play left: 20 MB of segments of a presentation nobody plays now.
      const old = join(bounded.dataDir, 'segments', 'an-earlier-presentation', 'v');
      mkdirSync(old, { recursive: true });
      writeFileSync(join(old, '0.m4s'), Buffer.alloc(20 * 1024 * 1024, 1));
      const files = await registerFiles(bounded.server.database.db, dir, {
        played: join(dir, 'Short (2005).mkv'),
      });
      await bounded.server.services.analysis.analyzePending();
      const id = files.played?.fileId ?? 0;
      const q = new URLSearchParams({
        device: 'web',
        token: bounded.server.services.tokens.sign(id, 'web', ADMIN),
      });
      const res = await fetch(`${bounded.url}/stream/media_file/${id}/hls/v/0.m4s?${q}`);
      assert.equal(res.status, 200);
      const bytes = Buffer.from(await res.arrayBuffer());
      await waitFor(
        () => !existsSync(join(bounded.dataDir, 'segments', 'an-earlier-presentation')),
        () => 'the old presentation to be evicted once the run ended',
      );
      const again = await fetch(`${bounded.url}/stream/media_file/${id}/hls/v/0.m4s?${q}`);
      assert.deepEqual(Buffer.from(await again.arrayBuffer()), bytes, 'the presentation just played is kept');
      assert.equal(bounded.server.services.hls.counts.runsStarted, 1, 'served from the cache, no second run');
    } finally {
      await bounded.close();
    }
  });
});
