// The Jellyfin facade's playback driven by @jellyfin/sdk 1.0.0 with a browser-like H.264/AAC-in-MP4
// DeviceProfile written by hand (the SDK's getBrowserDeviceProfile needs a DOM): a direct MP4 plays as
// the static file with ranges (206, the file's own bytes); an MKV with AC-3 gets a TranscodingUrl to
// reelshelf's HLS that real ffmpeg and mpv decode and seek in; a file nothing plays answers
// NoCompatibleStream with reelshelf's reason — each agreeing with /library for the `web` device.
// A child's token reaches no film above the limit (404); a revoked session's stream, HLS and
// subtitle URLs answer 401 at once.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { Jellyfin } from '@jellyfin/sdk/lib/jellyfin.js';
import type { Api } from '@jellyfin/sdk/lib/api.js';
import { getMediaInfoApi } from '@jellyfin/sdk/lib/utils/api/media-info-api.js';
import { getVideoApi } from '@jellyfin/sdk/lib/utils/api/video-api.js';
import type { LibraryResponse } from '@reelshelf/contract';
import { registerFiles } from '../helpers/library-fixtures.ts';
import { fixtureFfmpeg, makeFixture } from '../helpers/media.ts';
import { ffmpegPoint, matrixProblems, mpvPoints } from '../helpers/player-matrix.ts';
import { jsonBody, startTestServer, type TestServer } from '../helpers/test-server.ts';
import { addPeople, CHILD_KID, MEMBER_ANNA } from '../helpers/household.ts';

const run = promisify(execFile);
const SECONDS = 12;

/** What a browser reports (jellyfin-web's browserDeviceProfile, cut to H.264/AAC in MP4). */
const BROWSER_PROFILE = {
  Name: 'Test browser',
  MaxStreamingBitrate: 120_000_000,
  MaxStaticBitrate: 100_000_000,
  DirectPlayProfiles: [{ Container: 'mp4,m4v', Type: 'Video', VideoCodec: 'h264', AudioCodec: 'aac,mp3' }],
  TranscodingProfiles: [
    {
      Container: 'ts',
      Type: 'Video',
      VideoCodec: 'h264',
      AudioCodec: 'aac',
      Protocol: 'hls',
      Context: 'Streaming',
      MaxAudioChannels: '2',
      MinSegments: 1,
      BreakOnNonKeyFrames: true,
    },
  ],
  ContainerProfiles: [],
  CodecProfiles: [
    {
      Type: 'Video',
      Codec: 'h264',
      Conditions: [
        {
          Condition: 'EqualsAny',
          Property: 'VideoProfile',
          Value: 'high|main|baseline|constrained baseline',
          IsRequired: false,
        },
        { Condition: 'LessThanEqual', Property: 'VideoLevel', Value: '52', IsRequired: false },
        { Condition: 'NotEquals', Property: 'IsInterlaced', Value: 'true', IsRequired: false },
      ],
    },
  ],
  SubtitleProfiles: [
    { Format: 'vtt', Method: 'External' },
    { Format: 'ass', Method: 'External' },
  ],
};

const SRT = `1
00:00:01,000 --> 00:00:03,000
Hello.
`;

interface MediaStream {
  Index: number;
  Type: string;
  Codec?: string;
  Language?: string;
  IsExternal?: boolean;
  DeliveryMethod?: string;
  DeliveryUrl?: string;
}
interface MediaSource {
  Id: string;
  SupportsDirectPlay: boolean;
  SupportsTranscoding: boolean;
  DirectStreamUrl?: string;
  TranscodingUrl?: string;
  TranscodingSubProtocol?: string;
  TranscodeReasons?: string[];
  MediaStreams: MediaStream[];
}
interface PlaybackInfo {
  MediaSources: MediaSource[];
  PlaySessionId: string;
  ErrorCode?: string;
  ErrorMessage?: string;
}

/** The SDK calls used here, typed by hand (docs/jellyfin.md "SDK types": NodeNext loses them). */
interface MediaInfoCalls {
  getPostedPlaybackInfo(request: Record<string, unknown>): Promise<{ data: PlaybackInfo }>;
}
interface VideoCalls {
  getVideoStream(
    request: Record<string, unknown>,
    options: Record<string, unknown>,
  ): Promise<{ status: number; data: ArrayBuffer; headers: Record<string, string> }>;
}

function statusOf(error: unknown): number | undefined {
  return (error as { response?: { status?: number } }).response?.status;
}

