import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { LibraryEdition, LibraryMovieItem, LibraryResponse } from '@reelshelf/contract';
import { registerFiles } from '../helpers/library-fixtures.ts';
import { type FixtureName, makeFixtures } from '../helpers/media.ts';
import { contract, startTestServer, type TestServer } from '../helpers/test-server.ts';

const FIXTURES: FixtureName[] = [
  'h264_aac.mp4',
  'h264_dts.mkv',
  'hevc10_hdr10_ac3.mkv',
  'vp9_opus.webm',
  'mpeg2_ac3.mkv',
  'garbage.mkv',
  'truncated.mp4',
];

const DEVICES = ['web', 'safari', 'tv', 'androidtv', 'roku', 'full'] as const;

/** What the device matrix (playback.md §4, and Debian Chromium for `web`) says, per fixture. */
const EXPECTED: Partial<Record<(typeof DEVICES)[number], Partial<Record<FixtureName, string>>>> = {
  web: {
    'h264_aac.mp4': 'direct',
    'h264_dts.mkv': 'adaptive',
    'hevc10_hdr10_ac3.mkv': 'transcode',
    'vp9_opus.webm': 'direct',
    'mpeg2_ac3.mkv': 'transcode',
  },
  tv: {
    'h264_aac.mp4': 'direct',
    'h264_dts.mkv': 'adaptive',
    'hevc10_hdr10_ac3.mkv': 'remux',
    'vp9_opus.webm': 'transcode',
    'mpeg2_ac3.mkv': 'transcode',
  },
  full: {
    'h264_aac.mp4': 'direct',
    'h264_dts.mkv': 'direct',
    'hevc10_hdr10_ac3.mkv': 'direct',
    'vp9_opus.webm': 'direct',
    'mpeg2_ac3.mkv': 'direct',
  },
};

function itemFor(body: LibraryResponse, movieId: number): LibraryMovieItem {
  const item = body.items.find((i) => i.movie_id === movieId);
  assert.ok(item, `movie ${movieId} listed`);
  return item;
}

function firstEdition(item: LibraryMovieItem): LibraryEdition {
  const e = item.editions[item.default_edition_index];
  assert.ok(e, 'default edition exists');
  return e;
}

