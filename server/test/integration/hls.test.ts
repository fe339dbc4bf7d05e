import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { checkMasterPlaylist, checkMediaPlaylist } from '../helpers/hls-check.ts';
import { registerFiles } from '../helpers/library-fixtures.ts';
import { waitFor } from '../helpers/wait.ts';
import { fixtureFfmpeg } from '../helpers/media.ts';
import { ADMIN, startTestServer, type TestServer } from '../helpers/test-server.ts';

const run = promisify(execFile);
type HlsTestServer = TestServer & { query: string };
const Q = ['-hide_banner', '-loglevel', 'error', '-y'];

/** H.264 with irregular GOPs + English AC-3 + French AAC in MKV: `adaptive` on web (AC-3 → AAC). */
async function makeAdaptive(path: string, seconds: number): Promise<string> {
  await run(fixtureFfmpeg, [
    ...Q,
    '-f',
    'lavfi',
    '-i',
    `testsrc2=duration=${seconds}:size=320x240:rate=25`,
    '-f',
    'lavfi',
    '-i',
    `sine=frequency=440:duration=${seconds}:sample_rate=48000`,
    '-f',
    'lavfi',
    '-i',
    `sine=frequency=660:duration=${seconds}:sample_rate=44100`,
    '-map',
    '0:v',
    '-map',
    '1:a',
    '-map',
    '2:a',
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-pix_fmt',
    'yuv420p',
    '-bf',
    '2',
    '-force_key_frames',
    '0,1.5,4,4.6,9.2,13,15.4,20.2',
    '-c:a:0',
    'ac3',
    '-ac:a:0',
    '2',
    '-c:a:1',
    'aac',
    '-ac:a:1',
    '2',
    '-metadata:s:a:0',
    'language=eng',
    '-metadata:s:a:1',
    'language=fre',
    '-disposition:a:0',
    'default',
    path,
  ]);
  return path;
}

/** MPEG-2 + AC-3 in MKV: `transcode` on web. */
async function makeTranscode(path: string, seconds: number): Promise<string> {
  await run(fixtureFfmpeg, [
    ...Q,
    '-f',
    'lavfi',
    '-i',
    `testsrc2=duration=${seconds}:size=320x240:rate=25`,
    '-f',
    'lavfi',
    '-i',
    `sine=frequency=440:duration=${seconds}:sample_rate=48000`,
    '-map',
    '0:v',
    '-map',
    '1:a',
    '-c:v',
    'mpeg2video',
    '-q:v',
    '5',
    '-c:a',
    'ac3',
    '-ac',
    '2',
    path,
  ]);
  return path;
}