describe('jellyfin: playback with @jellyfin/sdk and reelshelf’s decisions', () => {
  let server: TestServer;
  let media: string;
  let files: Record<string, string>;
  let ids: Record<string, { movieId: number; fileId: number }>;
  let anna: Api;
  let kid: Api;
  let annaToken = '';
  let annaUserId = '';
  const jellyfin = new Jellyfin({
    clientInfo: { name: 'Jellyfin Web', version: '10.11.0' },
    deviceInfo: { name: 'Test browser', id: 'browser-1' },
  });

  before(async () => {
    media = mkdtempSync(join(tmpdir(), 'reelshelf-jf-play-'));
    const srt = join(media, 'en.srt');
    writeFileSync(srt, SRT);
    const ac3 = join(media, 'ac3.mkv');
    files = {
      direct: await makeFixture('h264_aac.mp4', join(media, 'direct.mp4'), 4),
      ac3,
      broken: await makeFixture('garbage.mkv', join(media, 'broken.mkv')),
    };
    await run(fixtureFfmpeg, [
      ...['-hide_banner', '-loglevel', 'error', '-y'],
      ...['-f', 'lavfi', '-i', `testsrc2=duration=${SECONDS}:size=320x240:rate=25`],
      ...['-f', 'lavfi', '-i', `sine=frequency=440:duration=${SECONDS}:sample_rate=48000`],
      ...['-i', srt],
      ...['-map', '0:v', '-map', '1:a', '-map', '2:s'],
      ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-g', '50'],
      ...['-c:a', 'ac3', '-ac', '2', '-c:s', 'srt'],
      ...['-metadata:s:a:0', 'language=eng', '-metadata:s:s:0', 'language=eng'],
      ac3,
    ]);
    server = await startTestServer({ REELSHELF_HLS_IDLE_SECONDS: '60' });
    ids = await registerFiles(server.server.database.db, media, files);
    await server.server.services.analysis.analyzePending();
    // The AC-3 film is R: a PG child must not reach it.
    const rating = { direct: 'PG', ac3: 'R', broken: 'PG' } as const;
    for (const [name, certification] of Object.entries(rating)) {
      const set = await server.api(`/api/movies/${ids[name]?.movieId}`, jsonBody('PATCH', { certification }));
      assert.equal(set.status, 200, await set.text());
    }
    await addPeople(server, [MEMBER_ANNA, CHILD_KID]);
    anna = jellyfin.createApi(`${server.url}/jellyfin`);
    const signedIn = await anna.authenticateUserByName('anna', 'correct horse battery');
    annaToken = signedIn.data.AccessToken ?? '';
    annaUserId = signedIn.data.User?.Id ?? '';
    kid = jellyfin.createApi(`${server.url}/jellyfin`);
    await kid.authenticateUserByName('kid', 'kid password 123');
  });
  after(async () => {
    await server?.close();
    if (media !== undefined) rmSync(media, { recursive: true, force: true });
  });

  const itemId = (name: string) =>
    server.server.services.jellyfin.ids.encode('movie', ids[name]?.movieId ?? 0);
  const playbackInfo = async (api: Api, name: string, extra: Record<string, unknown> = {}) =>
    (
      await (getMediaInfoApi(api) as unknown as MediaInfoCalls).getPostedPlaybackInfo({
        itemId: itemId(name),
        ...(api === anna ? { userId: annaUserId } : {}),
        playbackInfoDto: { DeviceProfile: BROWSER_PROFILE, ...extra },
      })
    ).data;

  /** The edition of a film in Anna's /library for the built-in `web` device (Chrome/Firefox). */
  async function webEdition(name: string) {
    // The decision is the file's on the device, whoever asks: read as the admin.
    const listing = (await (await server.api('/library?device=web')).json()) as LibraryResponse;
    const fileId = ids[name]?.fileId;
    const edition = listing.items.flatMap((i) => i.editions).find((e) => e.media_file_id === fileId);
    assert.ok(edition, `${name} is in /library`);
    return edition;
  }

  it('a direct MP4: SupportsDirectPlay, and a Range on the static stream is 206 with the file’s bytes', async () => {
    const info = await playbackInfo(anna, 'direct');
    assert.match(info.PlaySessionId, /^[0-9a-f]{32}$/);
    assert.equal(info.ErrorCode, undefined);
    const source = info.MediaSources[0];
    assert.ok(source);
    assert.equal(source.SupportsDirectPlay, true);
    assert.equal(source.SupportsTranscoding, false);
    assert.equal((await webEdition('direct')).playback_prediction, 'direct', '/library agrees for web');
    const streams = source.MediaStreams.map((s) => `${s.Index}:${s.Type}:${s.Codec}`);
    assert.deepEqual(streams, ['0:Video:h264', '1:Audio:aac']);
    assert.notEqual(
      (await playbackInfo(anna, 'direct')).PlaySessionId,
      info.PlaySessionId,
      'a new PlaySessionId per call',
    );

    const bytes = readFileSync(files.direct ?? '');
    const videos = getVideoApi(anna) as unknown as VideoCalls;
    const ranged = await videos.getVideoStream(
      { itemId: itemId('direct'), _static: true, mediaSourceId: source.Id },
      { responseType: 'arraybuffer', headers: { Range: 'bytes=100-1099' } },
    );
    assert.equal(ranged.status, 206);
    assert.equal(ranged.headers['content-range'], `bytes 100-1099/${bytes.length}`);
    assert.deepEqual(Buffer.from(ranged.data), bytes.subarray(100, 1100));
    // The URL handed to the app plays without headers (its own ApiKey), the container in its name.
    assert.match(
      source.DirectStreamUrl ?? '',
      /^\/Videos\/[0-9a-f]{32}\/stream\.mp4\?static=true&mediaSourceId=/,
    );
    const tail = await fetch(`${server.url}/jellyfin${source.DirectStreamUrl}`, {
      headers: { range: `bytes=${bytes.length - 10}-` },
    });
    assert.equal(tail.status, 206);
    assert.deepEqual(Buffer.from(await tail.arrayBuffer()), bytes.subarray(bytes.length - 10));
  });

  it('an MKV with AC-3: a TranscodingUrl to reelshelf’s HLS that ffmpeg and mpv decode and seek in', async () => {
    const info = await playbackInfo(anna, 'ac3');
    const source = info.MediaSources[0];
    assert.ok(source);
    assert.equal(source.SupportsDirectPlay, false);
    assert.equal(source.SupportsTranscoding, true);
    assert.equal(source.TranscodingSubProtocol, 'hls');
    assert.deepEqual(source.TranscodeReasons, ['AudioCodecNotSupported', 'ContainerNotSupported']);
    const web = await webEdition('ac3');
    assert.ok(
      ['remux', 'adaptive', 'transcode'].includes(web.playback_prediction),
      '/library converts it for web too',
    );
    assert.equal(web.is_playable, true);
    const url = source.TranscodingUrl ?? '';
    assert.match(url, /^\/Videos\/[0-9a-f]{32}\/master\.m3u8\?/, 'relative to the app’s base, no /jellyfin');
    assert.match(url, /ApiKey=/);
    const full = `${server.url}/jellyfin${url}`;
    // Decoded whole by ffmpeg, with no error.
    const { stderr } = await run(fixtureFfmpeg, [
      '-hide_banner',
      '-v',
      'error',
      '-i',
      full,
      '-f',
      'null',
      '-',
    ]);
    assert.equal(stderr.trim(), '');
    // Seeks: ffmpeg at 7 s; mpv from the start, then to 8 s.
    const seek = await ffmpegPoint(full, 7, 1);
    assert.deepEqual(matrixProblems('ffmpeg', [seek], 0.9), []);
    const points = await mpvPoints(full, [0, 8], 1);
    assert.deepEqual(matrixProblems('mpv', points, 0.9), []);
    // The SubRip track is a WebVTT file beside the picture.
    const sub = source.MediaStreams.find((s) => s.Type === 'Subtitle');
    assert.equal(sub?.DeliveryMethod, 'External');
    assert.match(sub?.DeliveryUrl ?? '', /\/Subtitles\/2\/0\/Stream\.vtt\?ApiKey=/);
    const vtt = await fetch(`${server.url}/jellyfin${sub?.DeliveryUrl}`);
    assert.equal(vtt.status, 200);
    assert.match(await vtt.text(), /^WEBVTT[\s\S]*Hello\./);
  });

  it('StartTimeTicks starts the HLS presentation there (EXT-X-START)', async () => {
    const info = await playbackInfo(anna, 'ac3', { StartTimeTicks: 60_000_000 });
    const url = info.MediaSources[0]?.TranscodingUrl ?? '';
    assert.match(url, /StartTimeTicks=60000000/);
    const master = await (await fetch(`${server.url}/jellyfin${url}`)).text();
    assert.match(master, /^#EXTM3U\n#EXT-X-START:TIME-OFFSET=6\.000,PRECISE=YES\n/);
  });

  it('a file nothing plays: NoCompatibleStream with reelshelf’s reason, as /library says', async () => {
    const info = await playbackInfo(anna, 'broken');
    assert.equal(info.ErrorCode, 'NoCompatibleStream');
    const source = info.MediaSources[0];
    assert.equal(source?.SupportsDirectPlay, false);
    assert.equal(source?.SupportsTranscoding, false);
    const web = await webEdition('broken');
    assert.equal(web.is_playable, false);
    const reason = web.compatibility.incompatibility;
    assert.ok(reason);
    assert.ok(info.ErrorMessage?.startsWith(reason.detail), info.ErrorMessage);
    if (reason.hint !== undefined) assert.ok(info.ErrorMessage?.includes(reason.hint));
  });

  it('a child’s token gets neither PlaybackInfo nor a stream of a film above the limit (404)', async () => {
    const kidInfo = getMediaInfoApi(kid) as unknown as MediaInfoCalls;
    await assert.rejects(
      kidInfo.getPostedPlaybackInfo({
        itemId: itemId('ac3'),
        playbackInfoDto: { DeviceProfile: BROWSER_PROFILE },
      }),
      (error) => statusOf(error) === 404,
    );
    const fileId = ids.ac3?.fileId ?? 0;
    const source = server.server.services.jellyfin.ids.encode('media-source', fileId);
    const videos = getVideoApi(kid) as unknown as VideoCalls;
    for (const request of [
      { itemId: itemId('ac3'), _static: true, mediaSourceId: source },
      { itemId: source, _static: true },
    ]) {
      await assert.rejects(
        videos.getVideoStream(request, { responseType: 'arraybuffer', headers: { Range: 'bytes=0-9' } }),
        (error) => statusOf(error) === 404,
      );
    }
    // Anna's HLS URL with the child's token: 404 too.
    const url = (await playbackInfo(anna, 'ac3')).MediaSources[0]?.TranscodingUrl ?? '';
    const kidToken = kid.accessToken;
    const asKid = url.replace(/ApiKey=[^&]+/, `ApiKey=${encodeURIComponent(kidToken)}`);
    assert.equal((await fetch(`${server.url}/jellyfin${asKid}`)).status, 404);
    // Still fine for the film within the limit.
    assert.equal((await playbackInfo(kid, 'direct')).MediaSources[0]?.SupportsDirectPlay, true);
  });

  it('a revoked session ends its stream, HLS and subtitle URLs at once (401)', async () => {
    const other = jellyfin.createApi(`${server.url}/jellyfin`);
    const signedIn = await other.authenticateUserByName('anna', 'correct horse battery');
    const token = signedIn.data.AccessToken ?? '';
    const direct = (await playbackInfo(other, 'direct')).MediaSources[0]?.DirectStreamUrl ?? '';
    const converted = (await playbackInfo(other, 'ac3')).MediaSources[0];
    const master = `${server.url}/jellyfin${converted?.TranscodingUrl ?? ''}`;
    const masterText = await (await fetch(master)).text();
    const media = masterText.split('\n').find((line) => line.startsWith('hls/v/'));
    assert.ok(media, masterText);
    const mediaUrl = new URL(media, master).toString();
    const segmentLine = (await (await fetch(mediaUrl)).text())
      .split('\n')
      .find((l) => /^\d+\.(ts|m4s)\?/.test(l));
    assert.ok(segmentLine);
    const segmentUrl = new URL(segmentLine, mediaUrl).toString();
    const subtitle = `${server.url}/jellyfin${converted?.MediaStreams.find((s) => s.Type === 'Subtitle')?.DeliveryUrl ?? ''}`;
    const urls = [`${server.url}/jellyfin${direct}`, master, mediaUrl, segmentUrl, subtitle];
    for (const url of urls)
      assert.equal((await fetch(url, { headers: { range: 'bytes=0-9' } })).status < 300, true, url);

    const found = await server.server.services.sessions.authenticate(token);
    assert.ok(found);
    await server.server.services.sessions.signOut(found.session.id);
    for (const url of urls) assert.equal((await fetch(url)).status, 401, url);
    // Anna's other session plays on.
    assert.equal((await playbackInfo(anna, 'direct')).MediaSources[0]?.SupportsDirectPlay, true);
    assert.notEqual(token, annaToken);
  });
});
