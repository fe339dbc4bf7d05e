import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { LibraryResponse } from '@reelshelf/contract';
import webvttParser from 'webvtt-parser';
import { checkMasterPlaylist, checkMediaPlaylist } from '../helpers/hls-check.ts';
import { fixtureFfmpeg } from '../helpers/media.ts';
import { ADMIN, jsonBody, startTestServer, type TestServer } from '../helpers/test-server.ts';

const run = promisify(execFile);

const SRT_EN = `1
00:00:01,000 --> 00:00:02,500
Hello there.

2
00:00:04,250 --> 00:00:05,750
General Kenobi.

3
00:00:07,000 --> 00:00:08,000
<i>You are a bold one.</i>
`;
const SRT_FR = `1
00:00:03,000 --> 00:00:04,000
[Parlé en français]
`;
const SRT_DE = `1
00:00:02,000 --> 00:00:03,000
Guten Tag.

2
00:00:06,000 --> 00:00:07,500
Auf Wiedersehen.
`;

function cues(vtt: string): { startTime: number; endTime: number; text: string }[] {
  const tree = new webvttParser.WebVTTParser().parse(vtt, 'subtitles');
  assert.deepEqual(tree.errors, [], `WebVTT errors: ${JSON.stringify(tree.errors)}`);
  return tree.cues.map((c) => ({ startTime: c.startTime, endTime: c.endTime, text: c.text }));
}