describe('analysis and playback truth on real generated files', () => {
  let t: TestServer;
  let root: string;
  let ids: Record<string, { movieId: number; fileId: number }>;

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'reelshelf-media-'));
    const files = await makeFixtures(root, FIXTURES);
    t = await startTestServer();
    ids = await registerFiles(t.server.database.db, root, files);
  });
  after(async () => {
    await t.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('lists registered files as not analyzed before analysis, predicting nothing', async () => {
    const body = (await (await t.api('/library?device=web')).json()) as LibraryResponse;
    const item = itemFor(body, ids['h264_aac.mp4']?.movieId ?? 0);
    assert.equal(item.badge, 'not_analyzed');
    const e = firstEdition(item);
    assert.equal(e.playback_status_code, 'unknown');
    assert.equal(e.playback_prediction, 'strict_incompatible');
    assert.equal(e.compatibility.incompatibility?.code, 'not_analyzed');
  });

  it('probes every file and stores capabilities, or the failure with its message', async () => {
    const counts = await t.server.services.analysis.analyzePending();
    assert.deepEqual(counts, { analyzed: 6, failed: 1, missing: 0, skipped: 0 });
    const garbage = await t.server.services.movies.get(ids['garbage.mkv']?.movieId ?? 0);
    assert.equal(garbage.media_files[0]?.analysis_status, 'failed');
    const row = await t.server.database.db
      .selectFrom('media_files')
      .select(['analysis_error', 'capabilities_json'])
      .where('id', '=', ids['garbage.mkv']?.fileId ?? 0)
      .executeTakeFirstOrThrow();
    assert.match(row.analysis_error ?? '', /Invalid data/);
    assert.equal(row.capabilities_json, null, 'a failure is not stored as an empty record');
  });

  it('records real capabilities from ffprobe', async () => {
    const body = (await (await t.api('/library?device=full')).json()) as LibraryResponse;
    const hevc = firstEdition(itemFor(body, ids['hevc10_hdr10_ac3.mkv']?.movieId ?? 0));
    const caps = hevc.capabilities as {
      container: string;
      video: { codec: string; bit_depth: number; hdr: string };
    };
    assert.equal(caps.container, 'mkv');
    assert.equal(caps.video.codec, 'hevc');
    assert.equal(caps.video.bit_depth, 10);
    assert.equal(caps.video.hdr, 'hdr10');
    assert.equal(hevc.hdr_format, 'hdr10');
    assert.equal(hevc.hdr_display_label, 'HDR10');
    assert.equal(hevc.audio_channels, 6);
    assert.equal(hevc.resolution, '320x240');
    assert.equal(hevc.duration_seconds, 2);
    assert.deepEqual(
      hevc.audio_tracks?.map((a) => [a.codec, a.channels, a.language]),
      [['ac3', 6, 'eng']],
    );
    const mpeg2 = firstEdition(itemFor(body, ids['mpeg2_ac3.mkv']?.movieId ?? 0));
    assert.equal((mpeg2.capabilities as { video: { interlaced: boolean } }).video.interlaced, true);
  });

  for (const device of DEVICES) {
    it(`GET /library?device=${device} validates and predicts what the matrix says`, async () => {
      const res = await t.api(`/library?device=${device}`);
      assert.equal(res.status, 200);
      const raw: unknown = await res.json();
      const check = contract.validate('libraryResponse', raw);
      assert.ok(check.ok, check.ok ? '' : check.errors.join('\n'));
      const body = raw as LibraryResponse;
      for (const item of body.items) {
        for (const e of item.editions) {
          // invariants of spec §2.3 / INTERFACE.md
          assert.equal(e.is_playable, e.playback_prediction !== 'strict_incompatible');
          assert.equal(e.compatibility.playable, e.playback_prediction === 'direct');
          assert.equal(e.compatibility.incompatibility === undefined, e.playback_prediction === 'direct');
          if (e.has_adaptive_fallback) assert.equal(e.playback_prediction, 'strict_incompatible');
          assert.match(
            e.stream_url,
            new RegExp(`^/stream/media_file/${e.media_file_id}\\?device=${device}&token=`),
          );
          assert.ok(e.playback_status_primary_text.length > 0);
        }
      }
      for (const [fixture, prediction] of Object.entries(EXPECTED[device] ?? {})) {
        const e = firstEdition(itemFor(body, ids[fixture]?.movieId ?? 0));
        assert.equal(
          e.playback_prediction,
          prediction,
          `${fixture} on ${device}: ${e.playback_status_primary_text} / ${e.playback_status_secondary_text}`,
        );
      }
      const garbage = itemFor(body, ids['garbage.mkv']?.movieId ?? 0);
      assert.equal(garbage.badge, 'analysis_failed');
      assert.equal(firstEdition(garbage).playback_status_code, 'unknown');
      assert.equal(firstEdition(garbage).compatibility.incompatibility?.code, 'probe_failed');
      const truncated = itemFor(body, ids['truncated.mp4']?.movieId ?? 0);
      assert.equal(truncated.badge, 'integrity_flagged');
      assert.equal(firstEdition(truncated).integrity_flagged, true);
      assert.match(body.health_summary ?? '', /^\d+ playable · 2 need review · \d+ not playable$/);
    });
  }

  it('says what happens in words a person understands', async () => {
    const body = (await (await t.api('/library?device=tv')).json()) as LibraryResponse;
    const dts = firstEdition(itemFor(body, ids['h264_dts.mkv']?.movieId ?? 0));
    assert.equal(dts.playback_status_code, 'adaptive');
    assert.equal(dts.needs_adaptive_audio, true);
    assert.match(dts.playback_status_primary_text, /^Converts audio: DTS/);
    assert.equal(dts.compatibility.incompatibility?.type, 'audio');
    const direct = firstEdition(itemFor(body, ids['h264_aac.mp4']?.movieId ?? 0));
    assert.equal(direct.playback_status_primary_text, 'Plays directly');
    assert.equal(direct.playback_status_code, 'direct_play');
  });

  it('lists the device profiles', async () => {
    const body = (await (await t.api('/api/devices')).json()) as { items: { id: string }[] };
    assert.deepEqual(
      body.items.map((d) => d.id),
      [...DEVICES],
    );
  });
});
