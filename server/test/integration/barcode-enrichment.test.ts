import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { LibraryResponse, MovieDetail } from '@reelshelf/contract';
import sharp from 'sharp';
import { BARCODES, type FakeProviders, startFakeProviders } from '../fakes/index.ts';
import { registerFiles } from '../helpers/library-fixtures.ts';
import { makeFixture } from '../helpers/media.ts';
import { contract, jsonBody, startTestServer, type TestServer } from '../helpers/test-server.ts';
import { testDatabaseEnv } from '../helpers/test-database.ts';

interface Created {
  movie: MovieDetail;
  edition_id: number;
  physical_copy: { binder: string; slot: string };
}

describe('barcode scan, enrichment, ratings and artwork against fake providers', () => {
  let fakes: FakeProviders;
  let t: TestServer;

  before(async () => {
    fakes = await startFakeProviders();
    t = await startTestServer(fakes.env);
  });
  after(async () => {
    await t.close();
    await fakes.close();
  });
  beforeEach(() => fakes.reset());

  const scan = (code: string, body: unknown = {}) => t.api(`/api/barcode/${code}`, jsonBody('POST', body));
  const movieCount = async () => ((await (await t.api('/api/movies')).json()) as { total: number }).total;

  it('refuses a bad check digit with 400 invalid_barcode, before any upstream call', async () => {
    for (const code of [BARCODES.badCheckDigit, '12345', 'abc', '9780306406157']) {
      const res = await t.api(`/api/barcode/${code}`);
      assert.equal(res.status, 400, code);
      assert.equal(((await res.json()) as { error: string }).error, 'invalid_barcode');
    }
    assert.equal(fakes.upc.requests.length, 0, 'no upstream call');
  });

  it('a POST with no body at all means "no options", not a validation error', async () => {
    const res = await t.api(`/api/barcode/${BARCODES.unknown}`, { method: 'POST' });
    assert.equal(res.status, 404, 'validated, looked up, and not found');
    const art = await t.api('/api/artwork/fetch', { method: 'POST' });
    assert.equal(art.status, 202);
    const bad = await t.api(`/api/barcode/${BARCODES.unknown}`, jsonBody('POST', { slot: 3 }));
    assert.equal(bad.status, 400, 'a body that is there is still validated');
  });

  it('unknown code → 404 barcode_not_found', async () => {
    const res = await scan(BARCODES.unknown);
    assert.equal(res.status, 404);
    assert.equal(((await res.json()) as { error: string }).error, 'barcode_not_found');
  });

  it('GET looks up without writing: cleaned title, format, edition, candidates', async () => {
    const res = await t.api(`/api/barcode/${BARCODES.alienDvd}`);
    assert.equal(res.status, 200);
    const body = (await res.json()) as {
      cleaned_title: string;
      format: string;
      edition: string;
      candidates: { tmdb_id: number }[];
      owned: boolean;
    };
    assert.equal(body.cleaned_title, 'Alien');
    assert.equal(body.format, 'DVD');
    assert.equal(body.edition, 'Special Edition');
    assert.ok(body.candidates.some((c) => c.tmdb_id === 348));
    assert.equal(body.owned, false);
    assert.equal(await movieCount(), 0);
  });

  it('UPC service down or answering HTML → 502 upstream_unavailable, nothing written', async () => {
    fakes.upc.failNext('server_error', 10);
    const down = await scan(BARCODES.inceptionBluRay);
    assert.equal(down.status, 502);
    assert.equal(((await down.json()) as { error: string }).error, 'upstream_unavailable');
    fakes.reset();
    fakes.upc.failNext('html_200', 10);
    const html = await scan(BARCODES.inceptionBluRay);
    assert.equal(html.status, 502);
    assert.equal(await movieCount(), 0);
  });

  it('a Blu-ray: movie + edition + copy, enriched from TMDb (retried after a 429) and OMDb', async () => {
    fakes.tmdb.failNext('rate_limited', 1, { retryAfter: '1' });
    const res = await scan(BARCODES.inceptionBluRay, { binder: 'A', slot: '12' });
    assert.equal(res.status, 201);
    const created = (await res.json()) as Created;
    assert.equal(created.movie.title, 'Inception');
    assert.equal(created.movie.tmdb_id, 27205);
    assert.deepEqual(created.physical_copy, {
      id: created.physical_copy.binder === 'A' ? (created.physical_copy as { id?: number }).id : 0,
      binder: 'A',
      slot: '12',
    });
    assert.equal(created.movie.editions[0]?.format, 'Blu-ray');
    assert.ok(fakes.tmdb.requests.length >= 2, 'the 429 was retried');
    const detail = (await (await t.api(`/api/movies/${created.movie.id}`)).json()) as MovieDetail;
    assert.equal(detail.imdb_id, 'tt1375666');
    assert.ok((detail.overview ?? '').length > 0);
    assert.ok(detail.directors.includes('Christopher Nolan'));
    assert.ok(detail.cast.length > 0);
    assert.ok(
      detail.ratings.some((r) => r.source === 'Internet Movie Database'),
      'ratings from OMDb',
    );
    assert.ok(detail.ratings.every((r) => r.fetched_at.length > 0));
  });

  it('a 4K UHD combo and a DVD special edition, next free slot, then 409 on a second scan', async () => {
    const dune = (await (await scan(BARCODES.dune4k, { binder: 'A' })).json()) as Created;
    assert.equal(dune.movie.editions[0]?.format, '4K UHD');
    assert.equal(dune.physical_copy.slot, '1', 'the next free slot of binder A');
    const alien = (await (await scan(BARCODES.alienDvd, { binder: 'B', slot: '3' })).json()) as Created;
    assert.equal(alien.movie.editions[0]?.format, 'DVD');
    assert.equal(alien.movie.editions[0]?.label, 'Special Edition');
    const again = await scan(BARCODES.alienDvd);
    assert.equal(again.status, 409);
    assert.equal(((await again.json()) as { error: string }).error, 'already_owned');
    const second = await scan(BARCODES.alienDvd, { another_copy: true, binder: 'B' });
    assert.equal(second.status, 201);
    const secondBody = (await second.json()) as Created;
    assert.equal(secondBody.movie.id, alien.movie.id, 'the movie is reused');
    assert.equal(secondBody.movie.physical_copies.length, 2);
    const clash = await scan(BARCODES.dune4k, { another_copy: true, binder: 'B', slot: '3' });
    assert.equal(clash.status, 409);
    assert.equal(((await clash.json()) as { error: string }).error, 'slot_taken');
  });

  it('/library validates and shows binder/slot, on_disc, cast and director names', async () => {
    const raw: unknown = await (await t.api('/library')).json();
    const check = contract.validate('libraryResponse', raw);
    assert.ok(check.ok, check.ok ? '' : check.errors.join('\n'));
    const inception = (raw as LibraryResponse).items.find((i) => i.title === 'Inception');
    assert.equal(inception?.badge, 'on_disc');
    assert.deepEqual(inception?.physical_copies, [{ binder: 'A', slot: '12', format: 'Blu-ray' }]);
    assert.ok(inception?.director_names?.includes('Christopher Nolan'));
    assert.ok((inception?.cast_names?.length ?? 0) > 0);
  });

  it('OMDb quota: enrichment stops asking for the batch and caches no "no rating"', async () => {
    const ids = ((await (await t.api('/api/movies')).json()) as { items: { id: number }[] }).items.map(
      (m) => m.id,
    );
    await t.server.database.db.deleteFrom('movie_ratings').execute();
    await t.server.database.db.deleteFrom('provider_cache').where('provider', '=', 'omdb').execute();
    fakes.omdb.failNext('quota', 50);
    const jobId = await t.server.services.enrichment.queue(ids);
    assert.ok(jobId !== null);
    const report = await t.server.services.enrichment.waitReport(jobId);
    assert.equal(report?.ratings_stopped, true);
    assert.equal(fakes.omdb.requests.length, 1, 'one refused request, then the batch stopped asking');
    const cached = await t.server.database.db
      .selectFrom('provider_cache')
      .selectAll()
      .where('provider', '=', 'omdb')
      .execute();
    assert.equal(cached.length, 0, 'nothing cached as "no rating"');
    assert.equal((await t.server.database.db.selectFrom('movie_ratings').selectAll().execute()).length, 0);
    fakes.reset();
    const again = await t.server.services.enrichment.queue(ids);
    const second = await t.server.services.enrichment.waitReport(again ?? 0);
    assert.equal(second?.ratings_stopped, true, 'the client waits for the quota to reset (midnight UTC)');
    assert.equal(fakes.omdb.requests.length, 0, 'no call is spent against an exhausted quota');
    assert.equal(second?.enriched, ids.length, 'TMDb enrichment goes on without ratings');
  });

  it('artwork: fetched from the TMDb image base, served with ETag/304, resized', async () => {
    const res = await t.api('/api/artwork/fetch?wait=true', jsonBody('POST', {}));
    assert.equal(res.status, 200);
    const job = (await res.json()) as { report: { downloaded: number; unchanged: number; failed: number } };
    // Scanning a barcode already queued its artwork: this fetch finds it done (or does it now).
    assert.equal(job.report.failed, 0, JSON.stringify(job));
    assert.ok(job.report.downloaded + job.report.unchanged > 0, JSON.stringify(job));
    const lib = (await (await t.api('/library')).json()) as LibraryResponse;
    const inception = lib.items.find((i) => i.title === 'Inception');
    assert.match(inception?.poster_url ?? '', /^\/artwork\/\d+\/poster\?v=/);
    const image = await t.api(inception?.poster_url ?? '');
    assert.equal(image.status, 200);
    assert.match(image.headers.get('content-type') ?? '', /^image\//);
    const etag = image.headers.get('etag') ?? '';
    assert.ok(etag.length > 0);
    assert.match(image.headers.get('cache-control') ?? '', /max-age/);
    const notModified = await t.api(inception?.poster_url ?? '', { headers: { 'if-none-match': etag } });
    assert.equal(notModified.status, 304);
    const small = await t.api(`${inception?.poster_url}&w=120`);
    assert.equal(small.status, 200);
    const meta = await sharp(Buffer.from(await small.arrayBuffer())).metadata();
    assert.ok((meta.width ?? 0) <= 154, `resized to ${meta.width}`);
    const anonymous = await t.api(inception?.poster_url ?? '', { auth: false });
    assert.equal(anonymous.status, 401);
  });

  it('a poster.jpg beside the media wins over a download', async () => {
    const media = mkdtempSync(join(tmpdir(), 'reelshelf-art-'));
    try {
      const clip = await makeFixture('h264_aac.mp4', join(media, 'Heat (1995)', 'Heat (1995).mp4'), 1);
      await sharp({ create: { width: 40, height: 60, channels: 3, background: '#c00' } })
        .jpeg()
        .toFile(join(media, 'Heat (1995)', 'poster.jpg'));
      writeFileSync(join(media, 'Heat (1995)', 'notes.txt'), 'not art');
      const ids = await registerFiles(t.server.database.db, media, { heat: clip });
      const movieId = ids.heat?.movieId ?? 0;
      const res = await t.api('/api/artwork/fetch?wait=true', jsonBody('POST', { movie_ids: [movieId] }));
      const job = (await res.json()) as { report: { local: number } };
      assert.equal(job.report.local, 1);
      const poster = await t.api(`/artwork/${movieId}/poster`);
      assert.equal(poster.status, 200);
      const meta = await sharp(Buffer.from(await poster.arrayBuffer())).metadata();
      assert.equal(meta.width, 40);
    } finally {
      rmSync(media, { recursive: true, force: true });
    }
  });
});

describe('npx reelshelf barcode: a handheld scanner typing codes', () => {
  it('reads codes from stdin, one per line, into the next free slots', async () => {
    const { spawn } = await import('node:child_process');
    const fakes = await startFakeProviders();
    const dataDir = mkdtempSync(join(tmpdir(), 'reelshelf-cli-barcode-'));
    try {
      const child = spawn(process.execPath, ['bin/reelshelf.mjs', 'barcode', '-', '--binder', 'Shelf'], {
        cwd: new URL('../../../', import.meta.url).pathname,
        env: {
          ...process.env,
          ...fakes.env,
          REELSHELF_DATA_DIR: dataDir,
          ...testDatabaseEnv(dataDir),
          REELSHELF_LOG_LEVEL: 'warn',
        },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
      });
      child.stdin.end(`${BARCODES.inceptionBluRay}\n\n${BARCODES.alienDvd}\n${BARCODES.unknown}\n`);
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      assert.equal(code, 1, out);
      assert.match(out, /✓ Inception \(2010\) · Blu-ray → binder Shelf · slot 1/);
      assert.match(out, /✓ Alien \(1979\) · DVD · Special Edition → binder Shelf · slot 2/);
      assert.match(out, /✗ 036000291452: No product is known/);
    } finally {
      await fakes.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
