import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../../../src/errors.ts';
import { BarcodeService } from '../../../../src/services/metadata/barcode.service.ts';
import type {
  MovieCandidate,
  MovieMetadataPort,
  UpcLookupPort,
  UpcProduct,
} from '../../../../src/services/metadata/provider-ports.ts';
import { BARCODES } from '../../../fakes/fixtures.ts';
import { FakeMetadataTables } from '../../../fakes/metadata-repositories.ts';

// BarcodeService on in-memory tables and in-process provider ports (no database, no HTTP): what a
// lookup says, what recording a disc writes (movie reused or created, edition reused, the next free
// slot), and that a refusal inside the transaction leaves nothing written.

const PRODUCTS: Record<string, UpcProduct> = {
  [BARCODES.inceptionBluRay]: product('Inception (Blu-ray) [Blu-ray]'),
  [BARCODES.dune4k]: product('Dune (4K Ultra HD + Blu-ray + Digital)'),
  [BARCODES.alienDvd]: product('Alien (Special Edition) [DVD]', 'Media > DVDs & Videos'),
};

const CANDIDATES: Record<string, MovieCandidate[]> = {
  Inception: [candidate(27205, 'Inception', 2010)],
  Dune: [candidate(438631, 'Dune', 2021), candidate(841, 'Dune', 1984)],
  Alien: [candidate(348, 'Alien', 1979), candidate(8077, 'Alien³', 1992)],
};

function product(title: string, category: string | null = null): UpcProduct {
  return { title, category, brand: null, images: [] };
}

function candidate(tmdbId: number, title: string, year: number): MovieCandidate {
  return { tmdb_id: tmdbId, title, original_title: title, year, poster_path: null, overview: null };
}

/** A failure as the provider clients throw them (ProviderFailure). */
function providerFailure(kind: 'unavailable' | 'invalid_request'): Error {
  return Object.assign(new Error(`upc: ${kind}`), { provider: 'upc', kind });
}

function service(
  tables: FakeMetadataTables,
  options: { upc?: UpcLookupPort; metadata?: MovieMetadataPort | null } = {},
) {
  const lookups: string[] = [];
  const enrichedNow: number[] = [];
  const upc: UpcLookupPort = options.upc ?? {
    lookup: async (code) => {
      lookups.push(code);
      const found = PRODUCTS[code];
      return found === undefined ? { found: false } : { found: true, product: found };
    },
  };
  const metadata: MovieMetadataPort | null =
    options.metadata === undefined
      ? {
          searchMovie: async (query) => CANDIDATES[query] ?? [],
          movieDetails: async () => {
            throw new Error('not asked by the barcode service');
          },
          findByImdbId: async () => null,
        }
      : options.metadata;
  const barcodes = new BarcodeService(
    tables,
    tables.discRecords(),
    { now: () => new Date('2026-02-03T04:05:06.000Z') },
    { get: async (id) => tables.detail(id) },
    upc,
    metadata,
    {
      now: async (movieId) => {
        enrichedNow.push(movieId);
        return [`enriched ${movieId}`];
      },
    },
  );
  return { barcodes, lookups, enrichedNow };
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof AppError, String(err));
    return err;
  }
  assert.fail('expected an AppError');
}

