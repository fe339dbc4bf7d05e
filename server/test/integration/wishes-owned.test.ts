// Issue 27 item 5, stop 31: a wish ends whenever its film becomes owned, in the transaction of the
// write that made it owned (docs/collector.md "Wish list"), on the engine under test (SQLite, or
// PostgreSQL with REELSHELF_TEST_DATABASE=postgres): a library scan of generated files named for the
// film (and enrichment by the faked TMDb identifying a file whose name does not say which film it
// is), a file back from missing, POST /api/movies with a disc, a copy added to a listed movie, an
// owned movie edited into a wished film. Wishes of films not made owned stay every time.
import assert from 'node:assert/strict';
import { mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Wish, WishList } from '@reelshelf/contract';
import { BARCODES, type FakeProviders, startFakeProviders } from '../fakes/index.ts';
import { makeFixture } from '../helpers/media.ts';
import { jsonBody, readJson, startTestServer, type TestServer } from '../helpers/test-server.ts';
import { waitFor } from '../helpers/wait.ts';

let t: TestServer;
let fakes: FakeProviders;
let root: string;
let outside: string;

const wish = async (body: unknown) => readJson<Wish>(await t.api('/api/wishes', jsonBody('POST', body)), 201);
/** The wish list as `title year` lines, in its order. */
const wished = async () =>
  (await readJson<WishList>(await t.api('/api/wishes'))).items.map((w) => `${w.title} ${w.year}`);
const clear = async () => {
  for (const w of (await readJson<WishList>(await t.api('/api/wishes'))).items) {
    assert.equal((await t.api(`/api/wishes/${w.id}`, { method: 'DELETE' })).status, 204);
  }
};

async function scan(rootId: number): Promise<Record<string, number>> {
  const res = await readJson<{ status: string; counts: Record<string, number> }>(
    await t.api(`/api/library-roots/${rootId}/scan?wait=true`, { method: 'POST' }),
  );
  assert.equal(res.status, 'committed');
  return res.counts;
}

