import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { LibraryResponse } from '@reelshelf/contract';
import { signPlaybackToken } from '../../src/domain/playback-token.ts';
import { registerFiles } from '../helpers/library-fixtures.ts';
import { makeFixture } from '../helpers/media.ts';
import { testEngine } from '../helpers/test-database.ts';
import { ADMIN, contract, startTestServer, type TestServer } from '../helpers/test-server.ts';
import { waitFor } from '../helpers/wait.ts';

const run = promisify(execFile);

async function streamUrl(t: TestServer, movieId: number, device: string): Promise<string> {
  const body = (await (await t.api(`/library?device=${device}`)).json()) as LibraryResponse;
  const item = body.items.find((i) => i.movie_id === movieId);
  const edition = item?.editions[item.default_edition_index];
  assert.ok(edition, `edition of movie ${movieId}`);
  return `${t.url}${edition.stream_url}`;
}

async function get(url: string, headers: Record<string, string> = {}, method = 'GET') {
  const res = await fetch(url, { method, headers });
  const body = Buffer.from(await res.arrayBuffer());
  return { res, body };
}

function headersOf(res: Response): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of [
    'content-type',
    'content-length',
    'content-range',
    'accept-ranges',
    'etag',
    'last-modified',
  ]) {
    const v = res.headers.get(name);
    if (v !== null) out[name] = v;
  }
  return out;
}

async function prewarm(t: TestServer, fileId: number, method: string) {
  const res = await t.api(`/api/media-file/${fileId}/prewarm-tv`, { method });
  const body: unknown = await res.json();
  const check = contract.validate('prewarm', body);
  assert.ok(check.ok, `${method} prewarm body validates: ${JSON.stringify(body)}`);
  return { status: res.status, body: body as { status: string; reason?: string; message?: string } };
}

function ffmpegProcessesFor(fragment: string): number {
  let n = 0;
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (cmd.includes('ffmpeg') && cmd.includes(fragment)) n++;
    } catch {
      // process ended while we looked
    }
  }
  return n;
}