describe('BarcodeService with fake repositories', () => {
  it('a lookup writes nothing: cleaned title, format, edition, candidates, not owned', async () => {
    const tables = new FakeMetadataTables();
    const { barcodes } = service(tables);
    const found = await barcodes.lookup(BARCODES.alienDvd);
    assert.equal(found.barcode, `0${BARCODES.alienDvd}`);
    assert.equal(found.cleaned_title, 'Alien');
    assert.equal(found.format, 'DVD');
    assert.equal(found.edition, 'Special Edition');
    assert.deepEqual(
      found.candidates.map((c) => c.tmdb_id),
      [348, 8077],
    );
    assert.equal(found.owned, false);
    assert.equal(found.owned_movie_id, null);
    assert.deepEqual(tables.t.movies, []);
  });

  it('records a disc: movie from the one candidate, edition, copy in the slot asked for; enriched at once', async () => {
    const tables = new FakeMetadataTables();
    const { barcodes, enrichedNow } = service(tables);
    const created = await barcodes.create(BARCODES.inceptionBluRay, { binder: 'A', slot: '12' });
    assert.equal(created.created_movie, true);
    assert.equal(created.movie.title, 'Inception');
    assert.equal(created.movie.tmdb_id, 27205);
    assert.equal(created.movie.year, 2010);
    assert.deepEqual(created.physical_copy, { id: created.physical_copy.id, binder: 'A', slot: '12' });
    assert.deepEqual(
      created.movie.editions.map((e) => [e.format, e.barcode]),
      [['Blu-ray', `0${BARCODES.inceptionBluRay}`]],
    );
    assert.deepEqual(enrichedNow, [created.movie.id]);
    assert.deepEqual(created.warnings, [`enriched ${created.movie.id}`]);
    const again = await barcodes.lookup(BARCODES.inceptionBluRay);
    assert.equal(again.owned, true);
    assert.equal(again.owned_movie_id, created.movie.id);
  });

  it('takes the next free slot of the binder, the default binder when none is named', async () => {
    const tables = new FakeMetadataTables();
    const { barcodes } = service(tables);
    const binder = await tables.getOrCreateBinder('B', 40, '2026-01-01T00:00:00.000Z');
    const other = tables.addMovie({ title: 'Heat' });
    for (const slot of ['1', '2', '4'])
      await tables.insertCopy({
        movie_id: other.id,
        edition_id: null,
        binder_id: binder.id,
        slot,
        notes: null,
        created_at: '2026-01-01T00:00:00.000Z',
      });
    const alien = await barcodes.create(BARCODES.alienDvd, { binder: 'B' });
    assert.equal(alien.physical_copy.slot, '3');
    const inception = await barcodes.create(BARCODES.inceptionBluRay, {});
    assert.deepEqual([inception.physical_copy.binder, inception.physical_copy.slot], ['Unsorted', '1']);
  });

  it('a known barcode is 409 already_owned; another_copy reuses the movie and the edition', async () => {
    const tables = new FakeMetadataTables();
    const { barcodes } = service(tables);
    const first = await barcodes.create(BARCODES.alienDvd, { binder: 'B', slot: '3' });
    const owned = await refusal(barcodes.create(BARCODES.alienDvd, {}));
    assert.equal(owned.code, 'already_owned');
    assert.equal(owned.status, 409);
    const second = await barcodes.create(BARCODES.alienDvd, { another_copy: true, binder: 'B' });
    assert.equal(second.created_movie, false);
    assert.equal(second.movie.id, first.movie.id);
    assert.equal(second.edition_id, first.edition_id);
    assert.deepEqual(
      second.movie.physical_copies.map((c) => c.slot),
      ['3', '1'],
    );
    assert.equal(tables.t.movies.length, 1);
    assert.equal(tables.t.editions.length, 1);
  });

  it('a movie already in the library by TMDb id is reused, not created again', async () => {
    const tables = new FakeMetadataTables();
    const known = tables.addMovie({ title: 'Inception', tmdb_id: 27205, year: 2010 });
    const { barcodes } = service(tables);
    const created = await barcodes.create(BARCODES.inceptionBluRay, { binder: 'A' });
    assert.equal(created.created_movie, false);
    assert.equal(created.movie.id, known.id);
    assert.equal(tables.t.movies.length, 1);
  });

  it('a slot taken is 409 slot_taken, and the movie and edition made before it are rolled back', async () => {
    const tables = new FakeMetadataTables();
    const { barcodes } = service(tables);
    await barcodes.create(BARCODES.inceptionBluRay, { binder: 'A', slot: '1' });
    const taken = await refusal(barcodes.create(BARCODES.alienDvd, { binder: 'A', slot: '1' }));
    assert.equal(taken.code, 'slot_taken');
    assert.equal(taken.status, 409);
    assert.deepEqual(
      tables.t.movies.map((m) => m.title),
      ['Inception'],
    );
    assert.equal(tables.t.editions.length, 1);
    assert.equal(tables.t.copies.length, 1);
  });

  it('a full binder is 409 binder_full, nothing written', async () => {
    const tables = new FakeMetadataTables();
    const binder = await tables.getOrCreateBinder('Small', 1, '2026-01-01T00:00:00.000Z');
    const { barcodes } = service(tables);
    await barcodes.create(BARCODES.inceptionBluRay, { binder: binder.name });
    const full = await refusal(barcodes.create(BARCODES.alienDvd, { binder: binder.name }));
    assert.equal(full.code, 'binder_full');
    assert.equal(tables.t.movies.length, 1);
  });

  it('several candidates of one title are 409 ambiguous_match; tmdb_id chooses, and must be one of them', async () => {
    const tables = new FakeMetadataTables();
    const { barcodes } = service(tables);
    const ambiguous = await refusal(barcodes.create(BARCODES.dune4k, {}));
    assert.equal(ambiguous.code, 'ambiguous_match');
    assert.equal(tables.t.movies.length, 0);
    const stranger = await refusal(barcodes.create(BARCODES.dune4k, { tmdb_id: 1 }));
    assert.equal(stranger.code, 'validation_failed');
    const chosen = await barcodes.create(BARCODES.dune4k, { tmdb_id: 841 });
    assert.deepEqual([chosen.movie.title, chosen.movie.year], ['Dune', 1984]);
    assert.equal(chosen.movie.editions[0]?.format, '4K UHD');
  });

  it('without TMDb the movie is made from the cleaned disc title', async () => {
    const tables = new FakeMetadataTables();
    const { barcodes } = service(tables, { metadata: null });
    const created = await barcodes.create(BARCODES.alienDvd, {});
    assert.deepEqual([created.movie.title, created.movie.tmdb_id], ['Alien', null]);
  });

  it('a bad code is 400 before any lookup; an unknown one 404; the UPC service failing 502 (400 when it calls the code invalid)', async () => {
    const tables = new FakeMetadataTables();
    const { barcodes, lookups } = service(tables);
    const bad = await refusal(barcodes.lookup(BARCODES.badCheckDigit));
    assert.deepEqual([bad.code, bad.status], ['invalid_barcode', 400]);
    assert.deepEqual(lookups, []);
    const unknown = await refusal(barcodes.create(BARCODES.unknown, {}));
    assert.deepEqual([unknown.code, unknown.status], ['barcode_not_found', 404]);
    for (const [kind, code, status] of [
      ['unavailable', 'upstream_unavailable', 502],
      ['invalid_request', 'invalid_barcode', 400],
    ] as const) {
      const failing = service(tables, {
        upc: {
          lookup: async () => {
            throw providerFailure(kind);
          },
        },
      });
      const err = await refusal(failing.barcodes.create(BARCODES.alienDvd, {}));
      assert.deepEqual([err.code, err.status], [code, status]);
    }
    assert.deepEqual(tables.t.movies, []);
  });
});