describe('a wish ends whenever its film becomes owned', () => {
  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'reelshelf-wish-owned-'));
    outside = mkdtempSync(join(tmpdir(), 'reelshelf-wish-away-'));
    // Heat is unknown to the faked TMDb: only the scan's own match can end its wish. alien.mp4 says
    // no year: the scan's movie is "alien" until enrichment finds TMDb's Alien (1979) for it.
    await Promise.all([
      makeFixture('h264_aac.mp4', join(root, 'Heat (1995)', 'Heat (1995).mp4'), 1),
      makeFixture('h264_aac.mp4', join(root, 'alien.mp4'), 2),
    ]);
    fakes = await startFakeProviders();
    t = await startTestServer(fakes.env);
  });
  after(async () => {
    await t.close();
    await fakes.close();
    rmSync(root, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  it('a scan ends the wish of a file named for the film; enrichment ends the one it identifies', async () => {
    await wish({ title: 'Heat', year: 1995 });
    await wish({ tmdb_id: 348 }); // Alien (1979), titled by the faked TMDb
    await wish({ title: 'Heat', year: 1986 }); // another film: stays
    await wish({ tmdb_id: 438631 }); // Dune: stays
    const { id: rootId } = await readJson<{ id: number }>(
      await t.api('/api/library-roots', jsonBody('POST', { path: root })),
      201,
    );
    assert.equal((await scan(rootId)).new, 2);
    // Heat (1995) went with the scan's commit (the faked TMDb does not know Heat: enrichment cannot
    // have done it); Alien waits for enrichment (the file's movie is "alien", no year, no id yet).
    const afterScan = await wished();
    assert.ok(!afterScan.includes('Heat 1995'), afterScan.join(', '));
    assert.ok(afterScan.includes('Heat 1986') && afterScan.includes('Dune 2021'), afterScan.join(', '));
    const job = await waitFor(
      async () =>
        (await readJson<{ items: { id: number }[] }>(await t.api('/api/jobs?kind=enrich'))).items[0],
      () => 'the enrichment job of the scanned movies',
    );
    const report = await t.server.services.enrichment.waitReport(job.id);
    assert.equal(report?.enriched, 1, JSON.stringify(report));
    assert.deepEqual(await wished(), ['Dune 2021', 'Heat 1986']);
    const movies = await readJson<{
      items: { title: string; year: number | null; tmdb_id: number | null }[];
    }>(await t.api('/api/movies'));
    assert.ok(
      movies.items.some((m) => m.tmdb_id === 348 && m.year === 1979),
      'enrichment identified alien.mp4',
    );

    // Heat's file goes away (the wish may come back: the film is not owned), then comes back.
    renameSync(join(root, 'Heat (1995)', 'Heat (1995).mp4'), join(outside, 'Heat (1995).mp4'));
    assert.equal((await scan(rootId)).missing, 1);
    await wish({ title: 'Heat', year: 1995 });
    renameSync(join(outside, 'Heat (1995).mp4'), join(root, 'Heat (1995)', 'Heat (1995).mp4'));
    const back = await scan(rootId);
    assert.equal(back.new, 0, 'the same file, found again');
    assert.deepEqual(await wished(), ['Dune 2021', 'Heat 1986']);
    // A rescan that finds nothing new ends nothing.
    await scan(rootId);
    assert.deepEqual(await wished(), ['Dune 2021', 'Heat 1986']);
    await clear();
  });

  it('POST /api/movies with a disc ends the wish; without one the movie is only listed', async () => {
    await wish({ title: 'Paris, Texas', year: 1984 });
    await wish({ title: 'Wings of Desire', year: 1987 });
    await readJson(
      await t.api(
        '/api/movies',
        jsonBody('POST', {
          title: 'Paris, Texas',
          year: 1984,
          physical_copies: [{ binder: 'O', slot: '1' }],
        }),
      ),
      201,
    );
    await readJson(
      await t.api('/api/movies', jsonBody('POST', { title: 'Wings of Desire', year: 1987 })),
      201,
    );
    assert.deepEqual(await wished(), ['Wings of Desire 1987']);
    // The same title and year under another TMDb id is another film (a remake): the wish stays.
    await wish({ tmdb_id: 603 }); // The Matrix (1999)
    await readJson(
      await t.api(
        '/api/movies',
        jsonBody('POST', {
          title: 'The Matrix',
          year: 1999,
          tmdb_id: 999_001,
          physical_copies: [{ binder: 'O', slot: '5' }],
        }),
      ),
      201,
    );
    assert.deepEqual(await wished(), ['The Matrix 1999', 'Wings of Desire 1987']);
    await clear();
  });

  it('a copy added to a listed movie (a barcode scan of it) ends the wish', async () => {
    const listed = await readJson<{ id: number }>(
      await t.api('/api/movies', jsonBody('POST', { title: 'Inception', year: 2010, tmdb_id: 27205 })),
      201,
    );
    await wish({ tmdb_id: 27205 }); // not owned: only listed
    await wish({ title: 'Heat', year: 1986 });
    const scanned = await readJson<{ created_movie: boolean; from_wish: boolean; movie: { id: number } }>(
      await t.api(`/api/barcode/${BARCODES.inceptionBluRay}`, jsonBody('POST', { binder: 'O', slot: '2' })),
      201,
    );
    assert.deepEqual([scanned.created_movie, scanned.from_wish, scanned.movie.id], [false, true, listed.id]);
    assert.deepEqual(await wished(), ['Heat 1986']);
    await clear();
  });

  it('an owned movie edited into a wished film ends the wish; a listed one does not', async () => {
    const disc = await readJson<{ id: number }>(
      await t.api(
        '/api/movies',
        jsonBody('POST', { title: 'Unlabelled disc', physical_copies: [{ binder: 'O', slot: '3' }] }),
      ),
      201,
    );
    const listed = await readJson<{ id: number }>(
      await t.api('/api/movies', jsonBody('POST', { title: 'Unlabelled listing' })),
      201,
    );
    await wish({ title: 'Stalker', year: 1979 });
    await wish({ title: 'Solaris', year: 1972 });
    await readJson(
      await t.api(`/api/movies/${disc.id}`, jsonBody('PATCH', { title: 'Stalker', year: 1979 })),
    );
    await readJson(
      await t.api(`/api/movies/${listed.id}`, jsonBody('PATCH', { title: 'Solaris', year: 1972 })),
    );
    assert.deepEqual(await wished(), ['Solaris 1972']);
    await clear();
  });
});
