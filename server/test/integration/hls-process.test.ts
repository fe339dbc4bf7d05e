import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { fixtureFfmpeg } from '../helpers/media.ts';
import { scanOneFilm } from '../helpers/scanned-film.ts';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.ts';
import { waitFor } from '../helpers/wait.ts';

const run = promisify(execFile);

/** Pids of processes whose command line mentions `needle` (Linux /proc). */
function processesWith(needle: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      if (cmdline.includes(needle) && cmdline.includes('ffmpeg')) pids.push(Number(name));
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}

describe('HLS conversions and a server killed with SIGKILL', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'reelshelf-hls-proc-'));
  const media = mkdtempSync(join(tmpdir(), 'reelshelf-hls-proc-media-'));
  const token = 'hls-process-test-token-0123456789';
  let server: ServerProcess | null = null;
  after(async () => {
    if (server !== null && server.child.exitCode === null) {
      server.child.kill('SIGKILL');
      await server.exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(media, { recursive: true, force: true });
  });

  it('leaves no ffmpeg running and no half segment that a restarted server would serve', async () => {
    const file = join(media, 'Killed Mid Conversion (2003).mkv');
    const seconds = 40;
    await run(fixtureFfmpeg, [
      ...['-hide_banner', '-loglevel', 'error', '-y'],
      ...['-f', 'lavfi', '-i', `testsrc2=duration=${seconds}:size=640x360:rate=25`],
      ...['-f', 'lavfi', '-i', `sine=frequency=440:duration=${seconds}:sample_rate=48000`],
      ...['-map', '0:v', '-map', '1:a', '-c:v', 'mpeg2video', '-q:v', '4', '-c:a', 'ac3', '-ac', '2', file],
    ]);
    server = await startServerProcess(dataDir, { REELSHELF_API_TOKEN: token });
    const auth = { authorization: `Bearer ${token}` };
    const film = await scanOneFilm(server.url, token, media);
    const fileId = film.fileId;
    assert.equal(film.prediction, 'transcode');
    assert.ok(film.hlsUrl !== null);
    const master = new URL(film.hlsUrl);
    const segmentUrl = (index: number) => {
      const url = new URL(`hls/v/${index}.m4s`, master);
      url.search = master.search;
      return url.toString();
    };
    // A request that starts a conversion; the server dies while ffmpeg writes segments.
    const pending = fetch(segmentUrl(3)).catch(() => null);
    await waitFor(
      () => processesWith(file).length > 0,
      () => 'ffmpeg to start converting',
    );
    server.child.kill('SIGKILL');
    await server.exited;
    await pending;
    await waitFor(
      () => processesWith(file).length === 0,
      () => `ffmpeg to end with its server (still running: ${processesWith(file).join(', ')})`,
      { timeoutMs: 20_000, intervalMs: 50 },
    );

    // A new server on the same data dir serves whole segments only: the film decodes end to end.
    server = await startServerProcess(dataDir, { REELSHELF_API_TOKEN: token });
    const again = (await (
      await fetch(`${server.url}/api/media-file/${fileId}/playback?device=web`, { headers: auth })
    ).json()) as { hls_url: string };
    const url = new URL(again.hls_url, server.url).toString();
    const decoded = await run(fixtureFfmpeg, ['-hide_banner', '-v', 'error', '-i', url, '-f', 'null', '-'], {
      maxBuffer: 16 * 1024 * 1024,
    });
    assert.equal(decoded.stderr.trim(), '', 'ffmpeg decoded the film without an error');
    const probe = await run('ffprobe', [
      '-v',
      'error',
      '-show_entries',
      'format=duration',
      '-of',
      'csv=p=0',
      url,
    ]);
    assert.ok(Math.abs(Number(probe.stdout.trim()) - seconds) < 1, `duration ${probe.stdout.trim()}`);
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0);
    assert.deepEqual(processesWith(file), [], 'no ffmpeg outlived the clean stop either');
  });
});
