// DLNA media (issue 24 §4–5) over a real server on loopback, real ffmpeg and media made at test time:
// how each file plays on each TV family, its `res`, and the /dlna/media routes (ranges, DLNA headers,
// the progressive conversion with time seek, SRT, resized covers, tokens, the DLNA person's limit).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { tvProfileId } from '../../src/domain/dlna/tv-profiles.ts';
import type { TvFamily } from '../../src/domain/dlna/tv-family.ts';
import { ArtworkRepository } from '../../src/repositories/artwork.repository.ts';
import type { DlnaClient } from '../../src/services/dlna/dlna-ports.ts';
import type { ListingViewer } from '../../src/services/library/library.service.ts';
import { CHILD_KID, addPeople } from '../helpers/household.ts';
import { registerFiles } from '../helpers/library-fixtures.ts';
import { fixtureFfmpeg, makeFixture } from '../helpers/media.ts';
import { ADMIN, jsonBody, startTestServer, type TestServer } from '../helpers/test-server.ts';
import { waitFor, within } from '../helpers/wait.ts';

const run = promisify(execFile);
const Q = ['-hide_banner', '-loglevel', 'error', '-y'];

const UA: Record<TvFamily, string> = {
  samsung: 'SEC_HHP_[TV] Samsung Q7 Series (55)/1.0 DLNADOC/1.50',
  lg: 'Linux/3.10 UPnP/1.0 LGE_DLNA_SDK/1.6.0 [TV][LG]OLED55C1/04.02.00 DLNADOC/1.50',
  sony: 'UPnP/1.0',
  generic: 'VLC/3.0.24 LibVLC/3.0.24',
};

/** H.264 (GOP 2 s) + AAC + a SubRip track, in Matroska. */
async function makeWithSubtitles(dir: string): Promise<string> {
  const srt = join(dir, 'subs.srt');
  writeFileSync(
    srt,
    '1\n00:00:00,500 --> 00:00:02,000\nHéllo, TV.\n\n2\n00:00:02,500 --> 00:00:03,500\nBye.\n',
  );
  const out = join(dir, 'Subtitled (2003).mkv');
  await run(fixtureFfmpeg, [
    ...Q,
    ...['-f', 'lavfi', '-i', 'testsrc=duration=4:size=320x240:rate=25'],
    ...['-f', 'lavfi', '-i', 'sine=frequency=440:duration=4:sample_rate=48000'],
    ...['-i', srt, '-map', '0:v', '-map', '1:a', '-map', '2:s'],
    ...['-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-g', '50'],
    ...['-c:a', 'aac', '-ac', '2', '-c:s', 'srt', '-metadata:s:s:0', 'language=eng', out],
  ]);
  return out;
}

/** H.264 (keyframe every 2 s) + DTS in Matroska, `seconds` long, `channels` channels. */
async function makeDts(path: string, seconds: number, channels: number): Promise<string> {
  await run(fixtureFfmpeg, [
    ...Q,
    ...['-f', 'lavfi', '-i', `testsrc=duration=${seconds}:size=320x240:rate=25`],
    ...['-f', 'lavfi', '-i', `sine=frequency=440:duration=${seconds}:sample_rate=48000`],
    ...['-map', '0:v', '-map', '1:a', '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p'],
    ...['-g', '50', '-c:a', 'dca', '-strict', '-2', '-ac', String(channels), path],
  ]);
  return path;
}

/** The command lines of this process's children. */
async function remuxers(): Promise<string[]> {
  const { stdout } = await run('ps', ['--ppid', String(process.pid), '-o', 'args=']).catch(() => ({
    stdout: '',
  }));
  return stdout.split('\n').filter((l) => l.trim() !== '');
}

