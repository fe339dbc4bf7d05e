// A conversion whose segments cannot be stored (the data dir's segments area is not writable, or the
// announcement fails: a full disk, the database gone, the session of a frozen owner ended) stops with
// the reason: the player asking for the segment it started at gets a clear 500 ApiError, the server
// goes on serving, and nothing rejects unheard (it once did, from the segment collector's chain:
// an unhandled rejection, which ends a Node process).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { fixtureFfmpeg } from '../helpers/media.ts';
import { scanOneFilm } from '../helpers/scanned-film.ts';
import { startTestServer, type TestServer } from '../helpers/test-server.ts';

const run = promisify(execFile);

describe('HLS: a segment that cannot be stored', { timeout: 120_000 }, () => {
  let media: string;
  let t: TestServer;
  const unheard: unknown[] = [];
  const listen = (reason: unknown) => unheard.push(reason);

  before(async () => {
    process.on('unhandledRejection', listen);
    media = mkdtempSync(join(tmpdir(), 'reelshelf-hls-store-failure-'));
    // MPEG-2 + AC-3: converted for the web device.
    await run(fixtureFfmpeg, [
      ...['-hide_banner', '-loglevel', 'error', '-y'],
      ...['-f', 'lavfi', '-i', 'testsrc2=duration=8:size=320x240:rate=25'],
      ...['-f', 'lavfi', '-i', 'sine=frequency=440:duration=8:sample_rate=48000'],
      ...['-map', '0:v', '-map', '1:a', '-c:v', 'mpeg2video', '-q:v', '5', '-c:a', 'ac3', '-ac', '2'],
      join(media, 'Nowhere To Put It (2003).mkv'),
    ]);
    t = await startTestServer();
  });

  after(async () => {
    process.off('unhandledRejection', listen);
    await t?.close();
    rmSync(media, { recursive: true, force: true });
  });

  it('the run stops with the reason: 500 for its first segment, the server serves on', async () => {
    const film = await scanOneFilm(t.url, t.token, media);
    assert.equal(film.prediction, 'transcode');
    assert.ok(film.hlsUrl !== null);
    // The segments area is a file: no folder can be made in it (whoever the server runs as).
    const area = join(t.dataDir, 'segments');
    rmSync(area, { recursive: true, force: true });
    writeFileSync(area, 'not a folder');

    const url = new URL('hls/v/0.m4s', film.hlsUrl);
    url.search = new URL(film.hlsUrl).search;
    const res = await fetch(url);
    const body = (await res.json()) as { error: string; message: string };
    assert.equal(res.status, 500, JSON.stringify(body));
    assert.equal(typeof body.error, 'string');
    assert.match(body.message, /could not be stored|conversion/i, JSON.stringify(body));
    assert.doesNotMatch(JSON.stringify(body), /\n\s+at /, 'no stack trace');

    const health = await t.api('/api/health');
    assert.equal(health.status, 200);
    await health.arrayBuffer();
    assert.deepEqual(unheard, [], 'nothing rejected unheard');
  });
});