describe('HLS: text subtitles as a WebVTT rendition group, subtitle_url on the edition', () => {
  let t: TestServer;
  let media: string;
  let fileId = 0;
  let query = '';

  before(async () => {
    media = mkdtempSync(join(tmpdir(), 'reelshelf-hls-subs-'));
    writeFileSync(join(media, 'en.srt'), SRT_EN);
    writeFileSync(join(media, 'fr.srt'), SRT_FR);
    // H.264 + AC-3 (adaptive on web) with an English SubRip (default) and a forced French SubRip.
    await run(fixtureFfmpeg, [
      ...['-hide_banner', '-loglevel', 'error', '-y'],
      ...['-f', 'lavfi', '-i', 'testsrc2=duration=10:size=320x240:rate=25'],
      ...['-f', 'lavfi', '-i', 'sine=frequency=440:duration=10:sample_rate=48000'],
      ...['-i', join(media, 'en.srt'), '-i', join(media, 'fr.srt')],
      ...['-map', '0:v', '-map', '1:a', '-map', '2:s', '-map', '3:s'],
      ...['-c:v', 'libx264', '-preset', 'ultrafast', '-g', '50', '-c:a', 'ac3', '-c:s', 'srt'],
      ...[
        '-metadata:s:a:0',
        'language=eng',
        '-metadata:s:s:0',
        'language=eng',
        '-metadata:s:s:1',
        'language=fre',
      ],
      ...['-disposition:s:0', 'default', '-disposition:s:1', 'forced'],
      join(media, 'Talking (2004).mkv'),
    ]);
    rmSync(join(media, 'en.srt'));
    rmSync(join(media, 'fr.srt'));
    writeFileSync(join(media, 'Talking (2004).de.srt'), SRT_DE);
    t = await startTestServer();
    const root = (await (await t.api('/api/library-roots', jsonBody('POST', { path: media }))).json()) as {
      id: number;
    };
    const scan = await t.api(`/api/library-roots/${root.id}/scan?wait=true`, { method: 'POST' });
    assert.equal(scan.status, 200);
    const library = (await (await t.api('/library?device=web')).json()) as LibraryResponse;
    fileId = library.items[0]?.editions[0]?.media_file_id ?? 0;
    query = new URLSearchParams({
      device: 'web',
      token: t.server.services.tokens.sign(fileId, 'web', ADMIN),
    }).toString();
  });
  after(async () => {
    await t.close();
    rmSync(media, { recursive: true, force: true });
  });

  it('the edition names the default track (the default-flagged English) as WebVTT', async () => {
    const library = (await (await t.api('/library?device=web')).json()) as LibraryResponse;
    const edition = library.items[0]?.editions[0];
    assert.equal(edition?.playback_prediction, 'adaptive');
    assert.match(
      edition?.subtitle_url ?? '',
      new RegExp(`^/stream/media_file/${fileId}/subtitles/0\\.vtt\\?`),
    );
    const res = await fetch(`${t.url}${edition?.subtitle_url}`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/vtt; charset=utf-8');
    // The container's own times: ffmpeg's muxer may have shifted every stream by a few ms.
    const parsed = cues(await res.text());
    const expected = [
      [1, 2.5],
      [4.25, 5.75],
      [7, 8],
    ];
    assert.equal(parsed.length, expected.length);
    parsed.forEach((c, i) => {
      assert.ok(Math.abs(c.startTime - (expected[i]?.[0] ?? 0)) <= 0.01, `cue ${i} starts at ${c.startTime}`);
      assert.ok(Math.abs(c.endTime - (expected[i]?.[1] ?? 0)) <= 0.01, `cue ${i} ends at ${c.endTime}`);
    });
    assert.equal(parsed[2]?.text, '<i>You are a bold one.</i>');
  });

  it('the playback endpoint lists every track with its URL; the master lists the text tracks as SUBTITLES', async () => {
    const info = (await (await t.api(`/api/media-file/${fileId}/playback?device=web`)).json()) as {
      subtitles: {
        index: number;
        language: string;
        label: string;
        forced: boolean;
        default: boolean;
        url: string;
      }[];
      hls_url: string;
    };
    assert.deepEqual(
      info.subtitles.map((s) => [s.index, s.language, s.label, s.forced, s.default]),
      [
        [0, 'eng', 'English', false, true],
        [1, 'fre', 'French (forced)', true, false],
        [2, 'ger', 'German', false, false],
      ],
    );
    const master = await (await fetch(`${t.url}/stream/media_file/${fileId}/master.m3u8?${query}`)).text();
    checkMasterPlaylist(master);
    const tags = master.split('\n').filter((line) => line.includes('TYPE=SUBTITLES'));
    assert.equal(tags.length, 3);
    assert.match(tags[0] ?? '', /NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,FORCED=NO/);
    assert.match(tags[1] ?? '', /LANGUAGE="fr",DEFAULT=NO,AUTOSELECT=YES,FORCED=YES/);
    assert.match(tags[2] ?? '', /LANGUAGE="de"/);
    assert.match(master, /SUBTITLES="subs"/);
  });

  it('a subtitle rendition is WebVTT segments on the media boundaries, each with the timestamp map, cues as in the source', async () => {
    const base = `${t.url}/stream/media_file/${fileId}/hls`;
    const video = checkMediaPlaylist(await (await fetch(`${base}/v/index.m3u8?${query}`)).text());
    for (const [index, expected] of [
      [0, 3],
      [2, 2],
    ] as const) {
      const playlist = checkMediaPlaylist(
        await (await fetch(`${base}/s${index}/index.m3u8?${query}`)).text(),
      );
      // The same cuts as the picture (VLC stalls its start after a seek on one whole-film segment).
      assert.deepEqual(
        playlist.segments.map((s) => s.duration),
        video.segments.map((s) => s.duration),
      );
      assert.ok(playlist.segments.length > 1);
      const seen = new Map<string, { startTime: number; endTime: number; text: string }>();
      for (let segment = 0; segment < playlist.segments.length; segment++) {
        const res = await fetch(`${base}/s${index}/${segment}.vtt?${query}`);
        assert.equal(res.status, 200);
        const text = await res.text();
        // In the header, right after the signature (Apple's HLS rule); the npm parser knows no header lines.
        assert.match(text, /^WEBVTT[^\n]*\nX-TIMESTAMP-MAP=MPEGTS:900000,LOCAL:00:00:00\.000\n\n/);
        // A cue crossing a boundary is in both segments: counted once.
        for (const cue of cues(text.replace(/^X-TIMESTAMP-MAP=[^\n]*\n/m, ''))) {
          seen.set(`${cue.startTime}-${cue.endTime}-${cue.text}`, cue);
        }
      }
      assert.equal(seen.size, expected);
      const past = await fetch(`${base}/s${index}/${playlist.segments.length}.vtt?${query}`);
      assert.equal(past.status, 404);
    }
    assert.equal((await fetch(`${base}/s9/index.m3u8?${query}`)).status, 404);
  });
});
