import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { LibraryResponse } from '@reelshelf/contract';
import { checkMasterPlaylist } from '../helpers/hls-check.ts';
import { fixtureFfmpeg } from '../helpers/media.ts';
import { pgsSup } from '../helpers/pgs.ts';
import { jsonBody, startTestServer, type TestServer } from '../helpers/test-server.ts';

const run = promisify(execFile);

/** H.264 + AAC in MKV (direct on web) with one PGS track: a white 100×40 box at (110, 180) from 0.2 to 1.8 s. */
async function withPgs(
  dir: string,
  name: string,
  disposition: 'forced' | '0',
  codec: 'copy' | 'dvdsub' = 'copy',
): Promise<string> {
  const sup = join(dir, `${name}.sup.tmp`);
  writeFileSync(sup, pgsSup());
  const path = join(dir, name);
  await run(fixtureFfmpeg, [
    ...['-hide_banner', '-loglevel', 'error', '-y'],
    ...['-f', 'lavfi', '-i', 'testsrc2=duration=3:size=320x240:rate=25'],
    ...['-f', 'lavfi', '-i', 'sine=frequency=440:duration=3:sample_rate=48000'],
    ...['-f', 'sup', '-i', sup],
    ...['-map', '0:v', '-map', '1:a', '-map', '2:s'],
    ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-c:s', codec],
    ...[
      '-metadata:s:a:0',
      'language=eng',
      '-metadata:s:s:0',
      'language=eng',
      '-disposition:s:0',
      disposition,
    ],
    path,
  ]);
  rmSync(sup);
  return path;
}

/** Mean luma of the box where the PGS subtitle draws, in the frame at 1.0 s of `url`. */
async function boxLuma(url: string): Promise<number> {
  const { stdout } = await run(
    fixtureFfmpeg,
    [
      // Decoded from the start and picked by time (-ss inside one HLS segment reads it as corrupt).
      ...['-hide_banner', '-v', 'error', '-i', url, '-frames:v', '1'],
      ...['-vf', 'select=gte(t\\,1),crop=100:40:110:180,format=gray', '-f', 'rawvideo', 'pipe:1'],
    ],
    { encoding: 'buffer', maxBuffer: 1024 * 1024 },
  );
  assert.equal(stdout.length, 100 * 40, 'one 100×40 gray frame');
  return stdout.reduce((sum, v) => sum + v, 0) / stdout.length;
}

describe('image subtitles: a forced track is burned in, any track on request', () => {
  let media: string;
  const servers: TestServer[] = [];
  const start = async (env: Record<string, string> = {}) => {
    const t = await startTestServer(env);
    servers.push(t);
    const root = (await (await t.api('/api/library-roots', jsonBody('POST', { path: media }))).json()) as {
      id: number;
    };
    assert.equal(
      (await t.api(`/api/library-roots/${root.id}/scan?wait=true`, { method: 'POST' })).status,
      200,
    );
    const library = (await (await t.api('/library?device=web')).json()) as LibraryResponse;
    const edition = (title: string) => library.items.find((i) => i.title === title)?.editions[0];
    return { t, library, edition };
  };

  before(async () => {
    media = mkdtempSync(join(tmpdir(), 'reelshelf-burn-'));
    await withPgs(media, 'Forced Signs (2006).mkv', 'forced');
    await withPgs(media, 'Optional Signs (2007).mkv', '0');
    // VobSub (DVD) from the same pictures: ffmpeg encodes bitmap subtitles from bitmap ones.
    await withPgs(media, 'Forced Vobsub (2008).mkv', 'forced', 'dvdsub');
  });
  after(async () => {
    for (const t of servers) await t.close();
    rmSync(media, { recursive: true, force: true });
  });

  it('a forced PGS or VobSub track in the audio language: transcode on web, with a subtitle incompatibility', async () => {
    const { edition } = await start();
    const forced = edition('Forced Signs');
    assert.equal(forced?.playback_prediction, 'transcode');
    assert.equal(forced?.compatibility.incompatibility?.type, 'subtitle');
    assert.equal(forced?.compatibility.incompatibility?.code, 'subtitle_image_burn_in_required');
    assert.equal(forced?.subtitle_url, null, 'an image track has no WebVTT');
    const vobsub = edition('Forced Vobsub');
    assert.equal(vobsub?.playback_prediction, 'transcode');
    assert.equal(vobsub?.compatibility.incompatibility?.type, 'subtitle');
    assert.equal(vobsub?.compatibility.incompatibility?.code, 'subtitle_image_burn_in_required');
    // The same file without a forced track plays directly: an optional image track changes nothing.
    assert.equal(edition('Optional Signs')?.playback_prediction, 'direct');
  });

  for (const [label, env] of [
    ['strict', { REELSHELF_PLAYBACK_POLICY: 'strict' }],
    ['transcoding off', { REELSHELF_TRANSCODE: 'off' }],
  ] as const) {
    it(`${label}: not playable, and the stream URL answers 400 with the subtitle incompatibility`, async () => {
      const { t, edition } = await start(env);
      const forced = edition('Forced Signs');
      assert.equal(forced?.is_playable, false);
      assert.equal(forced?.compatibility.incompatibility?.type, 'subtitle');
      const res = await fetch(`${t.url}${forced?.stream_url}`);
      assert.equal(res.status, 400);
      const body = (await res.json()) as { error: string; incompatibility: { type: string; code: string } };
      assert.equal(body.error, 'not_playable');
      assert.equal(body.incompatibility.type, 'subtitle');
      assert.equal(body.incompatibility.code, 'subtitle_image_burn_in_required');
    });
  }

  it('the forced track is drawn into the HLS picture; burn_subtitle draws an optional one on request', async () => {
    const { t, edition } = await start();
    const hlsOf = async (title: string, burn?: number) => {
      const id = edition(title)?.media_file_id ?? 0;
      const info = (await (await t.api(`/api/media-file/${id}/playback?device=web`)).json()) as {
        hls_url: string | null;
        stream_url: string;
      };
      const base = info.hls_url ?? info.stream_url.replace('?', '/master.m3u8?');
      return `${t.url}${base}${burn === undefined ? '' : `&burn_subtitle=${burn}`}`;
    };
    const forcedUrl = await hlsOf('Forced Signs');
    checkMasterPlaylist(await (await fetch(forcedUrl)).text());
    const burned = await boxLuma(forcedUrl);
    assert.ok(burned > 200, `the forced subtitle's white box is in the picture (luma ${burned.toFixed(1)})`);

    const optional = await hlsOf('Optional Signs', 0);
    const master = await (await fetch(optional)).text();
    checkMasterPlaylist(master);
    assert.match(master, /burn_subtitle=0/, 'the playlists carry the choice');
    const onRequest = await boxLuma(optional);
    assert.ok(onRequest > 200, `burned in on request (luma ${onRequest.toFixed(1)})`);
    const plain = await boxLuma(`${t.url}${edition('Optional Signs')?.stream_url}`);
    assert.ok(
      plain < onRequest - 30,
      `without the request the picture is the film's own (luma ${plain.toFixed(1)})`,
    );
    // A track that does not exist is a 404, not a conversion.
    assert.equal((await fetch(await hlsOf('Optional Signs', 7))).status, 404);
  });
});