/** HEVC + DTS in Matroska: HEVC copied for an LG, DTS converted: fMP4 HLS segments under the stream. */
async function makeHevcDts(path: string): Promise<string> {
  await run(fixtureFfmpeg, [
    ...Q,
    ...['-f', 'lavfi', '-i', 'testsrc=duration=6:size=320x240:rate=25'],
    ...['-f', 'lavfi', '-i', 'sine=frequency=440:duration=6:sample_rate=48000'],
    ...[
      '-map',
      '0:v',
      '-map',
      '1:a',
      '-c:v',
      'libx265',
      '-preset',
      'ultrafast',
      '-x265-params',
      'log-level=error:keyint=50',
    ],
    ...['-pix_fmt', 'yuv420p', '-c:a', 'dca', '-strict', '-2', '-ac', '2', path],
  ]);
  return path;
}

interface Probe {
  format?: { start_time?: string; duration?: string };
  streams?: { codec_type: string; codec_name: string; channels?: number }[];
}

async function probe(path: string): Promise<Probe> {
  const { stdout } = await run('ffprobe', [
    '-v',
    'error',
    '-print_format',
    'json',
    '-show_format',
    '-show_streams',
    path,
  ]);
  return JSON.parse(stdout) as Probe;
}

/** The first presentation time of each stream of a file. */
async function firstTimes(path: string): Promise<number[]> {
  const { stdout } = await run('ffprobe', [
    '-v',
    'error',
    '-show_entries',
    'stream=start_time',
    '-of',
    'csv=p=0',
    path,
  ]);
  return stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => Number(l.split(',')[0]));
}

