import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { LibraryEdition, LibraryResponse } from '@reelshelf/contract';
import { registerFiles } from '../helpers/library-fixtures.ts';
import { makeFixtures } from '../helpers/media.ts';
import { contract, startTestServer, type TestServer } from '../helpers/test-server.ts';

async function editionOf(
  t: TestServer,
  device: string,
  movieId: number,
): Promise<{ body: LibraryResponse; edition: LibraryEdition }> {
  const raw: unknown = await (await t.api(`/library?device=${device}`)).json();
  const check = contract.validate('libraryResponse', raw);
  assert.ok(check.ok, check.ok ? '' : check.errors.join('\n'));
  const body = raw as LibraryResponse;
  const item = body.items.find((i) => i.movie_id === movieId);
  const edition = item?.editions[item.default_edition_index];
  assert.ok(edition);
  return { body, edition };
}

describe('policy, transcoding switch and missing tools', () => {
  let root: string;
  let files: Record<string, string>;
  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'reelshelf-policy-'));
    files = await makeFixtures(root, ['h264_dts.mkv', 'hevc10_hdr10_ac3.mkv', 'h264_aac.mp4']);
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('strict: what needs conversion is strict_incompatible with an adaptive fallback', async () => {
    const t = await startTestServer({ REELSHELF_PLAYBACK_POLICY: 'strict' });
    try {
      const ids = await registerFiles(t.server.database.db, root, files);
      await t.server.services.analysis.analyzePending();
      const dts = (await editionOf(t, 'tv', ids['h264_dts.mkv']?.movieId ?? 0)).edition;
      assert.equal(dts.playback_prediction, 'strict_incompatible');
      assert.equal(dts.playback_status_code, 'incompatible');
      assert.equal(dts.has_adaptive_fallback, true);
      assert.equal(dts.is_playable, false);
      assert.equal(dts.compatibility.incompatibility?.type, 'audio');
      const direct = (await editionOf(t, 'tv', ids['h264_aac.mp4']?.movieId ?? 0)).edition;
      assert.equal(direct.playback_prediction, 'direct');
      const hevcOnWeb = (await editionOf(t, 'web', ids['hevc10_hdr10_ac3.mkv']?.movieId ?? 0)).edition;
      assert.equal(hevcOnWeb.playback_prediction, 'strict_incompatible');
      assert.equal(hevcOnWeb.has_adaptive_fallback, false, 'video conversion is no adaptive-audio fallback');
      assert.equal(hevcOnWeb.compatibility.incompatibility?.type, 'video');
    } finally {
      await t.close();
    }
  });

  it('REELSHELF_TRANSCODE=off: video conversion is impossible, audio conversion still plays', async () => {
    const t = await startTestServer({ REELSHELF_TRANSCODE: 'off' });
    try {
      const ids = await registerFiles(t.server.database.db, root, files);
      await t.server.services.analysis.analyzePending();
      const { body, edition } = await editionOf(t, 'web', ids['hevc10_hdr10_ac3.mkv']?.movieId ?? 0);
      assert.equal(edition.playback_prediction, 'strict_incompatible');
      assert.equal(edition.compatibility.incompatibility?.type, 'video');
      assert.match(edition.compatibility.incompatibility?.hint ?? '', /transcod/i);
      assert.match(body.system_warning ?? '', /REELSHELF_TRANSCODE=off/);
      const dts = (await editionOf(t, 'web', ids['h264_dts.mkv']?.movieId ?? 0)).edition;
      assert.equal(dts.playback_prediction, 'adaptive');
    } finally {
      await t.close();
    }
  });

  it('without ffprobe/ffmpeg the server runs, says so, and files stay not_analyzed', async () => {
    const t = await startTestServer({
      REELSHELF_FFPROBE: 'reelshelf-no-such-ffprobe',
      REELSHELF_FFMPEG: 'reelshelf-no-such-ffmpeg',
    });
    try {
      const ids = await registerFiles(t.server.database.db, root, files);
      const counts = await t.server.services.analysis.analyzePending();
      assert.equal(counts.analyzed, 0);
      const { body, edition } = await editionOf(t, 'web', ids['h264_aac.mp4']?.movieId ?? 0);
      assert.equal(edition.playback_status_code, 'unknown');
      assert.equal(
        body.items.find((i) => i.movie_id === ids['h264_aac.mp4']?.movieId)?.badge,
        'not_analyzed',
      );
      assert.match(body.system_warning ?? '', /ffprobe not found/);
      const health = (await (await t.api('/api/health', { auth: false })).json()) as {
        ffmpeg: { available: boolean };
        warnings: string[];
      };
      assert.equal(health.ffmpeg.available, false);
      assert.ok(health.warnings.some((w) => /ffmpeg not found/.test(w)));
    } finally {
      await t.close();
    }
  });
});
