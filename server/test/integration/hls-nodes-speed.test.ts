// The speed of a conversion a worker makes reaches the api node its player talks to (docs/cluster.md
// "HLS across nodes"): the worker publishes its runs' speed with its heartbeat, so the api node's
// playback answer warns of a conversion slower than real time and its now-playing list shows the
// speed, as a single node does for its own runs. PostgreSQL (several nodes on one database).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { makeConvertedFilm, readRateFfmpeg } from '../helpers/converting-nodes.ts';
import { scanOneFilm } from '../helpers/scanned-film.ts';
import { dropTestDatabase, testDatabaseUrl, testEngine } from '../helpers/test-database.ts';
import { startTestServer, type TestServer } from '../helpers/test-server.ts';
import { waitFor } from '../helpers/wait.ts';

const TOKEN = 'hls-speed-token-0123456789abcdef';

describe(
  'the speed of a worker’s conversion on the api node',
  {
    skip:
      testEngine !== 'postgres' &&
      'several nodes share a PostgreSQL database (REELSHELF_TEST_DATABASE=postgres)',
    timeout: 120_000,
  },
  () => {
    let dataDir: string;
    let media: string;
    let api: TestServer;
    let worker: TestServer;

    before(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'reelshelf-hls-speed-'));
      media = mkdtempSync(join(tmpdir(), 'reelshelf-hls-speed-media-'));
      await makeConvertedFilm(join(media, 'Slow Going (2007).mkv'), 20, { size: '320x240', quality: 5 });
      // The worker's ffmpeg reads at half real time: a machine too slow for the conversion.
      const slowFfmpeg = readRateFfmpeg(dataDir, 0.5);
      const env = {
        REELSHELF_DATA_DIR: dataDir,
        REELSHELF_DATABASE_URL: testDatabaseUrl(dataDir),
        REELSHELF_API_TOKEN: TOKEN,
        REELSHELF_FFMPEG: slowFfmpeg,
        REELSHELF_MAX_CONVERSIONS: '1',
      };
      api = await startTestServer({ ...env, REELSHELF_NODE_ROLE: 'api' }, { hlsSlowWarningMs: 500 });
      worker = await startTestServer({ ...env, REELSHELF_NODE_ROLE: 'worker' }, { hlsSlowWarningMs: 500 });
    });

    after(async () => {
      await api?.close();
      await worker?.close();
      dropTestDatabase(testDatabaseUrl(dataDir));
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(media, { recursive: true, force: true });
    });

    it('the api node warns its player and lists the play with the worker’s speed', async () => {
      const film = await scanOneFilm(api.url, TOKEN, media);
      assert.equal(film.prediction, 'transcode');
      assert.ok(film.hlsUrl !== null);
      const master = new URL(film.hlsUrl);
      // The player asks the api node; the worker converts.
      const first = new URL('hls/v/0.m4s', master);
      first.search = master.search;
      const res = await fetch(first);
      assert.equal(res.status, 200, await res.clone().text());
      await res.arrayBuffer();

      const warned = await waitFor(
        async () => {
          const info = (await (
            await api.api(`/api/media-file/${film.fileId}/playback?device=web`)
          ).json()) as {
            warnings: string[];
          };
          return info.warnings.find((w) => /real time on the server converting it/.test(w)) ?? null;
        },
        () => 'the api node to warn of the worker’s slow conversion',
        { timeoutMs: 30_000, intervalMs: 200 },
      );
      const speed = Number(/runs at ([\d.]+)x/.exec(warned)?.[1]);
      assert.ok(speed > 0 && speed < 1, warned);

      const plays = (await (await api.api('/api/sessions/active')).json()) as {
        items: { media_file_id: number; conversion_speed: number | null }[];
      };
      const play = plays.items.find((p) => p.media_file_id === film.fileId);
      assert.ok(play !== undefined, JSON.stringify(plays));
      assert.ok(
        play.conversion_speed !== null && play.conversion_speed > 0 && play.conversion_speed < 1,
        `the play's conversion speed on the api node: ${play.conversion_speed}`,
      );
    });
  },
);
