import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CONTRACT_HASH } from '@reelshelf/contract';
import { BARCODES, startFakeProviders } from '../../server/test/fakes/index.ts';
import { makeFixture } from '../../server/test/helpers/media.ts';
import { startTestServer, type TestServer } from '../../server/test/helpers/test-server.ts';
import { waitFor } from '../../server/test/helpers/wait.ts';
import { ContractMismatchError, ReelshelfApiError, ReelshelfClient } from '../src/index.ts';

describe('ReelshelfClient against a live server', () => {
  let t: TestServer;
  let client: ReelshelfClient;
  before(async () => {
    t = await startTestServer();
    client = new ReelshelfClient({ baseUrl: t.url, token: t.token });
  });
  after(async () => {
    await t.close();
  });

  it('health and contract', async () => {
    const health = await client.health();
    assert.equal(health.contract_hash, CONTRACT_HASH);
    const bundle = await client.contract();
    assert.equal(bundle.hash, CONTRACT_HASH);
  });

  it('movies: create, get, list, update, delete', async () => {
    const created = await client.createMovie({
      title: 'Alien',
      year: 1979,
      physical_copies: [{ binder: 'A', slot: '1' }],
    });
    assert.equal((await client.getMovie(created.id)).title, 'Alien');
    assert.equal((await client.listMovies({ q: 'alien' })).total, 1);
    assert.equal((await client.updateMovie(created.id, { year: 1980 })).year, 1980);
    const lib = await client.library('tv');
    assert.equal(lib.device, 'tv');
    assert.equal(lib.items.find((i) => i.movie_id === created.id)?.badge, 'on_disc');
    await client.deleteMovie(created.id);
    await assert.rejects(
      client.getMovie(created.id),
      (err: unknown) => err instanceof ReelshelfApiError && err.status === 404 && err.code === 'not_found',
    );
  });

  it('errors are typed ApiErrors', async () => {
    await assert.rejects(
      client.library('xbox'),
      (err: unknown) => err instanceof ReelshelfApiError && err.code === 'unknown_device',
    );
    const anonymous = new ReelshelfClient({ baseUrl: t.url });
    await assert.rejects(
      anonymous.library(),
      (err: unknown) => err instanceof ReelshelfApiError && err.status === 401,
    );
  });

  it('a client built for another contract raises ContractMismatchError naming both', async () => {
    const stale = new ReelshelfClient({ baseUrl: t.url, token: t.token, contractHash: 'a'.repeat(64) });
    await assert.rejects(stale.library(), (err: unknown) => err instanceof ContractMismatchError);
    await assert.rejects(stale.health(), (err: unknown) => {
      assert.ok(err instanceof ContractMismatchError);
      assert.equal(err.serverHash, CONTRACT_HASH);
      assert.match(err.message, /client 1\.1\.0 \(aaaaaaaaaaaa…\) vs server 1\.1\.0/);
      return true;
    });
  });

  it('a forged server hash raises ContractMismatchError', async () => {
    const forging: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      const headers = new Headers(res.headers);
      headers.set('x-contract-hash', 'b'.repeat(64));
      return new Response(await res.arrayBuffer(), { status: res.status, headers });
    };
    const c = new ReelshelfClient({ baseUrl: t.url, token: t.token, fetch: forging });
    await assert.rejects(c.health(), ContractMismatchError);
  });

  it('roots, scans, progress, prewarm and streams', async () => {
    const media = mkdtempSync(join(tmpdir(), 'reelshelf-client-media-'));
    try {
      // 400 s: 12 s in is a place to resume (the resume rule: films of 5 minutes or more).
      await makeFixture('h264_aac_long.mp4', join(media, 'Heat (1995)', 'Heat (1995).mp4'), 400);
      const root = await client.createLibraryRoot({ path: media, collection: 'Films' });
      assert.equal((await client.listLibraryRoots()).items.length, 1);
      assert.equal((await client.getLibraryRoot(root.id)).collection, 'Films');
      assert.deepEqual(
        (await client.collections()).items.map((c) => c.name),
        ['Films'],
      );
      const report = await client.scanAndWait(root.id);
      assert.equal(report.status, 'committed');
      assert.equal(report.counts.new, 1);
      const again = await client.startScan(root.id);
      const final = await waitFor(
        async () => {
          const r = await client.getScan(again.scan_id);
          return r.status === 'running' ? null : r;
        },
        () => `scan ${again.scan_id} to finish`,
        { timeoutMs: 60_000, intervalMs: 50 },
      );
      assert.equal(final.counts.unchanged, 1);
      const lib = await client.library('tv');
      const edition = lib.items.find((i) => i.title === 'Heat')?.editions[0];
      assert.ok(edition);
      const saved = await client.saveProgress(edition.media_file_id, {
        position_seconds: 12,
        watched: false,
      });
      assert.equal(saved.position_seconds, 0, 'the first 5 %: nothing to resume');
      const resumable = await client.saveProgress(edition.media_file_id, { position_seconds: 30 });
      assert.equal(resumable.position_seconds, 30);
      assert.equal((await client.prewarmStatus(edition.media_file_id)).status, 'not_needed');
      assert.equal((await client.prewarm(edition.media_file_id)).status, 'not_needed');
      assert.equal((await client.cancelPrewarm(edition.media_file_id)).status, 'not_building');
      const head = await fetch(client.streamUrl(edition), { method: 'HEAD' });
      assert.equal(head.status, 200);
      assert.ok((await client.devices()).items.some((d) => d.id === 'tv'));

      // Which URL to open: a TV prefers HLS even for a direct file; a browser opens the file itself.
      const onTv = await client.playback(edition.media_file_id, 'tv');
      assert.equal(onTv.prediction, 'direct');
      assert.equal(onTv.is_playable, true);
      assert.equal(onTv.stream_url, edition.stream_url);
      assert.match(onTv.hls_url ?? '', /^\/stream\/media_file\/\d+\/master\.m3u8\?device=tv&token=/);
      assert.ok(onTv.duration_seconds !== null && Math.abs(onTv.duration_seconds - 400) < 0.5);
      assert.deepEqual(onTv.subtitles, []);
      const onWeb = await client.playback(edition.media_file_id);
      assert.equal(onWeb.hls_url, null);
      assert.equal((await fetch(client.resolve(onWeb.stream_url), { method: 'HEAD' })).status, 200);
      await assert.rejects(
        client.playback(edition.media_file_id, 'xbox'),
        (err: unknown) => err instanceof ReelshelfApiError && err.code === 'unknown_device',
      );
      await assert.rejects(
        client.playback(2_000_000_000),
        (err: unknown) => err instanceof ReelshelfApiError && err.status === 404,
      );
      // Seek thumbnails: none served yet (off, or not made: which depends on REELSHELF_TRICKPLAY's
      // default once the job is wired), said as the API's own error code.
      await assert.rejects(
        client.trickplay(edition.media_file_id),
        (err: unknown) =>
          err instanceof ReelshelfApiError && /^trickplay_(off|not_made|pending)$/.test(err.code),
      );
      // The person's own plays: the saved position (no stream yet: device unknown), then the streams.
      const history = await client.history({ limit: 10 });
      assert.ok(history.total >= 2);
      assert.ok(history.items.some((i) => i.device === 'unknown' && i.position_seconds === 30));
      assert.ok(history.items.some((i) => i.device === 'tv' && i.mode === 'direct' && i.title === 'Heat'));
      assert.deepEqual(
        (await client.continueWatching()).items.map((i) => [i.title, i.position_seconds]),
        [['Heat', 30]],
      );
      // What plays now, and an admin's stop: the TV play's URL is refused afterwards.
      const onTvNow = (await client.activePlays()).items.find((i) => i.device === 'tv');
      assert.ok(onTvNow);
      const { stopped } = await client.stopPlay(onTvNow.id);
      assert.equal(stopped.title, 'Heat');
      assert.equal((await fetch(client.streamUrl(edition), { method: 'HEAD' })).status, 401);
      await client.deleteLibraryRoot(root.id);
      assert.equal((await client.listLibraryRoots()).items.length, 0);
    } finally {
      rmSync(media, { recursive: true, force: true });
    }
  });

  it('resolves relative stream URLs', () => {
    assert.equal(
      client.resolve('/stream/media_file/3?device=tv&token=x'),
      `${t.url}/stream/media_file/3?device=tv&token=x`,
    );
  });
});

describe('ReelshelfClient: barcodes and artwork (fake providers)', () => {
  it('looks up, adds a disc, fetches artwork and reads it', async () => {
    const fakes = await startFakeProviders();
    const t = await startTestServer(fakes.env);
    try {
      const client = new ReelshelfClient({ baseUrl: t.url, token: t.token });
      const found = await client.lookupBarcode(BARCODES.inceptionBluRay);
      assert.equal(found.cleaned_title, 'Inception');
      const added = await client.addBarcode(BARCODES.inceptionBluRay, { binder: 'A' });
      assert.equal(added.physical_copy.slot, '1');
      await assert.rejects(
        client.addBarcode(BARCODES.inceptionBluRay),
        (err: unknown) => err instanceof ReelshelfApiError && err.code === 'already_owned',
      );
      const job = await client.fetchArtwork([added.movie.id]);
      assert.equal(job.status, 'succeeded');
      const image = await client.artwork(added.movie.id, 'poster', 92);
      assert.ok(image.length > 100);
    } finally {
      await t.close();
      await fakes.close();
    }
  });
});