describe('DLNA media: how each file plays on each TV', () => {
  let t: TestServer;
  let media: string;
  let scratch: string;
  let ids: Record<string, { movieId: number; fileId: number }>;
  let dlnaPerson: ListingViewer | null = ADMIN;
  let clockOffsetMs = 0;
  const client = (family: TvFamily): DlnaClient => ({
    address: '127.0.0.1',
    userAgent: UA[family],
    avClientInfo:
      family === 'sony' ? 'av=5.0; cn="Sony Corporation"; mn="BRAVIA KD-55X85J"; mv="2.0";' : null,
    baseUrl: t.url,
  });
  const fileId = (name: string) => ids[name]?.fileId ?? 0;
  const movieId = (name: string) => ids[name]?.movieId ?? 0;
  const present = (name: string, family: TvFamily) =>
    t.server.dlnaMedia.presentFile(fileId(name), client(family));
  const resOf = async (name: string, family: TvFamily, kind: 'file' | 'conversion') => {
    const found = (await present(name, family)).resources.find((r) =>
      r.url.includes(kind === 'file' ? '/file.' : '/conversion.ts'),
    );
    assert.ok(found, `${name} on ${family} has a ${kind} res`);
    return found;
  };

  before(async () => {
    media = mkdtempSync(join(tmpdir(), 'reelshelf-dlna-media-'));
    scratch = mkdtempSync(join(tmpdir(), 'reelshelf-dlna-out-'));
    const files = {
      mp4: await makeFixture('h264_aac.mp4', join(media, 'Plain (2001).mp4'), 3),
      subtitled: await makeWithSubtitles(media),
      dts: await makeDts(join(media, 'Dts Long (2004).mkv'), 24, 2),
      dts6: await makeDts(join(media, 'Dts Surround (2005).mkv'), 2, 6),
      hevc: await makeFixture('hevc10_hdr10_ac3.mkv', join(media, 'Hevc (2006).mkv'), 2),
      garbage: await makeFixture('garbage.mkv', join(media, 'Broken (2007).mkv')),
      hevcDts: await makeHevcDts(join(media, 'Hevc Dts (2008).mkv')),
    };
    await sharp({ create: { width: 600, height: 900, channels: 3, background: '#3366aa' } })
      .jpeg()
      .toFile(join(media, 'poster.jpg'));
    t = await startTestServer(
      {},
      {
        dlnaViewer: { viewer: async () => dlnaPerson },
        clock: { now: () => new Date(Date.now() + clockOffsetMs) },
      },
    );
    ids = await registerFiles(t.server.database.db, media, files);
    await t.server.services.analysis.analyzePending();
    await new ArtworkRepository(t.server.database.db).setImage(
      movieId('mp4'),
      'poster',
      { state: 'ready', source: 'local', path: join(media, 'poster.jpg') },
      new Date().toISOString(),
      null,
    );
  });
  after(async () => {
    await t?.close();
    rmSync(media, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  });

  describe('decisions (ArtifactService.needs on the families’ profiles)', () => {
    const needs = async (name: string, family: TvFamily) =>
      (await t.server.services.artifacts.needs(fileId(name), tvProfileId(family))).decision;

    it('H.264/AAC in MP4 plays directly on every family', async () => {
      for (const family of ['samsung', 'lg', 'sony', 'generic'] as const) {
        assert.equal((await needs('mp4', family)).prediction, 'direct', family);
      }
    });

    it('H.264/DTS in MKV is converted for a Samsung: DTS → AAC (stereo), AC-3 (5.1)', async () => {
      const stereo = await needs('dts', 'samsung');
      assert.equal(stereo.prediction, 'adaptive');
      assert.equal(stereo.isPlayable, true);
      const surround = await needs('dts6', 'samsung');
      assert.equal(surround.prediction, 'adaptive');
      const plan = surround.plan;
      assert.ok(plan !== null && plan.audio !== 'copy' && plan.audio !== 'none');
      assert.equal(plan.audio.codec, 'ac3');
      assert.equal(plan.audio.channels, 6);
    });

    it('HEVC plays directly on an LG and is converted for a generic renderer', async () => {
      assert.equal((await needs('hevc', 'lg')).prediction, 'direct');
      const generic = await needs('hevc', 'generic');
      assert.equal(generic.prediction, 'transcode');
      assert.equal(generic.isPlayable, true);
    });
  });

  describe('presentFile: the res a TV gets', () => {
    it('a direct file: its own MIME, OP=01, CI=0, size, duration, resolution, channels, bitrate', async () => {
      const res = await resOf('mp4', 'generic', 'file');
      assert.match(
        res.protocolInfo,
        /^http-get:\*:video\/mp4:(DLNA\.ORG_PN=[A-Z0-9_]+;)?DLNA\.ORG_OP=01;DLNA\.ORG_CI=0;DLNA\.ORG_FLAGS=[0-9A-F]{32}$/,
      );
      assert.equal(res.sizeBytes, readFileSync(join(media, 'Plain (2001).mp4')).length);
      assert.ok(Math.abs((res.durationSeconds ?? 0) - 3) < 0.2);
      assert.equal(`${res.width}x${res.height}`, '320x240');
      assert.equal(res.audioChannels, 2);
      assert.ok((res.bytesPerSecond ?? 0) > 0);
      assert.ok(res.url.startsWith(`${t.url}/dlna/media/generic/${fileId('mp4')}/file.mp4?token=`));
      const mkv = await resOf('subtitled', 'samsung', 'file');
      assert.match(mkv.protocolInfo, /^http-get:\*:video\/x-matroska:DLNA\.ORG_OP=01;DLNA\.ORG_CI=0;/);
    });

    it('a conversion: video/mpeg (MPEG-TS), OP=10, CI=1, duration; no size', async () => {
      const presented = await present('dts', 'samsung');
      assert.equal(presented.cannotPlay, null);
      assert.equal(presented.resources.length, 1);
      const res = presented.resources[0];
      assert.ok(res);
      assert.match(
        res.protocolInfo,
        /^http-get:\*:video\/mpeg:(DLNA\.ORG_PN=[A-Z0-9_]+;)?DLNA\.ORG_OP=10;DLNA\.ORG_CI=1;/,
      );
      assert.ok(res.url.includes(`/dlna/media/samsung/${fileId('dts')}/conversion.ts?token=`));
      assert.ok(Math.abs((res.durationSeconds ?? 0) - 24) < 0.2);
      assert.equal(res.sizeBytes, undefined);
      assert.equal(res.audioChannels, 2);
      const surround = await resOf('dts6', 'samsung', 'conversion');
      assert.equal(surround.audioChannels, 6, 'AC-3 5.1 for a Samsung');
      const lg = await present('hevc', 'lg');
      assert.ok(lg.resources[0]?.url.includes('/file.mkv?'));
      assert.ok((await present('hevc', 'generic')).resources[0]?.url.includes('/conversion.ts?'));
    });

    it('text subtitles: a text/srt res, and sec:CaptionInfoEx for a Samsung only', async () => {
      const samsung = await present('subtitled', 'samsung');
      const srt = samsung.resources.filter((r) => r.protocolInfo === 'http-get:*:text/srt:*');
      assert.equal(srt.length, 1);
      assert.match(srt[0]?.url ?? '', /\/subtitles\/0\.srt\?token=/);
      assert.deepEqual(samsung.captions, [{ url: srt[0]?.url, type: 'srt' }]);
      const lg = await present('subtitled', 'lg');
      assert.equal(lg.captions.length, 0);
      assert.equal(lg.resources.filter((r) => r.protocolInfo.includes('text/srt')).length, 1);
    });

    it('nothing playable: no res, and why in a few words', async () => {
      const broken = await present('garbage', 'samsung');
      assert.deepEqual(broken.resources, []);
      assert.ok(broken.cannotPlay !== null && broken.cannotPlay.length > 0 && broken.cannotPlay.length <= 60);
    });
  });

  describe('the file route', () => {
    const url = async (name: string, family: TvFamily) => (await resOf(name, family, 'file')).url;

    it('200 whole, 206 byte-exact ranges, HEAD without a body', async () => {
      const bytes = readFileSync(join(media, 'Plain (2001).mp4'));
      const u = await url('mp4', 'generic');
      const whole = await fetch(u);
      assert.equal(whole.status, 200);
      assert.equal(whole.headers.get('content-type'), 'video/mp4');
      assert.equal(whole.headers.get('accept-ranges'), 'bytes');
      assert.ok(Buffer.from(await whole.arrayBuffer()).equals(bytes));
      const part = await fetch(u, { headers: { range: 'bytes=100-1099' } });
      assert.equal(part.status, 206);
      assert.equal(part.headers.get('content-range'), `bytes 100-1099/${bytes.length}`);
      assert.ok(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(100, 1100)));
      const tail = await fetch(u, { headers: { range: 'bytes=-500' } });
      assert.ok(Buffer.from(await tail.arrayBuffer()).equals(bytes.subarray(bytes.length - 500)));
      const beyond = await fetch(u, { headers: { range: `bytes=${bytes.length}-` } });
      assert.equal(beyond.status, 416);
      await beyond.arrayBuffer();
      const head = await fetch(u, { method: 'HEAD' });
      assert.equal(head.status, 200);
      assert.equal(head.headers.get('content-length'), String(bytes.length));
      assert.equal((await head.arrayBuffer()).byteLength, 0);
    });

    it("a TV's play is the DLNA person's: in their history under the TV's profile, direct or converted", async () => {
      const history = async () => {
        const res = await fetch(`${t.url}/api/me/history?limit=50`, {
          headers: { authorization: `Bearer ${t.token}` },
        });
        assert.equal(res.status, 200);
        return (
          (await res.json()) as { items: { media_file_id: number | null; device: string; mode: string }[] }
        ).items;
      };
      const direct = await fetch(await url('mp4', 'lg'));
      await direct.arrayBuffer();
      const conversion = await fetch((await resOf('dts', 'samsung', 'conversion')).url);
      await conversion.body?.cancel();
      const seen = await history();
      assert.ok(
        seen.some((h) => h.media_file_id === fileId('mp4') && h.device === 'dlna-lg' && h.mode === 'direct'),
        JSON.stringify(seen),
      );
      assert.ok(
        seen.some(
          (h) => h.media_file_id === fileId('dts') && h.device === 'dlna-samsung' && h.mode === 'converted',
        ),
        JSON.stringify(seen),
      );
    });

    it('DLNA headers: transferMode echoed, contentFeatures only when asked, realTimeInfo, MediaInfo.sec', async () => {
      const u = await url('mp4', 'generic');
      const plain = await fetch(u, { method: 'HEAD' });
      assert.equal(plain.headers.get('transfermode.dlna.org'), 'Streaming');
      assert.equal(plain.headers.get('contentfeatures.dlna.org'), null);
      assert.equal(plain.headers.get('realtimeinfo.dlna.org'), 'DLNA.ORG_TLAG=*');
      const asked = await fetch(u, {
        method: 'HEAD',
        headers: {
          'getcontentFeatures.dlna.org': '1',
          'transferMode.dlna.org': 'Interactive',
          'getMediaInfo.sec': '1',
        },
      });
      assert.equal(asked.headers.get('transfermode.dlna.org'), 'Interactive');
      assert.match(
        asked.headers.get('contentfeatures.dlna.org') ?? '',
        /^(DLNA\.ORG_PN=[A-Z0-9_]+;)?DLNA\.ORG_OP=01;DLNA\.ORG_CI=0;DLNA\.ORG_FLAGS=/,
      );
      assert.match(asked.headers.get('mediainfo.sec') ?? '', /^SEC_Duration=3\d{3};$/);
    });

    it('CaptionInfo.sec names the SRT when a Samsung asks for it', async () => {
      const u = await url('subtitled', 'samsung');
      const res = await fetch(u, { method: 'HEAD', headers: { 'getCaptionInfo.sec': '1' } });
      const caption = res.headers.get('captioninfo.sec') ?? '';
      assert.match(
        caption,
        new RegExp(`^${t.url}/dlna/media/samsung/${fileId('subtitled')}/subtitles/0\\.srt\\?token=`),
      );
      assert.equal((await fetch(u, { method: 'HEAD' })).headers.get('captioninfo.sec'), null);
      const srt = await fetch(caption);
      assert.equal(srt.status, 200);
      assert.equal(srt.headers.get('content-type'), 'text/srt; charset=utf-8');
      const body = Buffer.from(await srt.arrayBuffer());
      assert.deepEqual([...body.subarray(0, 3)], [0xef, 0xbb, 0xbf]);
      // The cues at the file's own times (the muxer put them 21 ms late, behind AAC's priming lead).
      assert.match(
        body.subarray(3).toString('utf8'),
        /^1\n00:00:00,5\d\d --> 00:00:02,0\d\d\nHéllo, TV\.\n\n2\n00:00:02,5\d\d --> 00:00:03,5\d\d\nBye\.\n$/,
      );
    });
  });

  describe('the conversion route (progressive MPEG-TS, DLNA time seek)', () => {
    const url = async () => (await resOf('dts', 'samsung', 'conversion')).url;
    const save = async (res: Response, name: string) => {
      const path = join(scratch, name);
      writeFileSync(path, Buffer.from(await res.arrayBuffer()));
      return path;
    };

    it('the whole film: ffprobe reads H.264 + AAC in MPEG-TS from 0; ffmpeg decodes it without an error', async () => {
      const res = await fetch(await url(), { headers: { 'getcontentFeatures.dlna.org': '1' } });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'video/mpeg');
      assert.equal(res.headers.get('accept-ranges'), 'none');
      assert.match(res.headers.get('contentfeatures.dlna.org') ?? '', /DLNA\.ORG_OP=10;DLNA\.ORG_CI=1;/);
      const path = await save(res, 'whole.ts');
      const info = await probe(path);
      assert.equal(info.format && 'duration' in info.format, true);
      const kinds = (info.streams ?? []).map((s) => `${s.codec_type}:${s.codec_name}`).sort();
      assert.deepEqual(kinds, ['audio:aac', 'video:h264']);
      assert.ok(Math.abs(Number(info.format?.duration) - 24) < 0.5, `duration ${info.format?.duration}`);
      for (const time of await firstTimes(path)) assert.ok(time >= 0 && time < 0.5, `first time ${time}`);
      const { stderr } = await run(fixtureFfmpeg, [
        '-hide_banner',
        '-v',
        'error',
        '-i',
        path,
        '-f',
        'null',
        '-',
      ]);
      assert.equal(stderr.trim(), '');
    });

    it('TimeSeekRange: starts at the segment holding the time, answers npt=start-end/duration', async () => {
      const asked = 13.5;
      const res = await fetch(await url(), { headers: { 'TimeSeekRange.dlna.org': `npt=${asked}-` } });
      assert.equal(res.status, 200);
      const answer = res.headers.get('timeseekrange.dlna.org') ?? '';
      const match = /^npt=(\d+):(\d{2}):(\d{2}\.\d{3})-(\d+):(\d{2}):(\d{2}\.\d{3})\/0:00:24\.\d{3}$/.exec(
        answer,
      );
      assert.ok(match, answer);
      const start = Number(match[2]) * 60 + Number(match[3]);
      assert.ok(start <= asked && asked - start <= 4.1, `answer starts at ${start}`);
      const path = await save(res, 'seek.ts');
      const info = await probe(path);
      assert.deepEqual((info.streams ?? []).map((s) => s.codec_type).sort(), ['audio', 'video']);
      // The first timestamp is the asked time, within one segment (4 s; cuts on 2 s keyframes).
      for (const time of await firstTimes(path))
        assert.ok(Math.abs(time - asked) <= 4.1, `first time ${time}`);
      const { stderr } = await run(fixtureFfmpeg, [
        '-hide_banner',
        '-v',
        'error',
        '-i',
        path,
        '-f',
        'null',
        '-',
      ]);
      assert.equal(stderr.trim(), '');
      // A clock-form range with an end: the stream stops with the segment holding the end.
      const bounded = await fetch(await url(), {
        headers: { 'TimeSeekRange.dlna.org': 'npt=0:00:04.000-0:00:08.000' },
      });
      assert.match(
        bounded.headers.get('timeseekrange.dlna.org') ?? '',
        /^npt=0:00:04\.\d{3}-0:00:(0[89]|1[0-2])\.\d{3}\/0:00:24\.\d{3}$/,
      );
      const boundedPath = await save(bounded, 'bounded.ts');
      const duration = Number((await probe(boundedPath)).format?.duration);
      assert.ok(duration > 3 && duration < 9, `bounded duration ${duration}`);
    });

    it('HEVC copied for an LG (fMP4 segments under it) arrives as HEVC in MPEG-TS, seekable by time', async () => {
      assert.equal(
        (await t.server.services.artifacts.needs(fileId('hevcDts'), tvProfileId('lg'))).decision.prediction,
        'adaptive',
      );
      const u = (await resOf('hevcDts', 'lg', 'conversion')).url;
      for (const [seek, from] of [
        [null, 0],
        ['npt=2.5-', 2.5],
      ] as const) {
        const res = await fetch(u, { headers: seek === null ? {} : { 'TimeSeekRange.dlna.org': seek } });
        assert.equal(res.status, 200);
        const path = await save(res, `hevc-${from}.ts`);
        const kinds = ((await probe(path)).streams ?? [])
          .map((s) => `${s.codec_type}:${s.codec_name}`)
          .sort();
        assert.deepEqual(kinds, ['audio:aac', 'video:hevc']);
        for (const time of await firstTimes(path))
          assert.ok(Math.abs(time - from) <= 4.1, `first time ${time}`);
        const { stderr } = await run(fixtureFfmpeg, [
          '-hide_banner',
          '-v',
          'error',
          '-i',
          path,
          '-f',
          'null',
          '-',
        ]);
        assert.equal(stderr.trim(), '');
      }
    });

    it('malformed TimeSeekRange → 400, past the end → 416, ApiError JSON', async () => {
      const bad = await fetch(await url(), { headers: { 'TimeSeekRange.dlna.org': 'npt=soon-' } });
      assert.equal(bad.status, 400);
      assert.equal(((await bad.json()) as { error: string }).error, 'bad_request');
      const late = await fetch(await url(), { headers: { 'TimeSeekRange.dlna.org': 'npt=999-' } });
      assert.equal(late.status, 416);
      assert.equal(((await late.json()) as { error: string }).error, 'range_not_satisfiable');
    });

    it('Range bytes=0- plays (the range is ignored: 200); HEAD answers the headers without converting', async () => {
      const head = await fetch(await url(), {
        method: 'HEAD',
        headers: { 'getcontentFeatures.dlna.org': '1', 'TimeSeekRange.dlna.org': 'npt=8-' },
      });
      assert.equal(head.status, 200);
      assert.match(head.headers.get('timeseekrange.dlna.org') ?? '', /^npt=0:00:08\.000-/);
      assert.equal((await head.arrayBuffer()).byteLength, 0);
      const ranged = await fetch(await url(), { headers: { range: 'bytes=0-' } });
      assert.equal(ranged.status, 200);
      const info = await probe(await save(ranged, 'ranged.ts'));
      assert.deepEqual((info.streams ?? []).map((s) => s.codec_type).sort(), ['audio', 'video']);
    });

    it('an HTTP/1.0 TV (Samsung sends 1.0) gets a close-delimited stream, not chunks', async () => {
      const u = new URL(await url());
      const raw = await new Promise<Buffer>((resolve, reject) => {
        const socket = connect(Number(u.port), u.hostname, () => {
          socket.write(
            `GET ${u.pathname}${u.search} HTTP/1.0\r\nHost: ${u.host}\r\nUser-Agent: ${UA.samsung}\r\n\r\n`,
          );
        });
        const chunks: Buffer[] = [];
        socket.on('data', (chunk: Buffer) => chunks.push(chunk));
        socket.on('end', () => resolve(Buffer.concat(chunks)));
        socket.on('error', reject);
      });
      const split = raw.indexOf('\r\n\r\n');
      const head = raw.subarray(0, split).toString('latin1');
      assert.match(head, /^HTTP\/1\.[01] 200 /);
      assert.doesNotMatch(head, /transfer-encoding/i);
      const body = raw.subarray(split + 4);
      // MPEG-TS: 188-byte packets, each starting with the sync byte.
      assert.ok(body.length > 188 * 100);
      for (const at of [0, 188, 188 * 50]) assert.equal(body[at], 0x47);
    });

    it('a TV that goes away stops the stream and its ffmpeg', async () => {
      const abort = new AbortController();
      const res = await fetch(await url(), { signal: abort.signal });
      const reader = res.body?.getReader();
      assert.ok(reader);
      await reader.read();
      assert.equal(t.server.dlnaMedia.streaming(), 1);
      abort.abort();
      await waitFor(
        () => t.server.dlnaMedia.streaming() === 0,
        () => `${t.server.dlnaMedia.streaming()} streams`,
        { timeoutMs: 5000 },
      );
      // Its ffmpeg (a child of this process, reading pipe:3) is gone too.
      await waitFor(
        async () => !(await remuxers()).some((args) => args.includes('-output_ts_offset -10')),
        () => 'the remuxing ffmpeg to exit',
        { timeoutMs: 5000 },
      );
    });
  });

  describe('album art', () => {
    it('the cover fitted into JPEG_TN and JPEG_SM, image/jpeg, DLNA.ORG_PN; none without a cover', async () => {
      const tn = await t.server.dlnaMedia.albumArt(movieId('mp4'), client('samsung'));
      assert.ok(tn !== null);
      assert.equal(tn.profile, 'JPEG_TN');
      const sm = await t.server.dlnaMedia.albumArt(movieId('mp4'), client('lg'));
      assert.equal(sm?.profile, 'JPEG_SM');
      for (const [art, box] of [
        [tn, { w: 160, h: 160 }],
        [sm, { w: 640, h: 480 }],
      ] as const) {
        const res = await fetch(art?.url ?? '');
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('content-type'), 'image/jpeg');
        assert.match(
          res.headers.get('contentfeatures.dlna.org') ?? '',
          new RegExp(`^DLNA\\.ORG_PN=${art?.profile};`),
        );
        const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
        assert.equal(meta.format, 'jpeg');
        assert.ok((meta.width ?? 0) <= box.w && (meta.height ?? 0) <= box.h, `${meta.width}x${meta.height}`);
        assert.equal(meta.height, box.h, 'a 2:3 poster fills the box height');
      }
      assert.equal(await t.server.dlnaMedia.albumArt(movieId('dts'), client('samsung')), null);
    });
  });

  describe('tokens and the DLNA person', () => {
    it('no, tampered, another family’s or another file’s token → 403 ApiError; expired → 403', async () => {
      const good = (await resOf('mp4', 'generic', 'file')).url;
      const token = new URL(good).searchParams.get('token') ?? '';
      const bare = good.slice(0, good.indexOf('?'));
      const tampered = `${bare}?token=${encodeURIComponent(token.slice(0, -2) + (token.endsWith('AA') ? 'BB' : 'AA'))}`;
      const otherFamily = good.replace('/generic/', '/samsung/');
      const otherFile = good
        .replace(`/${fileId('mp4')}/`, `/${fileId('subtitled')}/`)
        .replace('file.mp4', 'file.mkv');
      for (const u of [bare, tampered, otherFamily, otherFile]) {
        const res = await fetch(u);
        assert.equal(res.status, 403, u);
        const body = (await res.json()) as { error: string; message: string };
        assert.equal(body.error, 'forbidden');
        assert.doesNotMatch(body.message, /at |\.ts:/);
      }
      clockOffsetMs = 49 * 3600 * 1000;
      try {
        assert.equal((await fetch(good, { method: 'HEAD' })).status, 403);
      } finally {
        clockOffsetMs = 0;
      }
      assert.equal((await fetch(good, { method: 'HEAD' })).status, 200);
    });

    it('answers LAN peers only', async () => {
      const good = new URL((await resOf('mp4', 'generic', 'file')).url);
      const res = await t.server.app.inject({
        method: 'GET',
        url: `${good.pathname}${good.search}`,
        remoteAddress: '8.8.8.8',
      });
      assert.equal(res.statusCode, 403);
      assert.equal((JSON.parse(res.body) as { error: string }).error, 'forbidden');
      const proxied = await t.server.app.inject({
        method: 'GET',
        url: `${good.pathname}${good.search}`,
        remoteAddress: '127.0.0.1',
        headers: { 'x-forwarded-for': '203.0.113.7' },
      });
      assert.equal(proxied.statusCode, 403, 'a proxied request, even from loopback');
    });

    it('a child as the DLNA person cannot reach an R-rated film’s file', async () => {
      const patched = await t.api(`/api/movies/${movieId('mp4')}`, jsonBody('PATCH', { certification: 'R' }));
      assert.equal(patched.status, 200);
      await addPeople(t, [CHILD_KID]);
      const users = (await (await t.api('/api/users')).json()) as
        { items?: { id: number; name: string }[] } | { id: number; name: string }[];
      const list = Array.isArray(users) ? users : (users.items ?? []);
      const kid = list.find((u) => u.name === CHILD_KID.name);
      assert.ok(kid);
      const adminUrl = (await resOf('mp4', 'generic', 'file')).url;
      dlnaPerson = {
        userId: kid.id,
        limit: { maxCertification: 'PG', allowUnrated: false },
        credential: { kind: 'admin-token', id: null },
      };
      try {
        assert.equal((await fetch(adminUrl)).status, 403, "the admin's URL is not the child's");
        const kidUrl = (await resOf('mp4', 'generic', 'file')).url;
        const res = await fetch(kidUrl);
        assert.equal(res.status, 404);
        assert.equal(((await res.json()) as { error: string }).error, 'not_found');
        dlnaPerson = null;
        assert.equal((await fetch(kidUrl)).status, 404, 'DLNA off: nothing is served');
      } finally {
        dlnaPerson = ADMIN;
        await t.api(`/api/movies/${movieId('mp4')}`, jsonBody('PATCH', { certification: null }));
      }
    });
  });

  describe('closing', () => {
    it('a closing server ends its conversion streams instead of waiting for the TV', async () => {
      // Every segment of this film is on disk by now (the tests above read it whole): without the
      // routes' preClose hook nothing would end this answer but the TV reading on.
      const res = await fetch((await resOf('dts', 'samsung', 'conversion')).url);
      const reader = res.body?.getReader();
      assert.ok(reader);
      await reader.read();
      // The TV reads no more: only the close can end this answer.
      await within(t.close(), 15_000, () => 'the server to close with a conversion stream open');
      assert.equal(t.server.dlnaMedia.streaming(), 0);
      await reader.cancel().catch(() => {});
    });
  });
});