async function probeJson(
  url: string,
  extra: string[] = [],
): Promise<{ format?: { duration?: string }; streams?: { codec_type: string; codec_name: string }[] }> {
  const { stdout } = await run(
    'ffprobe',
    ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', ...extra, url],
    {
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  return JSON.parse(stdout) as {
    format?: { duration?: string };
    streams?: { codec_type: string; codec_name: string }[];
  };
}

/** Presentation times (s) of the packets of init + segment, in order of decode. */
async function packetTimes(
  t: HlsTestServer,
  base: string,
  rendition: string,
  index: number,
): Promise<number[]> {
  const init = Buffer.from(await (await fetch(`${base}/hls/${rendition}/init.mp4?${t.query}`)).arrayBuffer());
  const res = await fetch(`${base}/hls/${rendition}/${index}.m4s?${t.query}`);
  assert.equal(res.status, 200, `${rendition}/${index}.m4s`);
  const seg = Buffer.from(await res.arrayBuffer());
  const dir = mkdtempSync(join(tmpdir(), 'reelshelf-hls-seg-'));
  try {
    const path = join(dir, 'seg.mp4');
    await import('node:fs/promises').then((fs) => fs.writeFile(path, Buffer.concat([init, seg])));
    const { stdout } = await run('ffprobe', [
      '-v',
      'error',
      '-show_entries',
      'packet=pts_time',
      '-of',
      'csv=p=0',
      path,
    ]);
    // MPEG-TS packets carry side data (their stream id), which the csv writer prints after a comma.
    return stdout
      .split('\n')
      .map((l) => l.split(',')[0] ?? '')
      .filter((l) => l.trim() !== '')
      .map(Number)
      .sort((a, b) => a - b);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('HLS for conversions', () => {
  let t: HlsTestServer;
  let media: string;
  let ids: Record<string, { movieId: number; fileId: number }>;

  before(async () => {
    media = mkdtempSync(join(tmpdir(), 'reelshelf-hls-media-'));
    const files = {
      adaptive: await makeAdaptive(join(media, 'Adaptive (2001).mkv'), 24),
      transcode: await makeTranscode(join(media, 'Transcode (2002).mkv'), 16),
    };
    const server = await startTestServer({ REELSHELF_HLS_IDLE_SECONDS: '30' });
    ids = await registerFiles(server.server.database.db, media, files);
    await server.server.services.analysis.analyzePending();
    t = Object.assign(server, { query: '' });
  });
  after(async () => {
    await t.close();
    rmSync(media, { recursive: true, force: true });
  });

  const fileId = (name: string) => ids[name]?.fileId ?? 0;
  const base = (name: string) => `${t.url}/stream/media_file/${fileId(name)}`;
  const withToken = (name: string, device = 'web') => {
    t.query = new URLSearchParams({
      device,
      token: t.server.services.tokens.sign(fileId(name), device, ADMIN),
    }).toString();
    return t.query;
  };

  it('the master playlist lists the video and every audio track as a rendition (RFC 8216)', async () => {
    const q = withToken('adaptive');
    const res = await fetch(`${base('adaptive')}/master.m3u8?${q}`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/vnd.apple.mpegurl');
    const text = await res.text();
    checkMasterPlaylist(text);
    assert.match(text, /TYPE=AUDIO,GROUP-ID="audio",NAME="[^"]+",LANGUAGE="en",DEFAULT=YES/);
    assert.match(text, /TYPE=AUDIO,GROUP-ID="audio",NAME="[^"]+",LANGUAGE="fr",DEFAULT=NO/);
    assert.match(text, /CODECS="avc1\.[0-9A-Fa-f]{6},mp4a\.40\.2"/);
    assert.match(text, /RESOLUTION=320x240/);
    for (const rendition of ['v', 'a0', 'a1']) {
      const media = await fetch(`${base('adaptive')}/hls/${rendition}/index.m3u8?${q}`);
      assert.equal(media.status, 200);
      const parsed = checkMediaPlaylist(await media.text());
      const total = parsed.segments.reduce((sum, s) => sum + s.duration, 0);
      assert.ok(Math.abs(total - 24) < 0.1, `${rendition}: EXTINF total ${total}`);
    }
  });

  it('a token for another file or without one is refused', async () => {
    const q = withToken('transcode');
    assert.equal((await fetch(`${base('adaptive')}/master.m3u8?${q}`)).status, 401);
    assert.equal((await fetch(`${base('adaptive')}/hls/v/0.m4s?device=web`)).status, 401);
  });

  it('ffmpeg decodes the whole film through the master playlist', async () => {
    for (const name of ['adaptive', 'transcode']) {
      const q = withToken(name);
      const url = `${base(name)}/master.m3u8?${q}`;
      const probe = await probeJson(url);
      const kinds = (probe.streams ?? []).map((s) => `${s.codec_type}:${s.codec_name}`);
      assert.ok(kinds.includes('video:h264'), `${name}: ${kinds.join(' ')}`);
      assert.ok(kinds.includes('audio:aac'), `${name}: ${kinds.join(' ')}`);
      const started = Date.now();
      const { stderr } = await run(
        fixtureFfmpeg,
        ['-hide_banner', '-v', 'error', '-i', url, '-map', '0:v:0', '-map', '0:a:0', '-f', 'null', '-'],
        {
          maxBuffer: 16 * 1024 * 1024,
        },
      );
      assert.equal(stderr.trim(), '', `${name}: ffmpeg printed errors`);
      const duration = Number(probe.format?.duration);
      const expected = name === 'adaptive' ? 24 : 16;
      assert.ok(Math.abs(duration - expected) < 1, `${name}: duration ${duration}`);
      assert.ok(Date.now() - started < 60_000);
    }
  });

  it('a seek restarts the conversion at that segment, and segments of two runs join without a gap', async () => {
    // A fresh presentation: transcode on another device profile (safari encodes MPEG-2 too).
    const q = withToken('transcode', 'safari');
    const url = base('transcode');
    const playlist = checkMediaPlaylist(await (await fetch(`${url}/hls/v/index.m3u8?${q}`)).text());
    const last = playlist.segments.length - 1;
    assert.ok(last >= 3);
    // The far segment first (a seek before anything was made), then the start.
    const far = await packetTimes(t, url, 'v', last);
    const first = await packetTimes(t, url, 'v', 0);
    assert.ok(far.length > 0 && first.length > 0);
    // Every segment, in order: each starts one frame after the previous one ends.
    let previousEnd: number | null = null;
    for (let i = 0; i <= last; i++) {
      const times = await packetTimes(t, url, 'v', i);
      const start = times[0] ?? NaN;
      if (previousEnd !== null) {
        assert.ok(
          Math.abs(start - previousEnd - 0.04) < 0.002,
          `segment ${i} starts at ${start}, previous ended at ${previousEnd}`,
        );
      }
      previousEnd = times.at(-1) ?? NaN;
    }
  });
  it('two players of one presentation share its run; a seek by one does not break the other', async () => {
    const q = withToken('adaptive', 'androidtv');
    const url = base('adaptive');
    const playlist = checkMediaPlaylist(await (await fetch(`${url}/hls/v/index.m3u8?${q}`)).text());
    const last = playlist.segments.length - 1;
    const runs = t.server.services.hls.counts.runsStarted;
    // Player A reads from the start while player B asks for the same segments: one run serves both.
    const [a0, b0] = await Promise.all([fetch(`${url}/hls/v/0.m4s?${q}`), fetch(`${url}/hls/v/0.m4s?${q}`)]);
    assert.equal(a0.status, 200);
    assert.equal(b0.status, 200);
    assert.deepEqual(Buffer.from(await a0.arrayBuffer()), Buffer.from(await b0.arrayBuffer()));
    assert.equal(t.server.services.hls.counts.runsStarted, runs + 1, 'one run for both players');
    // Player B seeks to the end; player A goes on with segment 1 and gets it.
    const [far, next] = await Promise.all([
      fetch(`${url}/hls/v/${last}.m4s?${q}`),
      fetch(`${url}/hls/v/1.m4s?${q}`),
    ]);
    assert.equal(far.status, 200);
    assert.equal(next.status, 200);
    await far.arrayBuffer();
    await next.arrayBuffer();
    const times = await packetTimes(t, url, 'v', 1);
    assert.ok(times.length > 0, 'segment 1 decodes');
  });

  it('prewarm for the TV makes every segment, then a play starts no conversion at all', async () => {
    const id = fileId('transcode');
    const started = await t.api(`/api/media-file/${id}/prewarm-tv`, { method: 'POST' });
    assert.ok([200, 202].includes(started.status), `prewarm answered ${started.status}`);
    let sawBuilding = false;
    await waitFor(
      async () => {
        const state = (await (await t.api(`/api/media-file/${id}/prewarm-tv`)).json()) as { status: string };
        if (state.status === 'building') sawBuilding = true;
        return state.status === 'ready' ? state : null;
      },
      () => 'the prewarm to be ready',
      { timeoutMs: 120_000, intervalMs: 50 },
    );
    assert.ok(sawBuilding || started.status === 202, 'the prewarm reported building');
    const hls = t.server.services.hls;
    const runs = hls.counts.runsStarted;
    const q = withToken('transcode', 'tv');
    const url = base('transcode');
    const master = await (await fetch(`${url}/master.m3u8?${q}`)).text();
    checkMasterPlaylist(master);
    for (const rendition of ['v', 'a0']) {
      const playlist = checkMediaPlaylist(
        await (await fetch(`${url}/hls/${rendition}/index.m3u8?${q}`)).text(),
      );
      assert.equal((await fetch(`${url}/hls/${rendition}/init.mp4?${q}`)).status, 200);
      for (let i = 0; i < playlist.segments.length; i++) {
        const res = await fetch(`${url}/hls/${rendition}/${i}.m4s?${q}`);
        assert.equal(res.status, 200, `${rendition}/${i}.m4s`);
        await res.arrayBuffer();
      }
    }
    assert.equal(hls.counts.runsStarted, runs, 'no conversion ran for a prewarmed film');
    assert.equal(hls.running(), 0);
    // The progressive file was remuxed from the same segments: whole, and it starts at 0.
    const probe = await probeJson(`${t.url}/stream/media_file/${id}?${q}`);
    assert.ok(
      Math.abs(Number(probe.format?.duration) - 16) < 1,
      `progressive duration ${probe.format?.duration}`,
    );
  });
});