describe('streaming and prewarm', () => {
  let t: TestServer;
  let media: string;
  let dataDir: string;
  let ids: Record<string, { movieId: number; fileId: number }>;
  let file: Record<string, string>;

  before(async () => {
    media = mkdtempSync(join(tmpdir(), 'reelshelf-stream-media-'));
    dataDir = mkdtempSync(join(tmpdir(), 'reelshelf-stream-data-'));
    file = {
      direct: await makeFixture('h264_aac.mp4', join(media, 'direct.mp4'), 4),
      dts: await makeFixture('h264_dts.mkv', join(media, 'dts.mkv'), 6),
      long: await makeFixture('mpeg2_720p.mkv', join(media, 'long.mkv'), 30),
      garbage: await makeFixture('garbage.mkv', join(media, 'garbage.mkv')),
    };
    t = await startTestServer({ REELSHELF_DATA_DIR: dataDir });
    ids = await registerFiles(t.server.database.db, media, file);
    await t.server.services.analysis.analyzePending();
  });
  after(async () => {
    await t.close();
    rmSync(media, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });

  const id = (name: string) => ids[name]?.fileId ?? 0;
  const movie = (name: string) => ids[name]?.movieId ?? 0;

  it('direct: 200 and 206 with exact bytes and headers', async () => {
    const url = await streamUrl(t, movie('direct'), 'web');
    const bytes = readFileSync(file.direct ?? '');
    const size = bytes.length;
    const full = await get(url);
    assert.equal(full.res.status, 200);
    assert.ok(full.body.equals(bytes));
    assert.equal(full.res.headers.get('accept-ranges'), 'bytes');
    assert.equal(full.res.headers.get('content-length'), String(size));
    assert.equal(full.res.headers.get('content-type'), 'video/mp4');
    const etag = full.res.headers.get('etag') ?? '';
    assert.match(etag, /^"[^"]+"$/, 'strong ETag');
    assert.ok(full.res.headers.get('last-modified'));

    const cases: [string, number, number][] = [
      ['bytes=0-99', 0, 99],
      ['bytes=100-', 100, size - 1],
      ['bytes=-50', size - 50, size - 1],
      [`bytes=-${size * 10}`, 0, size - 1],
      [`bytes=10-${size * 10}`, 10, size - 1],
      ['bytes=0-9,20-29', 0, 9],
      [`bytes=${size - 1}-`, size - 1, size - 1],
    ];
    for (const [range, start, end] of cases) {
      const part = await get(url, { range });
      assert.equal(part.res.status, 206, range);
      assert.equal(part.res.headers.get('content-range'), `bytes ${start}-${end}/${size}`, range);
      assert.equal(part.res.headers.get('content-length'), String(end - start + 1), range);
      assert.equal(part.res.headers.get('accept-ranges'), 'bytes');
      assert.ok(part.body.equals(bytes.subarray(start, end + 1)), `body of ${range}`);
    }
    for (const range of [`bytes=${size}-`, `bytes=${size + 100}-${size + 200}`, 'bytes=-0']) {
      const bad = await get(url, { range });
      assert.equal(bad.res.status, 416, range);
      assert.equal(bad.res.headers.get('content-range'), `bytes */${size}`);
    }
    for (const range of ['bytes=5-2', 'items=0-5', 'bytes=abc']) {
      const ignored = await get(url, { range });
      assert.equal(ignored.res.status, 200, `${range} is ignored`);
    }
    const same = await get(url, { range: 'bytes=0-9', 'if-range': etag });
    assert.equal(same.res.status, 206);
    const stale = await get(url, { range: 'bytes=0-9', 'if-range': '"stale-validator"' });
    assert.equal(stale.res.status, 200, 'stale If-Range gives the whole file');
    assert.ok(stale.body.equals(bytes));
    const weak = await get(url, { range: 'bytes=0-9', 'if-range': `W/${etag}` });
    assert.equal(weak.res.status, 200, 'a weak validator never matches');
  });

  it('a client that disconnects releases the file descriptor at once', async () => {
    const url = await streamUrl(t, movie('long'), 'full');
    const openFds = () =>
      readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`) === file.long;
        } catch {
          return false;
        }
      }).length;
    const controller = new AbortController();
    const res = await fetch(url, { signal: controller.signal });
    assert.equal(res.status, 200);
    const reader = res.body?.getReader();
    await reader?.read();
    assert.equal(openFds(), 1, 'the file is open while streaming');
    controller.abort();
    const deadline = Date.now() + 2000;
    while (openFds() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal(openFds(), 0, 'closed after the client went away');
  });

  it('HEAD answers with the headers a GET without Range would send (RFC 9110 §14.2)', async () => {
    const url = await streamUrl(t, movie('direct'), 'web');
    const g = await get(url);
    assert.equal(g.res.status, 200);
    const variants: Record<string, string>[] = [{}, { range: 'bytes=10-20' }, { range: 'bytes=-5' }];
    for (const headers of variants) {
      const h = await get(url, headers, 'HEAD');
      assert.equal(h.res.status, 200, JSON.stringify(headers));
      assert.deepEqual(headersOf(h.res), headersOf(g.res));
      assert.equal(h.body.length, 0);
    }
  });

  it('tokens: missing, forged, expired, another file or device: 401', async () => {
    const url = new URL(await streamUrl(t, movie('direct'), 'web'));
    const token = url.searchParams.get('token') ?? '';
    const base = `${t.url}/stream/media_file/${id('direct')}`;
    // The signing key every node shares lives in the database (migration 0010).
    const { value: key } = await t.server.database.db
      .selectFrom('server_secrets')
      .select('value')
      .where('name', '=', 'playback-key')
      .executeTakeFirstOrThrow();
    const expired = signPlaybackToken(key, {
      mediaFileId: id('direct'),
      device: 'web',
      expiresAt: 1_000_000,
      holder: ADMIN,
    });
    const unauthorized = [
      `${base}?device=web`,
      `${base}?device=web&token=${token.slice(0, -2)}xx`,
      `${base}?device=web&token=${encodeURIComponent(expired)}`,
      `${t.url}/stream/media_file/${id('dts')}?device=web&token=${token}`,
      `${base}?device=tv&token=${token}`,
    ];
    for (const u of unauthorized) {
      const res = await fetch(u);
      assert.equal(res.status, 401, u);
      const body = (await res.json()) as { error: string };
      assert.equal(body.error, 'unauthorized');
    }
    const admin = await fetch(`${base}?device=web`, {
      headers: { authorization: `Bearer ${t.token}` },
      method: 'HEAD',
    });
    assert.equal(admin.status, 200, 'the admin bearer is accepted too');
  });

  it('real clients: ffprobe reads the duration and ffmpeg seeks, over HTTP', async () => {
    const url = await streamUrl(t, movie('direct'), 'web');
    const { stdout } = await run('ffprobe', [
      '-v',
      'error',
      '-show_entries',
      'format=duration',
      '-of',
      'csv=p=0',
      url,
    ]);
    assert.ok(Math.abs(Number(stdout.trim()) - 4) < 0.2, `duration ${stdout}`);
    await run('ffmpeg', ['-v', 'error', '-ss', '2.5', '-i', url, '-frames:v', '1', '-f', 'null', '-']);
  });

  it('a file nothing can play answers 400 with the incompatibility', async () => {
    const res = await t.api(`/stream/media_file/${id('garbage')}?device=web`);
    assert.equal(res.status, 400);
    const body = (await res.json()) as {
      error: string;
      incompatibility: unknown;
      policy: string;
      videoTranscodeAvailable: boolean;
    };
    assert.ok(contract.is('apiError', body));
    assert.ok(contract.is('incompatibility', body.incompatibility));
    assert.equal((body.incompatibility as { type: string }).type, 'unknown');
    assert.equal(body.policy, 'adaptive');
  });

  it('prewarm an MKV H.264 + DTS for the TV: not_ready → building with a percentage → ready → MP4 stream', async () => {
    const before = await prewarm(t, id('dts'), 'GET');
    assert.equal(before.body.status, 'not_ready');
    const started = await prewarm(t, id('dts'), 'POST');
    assert.equal(started.status, 202);
    assert.equal(started.body.status, 'building');
    assert.match(started.body.message ?? '', /\d+(\.\d)?%/);
    let state = started.body;
    const deadline = Date.now() + 60_000;
    while (state.status === 'building') {
      assert.ok(Date.now() < deadline, 'build finished in time');
      await new Promise((r) => setTimeout(r, 100));
      state = (await prewarm(t, id('dts'), 'GET')).body;
      if (state.status === 'building') assert.match(state.message ?? '', /\d+(\.\d)?%/);
    }
    assert.equal(state.status, 'ready');
    const again = await prewarm(t, id('dts'), 'POST');
    assert.equal(again.status, 200);
    assert.equal(again.body.status, 'ready');
    const url = await streamUrl(t, movie('dts'), 'tv');
    const { stdout } = await run('ffprobe', [
      '-v',
      'error',
      '-show_entries',
      'format=format_name:stream=codec_name,codec_type',
      '-of',
      'json',
      url,
    ]);
    const probe = JSON.parse(stdout) as {
      format: { format_name: string };
      streams: { codec_name: string; codec_type: string }[];
    };
    assert.match(probe.format.format_name, /mp4/);
    const audio = probe.streams.find((s) => s.codec_type === 'audio');
    assert.ok(
      audio !== undefined && ['aac', 'eac3'].includes(audio.codec_name),
      `audio ${audio?.codec_name}`,
    );
    await run('ffmpeg', ['-v', 'error', '-ss', '3', '-i', url, '-frames:v', '1', '-f', 'null', '-']);
    const head = await fetch(url, { method: 'HEAD' });
    assert.equal(head.headers.get('content-type'), 'video/mp4');
    assert.match(head.headers.get('etag') ?? '', /^"/);
  });

  it('prewarm of an MP4 H.264/AAC is not needed; DELETE with nothing running is not_building', async () => {
    const post = await prewarm(t, id('direct'), 'POST');
    assert.equal(post.status, 200);
    assert.equal(post.body.status, 'not_needed');
    assert.ok((post.body.reason ?? '').length > 0);
    const del = await prewarm(t, id('direct'), 'DELETE');
    assert.equal(del.body.status, 'not_building');
    assert.ok((del.body.message ?? '').length > 0);
  });

  it('a stream of a not-yet-built artifact serves the growing file, and DELETE cancels the build', async () => {
    const url = await streamUrl(t, movie('long'), 'tv');
    const first = await get(url, { range: 'bytes=0-1023' });
    assert.equal(first.res.status, 206);
    assert.equal(first.res.headers.get('content-range'), 'bytes 0-1023/*');
    assert.equal(first.body.length, 1024);
    assert.equal(first.body.subarray(4, 8).toString('latin1'), 'ftyp', 'an MP4 from its first byte');
    const building = await prewarm(t, id('long'), 'GET');
    assert.equal(building.body.status, 'building', 'the stream started the same job a prewarm would');
    const joined = await prewarm(t, id('long'), 'POST');
    assert.equal(joined.body.status, 'building');
    const artifactsDir = join(dataDir, 'artifacts');
    assert.ok(
      readdirSync(artifactsDir).some((f) => f.endsWith('.part.mp4')),
      'partial file while building',
    );
    assert.ok(ffmpegProcessesFor(artifactsDir) > 0, 'ffmpeg runs');
    const del = await prewarm(t, id('long'), 'DELETE');
    assert.equal(del.body.status, 'cancelled');
    assert.equal(ffmpegProcessesFor(artifactsDir), 0, 'ffmpeg is gone');
    assert.deepEqual(
      readdirSync(artifactsDir).filter((f) => f.endsWith('.part.mp4')),
      [],
      'no partial file left',
    );
    assert.equal((await prewarm(t, id('long'), 'GET')).body.status, 'cancelled');
  });

  /** The source path of the long fixture (ffmpeg's command line names it). */
  const longFile = () => file.long ?? 'long.mkv';

  /** Segment files a prewarm's HLS run has stored so far (whole segments only: writes are atomic). */
  const storedSegments = () => {
    const found: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (entry.isDirectory()) walk(join(dir, entry.name));
        else if (entry.name.endsWith('.m4s')) found.push(entry.name);
      }
    };
    if (existsSync(join(dataDir, 'segments'))) walk(join(dataDir, 'segments'));
    return found.length;
  };

  it('DELETE during a prewarm stops its conversion run', async () => {
    const started = await prewarm(t, id('long'), 'POST');
    assert.equal(started.body.status, 'building');
    await waitFor(
      () => ffmpegProcessesFor(longFile()) > 0,
      () => 'the prewarm conversion to start',
      { timeoutMs: 60_000 },
    );
    const del = await prewarm(t, id('long'), 'DELETE');
    assert.equal(del.body.status, 'cancelled');
    await waitFor(
      () => ffmpegProcessesFor(longFile()) === 0,
      () => `the conversion to stop (${ffmpegProcessesFor(longFile())} ffmpeg running)`,
      { timeoutMs: 10_000 },
    );
    assert.equal((await prewarm(t, id('long'), 'GET')).body.status, 'cancelled');
  });

  it('a restart during a build leaves not_ready and no partial file', async () => {
    const started = await prewarm(t, id('long'), 'POST');
    assert.equal(started.body.status, 'building');
    // The restart lands once the prewarm's conversion has stored a segment (not after a guessed
    // sleep, which on a slow machine could come before there was anything to clean up).
    await waitFor(
      async () => {
        const { status } = (await prewarm(t, id('long'), 'GET')).body;
        assert.equal(status, 'building', 'still building while the test waits for its first segment');
        return storedSegments() > 0;
      },
      () => `the prewarm to store a segment (${storedSegments()} so far)`,
      { timeoutMs: 60_000 },
    );
    await t.server.close();
    assert.equal(ffmpegProcessesFor(longFile()), 0, 'the conversion died with the server');
    t = await startTestServer({ REELSHELF_DATA_DIR: dataDir });
    if (testEngine === 'postgres') {
      // Nodes share the database (docs/cluster.md): the stopped node handed its build back, and this
      // node takes it over from the start (the dead run's partial file removed by the claim).
      const state = await prewarm(t, id('long'), 'GET');
      assert.equal(state.body.status, 'building');
      assert.equal((await prewarm(t, id('long'), 'DELETE')).body.status, 'cancelled');
      await waitFor(
        () =>
          ffmpegProcessesFor(longFile()) === 0 &&
          readdirSync(join(dataDir, 'artifacts')).every((f) => !f.endsWith('.part.mp4')),
        () => 'the taken-over build to stop and leave no partial file',
        { timeoutMs: 20_000 },
      );
      return;
    }
    const state = await prewarm(t, id('long'), 'GET');
    assert.equal(state.body.status, 'not_ready');
    assert.match(state.body.reason ?? '', /interrupted/);
    assert.deepEqual(
      readdirSync(join(dataDir, 'artifacts')).filter((f) => f.endsWith('.part.mp4')),
      [],
    );
  });
});

describe('strict policy: "create compatible audio" makes the edition playable', () => {
  it('strict_incompatible with an adaptive fallback → prewarm → adaptive and playable', async () => {
    const media = mkdtempSync(join(tmpdir(), 'reelshelf-strict-media-'));
    const t = await startTestServer({ REELSHELF_PLAYBACK_POLICY: 'strict' });
    try {
      const dts = await makeFixture('h264_dts.mkv', join(media, 'dts.mkv'), 2);
      const ids = await registerFiles(t.server.database.db, media, { dts });
      await t.server.services.analysis.analyzePending();
      const movieId = ids.dts?.movieId ?? 0;
      const fileId = ids.dts?.fileId ?? 0;
      const edition = async () => {
        const body = (await (await t.api('/library?device=tv')).json()) as LibraryResponse;
        return body.items.find((i) => i.movie_id === movieId)?.editions[0];
      };
      const before = await edition();
      assert.equal(before?.playback_prediction, 'strict_incompatible');
      assert.equal(before?.has_adaptive_fallback, true);
      const refused = await fetch(`${t.url}${before?.stream_url}`);
      assert.equal(refused.status, 400);
      const body = (await refused.json()) as {
        policy: string;
        adaptiveAvailable: boolean;
        incompatibility: { type: string };
      };
      assert.equal(body.policy, 'strict');
      assert.equal(body.adaptiveAvailable, true);
      assert.equal(body.incompatibility.type, 'audio');
      assert.equal((await prewarm(t, fileId, 'POST')).status, 202);
      const state = await waitFor(
        async () => {
          const status = (await prewarm(t, fileId, 'GET')).body.status;
          return status === 'building' ? null : status;
        },
        () => 'the compatible-audio build to finish',
        { timeoutMs: 60_000, intervalMs: 100 },
      );
      assert.equal(state, 'ready');
      const after = await edition();
      assert.equal(after?.playback_prediction, 'adaptive');
      assert.equal(after?.is_playable, true);
      const stream = await fetch(`${t.url}${after?.stream_url}`, { method: 'HEAD' });
      assert.equal(stream.status, 200);
      assert.equal(stream.headers.get('content-type'), 'video/mp4');
    } finally {
      await t.close();
      rmSync(media, { recursive: true, force: true });
    }
  });
});

describe('the artifact area at start', () => {
  it('a stray symlink in it does not stop the start, and what it points to is left alone', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'reelshelf-test-'));
    const outside = mkdtempSync(join(tmpdir(), 'reelshelf-outside-'));
    try {
      writeFileSync(join(outside, 'precious.mp4'), 'not ours');
      mkdirSync(join(dataDir, 'artifacts'), { recursive: true });
      symlinkSync(join(outside, 'precious.mp4'), join(dataDir, 'artifacts', 'stray.part.mp4'));
      writeFileSync(join(dataDir, 'artifacts', 'unknown.mp4'), 'left by a crash');
      const t = await startTestServer({ REELSHELF_DATA_DIR: dataDir });
      try {
        assert.equal((await t.api('/api/health')).status, 200);
      } finally {
        await t.close();
      }
      assert.equal(readFileSync(join(outside, 'precious.mp4'), 'utf8'), 'not ours');
      assert.ok(
        !readdirSync(join(dataDir, 'artifacts')).includes('unknown.mp4'),
        'an unknown file is removed',
      );
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
